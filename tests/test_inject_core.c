/*
 * test_inject_core.c - CPU tests of the injection library's CUDA-free
 * part (inject/inject_core.c and its writers, inject_core_write.c): the
 * per-instruction sums, the filters (kernel regex, NVTX include, launch
 * skip/count) over tables of cases, RFC 4180 quoting, the modules'
 * origins (which frames of a call stack are the CUDA stack's, the first
 * frame outside it), and the raw files:
 * launches appended (never rewritten), lines and modules rewritten whole
 * through a .tmp, status with its counts last, cubins saved once.
 *
 * File tests run in a fresh mkdtemp directory that is removed afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "inject_core.h"

/* ---- helpers -------------------------------------------------------- */

static int make_dir(void **state)
{
    char *dir = strdup("/tmp/memprobe-inject-XXXXXX");
    if (!dir || !mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int remove_dir(void **state)
{
    cli_remove_tree(*state);
    free(*state);
    return 0;
}

/* The text of DIR/NAME (NAME a format with the pid); NULL when absent. */
static char *read_raw(const char *dir, const char *fmt, long pid)
{
    char name[128], path[512];
    snprintf(name, sizeof name, fmt, pid);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    return cli_path_exists(path) ? cli_read_file(path, &len) : NULL;
}

/* ---- per-instruction sums ------------------------------------------- */

/* raw.h's X-macro lists (the reader's) spell the same columns as its
 * header strings (the writer's). */
#define JOIN_NAME(id, name) "," name
static void test_raw_lists(void **state)
{
    (void)state;
    assert_string_equal(MP_RAW_LAUNCH_COLS(JOIN_NAME) MP_RAW_METRICS(JOIN_NAME),
                        "," MP_RAW_LAUNCH_COLUMNS);
    assert_string_equal(MP_RAW_LINE_COLS(JOIN_NAME) MP_RAW_METRICS(JOIN_NAME),
                        "," MP_RAW_LINE_COLUMNS);
    assert_string_equal(MP_RAW_LAUNCH_OP_COLS(JOIN_NAME)
                        MP_RAW_METRICS(JOIN_NAME),
                        "," MP_RAW_LAUNCH_OP_COLUMNS);
    assert_string_equal(MP_RAW_KERNEL_COLS(JOIN_NAME),
                        "," MP_RAW_KERNEL_COLUMNS);
    assert_string_equal(MP_RAW_MODULE_COLS(JOIN_NAME),
                        "," MP_RAW_MODULE_COLUMNS);
    assert_int_equal(cli_count_char(MP_RAW_MODULE_COLUMNS, ',') + 1,
                     MP_RAW_MODULE_NCOLUMNS);
}
#undef JOIN_NAME

static void test_metric_index(void **state)
{
    (void)state;
    static const char *const names[] = MP_RAW_METRIC_NAMES;
    for (int m = 0; m < MP_RAW_NMETRICS; m++)
        assert_int_equal(ic_metric_index(names[m]), m);
    assert_int_equal(ic_metric_index("smsp__sass_inst_executed"), 0);
    assert_int_equal(ic_metric_index("smsp__sass_sectors_mem_global_ideal"),
                     4);
    assert_int_equal(ic_metric_index("smsp__sass_inst"), -1);
    assert_int_equal(ic_metric_index(""), -1);
    assert_int_equal(ic_metric_index(NULL), -1);
}

static void test_lines_sum_per_launch(void **state)
{
    (void)state;
    ic_lines t;
    ic_lines_init(&t);
    assert_null(ic_lines_get(&t, 7, 1, 0x10));
    ic_line *a = ic_lines_put(&t, 7, 1, 0x10, "_Z1kPf", "k.cu", 12);
    ic_line *b = ic_lines_put(&t, 7, 1, 0x20, "_Z1kPf", NULL, 0);
    ic_line *c = ic_lines_put(&t, 9, 1, 0x10, "_Z1gv", "g.cu", 3);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    /* launch 0: a gets two metrics (one launch), b one */
    ic_line_count(ic_lines_get(&t, 7, 1, 0x10), 0, 0, 32);
    ic_line_count(ic_lines_get(&t, 7, 1, 0x10), 0, 1, 128);
    ic_line_count(ic_lines_get(&t, 7, 1, 0x20), 0, 0, 5);
    /* launch 3: a again, twice the same metric (two records) */
    ic_line_count(ic_lines_get(&t, 7, 1, 0x10), 3, 1, 4);
    ic_line_count(ic_lines_get(&t, 7, 1, 0x10), 3, 1, 6);
    a = ic_lines_get(&t, 7, 1, 0x10);
    b = ic_lines_get(&t, 7, 1, 0x20);
    c = ic_lines_get(&t, 9, 1, 0x10);
    assert_int_equal(a->launches, 2);
    assert_int_equal(a->sum[0], 32);
    assert_int_equal(a->sum[1], 138);
    assert_int_equal(a->sum[2], 0);
    assert_int_equal(a->line, 12);
    assert_string_equal(a->file, "k.cu");
    assert_int_equal(b->launches, 1);
    /* a run of 1000 launches from number 4, flushed once: a counts 1000
     * more launches, once however many records it gets */
    ic_line_count_n(a, 4, 1000, 1, 100);
    ic_line_count_n(a, 4, 1000, 0, 7);
    assert_int_equal(a->launches, 1002);
    assert_int_equal(a->sum[1], 238);
    assert_int_equal(a->sum[0], 39);
    assert_int_equal(b->sum[0], 5);
    assert_string_equal(b->file, "");
    assert_int_equal(c->launches, 0);
    assert_string_equal(c->mangled, "_Z1gv");
    /* the key is all three parts */
    assert_null(ic_lines_get(&t, 7, 2, 0x10));
    assert_null(ic_lines_get(&t, 8, 1, 0x10));
    assert_int_equal(t.n, 3);
    ic_lines_free(&t);
}

/* Enough lines to grow the index several times: each keeps its values. */
static void test_lines_many(void **state)
{
    (void)state;
    ic_lines t;
    ic_lines_init(&t);
    const uint32_t n = 20000;
    for (uint32_t i = 0; i < n; i++) {
        ic_line *l = ic_lines_put(&t, i % 7, i % 13, i * 16, "_Z1kv", "f.cu",
                                  i);
        assert_non_null(l);
        ic_line_count(l, i, 3, i);
    }
    assert_int_equal(t.n, n);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        ic_line *l = ic_lines_get(&t, i % 7, i % 13, i * 16);
        assert_non_null(l);
        assert_int_equal(l->line, i);
        assert_int_equal(l->sum[3], i);
        assert_int_equal(l->launches, 1);
        total += l->sum[3];
    }
    assert_true(total == (uint64_t)n * (n - 1) / 2);
    ic_lines_free(&t);
}

/* ---- filters -------------------------------------------------------- */

static void test_nvtx_match(void **state)
{
    (void)state;
    static const char *const s3[] = {"outer", "mid", "inner"};
    static const char *const s1[] = {"a/b"};
    static const struct {
        const char *include;
        const char *const *stack;
        size_t depth;
        int want;
    } cases[] = {
        {NULL, s3, 3, 1},          {"", NULL, 0, 1},
        {"outer", s3, 3, 1},       {"mid", s3, 3, 1},
        {"inner", s3, 3, 1},       {"in", s3, 3, 0},
        {"Outer", s3, 3, 0},       {"outer", NULL, 0, 0},
        {"outer/mid", s3, 3, 1},   {"mid/inner", s3, 3, 1},
        {"outer/mid/inner", s3, 3, 1},
        {"outer/inner", s3, 3, 0}, {"inner/mid", s3, 3, 0},
        {"mid/inner/x", s3, 3, 0}, {"outer/", s3, 3, 1},
        {"mid/", s3, 3, 1},        {"/", s3, 3, 0},
        {"/mid", s3, 3, 0},        {"a/b", s1, 1, 1},
        {"a", s1, 1, 0},           {"outer/mid", s3, 2, 1},
        {"mid/inner", s3, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (ic_nvtx_match(cases[i].include, cases[i].stack, cases[i].depth) !=
            cases[i].want)
            fail_msg("case %zu: include '%s' depth %zu: want %d", i,
                     cases[i].include ? cases[i].include : "(null)",
                     cases[i].depth, cases[i].want);
}

static void test_kernel_regex(void **state)
{
    (void)state;
    static const struct {
        const char *regex, *mangled;
        int want;
    } cases[] = {
        {"transpose", "_Z9transposePfPKf", 1},
        {"^_Z9transpose", "_Z9transposePfPKf", 1},
        {"^transpose", "_Z9transposePfPKf", 0},
        {"transpose(_padded)?P", "_Z16transpose_paddedPfPKf", 1},
        {"copy|scale", "_Z5scalePf", 1},
        {"copy|scale", "_Z3addPf", 0},
        {"Pf$", "_Z5scalePf", 1},
        {"Pf$", "_Z5scalePfi", 0},
        {"", "_Z3addPf", 1},
        {"add", NULL, 1}, /* a name not known (graph launch): passes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ic_filter f;
        char err[256];
        assert_int_equal(ic_filter_init(&f, cases[i].regex, NULL, NULL, NULL,
                                        err, sizeof err),
                         0);
        if (ic_kernel_match(&f, cases[i].mangled) != cases[i].want)
            fail_msg("case %zu: '%s' on '%s': want %d", i, cases[i].regex,
                     cases[i].mangled ? cases[i].mangled : "(null)",
                     cases[i].want);
        ic_filter_free(&f);
    }
}

/* Skip and count number only the launches both filters pass. */
static void test_skip_count(void **state)
{
    (void)state;
    static const char *const in[] = {"step"};
    static const char *const out[] = {"warmup"};
    static const struct {
        const char *mangled;
        const char *const *stack;
        int want;
    } seq[] = {
        {"_Z4workv", in, 0},   /* match 0: skipped */
        {"_Z4idlev", in, 0},   /* kernel filter */
        {"_Z4workv", out, 0},  /* NVTX filter */
        {"_Z4workv", NULL, 0}, /* no range */
        {"_Z4workv", in, 0},   /* match 1: skipped */
        {"_Z4workv", in, 1},   /* match 2: first profiled */
        {"_Z4idlev", in, 0},
        {"_Z4workv", in, 1},   /* match 3 */
        {"_Z4workv", in, 0},   /* match 4: count reached */
        {"_Z4workv", in, 0},
    };
    ic_filter f;
    char err[256];
    assert_int_equal(ic_filter_init(&f, "work", "step", "2", "2", err,
                                    sizeof err),
                     0);
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        if (i == 8)
            assert_true(ic_filter_done(&f));
        else if (i < 7)
            assert_false(ic_filter_done(&f));
        int got = ic_filter_decide(&f, seq[i].mangled, seq[i].stack,
                                   seq[i].stack ? 1 : 0);
        if (got != seq[i].want)
            fail_msg("launch %zu (%s): got %d want %d", i, seq[i].mangled,
                     got, seq[i].want);
    }
    assert_int_equal(f.matched, 6);
    ic_filter_free(&f);

    /* no filters: every launch, never done */
    assert_int_equal(ic_filter_init(&f, NULL, NULL, NULL, NULL, err,
                                    sizeof err),
                     0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(ic_filter_decide(&f, "_Z1kv", NULL, 0), 1);
    assert_false(ic_filter_done(&f));
    ic_filter_free(&f);
}

static void test_filter_bad_values(void **state)
{
    (void)state;
    static const struct {
        const char *kernel, *skip, *count, *names;
    } cases[] = {
        {"(unclosed", NULL, NULL, "MEMPROBE_KERNEL"},
        {"[a-", NULL, NULL, "MEMPROBE_KERNEL"},
        {NULL, "x", NULL, "MEMPROBE_LAUNCH_SKIP"},
        {NULL, "-1", NULL, "MEMPROBE_LAUNCH_SKIP"},
        {NULL, NULL, "1e3", "MEMPROBE_LAUNCH_COUNT"},
        {NULL, NULL, "99999999999999999999", "MEMPROBE_LAUNCH_COUNT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ic_filter f;
        char err[256];
        assert_int_equal(ic_filter_init(&f, cases[i].kernel, NULL,
                                        cases[i].skip, cases[i].count, err,
                                        sizeof err),
                         -1);
        cli_must_contain("error", err, cases[i].names);
        assert_null(strchr(err, '\n'));
        ic_filter_free(&f);
    }
}

static void test_parse_u64(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(ic_parse_u64("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(ic_parse_u64("1000", &v), 0);
    assert_int_equal(v, 1000);
    assert_int_equal(ic_parse_u64("18446744073709551615", &v), 0);
    assert_true(v == UINT64_MAX);
    v = 5;
    assert_int_equal(ic_parse_u64("18446744073709551616", &v), -1);
    assert_int_equal(ic_parse_u64("", &v), -1);
    assert_int_equal(ic_parse_u64(" 1", &v), -1);
    assert_int_equal(ic_parse_u64("1 ", &v), -1);
    assert_int_equal(ic_parse_u64("+1", &v), -1);
    assert_int_equal(ic_parse_u64(NULL, &v), -1);
    assert_int_equal(v, 5);
}

/* ---- CSV quoting ---------------------------------------------------- */

static void test_csv_field(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"_Z1kPf", "_Z1kPf"},
        {"", ""},
        {"void k<int, 4>(float*)", "\"void k<int, 4>(float*)\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"\"", "\"\"\"\""},
        {"a\nb", "\"a\nb\""},
        {"a\rb", "\"a\rb\""},
        {"dir/with space/k.cu", "dir/with space/k.cu"},
        {"x,\"y\"", "\"x,\"\"y\"\"\""},
    };
    char out[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ic_csv_field(cases[i].in, out, sizeof out);
        assert_string_equal(out, cases[i].want);
    }
    ic_csv_field(NULL, out, sizeof out);
    assert_string_equal(out, "");
    /* truncated, never overrun */
    char small[5];
    ic_csv_field("a,bcdefgh", small, sizeof small);
    assert_string_equal(small, "\"a,b");
}

/* ---- raw files ------------------------------------------------------ */

static void test_launches_appended(void **state)
{
    const char *dir = *state;
    ic_launches b;
    ic_launches_init(&b);
    ic_launch *r = ic_launches_add(&b, 0, "_Z1kPf", "");
    assert_non_null(r);
    r->grid[0] = 132;
    r->grid[1] = r->grid[2] = 1;
    r->block[0] = 32;
    r->block[1] = r->block[2] = 1;
    r->dyn_shared = 4096;
    r->stream = 7;
    r->sum[0] = 264;
    r->sum[1] = 4224;
    r->sum[2] = 132;
    r = ic_launches_add(&b, 5, "void k<int, 2>(float*)", "outer/in \"x\"");
    assert_non_null(r);
    r->graph = 1;
    r->launches = 3;   /* a run of three identical launches */
    ic_launch_unavailable(r, "CUPTI 13.0 patched no code for this kernel");
    assert_int_equal(ic_write_launches(dir, 4242, &b), 0);
    assert_int_equal(b.n, 0);
    const char *first =
        MP_RAW_LAUNCH_COLUMNS "\n"
        "4242,0,1,_Z1kPf,132,1,1,32,1,1,4096,7,,0,exact,,264,4224,132,0,0,0\n"
        "4242,5,3,\"void k<int, 2>(float*)\",0,0,0,0,0,0,0,0,"
        "\"outer/in \"\"x\"\"\",1,unavailable,"
        "CUPTI 13.0 patched no code for this kernel,0,0,0,0,0,0\n";
    char *text = read_raw(dir, MP_RAW_LAUNCHES_FMT, 4242);
    assert_non_null(text);
    assert_string_equal(text, first);
    free(text);
    /* a second flush appends its rows only: the first text stays */
    r = ic_launches_add(&b, 6, "_Z1gv", "a");
    assert_non_null(r);
    r->sum[4] = 9;
    assert_int_equal(ic_write_launches(dir, 4242, &b), 0);
    text = read_raw(dir, MP_RAW_LAUNCHES_FMT, 4242);
    assert_non_null(text);
    assert_int_equal(strncmp(text, first, strlen(first)), 0);
    assert_string_equal(text + strlen(first),
                        "4242,6,1,_Z1gv,0,0,0,0,0,0,0,0,a,0,exact,,0,0,0,0,9,0\n");
    free(text);
    /* nothing to write: the file stays as it is */
    assert_int_equal(ic_write_launches(dir, 4242, &b), 0);
    text = read_raw(dir, MP_RAW_LAUNCHES_FMT, 4242);
    assert_int_equal(cli_count_char(text, '\n'), 4);
    free(text);
    /* every row has the header's number of columns (no quoted commas) */
    assert_int_equal(cli_count_char(MP_RAW_LAUNCH_COLUMNS, ',') + 1,
                     MP_RAW_LAUNCH_NCOLUMNS);
    ic_launches_free(&b);
    /* a directory that is not there: -1, rows kept */
    ic_launches_init(&b);
    assert_non_null(ic_launches_add(&b, 1, "_Z1kv", ""));
    assert_int_equal(ic_write_launches("/nonexistent-memprobe", 1, &b), -1);
    assert_int_equal(b.n, 1);
    ic_launches_free(&b);
}

/* A launch's memory instructions: summed per (crc, function, pc), kept
 * only with a shared or global count, appended to launch_ops.PID.csv with
 * the launch rows. */
static void test_launch_ops(void **state)
{
    const char *dir = *state;
    ic_launches b;
    ic_launches_init(&b);
    ic_launch *r = ic_launches_add(&b, 3, "_Z1tPf", "");
    assert_non_null(r);
    const uint64_t lds[MP_RAW_NMETRICS] = {32, 1024, 32, 0, 0, 32};
    const uint64_t alu[MP_RAW_NMETRICS] = {64, 0, 0, 0, 0};
    const uint64_t stg[MP_RAW_NMETRICS] = {32, 0, 0, 160, 128};
    assert_int_equal(ic_launch_op(r, 77, 2, 0x80, lds), 0);
    assert_int_equal(ic_launch_op(r, 77, 2, 0x90, alu), 0);   /* not kept */
    assert_int_equal(ic_launch_op(r, 77, 2, 0xa0, stg), 0);
    assert_int_equal(ic_launch_op(r, 77, 2, 0x80, lds), 0);   /* summed */
    assert_int_equal(r->nops, 2);
    assert_int_equal(r->ops[0].v[1], 2048);
    assert_int_equal(r->ops[0].v[0], 64);
    r = ic_launches_add(&b, 4, "_Z1tPf", "");
    assert_non_null(r);
    assert_int_equal(ic_launch_op(r, 77, 2, 0xa0, stg), 0);
    /* a pc's load count in a record of its own joins its sectors */
    const uint64_t ldg[MP_RAW_NMETRICS] = {32, 0, 0, 160, 128, 0};
    const uint64_t ldg_ld[MP_RAW_NMETRICS] = {0, 0, 0, 0, 0, 32};
    assert_int_equal(ic_launch_op(r, 77, 2, 0xb0, ldg_ld), 0);
    assert_int_equal(ic_launch_op(r, 77, 2, 0xb0, ldg), 0);
    assert_int_equal(r->nops, 2);
    assert_int_equal(r->ops[1].v[3], 160);
    assert_int_equal(r->ops[1].v[5], 32);
    assert_int_equal(ic_write_launches(dir, 99, &b), 0);
    char *text = read_raw(dir, MP_RAW_LAUNCH_OPS_FMT, 99);
    assert_non_null(text);
    assert_string_equal(text, MP_RAW_LAUNCH_OP_COLUMNS "\n"
                              "99,3,77,2,128,64,2048,64,0,0,64\n"
                              "99,3,77,2,160,32,0,0,160,128,0\n"
                              "99,4,77,2,160,32,0,0,160,128,0\n"
                              "99,4,77,2,176,32,0,0,160,128,32\n");
    free(text);
    assert_int_equal(cli_count_char(MP_RAW_LAUNCH_OP_COLUMNS, ',') + 1,
                     MP_RAW_LAUNCH_OP_NCOLUMNS);
    ic_launches_free(&b);
}

static void test_lines_rewritten(void **state)
{
    const char *dir = *state;
    ic_lines t;
    ic_lines_init(&t);
    ic_line *l = ic_lines_put(&t, 3735928559u, 2, 0x80, "_Z1kPf",
                              "/src/a,b.cu", 17);
    ic_line_count(l, 0, 1, 4096);
    ic_line_count(l, 0, 2, 128);
    assert_int_equal(ic_write_lines(dir, 77, &t), 0);
    char *text = read_raw(dir, MP_RAW_LINES_FMT, 77);
    assert_non_null(text);
    assert_string_equal(text, MP_RAW_LINE_COLUMNS "\n"
                        "77,3735928559,_Z1kPf,2,128,\"/src/a,b.cu\",17,1,"
                        "0,4096,128,0,0,0\n");
    free(text);
    /* a later flush rewrites the whole file with the new sums */
    ic_line_count(ic_lines_get(&t, 3735928559u, 2, 0x80), 1, 1, 4096);
    l = ic_lines_put(&t, 1, 0, 0x10, "_Z1gv", NULL, 0);
    ic_line_count(l, 1, 0, 3);
    assert_int_equal(ic_write_lines(dir, 77, &t), 0);
    text = read_raw(dir, MP_RAW_LINES_FMT, 77);
    assert_non_null(text);
    assert_string_equal(text, MP_RAW_LINE_COLUMNS "\n"
                        "77,3735928559,_Z1kPf,2,128,\"/src/a,b.cu\",17,2,"
                        "0,8192,128,0,0,0\n"
                        "77,1,_Z1gv,0,16,,0,1,3,0,0,0,0,0\n");
    free(text);
    /* the .tmp is gone */
    char tmpfmt[64];
    snprintf(tmpfmt, sizeof tmpfmt, "%s%s", MP_RAW_LINES_FMT,
             MP_RAW_TMP_SUFFIX);
    assert_null(read_raw(dir, tmpfmt, 77));
    assert_int_equal(cli_count_char(MP_RAW_LINE_COLUMNS, ',') + 1,
                     MP_RAW_LINE_NCOLUMNS);
    ic_lines_free(&t);
}

/* --per-kernel 2: the first two launches of each kernel, grid and block
 * are profiled; a launch whose call failed is not counted; the table
 * says when every kernel wanted has had its two (incomplete 0). */
static void test_per_kernel(void **state)
{
    (void)state;
    ic_kernels t;
    ic_kernels_init(&t, 2);
    const unsigned g1[3] = {4, 1, 1}, g2[3] = {8, 1, 1}, b[3] = {128, 1, 1};
    ic_kernel *a = ic_kernels_get(&t, "_Z1av", g1, b);
    assert_non_null(a);
    assert_int_equal(ic_kernel_wants(&t, a), 1);
    assert_int_equal(t.incomplete, 1);
    ic_kernel_done(&t, a, 1, 0);   /* the launch call failed */
    assert_int_equal(a->seen, 0);
    int got[5];
    for (int i = 0; i < 5; i++) {
        a = ic_kernels_get(&t, "_Z1av", g1, b);
        got[i] = ic_kernel_wants(&t, a);
        ic_kernel_done(&t, a, got[i], 1);
    }
    assert_int_equal(got[0] + got[1], 2);
    assert_int_equal(got[2] + got[3] + got[4], 0);
    assert_int_equal(a->seen, 5);
    assert_int_equal(a->profiled, 2);
    assert_int_equal(t.incomplete, 0);
    /* another grid is another kernel: wanted again */
    ic_kernel *a2 = ic_kernels_get(&t, "_Z1av", g2, b);
    assert_ptr_not_equal(a2, ic_kernels_get(&t, "_Z1av", g1, b));
    assert_int_equal(ic_kernel_wants(&t, a2), 1);
    assert_int_equal(t.incomplete, 1);
    /* two launches decided before either returns (two threads): the
     * third is not taken */
    assert_int_equal(ic_kernel_wants(&t, a2), 1);
    ic_kernel_done(&t, a2, 1, 1);
    ic_kernel_done(&t, a2, 1, 1);
    assert_int_equal(a2->profiled, 2);
    assert_int_equal(t.incomplete, 0);
    assert_int_equal(t.n, 2);
    /* many kernels: the index grows, each found again */
    char name[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "_Z1k%dv", i);
        ic_kernel *k = ic_kernels_get(&t, name, g1, b);
        assert_non_null(k);
        ic_kernel_done(&t, k, 0, 1);
    }
    for (int i = 0; i < 3000; i += 7) {
        snprintf(name, sizeof name, "_Z1k%dv", i);
        assert_int_equal(ic_kernels_get(&t, name, g1, b)->seen, 1);
    }
    assert_int_equal(t.n, 3002);
    ic_kernels_free(&t);
    /* no --per-kernel: every launch wanted, nothing incomplete */
    ic_kernels_init(&t, 0);
    a = ic_kernels_get(&t, "_Z1av", g1, b);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ic_kernel_wants(&t, a), 1);
        ic_kernel_done(&t, a, 1, 1);
    }
    assert_int_equal(a->profiled, 4);
    assert_int_equal(t.incomplete, 0);
    ic_kernels_free(&t);
}

/* A function is taken to have no line information after
 * IC_NOLINE_AFTER lookups in a row found none, never once one found a
 * line; functions apart, across the index's growth. */
static void test_fnlines(void **state)
{
    (void)state;
    ic_fnlines t = {0};
    assert_int_equal(ic_fnlines_none(&t, 7, 1), 0);
    for (int i = 0; i < IC_NOLINE_AFTER - 1; i++)
        assert_int_equal(ic_fnlines_note(&t, 7, 1, 0), 0);
    assert_int_equal(ic_fnlines_none(&t, 7, 1), 0);
    assert_int_equal(ic_fnlines_note(&t, 7, 1, 0), 0);
    assert_int_equal(ic_fnlines_none(&t, 7, 1), 1);
    /* a line found first: never taken for none */
    assert_int_equal(ic_fnlines_note(&t, 7, 2, 1), 0);
    for (int i = 0; i < 3 * IC_NOLINE_AFTER; i++)
        assert_int_equal(ic_fnlines_note(&t, 7, 2, 0), 0);
    assert_int_equal(ic_fnlines_none(&t, 7, 2), 0);
    /* crc 0, function 0 is a key like any other; many functions */
    for (uint32_t f = 0; f < 2000; f++)
        for (int i = 0; i < IC_NOLINE_AFTER; i++)
            assert_int_equal(ic_fnlines_note(&t, 0, f, f % 2), 0);
    for (uint32_t f = 0; f < 2000; f++)
        assert_int_equal(ic_fnlines_none(&t, 0, f), f % 2 == 0);
    assert_int_equal(ic_fnlines_none(&t, 7, 1), 1);
    assert_int_equal(ic_fnlines_none(&t, 8, 1), 0);
    ic_fnlines_free(&t);
}

static void test_kernels_file(void **state)
{
    const char *dir = *state;
    ic_kernels t;
    ic_kernels_init(&t, 1);
    const unsigned g[3] = {2, 3, 1}, b[3] = {32, 4, 1}, none[3] = {0, 0, 0};
    ic_kernel *k = ic_kernels_get(&t, "_Z1fIiEvv", g, b);
    ic_kernel_done(&t, k, ic_kernel_wants(&t, k), 1);
    ic_kernel_done(&t, k, ic_kernel_wants(&t, k), 1);
    k = ic_kernels_get(&t, "(graph 0)", none, none);
    ic_kernel_done(&t, k, 0, 1);
    assert_int_equal(ic_write_kernels(dir, 9, &t), 0);
    char *text = read_raw(dir, MP_RAW_KERNELS_FMT, 9);
    assert_non_null(text);
    assert_string_equal(text, MP_RAW_KERNEL_COLUMNS "\n"
                              "9,_Z1fIiEvv,2,3,1,32,4,1,2,1\n"
                              "9,(graph 0),0,0,0,0,0,0,1,0\n");
    free(text);
    ic_kernels_free(&t);
}

/* NVTX's registered strings by handle: kept, looked up, renamed, cut,
 * wide ones as ASCII; an unknown handle has none. */
static void test_nvtx_strings(void **state)
{
    (void)state;
    static ic_nvtx t;
    int a = 0, b = 0, c = 0;
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ic_nvtx_register(&t, &a, "sort keys", NULL);
    ic_nvtx_register(&t, &b, NULL, L"transpose tiles \u00e9");
    ic_nvtx_register(&t, NULL, "nothing", NULL);
    assert_string_equal(ic_nvtx_lookup(&t, &a), "sort keys");
    assert_string_equal(ic_nvtx_lookup(&t, &b), "transpose tiles ?");
    assert_null(ic_nvtx_lookup(&t, &c));
    assert_null(ic_nvtx_lookup(&t, NULL));
    ic_nvtx_register(&t, &a, longname, NULL);
    assert_int_equal(t.n, 2);
    assert_int_equal(strlen(ic_nvtx_lookup(&t, &a)), IC_NVTX_NAME - 1);
    /* a full table keeps what it has */
    static char many[IC_NVTX_STRINGS + 1];
    for (int k = 0; t.n < IC_NVTX_STRINGS; k++)
        ic_nvtx_register(&t, &many[k], "r", NULL);
    ic_nvtx_register(&t, &many[IC_NVTX_STRINGS], "late", NULL);
    assert_null(ic_nvtx_lookup(&t, &many[IC_NVTX_STRINGS]));
    assert_string_equal(ic_nvtx_lookup(&t, &b), "transpose tiles ?");
}

/* The objects of the CUDA stack, by file name wherever they lie; the
 * code that owns a module is none of them. */
static void test_cuda_stack(void **state)
{
    (void)state;
    static const char *const stack[] = {
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "/usr/local/cuda/lib64/libcudart.so.13.0.88",
        "/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12",
        "/w/build/lib/libcupti.so.13", "/w/build/lib/libnvperf_host.so",
        "/w/build/lib/libmemprobe_inject.so",
        "/w/build/lib/libmemprobe_client.so",
        "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc-2.17.so",
        "/lib/x86_64-linux-gnu/libpthread.so.0",
        "/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libgcc_s.so.1",
        "/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/lib/libnvidia-ptxjitcompiler.so.1", "libcuda.so.1",
    };
    for (size_t i = 0; i < sizeof stack / sizeof *stack; i++)
        if (!ic_cuda_stack_object(stack[i]))
            fail_msg("%s: not taken as the CUDA stack's", stack[i]);
    static const char *const own[] = {
        "/w/build/tests/profile/cpp_app", "/usr/bin/python3.12",
        "/site-packages/nvidia/cublas/lib/libcublasLt.so.13",
        "/site-packages/torch/lib/libtorch_cuda.so",
        "/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9",
        "/opt/app/libcudaext.so", "/opt/libc_helpers.so", "libcudnn.so.9",
        "/tmp/libcusparse.so", "", NULL,
    };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (ic_cuda_stack_object(own[i]))
            fail_msg("%s: taken as the CUDA stack's", own[i] ? own[i]
                     : "(null)");
}

/* The first frame outside the CUDA stack, innermost first; frames in no
 * object skipped. */
static void test_first_own_frame(void **state)
{
    (void)state;
    const char *lazy[] = {"/b/libmemprobe_inject.so", "/b/libcupti.so.13",
                          "/u/libcuda.so.1", NULL, "/u/libcuda.so.1",
                          "/t/libcudart.so.12", "/t/libtorch_cuda.so",
                          "/t/libtorch_python.so", "/usr/bin/python3"};
    assert_int_equal(ic_first_own_frame(lazy, 9), 6);
    /* static cudart inside the program: its frames are the program's */
    const char *app[] = {"/b/libmemprobe_inject.so", "/b/libcupti.so.13",
                         "/u/libcuda.so.1", "/w/cpp_app", "/w/cpp_app",
                         "/lib/libc.so.6"};
    assert_int_equal(ic_first_own_frame(app, 6), 3);
    const char *none[] = {"/b/libmemprobe_inject.so", NULL, "",
                          "/u/libcuda.so.1", "/lib/libc.so.6"};
    assert_int_equal(ic_first_own_frame(none, 5), -1);
    assert_int_equal(ic_first_own_frame(none, 0), -1);
}

/* modules.PID.csv: one row per module, the first origin of a cubin kept,
 * paths quoted as RFC 4180 asks, rewritten whole. */
static void test_modules_written(void **state)
{
    const char *dir = *state;
    ic_modules m;
    ic_modules_init(&m);
    assert_int_equal(ic_modules_add(&m, 3735928559u, "/w/cpp_app",
                                    MP_FOUND_BACKTRACE), 1);
    assert_int_equal(ic_modules_add(&m, 3735928559u, "/other",
                                    MP_FOUND_IMAGE), 0);
    assert_int_equal(ic_modules_add(&m, 12, "/opt/a,\"b\"/libcublasLt.so.13",
                                    MP_FOUND_CUBIN), 1);
    assert_int_equal(ic_write_modules(dir, 77, &m), 0);
    char *text = read_raw(dir, MP_RAW_MODULES_FMT, 77);
    assert_non_null(text);
    assert_string_equal(text, MP_RAW_MODULE_COLUMNS "\n"
                        "77,3735928559,/w/cpp_app,backtrace\n"
                        "77,12,\"/opt/a,\"\"b\"\"/libcublasLt.so.13\",cubin\n");
    free(text);
    assert_int_equal(ic_modules_add(&m, 5, MP_ORIGIN_RUNTIME,
                                    MP_FOUND_IMAGE), 1);
    for (uint32_t k = 100; k < 140; k++)   /* the table grows */
        assert_int_equal(ic_modules_add(&m, k, "/l/libx.so", MP_FOUND_FILE),
                         1);
    assert_int_equal(m.n, 43);
    assert_int_equal(ic_write_modules(dir, 77, &m), 0);
    text = read_raw(dir, MP_RAW_MODULES_FMT, 77);
    assert_non_null(text);
    assert_non_null(strstr(text, "\n77,5,(run-time compiled),image\n"
                                 "77,100,/l/libx.so,file\n"));
    assert_int_equal(cli_count_char(text, '\n'), 44);
    free(text);
    char tmpfmt[64];
    snprintf(tmpfmt, sizeof tmpfmt, "%s%s", MP_RAW_MODULES_FMT,
             MP_RAW_TMP_SUFFIX);
    assert_null(read_raw(dir, tmpfmt, 77));
    ic_modules_free(&m);
    assert_int_equal(m.n, 0);
    /* a folder that cannot be written: -1, no file */
    assert_int_equal(ic_write_modules("/nonexistent/dir", 77, &m), -1);
}

static void test_status(void **state)
{
    const char *dir = *state;
    static ic_status s; /* 16 KB */
    memset(&s, 0, sizeof s);
    assert_int_equal(ic_status_event(&s, MP_RAW_KEY_CUPTI_VERSION, "130500"),
                     1);
    assert_int_equal(ic_status_event(&s, MP_RAW_KEY_PID, "12"), 1);
    assert_int_equal(ic_status_event(&s, MP_RAW_KEY_WARNING,
                                     "cuCtxSynchronize: an\nerror"),
                     1);
    /* said once */
    assert_int_equal(ic_status_event(&s, MP_RAW_KEY_WARNING,
                                     "cuCtxSynchronize: an\nerror"),
                     0);
    s.seen = 10;
    s.profiled = 4;
    s.cost_n[IC_COST_SYNC] = 3;
    s.cost_s[IC_COST_SYNC] = 0.0125;
    s.cost_n[IC_COST_FLUSH] = 3;
    s.cost_s[IC_COST_FLUSH] = 12.0000004;   /* rounded to the microsecond */
    s.cost_n[IC_COST_DISABLE] = 1;
    s.cost_s[IC_COST_DISABLE] = 0.000001;
    s.records = 4200;
    assert_int_equal(ic_write_status(dir, 12, &s, "flush"), 0);
    char *text = read_raw(dir, MP_RAW_STATUS_FMT, 12);
    assert_non_null(text);
    const char *cost = "cost sync 3 0.012500 flush 3 12.000000 attribute 0 "
                       "0.000000 lines 0 0.000000 modules 0 0.000000 writes "
                       "0 0.000000 enable 0 0.000000 disable 1 0.000001 "
                       "launch 0 0.000000 launch_off 0 0.000000 records "
                       "4200\n";
    char want[1024];
    snprintf(want, sizeof want, "cupti_version 130500\npid 12\n"
             "warning cuCtxSynchronize: an error\n"
             "launches_seen 10\nlaunches_profiled 4\n%send flush\n", cost);
    assert_string_equal(text, want);
    free(text);
    /* the counts are rewritten as the last lines */
    s.seen = 11;
    assert_int_equal(ic_status_event(&s, MP_RAW_KEY_ERROR, "late"), 1);
    assert_int_equal(ic_write_status(dir, 12, &s, "signal 2"), 0);
    text = read_raw(dir, MP_RAW_STATUS_FMT, 12);
    snprintf(want, sizeof want, "cupti_version 130500\npid 12\n"
             "warning cuCtxSynchronize: an error\nerror late\n"
             "launches_seen 11\nlaunches_profiled 4\n%send signal 2\n",
             cost);
    assert_string_equal(text, want);
    free(text);
    /* a full buffer refuses, never overruns */
    int added = 0, full = 0;
    char v[32];
    for (int i = 0; i < 2000 && !full; i++) {
        snprintf(v, sizeof v, "%d", i);
        int rc = ic_status_event(&s, MP_RAW_KEY_WARNING, v);
        added += rc == 1;
        full = rc == -1;
    }
    assert_true(full);
    assert_true(added > 100);
    assert_true(s.len < sizeof s.text);
}

static void test_cubin_once(void **state)
{
    const char *dir = *state;
    assert_int_equal(ic_write_cubin(dir, 4000000000u, "\x7f" "ELF1", 5), 0);
    assert_int_equal(ic_write_cubin(dir, 4000000000u, "other", 5), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/cubin.4000000000", dir);
    size_t len;
    char *data = cli_read_file(path, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(data, "\x7f" "ELF1", 5);
    free(data);
}

/* A batch holds each kernel name once, and max_runs runs at most. */
static void test_batch_admits(void **state)
{
    (void)state;
    const char *const names[] = {"_Z1av", "_Z1bv", "_Z1cv"};
    assert_int_equal(ic_batch_admits(names, 0, 32, "_Z1av"), 1);
    assert_int_equal(ic_batch_admits(names, 3, 32, "_Z1dv"), 1);
    assert_int_equal(ic_batch_admits(names, 3, 32, "_Z1av"), 0);
    assert_int_equal(ic_batch_admits(names, 3, 32, "_Z1cv"), 0);
    /* only the runs in the batch count: c is not in the first two */
    assert_int_equal(ic_batch_admits(names, 2, 32, "_Z1cv"), 1);
    assert_int_equal(ic_batch_admits(names, 3, 3, "_Z1dv"), 0);
    assert_int_equal(ic_batch_admits(names, 2, 3, "_Z1dv"), 1);
    /* max 1: a flush per run */
    assert_int_equal(ic_batch_admits(names, 1, 1, "_Z1dv"), 0);
    /* a launch without a name joins as "" */
    const char *const unnamed[] = {""};
    assert_int_equal(ic_batch_admits(unnamed, 1, 32, NULL), 0);
    assert_int_equal(ic_batch_admits(names, 3, 32, NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_lists),
        cmocka_unit_test(test_metric_index),
        cmocka_unit_test(test_lines_sum_per_launch),
        cmocka_unit_test(test_lines_many),
        cmocka_unit_test(test_nvtx_match),
        cmocka_unit_test(test_kernel_regex),
        cmocka_unit_test(test_skip_count),
        cmocka_unit_test(test_filter_bad_values),
        cmocka_unit_test(test_parse_u64),
        cmocka_unit_test(test_csv_field),
        cmocka_unit_test(test_nvtx_strings),
        cmocka_unit_test(test_cuda_stack),
        cmocka_unit_test(test_first_own_frame),
        cmocka_unit_test_setup_teardown(test_modules_written, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(test_launches_appended, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(test_launch_ops, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(test_lines_rewritten, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(test_status, make_dir, remove_dir),
        cmocka_unit_test(test_per_kernel),
        cmocka_unit_test(test_batch_admits),
        cmocka_unit_test(test_fnlines),
        cmocka_unit_test_setup_teardown(test_kernels_file, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(test_cubin_once, make_dir,
                                        remove_dir),
    };
    return cmocka_run_group_tests_name("inject_core", tests, NULL, NULL);
}
