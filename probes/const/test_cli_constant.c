/*
 * test_cli_constant.c - the command line of the constant and texture
 * probes: runs the built memprobe binary (env MEMPROBE, default
 * ./memprobe) without a shell, in a fresh temporary working directory, and
 * checks exit status, stdout and stderr.
 *
 * Bad input (a table, one cmocka test per line): exit 2, exactly one
 * stderr line that names the parameter, nothing on stdout, no results/.
 * Then `predict const` / `predict texture` output against the models, and
 * the no-GPU path (exit 3, prediction printed), skipped where an NVIDIA
 * device node exists.
 */
#include "cli_util.h"

#include <string.h>

/* ---- bad input: exit 2, one stderr line naming the parameter --------- */

static const cli_bad_case bad_cases[] = {
    /* --spread outside 1..32. */
    {{"const", "--spread", "0"}, "--spread"},
    {{"const", "--spread", "33"}, "--spread"},
    /* 31 x 2060 + 4 + 1792 = 65656 > 65536. */
    {{"const", "--spread", "32", "--spacing", "2060"}, "--spacing"},
    /* 1 x 65536 + 4 + 1792: the second address is past the bank. */
    {{"const", "--spread", "2", "--spacing", "65536"}, "--spacing"},
    /* 16 x 4096 + 4 + 1792 > 65536. */
    {{"const", "--spread", "17", "--spacing", "4096"}, "--spacing"},
    /* One bad value in a sweep refuses the whole sweep. */
    {{"const", "--spread", "1..32", "--spacing", "4,4096"}, "--spacing"},
    {{"const", "--spacing", "6"}, "--spacing"},
    {{"const", "--spacing", "130"}, "--spacing"},
    {{"const", "--spacing", "0"}, "--spacing"},
    {{"const", "--spacing", "65540"}, "--spacing"},
    {{"const", "--spread", "abc"}, "--spread"},
    {{"const", "--spread", "1,,2"}, "--spread"},
    {{"const", "--source", "shared"}, "--source"},
    {{"const", "--source", "texture"}, "--source"},
    /* 8 addresses x 8 lanes = 64 lanes. */
    {{"const", "--spread", "8", "--group", "8"}, "--group"},
    /* Period 32 / group 4 gives 8 addresses, not 9. */
    {{"const", "--spread", "9", "--period", "32"}, "--period"},
    {{"const", "--spread", "2", "--group", "16", "--period", "2"},
     "--group"},
    {{"const", "--group", "33"}, "--group"},
    {{"const", "--iterations", "12"}, "--iterations"},
    {{"const", "--iterations", "0"}, "--iterations"},
    {{"const", "--threads", "48"}, "--threads"},
    {{"const", "--stride", "4"}, "--stride"},
    {{"predict", "const", "--spread", "0"}, "--spread"},
    {{"predict", "const", "--spread", "32", "--spacing", "4096"},
     "--spacing"},
    {{"predict", "const", "--spacing", "2"}, "--spacing"},
    {{"texture", "--source", "tex3d"}, "--source"},
    {{"texture", "--source", "constant"}, "--source"},
    {{"texture", "--access", "diagonal"}, "--access"},
    {{"texture", "--access", "stencil,bogus"}, "--access"},
    {{"texture", "--size", "100"}, "--size"},
    {{"texture", "--size", "16"}, "--size"},
    {{"texture", "--size", "16384"}, "--size"},
    {{"texture", "--size", "-32"}, "--size"},
    {{"texture", "--spread", "2"}, "--spread"},
    {{"predict", "texture", "--access", "xx"}, "--access"},
    {{"predict", "texture", "--size", "33"}, "--size"},
};

/* ---- predict ------------------------------------------------------------ */

/* The brief's command: header and one row, values by hand. */
static void test_predict_const_spread8(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--spread", "8", "--format",
                          "csv", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    assert_int_equal(r.errlen, 0);
    assert_int_equal(cli_count_char(r.out, '\n'), 2);
    assert_int_equal(cli_count_char(r.out, '\r'), 2);
    /* Parameters (source, spread, spacing, group, period; 0 = derived),
     * then: 8 distinct addresses, 7 replays, 1 64-byte line (bytes 0..28),
     * 8 half-warp reads, 4 lanes per address, period 32, footprint 28 + 4
     * + 1792 = 1824. */
    assert_string_equal(r.out,
        "probe,source,spread,spacing,group,period,distinct_addresses,"
        "replays_per_request,distinct_64b_lines,seed_halfwarp_reads,"
        "lanes_per_address,lanes_period,footprint_bytes\r\n"
        "const,constant,8,4,0,0,8,7,1,8,4,32,1824\r\n");
    cli_result_free(&r);
}

/* The GPU sweep's 96 configurations: one row each, in order (spread
 * slower than spacing), distinct = spread, replays = spread - 1, and the
 * lines as in test_const_model.c. */
static void test_predict_const_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--spread", "1..32",
                          "--spacing", "4,64,128", "--format", "csv", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    char *h[32], *v[32];
    int nh = cli_csv_header(r.out, 96, h, 32);
    int c_spread = cli_column(h, nh, "spread");
    int c_sp = cli_column(h, nh, "spacing");
    int c_d = cli_column(h, nh, "distinct_addresses");
    int c_r = cli_column(h, nh, "replays_per_request");
    int c_l = cli_column(h, nh, "distinct_64b_lines");
    static const int spacings[] = {4, 64, 128};
    for (int i = 0; i < 96; i++) {
        cli_csv_next(v, 32, nh);
        int s = 1 + i / 3, sp = spacings[i % 3];
        assert_true(cli_number(v[c_spread]) == s);
        assert_true(cli_number(v[c_sp]) == sp);
        assert_true(cli_number(v[c_d]) == s);
        assert_true(cli_number(v[c_r]) == s - 1);
        int lines = sp >= 64 ? s : (sp * (s - 1)) / 64 + 1;
        assert_true(cli_number(v[c_l]) == lines);
    }
    cli_result_free(&r);
}

/* Global and __ldg loads do not go through the IDC: 0 replays. */
static void test_predict_const_sources(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--source",
                          "constant,global,ldg", "--spread", "32",
                          "--format", "csv", NULL};
    cli_run_expect(args, -1,
                   "\r\nconst,constant,32,4,0,0,32,31,",
                   "\r\nconst,global,32,4,0,0,32,0,",
                   "\r\nconst,ldg,32,4,0,0,32,0,",
                   NULL);
}

/* Explicit interleaved lanes: the seeds' half-warp count doubles. */
static void test_predict_const_interleaved(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--spread", "16", "--group",
                          "1", "--period", "16", "--format", "csv", NULL};
    cli_run_expect(args, -1,
                   /* 16 addresses, 15 replays, bytes 0..60 on one line, 16 +
                    * 16 half-warp reads, g1/p16, footprint 60 + 4 + 1792 =
                    * 1856. */
                   "\r\nconst,constant,16,4,1,16,16,15,1,32,1,16,1856\r\n",
                   NULL);
}

/* predict texture: the linear-layout model for each access. */
static void test_predict_texture(void **state)
{
    (void)state;
    const char *args[] = {"predict", "texture", "--source", "global,tex2d",
                          "--access", "stencil,column,row", "--size",
                          "4096", "--format", "csv", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    assert_int_equal(r.errlen, 0);
    /* requests: stencil 5 x 4096^2 / 32 = 2621440, walks 524288;
     * sectors per request 2814 / 640 = 4.396875 (exact in binary, so
     * %.6g rounds the tie to even: 4.39687),
     * 32, 4; ideal 4; 4096^2 x 4 bytes = 67108864. */
    assert_string_equal(r.out,
        "probe,source,access,size,requests,linear_sectors_per_request,"
        "ideal_sectors_per_request,array_bytes\r\n"
        "texture,global,stencil,4096,2621440,4.396875,4,67108864\r\n"
        "texture,global,column,4096,524288,32,4,67108864\r\n"
        "texture,global,row,4096,524288,4,4,67108864\r\n"
        "texture,tex2d,stencil,4096,2621440,4.396875,4,67108864\r\n"
        "texture,tex2d,column,4096,524288,32,4,67108864\r\n"
        "texture,tex2d,row,4096,524288,4,4,67108864\r\n");
    cli_result_free(&r);
}

static void test_list_and_help(void **state)
{
    (void)state;
    const char *list[] = {"list", NULL};
    cli_run_expect(list, -1,
                   "const - ",
                   "--spacing",
                   "constant|global|ldg",
                   "texture - ",
                   "tex1d|tex2d|global|ldg",
                   "stencil|column|row",
                   NULL);
    const char *help[] = {"const", "--help", NULL};
    cli_run_expect(help, -1,
                   "usage: memprobe const",
                   "--spread",
                   NULL);
    const char *thelp[] = {"predict", "texture", "--help", NULL};
    cli_run_expect(thelp, -1,
                   "usage: memprobe predict texture",
                   "--access",
                   NULL);
}

/* ---- no GPU -------------------------------------------------------------- */

static void no_gpu(const char *probe, const char *name, const char *value,
                   const char *needle)
{
    const char *args[] = {probe, name, value, "-o", "out.csv", NULL};
    cli_expect_no_gpu_nothing_written(args, needle, NULL);
}

static void test_no_gpu(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    no_gpu("const", "--spread", "8", "replays_per_request");
    no_gpu("texture", "--access", "column", "linear_sectors_per_request");
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_const_spread8),
        cmocka_unit_test(test_predict_const_sweep),
        cmocka_unit_test(test_predict_const_sources),
        cmocka_unit_test(test_predict_const_interleaved),
        cmocka_unit_test(test_predict_texture),
        cmocka_unit_test(test_list_and_help),
        cmocka_unit_test(test_no_gpu),
    };
    return CLI_RUN_BAD("cli_constant_texture", bad_cases, fixed);
}
