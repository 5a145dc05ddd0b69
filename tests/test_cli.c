/*
 * test_cli.c - runs the built memprobe binary (env MEMPROBE, default
 * ./memprobe) without a shell and checks exit status, stdout and stderr.
 *
 * Each case is one line in a table below; every line becomes its own
 * cmocka test named after the command. The tests run in a fresh temporary
 * working directory, so a command that wrongly starts measuring cannot
 * leave results/ in the repository.
 *
 * The no-GPU cases (exit 3) are skipped when the machine has an NVIDIA
 * device node: there the same commands would measure.
 */
#include "cli_util.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bank_model.h"
#include "device.h"
#include "pattern.h"
#include "row.h"

static char repo[PATH_MAX];   /* the repository: where make test runs */

/* ---- table 1: commands that work: exit 0, stdout contains each ------ */

static const cli_ok_case good_cases[] = {
    {{"--version"}, {"memprobe "}},
    {{"version"}, {"memprobe "}},
    {{"help"}, {"usage: memprobe", "bank", "Exit status"}},
    {{"--help"}, {"usage: memprobe", "predict"}},
    {{"list"}, {"bank", "stride", "4|8|16"}},
    {{"columns"}, {"time_ns_median", "wavefronts_per_request"}},
    {{"predict", "bank", "--stride", "4"}, {"wavefronts_per_request"}},
    {{"predict", "bank", "--stride=4", "--op=st"}, {" st "}},
    {{"bank", "--help"}, {"usage: memprobe bank", "--stride", "-o"}},
    {{"bank", "-h"}, {"usage: memprobe bank"}},
    {{"predict", "bank", "--help"}, {"usage: memprobe predict bank",
                                     "--format"}},
    {{"predict", "--help"}, {"usage: memprobe predict"}},
    {{"device", "--help"}, {"usage: memprobe device"}},
    {{"list", "--help"}, {"usage: memprobe list"}},
    {{"columns", "--help"}, {"usage: memprobe columns"}},
};

/* ---- table 2: bad input: exit 2, one stderr line naming it ---------- */

static const cli_bad_case bad_cases[] = {
    {{"bank", "--stride", "abc"}, "--stride"},
    {{"bank", "--stride", "-1"}, "--stride"},
    {{"bank", "--width", "12"}, "--width"},
    {{"bank", "--op", "xx"}, "--op"},
    {{"bank", "--stride", "99999999999999999999"}, "--stride"},
    {{"bank", "--threads", "48"}, "--threads"},
    {{"bank", "--pad", "1", "--stride", "0"}, "--pad"},
    {{"bank", "--stride", "4096", "--width", "16"}, "--stride"},
    {{"bank", "--bogus", "1"}, "--bogus"},
    {{"bank", "--stride"}, "--stride"},
    {{"bank", "--stride", "4", "--stride", "5"}, "--stride"},
    {{"bank", "--runs", "-1"}, "--runs"},
    {{"bank", "--counters", "maybe"}, "--counters"},
    {{"predict", "nosuchprobe"}, "nosuchprobe"},
    {{"nosuchcommand"}, "nosuchcommand"},
    {{"bank", "-o", ""}, "--output"},
    /* More of the same contract. */
    {{"bank", "--stride=abc"}, "--stride"},
    {{"bank", "--stride", "4", "--stride=5"}, "--stride"},
    {{"bank", "--stride", "5..1"}, "--stride"},
    {{"bank", "--stride", "1,,2"}, "--stride"},
    {{"bank", "--width", "4,12"}, "--width"},
    {{"bank", "--group", "0"}, "--group"},
    {{"bank", "--warmup", "1001"}, "--warmup"},
    {{"bank", "--runs", "1", "--runs", "2"}, "--runs"},
    {{"bank", "-o"}, "--output"},
    {{"bank", "-o", "a.csv", "--output", "b.csv"}, "--output"},
    {{"bank", "stray"}, "stray"},
    {{"bank", "--threads", "64", "--threads", "64"}, "--threads"},
    {{"bank", "--base", "65535", "--width", "16"}, "--base"},
    {{"predict", "bank", "--format", "xml"}, "--format"},
    {{"predict", "bank", "--runs", "5"}, "--runs"},
    {{"predict", "bank", "-o", "x.csv"}, "-o"},
    /* Repeated like any other option: refused with "given twice". */
    {{"predict", "bank", "--format", "csv", "--format", "txt"}, "--format"},
    {{"device", "--device", "-1"}, "--device"},
    {{"device", "--bogus"}, "--bogus"},
    {{"list", "extra"}, "extra"},
    {{"columns", "extra"}, "extra"},
};

/* ---- predict --format csv against the model ------------------------- */

typedef struct {
    const char *op;
    const char *width, *stride, *base, *group, *period, *pad;
} predict_case;

static const predict_case predict_cases[] = {
    {"ld", "8", "3", "0", "1", "32", "0"},     /* the case of the brief */
    {"ld", "4", "16", "0", "1", "32", "0"},
    {"ld", "4", "16", "0", "1", "32", "1"},
    {"st", "16", "0", "0", "1", "32", "0"},
    {"ld", "8", "1", "0", "2", "32", "0"},
    {"st", "8", "2", "5", "2", "16", "0"},
    {"ld", "16", "7", "3", "4", "32", "2"},
};

static void check_predict_csv(const predict_case *pc)
{
    const char *args[] = {"predict", "bank", "--op", pc->op, "--width",
                          pc->width, "--stride", pc->stride, "--base",
                          pc->base, "--group", pc->group, "--period",
                          pc->period, "--pad", pc->pad, "--format", "csv",
                          NULL};
    cli_csv_row c;
    cli_predict_row(args, "bank", &c);
    assert_string_equal(cli_csv_text(&c, "op"), pc->op);
    assert_string_equal(cli_csv_text(&c, "width"), pc->width);
    assert_string_equal(cli_csv_text(&c, "stride"), pc->stride);
    assert_string_equal(cli_csv_text(&c, "base"), pc->base);
    assert_string_equal(cli_csv_text(&c, "group"), pc->group);
    assert_string_equal(cli_csv_text(&c, "period"), pc->period);
    assert_string_equal(cli_csv_text(&c, "pad"), pc->pad);

    mp_pattern p = {atoll(pc->base), atoll(pc->stride), atoll(pc->group),
                    atoll(pc->period), atoll(pc->pad)};
    mp_bank_prediction b;
    mp_bank_predict_pattern(&p, atoi(pc->width), !strcmp(pc->op, "st"), &b);
    print_message("# %s w%s s%s b%s g%s p%s pad%s: model %d/%d\n", pc->op,
                  pc->width, pc->stride, pc->base, pc->group, pc->period,
                  pc->pad, b.wavefronts, b.ideal);
    assert_true(cli_csv_number(&c, "wavefronts_per_request") == b.wavefronts);
    assert_true(cli_csv_number(&c, "ideal_wavefronts_per_request")
                == b.ideal);
    double ways = cli_csv_number(&c, "conflict_ways");
    assert_true(fabs(ways - b.conflict_ways) <= 1e-5 * b.conflict_ways);
    assert_true(cli_csv_number(&c, "distinct_words") == b.distinct_words);
    assert_true(cli_csv_number(&c, "max_words_per_bank")
                == b.max_words_per_bank);
    cli_result_free(&c.r);
}

static void test_predict_csv_matches_model(void **state)
{
    (void)state;
    /* The brief's exact command line first. */
    const char *args[] = {"predict", "bank", "--op", "ld", "--width", "8",
                          "--stride", "3", "--format", "csv", NULL};
    cli_result r;
    cli_run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(cli_count_char(r.out, '\n'), 2);
    cli_must_contain("header", r.out, ",wavefronts_per_request,");
    cli_must_contain("header", r.out, ",ideal_wavefronts_per_request,");
    cli_must_contain("header", r.out, ",conflict_ways,");
    /* Hand check: 8-byte lds stride 3 -> 2 wavefronts, ideal 2, 1-way. */
    cli_must_contain("row", r.out, "\r\nbank,ld,8,3,0,1,32,0,lane,16,16,4,0,16,plain,none,none,2,2,1,");
    cli_result_free(&r);

    for (size_t i = 0; i < sizeof predict_cases / sizeof predict_cases[0];
         i++)
        check_predict_csv(&predict_cases[i]);
}

/* A sweep: one row per configuration, op slowest. */
static void test_predict_csv_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "bank", "--op", "ld,st", "--stride",
                          "0..2", "--format", "csv", NULL};
    cli_result r;
    cli_run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(cli_count_char(r.out, '\n'), 1 + 6);
    cli_must_contain("sweep", r.out,
                     "\r\nbank,ld,4,0,0,1,32,0,lane,16,16,4,0,16,plain,none,none,1,1,1,1,1\r\n"
                     "bank,ld,4,1,0,1,32,0,lane,16,16,4,0,16,plain,none,none,1,1,1,32,1\r\n"
                     "bank,ld,4,2,0,1,32,0,lane,16,16,4,0,16,plain,none,none,2,1,2,32,2\r\n"
                     "bank,st,4,0,0,1,32,0,lane,16,16,4,0,16,plain,none,none,1,1,1,1,1\r\n");
    cli_result_free(&r);
}

static void test_predict_txt(void **state)
{
    (void)state;
    const char *args[] = {"predict", "bank", "--stride", "4", NULL};
    cli_result r;
    cli_run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.errlen, 0);
    assert_int_equal(cli_count_char(r.out, '\n'), 2);
    assert_null(strchr(r.out, '\r'));
    cli_must_contain("table", r.out, "wavefronts_per_request");
    /* Row: bank ld 4 4 0 1 32 0 lane 16 16 then 4 wavefronts, ideal 1, 4-way,
     * 32 words, 4 per bank (stride 4: 8 banks x 4 words). */
    char *row = strchr(r.out, '\n') + 1;
    char name[16], op[8];
    char index[16], rows[16], sw[16], offsets[16];
    long long w, s, base, g, per, pad, bx, by, mats, trans, pitch;
    double wf, ideal, ways, words, maxw;
    assert_int_equal(sscanf(row, "%15s %7s %lld %lld %lld %lld %lld %lld "
                                 "%15s %lld %lld %lld %lld %lld %15s %15s "
                                 "%15s %lf %lf %lf %lf %lf", name,
                            op, &w, &s, &base, &g, &per, &pad, index, &bx,
                            &by, &mats, &trans, &pitch, rows, sw, offsets,
                            &wf, &ideal, &ways, &words, &maxw), 22);
    assert_string_equal(offsets, "none");
    assert_string_equal(index, "lane");
    assert_string_equal(name, "bank");
    assert_string_equal(op, "ld");
    assert_int_equal(s, 4);
    assert_true(wf == 4 && ideal == 1 && ways == 4 && words == 32
                && maxw == 4);
    cli_result_free(&r);
}

/* ---- no GPU ------------------------------------------------------------ */

/* `bank --stride STRIDE -o PATH` exits 3 and prints exactly what `predict
 * bank --stride STRIDE` prints. */
static void check_no_gpu_measure(const char *path, const char *stride)
{
    const char *args[] = {"bank", "--stride", stride, "-o", path, NULL};
    const char *predict[] = {"predict", "bank", "--stride", stride, NULL};
    cli_expect_no_gpu(args, "wavefronts_per_request", predict);
}

static void test_no_gpu_measure_new_file(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    check_no_gpu_measure("out.csv", "4");
    assert_false(cli_path_exists("out.csv"));
    check_no_gpu_measure("sweep.csv", "0..3");
    assert_false(cli_path_exists("sweep.csv"));
    assert_false(cli_path_exists("results"));
}

/* memprobe's header line (CRLF) into buf. */
static void schema_header(char *buf, size_t len)
{
    size_t used = 0;
    for (int i = 0; i < mp_schema_columns() && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i ? "," : "", mp_schema_name(i));
    snprintf(buf + used, used < len ? len - used : 0, "\r\n");
    assert_true(used + 2 < len);
}

static void test_no_gpu_measure_existing_file(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    char old[16384];
    schema_header(old, sizeof old);
    strcat(old, "0.1.0,earlier row\r\n");
    FILE *f = fopen("old.csv", "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(old, 1, strlen(old), f), strlen(old));
    assert_int_equal(fclose(f), 0);
    check_no_gpu_measure("old.csv", "4");
    size_t len;
    char *have = cli_read_file("old.csv", &len);
    assert_int_equal(len, strlen(old));
    assert_string_equal(have, old);
    free(have);
    unlink("old.csv");
}

/* A bad -o is bad input, found before the GPU is looked for (so on any
 * machine: exit 2 naming -o, nothing created, nothing changed). */
static void test_bad_output_before_gpu(void **state)
{
    (void)state;
    static const char foreign[] = "some,earlier\r\nresult,row\r\n";
    FILE *f = fopen("foreign.csv", "wb");
    assert_non_null(f);
    fputs(foreign, f);
    fclose(f);
    char cut[16384];
    schema_header(cut, sizeof cut);
    strcat(cut, "0.1.0,cut off");
    f = fopen("cut.csv", "wb");
    assert_non_null(f);
    fputs(cut, f);
    fclose(f);
    char conf[PATH_MAX + 32];
    snprintf(conf, sizeof conf, "%s/configs/texture.conf", repo);
    static const struct {
        const char *out, *names;
    } cases[] = {
        {"no-such-folder/x.csv", "-o: no-such-folder/x.csv: cannot open for "
                                 "appending: folder no-such-folder: No such "
                                 "file or directory"},
        {"/no-such-folder/x.csv", "folder /no-such-folder: No such file"},
        {"foreign.csv/x.csv", "-o: foreign.csv/x.csv: cannot open for "
                              "appending: Not a directory"},
        {".", "-o: .: cannot open for appending: Is a directory"},
        {"foreign.csv", "-o: foreign.csv: existing header differs"},
        {"cut.csv", "-o: cut.csv: the last line is incomplete"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *bank[] = {"bank", "--stride", "4", "-o", cases[i].out,
                              NULL};
        cli_expect_usage_error(bank, cases[i].names);
        const char *sweep[] = {"sweep", conf, "-o", cases[i].out, NULL};
        cli_expect_usage_error(sweep, cases[i].names);
    }
    assert_false(cli_path_exists("no-such-folder"));
    size_t len;
    char *have = cli_read_file("foreign.csv", &len);
    assert_string_equal(have, foreign);
    free(have);
    have = cli_read_file("cut.csv", &len);
    assert_string_equal(have, cut);
    free(have);
    /* A folder that takes no file (only where permissions bind: not for
     * root). */
    if (geteuid() != 0) {
        assert_int_equal(mkdir("locked", 0555), 0);
        const char *locked[] = {"bank", "-o", "locked/x.csv", NULL};
        cli_expect_usage_error(locked, "-o: locked/x.csv: cannot open for "
                               "appending: folder locked: Permission denied");
        assert_false(cli_path_exists("locked/x.csv"));
        rmdir("locked");
    }
    unlink("foreign.csv");
    unlink("cut.csv");
}

/* What is missing is said: no driver, no device, an old driver. */
static void test_no_gpu_reasons(void **state)
{
    (void)state;
    char why[512];
    unsetenv("CUDA_VISIBLE_DEVICES");
    mp_device_no_gpu_reason(cudaErrorInsufficientDriver, 0,
                            "libcuda.so.1: cannot open shared object file",
                            why, sizeof why);
    assert_string_equal(why, "no NVIDIA driver found (libcuda.so.1: cannot "
                        "open shared object file), so no GPU can be used");
    mp_device_no_gpu_reason(cudaErrorStubLibrary, 0, NULL, why, sizeof why);
    cli_must_contain("stub", why, "no NVIDIA driver found (libcuda.so.1 is "
                     "CUDA's stub library");
    mp_device_no_gpu_reason(cudaErrorNoDevice, 0, NULL, why, sizeof why);
    assert_string_equal(why, "no GPU visible: the NVIDIA driver is there but "
                        "reports no device");
    mp_device_no_gpu_reason(cudaSuccess, 0, NULL, why, sizeof why);
    assert_string_equal(why, "no GPU visible: the NVIDIA driver is there but "
                        "reports no device");
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    mp_device_no_gpu_reason(cudaErrorNoDevice, 0, NULL, why, sizeof why);
    cli_must_contain("visible", why, "reports no device "
                     "(CUDA_VISIBLE_DEVICES='')");
    unsetenv("CUDA_VISIBLE_DEVICES");
    /* A driver that loads but is older than the runtime. */
    mp_device_no_gpu_reason(cudaErrorInsufficientDriver, 0, NULL, why,
                            sizeof why);
    cli_must_contain("old", why, "the NVIDIA driver is too old for this "
                     "memprobe's CUDA ");
    mp_device_no_gpu_reason(cudaErrorUnknown, 0, NULL, why, sizeof why);
    cli_must_contain("other", why, "no usable GPU: cudaErrorUnknown");
}

/* This machine's own case, through the binary: without libcuda.so.1 the
 * measuring commands say "no NVIDIA driver found" (exit 3, prediction
 * printed); `device` the same. */
static void test_no_gpu_driver_named(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    const char *want = lib ? "GPU" : "no NVIDIA driver found (libcuda.so.1";
    if (lib)
        dlclose(lib);
    const char *bank[] = {"bank", "--stride", "4", "-o", "d.csv", NULL};
    const char *predict[] = {"predict", "bank", "--stride", "4", NULL};
    cli_expect_no_gpu(bank, "wavefronts_per_request", predict);
    cli_result r;
    cli_run(bank, &r);
    cli_must_contain("stderr", r.err, want);
    cli_result_free(&r);
    const char *dev[] = {"device", "--all", NULL};
    cli_run(dev, &r);
    cli_expect_status(&r, 3);
    cli_must_contain("stderr", r.err, want);
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    assert_int_equal(r.outlen, 0);
    cli_result_free(&r);
    assert_false(cli_path_exists("d.csv"));
}

/* ncu-check without a GPU: exit 3, one line saying what is missing, and
 * no folder left behind (results/, --dir), made or not; also with --args
 * (checked, then refused for want of a GPU). */
static void test_no_gpu_ncu_check(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *plain[] = {"ncu-check", NULL};
    const char *dir[] = {"ncu-check", "--probe", "const", "--dir",
                         "mine/ncu", NULL};
    /* the third pass: configurations of --args, accepted, then the GPU
     * missing */
    const char *args[] = {"ncu-check", "--probe", "coalesce", "--args",
                          "--op ld --width 4,16 --offset 0,16", NULL};
    for (int round = 0; round < 3; round++) {
        cli_result r;
        cli_run(round == 1 ? dir : round == 2 ? args : plain, &r);
        cli_expect_status(&r, 3);
        assert_int_equal(cli_count_char(r.err, '\n'), 1);
        cli_must_contain("stderr", r.err, "memprobe: ncu-check: ");
        cli_must_contain("stderr", r.err, "GPU");
        cli_must_contain("stderr", r.err, "nothing run");
        assert_int_equal(r.outlen, 0);
        cli_result_free(&r);
        assert_false(cli_path_exists("results/ncu-check"));
        assert_false(cli_path_exists("mine"));
        /* the first two passes: no results/ before, none after; the
         * third: an existing results/ stays, empty */
        assert_int_equal(cli_path_exists("results"), round == 2);
        if (round == 1)
            assert_int_equal(mkdir("results", 0777), 0);
    }
    assert_int_equal(rmdir("results"), 0);
}

/* An ncu-check that fails after the GPU check (here: under the fake
 * device, its --dir cannot be made) removes the results/ it made. */
static void test_ncu_check_failure_leaves_no_folder(void **state)
{
    (void)state;
    setenv("MEMPROBE_FAKE_DEVICE", "h200", 1);
    const char *args[] = {"ncu-check", "--dir", "no/such/dir", NULL};
    cli_expect_usage_error(args, "ncu-check: cannot use directory "
                           "no/such/dir");
    unsetenv("MEMPROBE_FAKE_DEVICE");
    assert_false(cli_path_exists("no"));
}

/* An ncu-check that compares nothing (here: under the fake device, its
 * ncu fails) leaves the files of the last check in --dir byte for byte,
 * says so in one line, and keeps its own run's files apart. */
static void test_ncu_check_failure_keeps_files(void **state)
{
    (void)state;
    assert_int_equal(mkdir("keep", 0777), 0);
    cli_write_file("keep/memprobe.csv", "config,last check\nw4,1\n");
    cli_write_file("keep/ncu-check.log", "the last check's log\n");
    const char *const paths[] = {"keep/memprobe.csv", "keep/ncu-check.log",
                                 NULL};
    cli_files before;
    cli_files_read(&before, paths);
    setenv("MEMPROBE_FAKE_DEVICE", "h200", 1);
    const char *args[] = {"ncu-check", "--probe", "const", "--dir", "keep",
                          "--ncu", "/bin/false", NULL};
    cli_result r;
    cli_run(args, &r);
    unsetenv("MEMPROBE_FAKE_DEVICE");
    assert_int_not_equal(r.status, 0);
    cli_must_contain("stderr", r.err, "memprobe: ncu-check: nothing "
                     "compared: keep is left as it was; this run's files "
                     "are in keep/run-");
    cli_result_free(&r);
    cli_files_unchanged(&before);
    /* the run's own folder holds its log */
    DIR *d = opendir("keep");
    assert_non_null(d);
    struct dirent *e;
    int runs = 0;
    while ((e = readdir(d)))
        runs += !strncmp(e->d_name, "run-", 4);
    closedir(d);
    assert_int_equal(runs, 1);
    cli_remove_tree("keep");
    rmdir("results");   /* the check made it: the next tests want none */
}

static void test_no_gpu_device(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *args[] = {"device", NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 3);
    cli_must_contain("stderr", r.err, "GPU");
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    assert_int_equal(r.outlen, 0);
    cli_result_free(&r);
}

int main(void)
{
    if (!getcwd(repo, sizeof repo))
        return 1;
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_csv_matches_model),
        cmocka_unit_test(test_predict_csv_sweep),
        cmocka_unit_test(test_predict_txt),
        cmocka_unit_test(test_no_gpu_measure_new_file),
        cmocka_unit_test(test_no_gpu_measure_existing_file),
        cmocka_unit_test(test_ncu_check_failure_keeps_files),
        cmocka_unit_test(test_no_gpu_device),
        cmocka_unit_test(test_no_gpu_reasons),
        cmocka_unit_test(test_no_gpu_ncu_check),
        cmocka_unit_test(test_ncu_check_failure_leaves_no_folder),
        cmocka_unit_test(test_bad_output_before_gpu),
        cmocka_unit_test(test_no_gpu_driver_named),
    };
    return CLI_RUN_ALL("cli", good_cases, bad_cases, fixed);
}
