/*
 * test_cli_sweep.c - `memprobe sweep` from the command line (no GPU): the
 * committed sweep files' --list (count by hand, order, first and last
 * names), --predict, --resume's count, every bad input (exit 2, one stderr
 * line naming it), and the no-GPU contract: exit 3, the prediction printed,
 * the output CSV neither created nor touched.
 *
 * Runs the binary like tests/test_cli.c (tests/cli_util.h), in a fresh
 * temporary working directory; the committed configs/ are reached by the
 * absolute path of the directory the test starts in (the repository).
 */
#include "cli_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_writer.h"
#include "probe.h"
#include "row.h"

static char bank_conf[PATH_MAX], coalesce_conf[PATH_MAX],
    bandwidth_conf[PATH_MAX], const_conf[PATH_MAX], texture_conf[PATH_MAX],
    reduce_conf[PATH_MAX], study_conf[PATH_MAX];

/* ---- table 1: commands that work -------------------------------------- */

static const cli_ok_case good_cases[] = {
    {{"sweep", "--help"}, {"usage: memprobe sweep", "--resume", "--list"}},
    {{"sweep", bank_conf, "-h"}, {"usage: memprobe sweep"}},
    {{"help"}, {"sweep"}},
    {{"sweep", bank_conf, "--list"}, {"2262 configurations in 3 sections\n"}},
    {{"sweep", "--list", const_conf}, {"114 configurations in 4 sections, "
                                       "8 repeats dropped\n"}},
    {{"sweep", texture_conf, "--predict"}, {"linear_sectors_per_request",
                                            "tex2d"}},
};

/* ---- table 2: bad input: exit 2, one stderr line naming it ---------- */

static const cli_bad_case bad_cases[] = {
    {{"sweep"}, "no sweep file"},
    {{"sweep", "missing.conf"}, "missing.conf: cannot open"},
    {{"sweep", "missing.conf", "--list"}, "missing.conf"},
    {{"sweep", bank_conf, "--bogus"}, "--bogus"},
    {{"sweep", bank_conf, "-x"}, "'-x'"},
    {{"sweep", bank_conf, "second.conf"}, "second.conf"},
    {{"sweep", bank_conf, "--batch", "0"}, "--batch"},
    {{"sweep", bank_conf, "--batch"}, "--batch"},
    {{"sweep", bank_conf, "--counters", "maybe"}, "--counters"},
    {{"sweep", bank_conf, "--device", "-1"}, "--device"},
    {{"sweep", bank_conf, "--device", "0", "--device=1"}, "--device"},
    {{"sweep", bank_conf, "-o"}, "--output"},
    {{"sweep", bank_conf, "-o", ""}, "--output"},
    {{"sweep", bank_conf, "-o", "a.csv", "--output", "b.csv"}, "--output"},
    {{"sweep", bank_conf, "--resume", "--resume"}, "--resume"},
    {{"sweep", bank_conf, "--resume", "-o", "-"}, "--resume"},
    {{"sweep", bank_conf, "--list", "--predict"}, "--list"},
    /* A sweep file is not a probe, and a probe takes no sweep file. */
    {{"bank", bank_conf}, "unexpected argument"},
};

/* ---- --list of the committed files ----------------------------------- */

typedef struct {
    const char *path;
    int count;               /* by hand, in the file's comments */
    const char *summary;     /* the last line */
    int nth;                 /* a configuration at this 0-based line... */
    const char *name;        /* ...and its name */
    const char *first, *last;
} listed;

/* Runs `sweep path --list`; checks the count, one name per line, and the
 * first, last and nth names. Returns the output (free it). */
static char *check_list(const listed *l)
{
    const char *args[] = {"sweep", l->path, "--list", NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 0);
    assert_int_equal(r.errlen, 0);
    assert_int_equal(cli_count_char(r.out, '\n'), l->count + 1);
    char *lines[4096];
    int n = 0;
    for (char *p = r.out; *p && n < 4096; ) {
        char *nl = strchr(p, '\n');
        *nl = '\0';
        lines[n++] = p;
        p = nl + 1;
    }
    assert_int_equal(n, l->count + 1);
    assert_string_equal(lines[n - 1], l->summary);
    assert_string_equal(lines[0], l->first);
    assert_string_equal(lines[l->count - 1], l->last);
    assert_string_equal(lines[l->nth], l->name);
    /* Every line but the last is a configuration of a probe. */
    for (int i = 0; i < l->count; i++) {
        char probe[32];
        size_t len = strcspn(lines[i], "/");
        assert_true(len > 0 && len < sizeof probe);
        memcpy(probe, lines[i], len);
        probe[len] = '\0';
        if (!mp_probe_find(probe))
            fail_msg("line %d: '%s' is not a configuration", i + 1, lines[i]);
    }
    free(r.err);
    return r.out;
}

static void test_list_bank(void **state)
{
    (void)state;
    /* [bank] 2 x 3 x 65 = 390 (op slowest, stride fastest), then
     * [bank.patterns] 2 x 3 x 7 x 8 x 5 = 1680 (period fastest), then
     * [bank.pads] 2 x 3 x 4 x 4 x 2 = 192: 2262. Line 390 (0-based) is
     * the first of the patterns. */
    listed l = {bank_conf, 2262, "2262 configurations in 3 sections", 390,
                "bank/ld/w4/s1/b0/g1/p32", "bank/ld/w4/s0/b0/g1/p32",
                "bank/st/w16/s32/b3/g1/p32/pad4"};
    free(check_list(&l));
    /* Line 64: ld w4 stride 64; line 65: ld w8 stride 0. */
    listed m = l;
    m.nth = 65;
    m.name = "bank/ld/w8/s0/b0/g1/p32";
    free(check_list(&m));
}

static void test_list_coalesce(void **state)
{
    (void)state;
    /* 396 + 204 + 108 + 24 + 72 + 4 = 808, less the 8 of
     * [coalesce.groups] that repeat w4 / w16: 800. The first of w8 is
     * line 396. */
    listed l = {coalesce_conf, 800,
                "800 configurations in 6 sections, 8 repeats dropped", 396,
                "coalesce/pattern/ld/w8/o0/s1/g1/p32/default",
                "coalesce/pattern/ld/w4/o0/s1/g1/p32/default",
                "coalesce/aos12-staged"};
    free(check_list(&l));
}

static void test_list_bandwidth(void **state)
{
    (void)state;
    /* 9 + 2 + 4 + 14 + 12 = 41, less 4 repeats of [bandwidth]: 37. Lines
     * 9 and 10 are the 4 GiB runs, 11-14 the peak shapes; 15 the first
     * offset run that is new. */
    listed l = {bandwidth_conf, 37,
                "37 configurations in 6 sections, 4 repeats dropped", 15,
                "bandwidth/read/w4/o4/s1/b1073741824",
                "bandwidth/read/w4/o0/s1/b1073741824",
                "bandwidth/copy/w16/o0/s32/b1073741824"};
    free(check_list(&l));
    listed m = l;
    m.nth = 9;
    m.name = "bandwidth/read/w16/o0/s1/b4294967296";
    free(check_list(&m));
}

static void test_list_const(void **state)
{
    (void)state;
    /* 96 + 24 + 1 + 1 = 122, less the 8 constant-memory sources that
     * repeat [const]: 114. [const.sources] starts with global at 96. */
    listed l = {const_conf, 114,
                "114 configurations in 4 sections, 8 repeats dropped", 96,
                "const/global/s1/sp4/g32/p32",
                "const/constant/s1/sp4/g32/p32",
                "const/constant/s16/sp4/g1/p16"};
    free(check_list(&l));
}

static void test_list_texture(void **state)
{
    (void)state;
    /* 4 x 3 = 12 at 4096, then 4 x 3 x 2 = 24 small: 36. */
    listed l = {texture_conf, 36, "36 configurations in 2 sections", 12,
                "texture/tex1d/stencil/n32", "texture/tex1d/stencil/n4096",
                "texture/ldg/row/n96"};
    free(check_list(&l));
}

static void test_list_reduce(void **state)
{
    (void)state;
    /* 7 variants x 2 workloads x 2 block counts = 28, then 7 large. The
     * default size of each workload (the seeds') is in the name. */
    listed l = {reduce_conf, 35, "35 configurations in 2 sections", 28,
                "reduce/host-partials/dot/n67108864/t256/b0",
                "reduce/host-partials/cubes/n1048576/t256/b32",
                "reduce/atomic/dot/n67108864/t256/b0"};
    free(check_list(&l));
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_list_study(void **state)
{
    (void)state;
    /* bank 390 + 54 + 72, reduce 28 + 7, coalesce 396 + 204 + 108 + 24 +
     * 64 + 4, bandwidth 9 + 12 + 10, const 96 + 16 + 1 + 1, texture 12 =
     * 1508; dropped: 18 + 24 + 8 + 2 + 2 + 8 = 62. Line 390 is the first
     * padding configuration (stride 8, pad 1). */
    enum { STUDY = 1508 };
    listed l = {study_conf, STUDY,
                "1508 configurations in 19 sections, 62 repeats dropped",
                390, "bank/ld/w4/s8/b0/g1/p32/pad1",
                "bank/ld/w4/s0/b0/g1/p32", "texture/ldg/row/n4096"};
    char *out = check_list(&l);
    /* The study names every configuration once: the report can key on the
     * config column. */
    char **names = malloc(STUDY * sizeof *names);
    assert_non_null(names);
    char *p = out;
    for (int i = 0; i < STUDY; i++) {
        names[i] = p;
        p += strlen(p) + 1;
    }
    qsort(names, STUDY, sizeof *names, by_string);
    for (int i = 1; i < STUDY; i++)
        if (!strcmp(names[i - 1], names[i]))
            fail_msg("%s twice in the study", names[i]);
    free(names);
    free(out);
}

/* ---- bad sweep files from the command line ----------------------------- */

static void test_bad_file_names_line_and_key(void **state)
{
    (void)state;
    cli_write_file("bad.conf", "[bank]\nop = ld\nstride = 1..x\n");
    const char *a[] = {"sweep", "bad.conf", NULL};
    cli_expect_usage_error(a, "bad.conf:3: --stride");
    const char *b[] = {"sweep", "bad.conf", "--list", NULL};
    cli_expect_usage_error(b, "bad.conf:3: --stride");
    cli_write_file("bad.conf", "[bank]\nwidth = 4\n[bank.x]\nbogus = 1\n");
    cli_expect_usage_error(a, "bad.conf:4: [bank.x]: unknown key 'bogus'");
    cli_write_file("bad.conf", "[nosuch]\n");
    cli_expect_usage_error(a, "bad.conf:1: section [nosuch]: unknown probe");
    cli_write_file("bad.conf", "");
    cli_expect_usage_error(a, "bad.conf: no [PROBE] section");
    unlink("bad.conf");
}

/* ---- --resume without a GPU -------------------------------------------- */

static void write_header_csv(const char *path)
{
    const char *header[1024];
    char err[256];
    mp_csv_writer w;
    for (int i = 0; i < mp_schema_columns(); i++)
        header[i] = mp_schema_name(i);
    if (mp_csv_open(&w, path, header, mp_schema_columns(), err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(mp_csv_close(&w), 0);
}

/* One verified row of bank configuration `stride` (defaults otherwise),
 * as the runner writes its parameter columns. */
static void append_bank_row(const char *path, long long stride)
{
    const mp_probe *p = mp_probe_find("bank");
    long long v[MP_MAX_PARAMS];
    for (int i = 0; i < p->nparams; i++)
        v[i] = p->params[i].def;
    v[mp_param_find(p->params, p->nparams, "stride")] = stride;
    mp_row row;
    const char *cells[1024], *header[1024];
    char label[128], err[256];
    assert_int_equal(mp_row_init(&row), 0);
    p->describe(v, &row);
    p->label(v, label, sizeof label);
    mp_row_set(&row, MP_COL_CONFIG, "%s", label);
    mp_row_set(&row, MP_COL_WARMUP, "3");
    mp_row_set(&row, MP_COL_RUNS, "20");
    mp_row_set(&row, MP_COL_VERIFIED, "yes");
    mp_row_cells(&row, cells);
    for (int i = 0; i < mp_schema_columns(); i++)
        header[i] = mp_schema_name(i);
    mp_csv_writer w;
    if (mp_csv_open(&w, path, header, mp_schema_columns(), err, sizeof err)
        || mp_csv_write_row(&w, cells, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(mp_csv_close(&w), 0);
    mp_row_free(&row);
}

static void test_resume_list(void **state)
{
    (void)state;
    cli_write_file("small.conf", "[bank]\nstride = 0..4\n");
    unlink("done.csv");
    write_header_csv("done.csv");
    append_bank_row("done.csv", 1);
    append_bank_row("done.csv", 3);
    const char *args[] = {"sweep", "small.conf", "--list", "--resume", "-o",
                          "done.csv", NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 0);
    assert_string_equal(r.out, "bank/ld/w4/s0/b0/g1/p32\n"
                               "bank/ld/w4/s2/b0/g1/p32\n"
                               "bank/ld/w4/s4/b0/g1/p32\n"
                               "3 configurations in 1 section, 2 already "
                               "in done.csv\n");
    cli_result_free(&r);

    /* All done: nothing to run, no GPU needed, exit 0. */
    cli_write_file("small.conf", "[bank]\nstride = 1,3\n");
    const char *run[] = {"sweep", "small.conf", "--resume", "-o", "done.csv",
                         NULL};
    cli_run(run, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "nothing left to run");
    cli_must_contain("stderr", r.err, "2 configurations already in done.csv");
    assert_int_equal(r.outlen, 0);
    cli_result_free(&r);
    unlink("small.conf");
    unlink("done.csv");
}

/* --resume with another header: exit 2 before any GPU work, the file as
 * it was. */
static void test_resume_other_header(void **state)
{
    (void)state;
    static const char old[] = "some,other\r\ncsv,file\r\n";
    cli_write_file("other.csv", old);
    const char *args[] = {"sweep", bank_conf, "--resume", "-o", "other.csv",
                          NULL};
    cli_expect_usage_error(args, "other.csv: its header is not this "
                                 "memprobe's columns");
    const char *list[] = {"sweep", bank_conf, "--list", "--resume", "-o",
                          "other.csv", NULL};
    cli_expect_usage_error(list, "--resume");
    size_t len;
    char *have = cli_read_file("other.csv", &len);
    assert_string_equal(have, old);
    free(have);
    unlink("other.csv");
}

/* ---- no GPU -------------------------------------------------------------- */

static void test_no_gpu_new_file(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *args[] = {"sweep", texture_conf, "-o", "x.csv", NULL};
    const char *predict[] = {"sweep", texture_conf, "--predict", NULL};
    cli_expect_no_gpu(args, "linear_sectors_per_request", predict);
    assert_false(cli_path_exists("x.csv"));
    /* The default output: results/ is not created either. */
    const char *dflt[] = {"sweep", texture_conf, NULL};
    cli_expect_no_gpu(dflt, "tex2d", NULL);
    assert_false(cli_path_exists("results"));
}

static void test_no_gpu_existing_file(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    /* Another program's file: refused as -o before the GPU is looked
     * for (exit 2), and left as it was. */
    static const char old[] = "earlier,rows\r\nstay,as they were\r\n";
    cli_write_file("x.csv", old);
    const char *args[] = {"sweep", bank_conf, "-o", "x.csv", NULL};
    cli_expect_usage_error(args, "-o: x.csv: existing header differs");
    size_t len;
    char *have = cli_read_file("x.csv", &len);
    assert_string_equal(have, old);
    free(have);

    /* --resume reads a good file and leaves it alone too. */
    unlink("x.csv");
    write_header_csv("x.csv");
    append_bank_row("x.csv", 2);
    size_t before_len;
    char *before = cli_read_file("x.csv", &before_len);
    const char *resume[] = {"sweep", bank_conf, "-o", "x.csv", "--resume",
                            NULL};
    cli_expect_no_gpu(resume, "wavefronts_per_request", NULL);
    have = cli_read_file("x.csv", &len);
    assert_int_equal(len, before_len);
    assert_memory_equal(have, before, len);
    free(have);
    /* So does a fresh sweep over it: rows are appended, never cut. */
    const char *fresh[] = {"sweep", bank_conf, "-o", "x.csv", NULL};
    cli_expect_no_gpu(fresh, "wavefronts_per_request", NULL);
    have = cli_read_file("x.csv", &len);
    assert_int_equal(len, before_len);
    assert_memory_equal(have, before, len);
    free(have);
    free(before);
    unlink("x.csv");
}

int main(void)
{
    char cwd[PATH_MAX - 64];   /* room for "/configs/NAME.conf" */
    if (!getcwd(cwd, sizeof cwd))
        return 1;
    snprintf(bank_conf, sizeof bank_conf, "%s/configs/bank.conf", cwd);
    snprintf(coalesce_conf, sizeof coalesce_conf, "%s/configs/coalesce.conf",
             cwd);
    snprintf(bandwidth_conf, sizeof bandwidth_conf,
             "%s/configs/bandwidth.conf", cwd);
    snprintf(const_conf, sizeof const_conf, "%s/configs/const.conf", cwd);
    snprintf(texture_conf, sizeof texture_conf, "%s/configs/texture.conf",
             cwd);
    snprintf(reduce_conf, sizeof reduce_conf, "%s/configs/reduce.conf", cwd);
    snprintf(study_conf, sizeof study_conf, "%s/configs/study.conf", cwd);

    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_list_bank),
        cmocka_unit_test(test_list_coalesce),
        cmocka_unit_test(test_list_bandwidth),
        cmocka_unit_test(test_list_const),
        cmocka_unit_test(test_list_texture),
        cmocka_unit_test(test_list_reduce),
        cmocka_unit_test(test_list_study),
        cmocka_unit_test(test_bad_file_names_line_and_key),
        cmocka_unit_test(test_resume_list),
        cmocka_unit_test(test_resume_other_header),
        cmocka_unit_test(test_no_gpu_new_file),
        cmocka_unit_test(test_no_gpu_existing_file),
    };
    return CLI_RUN_ALL("cli_sweep", good_cases, bad_cases, fixed);
}
