/*
 * test_sweep_file.c - CPU tests of sweep files (runtime/sweep_file.c): the
 * parser on a good file (sections in order, repeated and empty sections,
 * comments, blanks, CRLF, a BOM), every error (each names the file, the
 * line and the key), repeats dropped, and --resume's filter against CSV
 * files written by memprobe's own writer (runtime/csv_writer.c).
 *
 * Files live in a fresh mkdtemp directory, removed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_writer.h"
#include "probe.h"
#include "row.h"
#include "sweep_file.h"

static char dir[64];

/* Writes `len` bytes of text to DIR/name; returns the path (static). */
static const char *write_bytes(const char *name, const char *text,
                               size_t len)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return p;
}

static const char *write_file(const char *name, const char *text)
{
    return write_bytes(name, text, strlen(text));
}

/* Configuration c of sec has the label want. */
static void expect_label(const mp_sweep_section *sec, int c, const char *want)
{
    char label[128];
    sec->probe->label(sec->configs.v[c], label, sizeof label);
    assert_string_equal(label, want);
}

/* Section i of s is [name] at line `line` with n configurations. */
static const mp_sweep_section *expect_section(const mp_sweep *s, int i,
                                              const char *name, int line,
                                              int n)
{
    const mp_sweep_section *sec = &s->sections[i];
    assert_string_equal(sec->name, name);
    assert_int_equal(sec->line, line);
    assert_int_equal(sec->configs.n, n);
    return sec;
}

/* ---- a good file ----------------------------------------------------- */

/* Line numbers matter: the tests check them. */
static const char good[] =
    "# sweep file of the parser test\n"             /* 1 */
    "\n"                                             /* 2 */
    "[bank]            ; stride x width\n"          /* 3 */
    "op = ld,st\n"                                   /* 4 */
    "width = 4, 8      # blanks, a '#' comment\n"   /* 5 */
    "   stride = 0..2\n"                             /* 6: indented */
    "\n"                                             /* 7 */
    "[bank.pad]\n"                                   /* 8 */
    "stride = 16\n"                                  /* 9 */
    "pad = 1,2\n"                                    /* 10 */
    "warmup = 1\n"                                   /* 11 */
    "runs = 5\n"                                     /* 12 */
    "[const]\n"                                      /* 13: empty */
    "[bank]\n"                                       /* 14: again */
    "stride=3\n";                                    /* 15 */

static void check_good(const mp_sweep *s)
{
    assert_int_equal(s->nsections, 4);
    assert_int_equal(s->duplicates, 0);
    assert_int_equal(s->resumed, 0);
    assert_string_equal(s->ambiguous, "");
    /* 2 ops x 2 widths x 3 strides + 2 pads + 1 + 1 = 16. */
    assert_int_equal(s->total, 16);

    const mp_sweep_section *a = expect_section(s, 0, "bank", 3, 12);
    assert_ptr_equal(a->probe, mp_probe_find("bank"));
    assert_int_equal(a->warmup, MP_SWEEP_DEFAULT_WARMUP);
    assert_int_equal(a->runs, MP_SWEEP_DEFAULT_RUNS);
    int k = mp_param_find(a->probe->params, a->probe->nparams, "stride");
    assert_int_equal(a->key_line[k], 6);
    /* Odometer order, op slowest, stride fastest. */
    expect_label(a, 0, "bank/ld/w4/s0/b0/g1/p32");
    expect_label(a, 1, "bank/ld/w4/s1/b0/g1/p32");
    expect_label(a, 3, "bank/ld/w8/s0/b0/g1/p32");
    expect_label(a, 11, "bank/st/w8/s2/b0/g1/p32");

    const mp_sweep_section *b = expect_section(s, 1, "bank.pad", 8, 2);
    assert_int_equal(b->warmup, 1);
    assert_int_equal(b->runs, 5);
    assert_int_equal(b->warmup_line, 11);
    assert_int_equal(b->runs_line, 12);
    expect_label(b, 1, "bank/ld/w4/s16/b0/g1/p32/pad2");

    /* An empty section: the probe's defaults, one configuration. */
    const mp_sweep_section *c = expect_section(s, 2, "const", 13, 1);
    expect_label(c, 0, "const/constant/s1/sp4/g32/p32");

    /* A repeated [bank] is a section of its own, not more keys of the
     * first (stride was given there already). */
    const mp_sweep_section *d = expect_section(s, 3, "bank", 14, 1);
    expect_label(d, 0, "bank/ld/w4/s3/b0/g1/p32");
}

static void test_good_file(void **state)
{
    (void)state;
    mp_sweep s;
    char err[512] = "";
    const char *path = write_file("good.conf", good);
    if (mp_sweep_read(path, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(s.path, path);
    check_good(&s);
    mp_sweep_free(&s);
    assert_int_equal(s.nsections, 0);
    mp_sweep_free(&s);   /* twice is safe */
}

/* The same file with CRLF line ends, and with a UTF-8 byte-order mark. */
static void test_good_file_crlf_and_bom(void **state)
{
    (void)state;
    char crlf[2 * sizeof good];
    size_t n = 0;
    for (const char *c = good; *c; c++) {
        if (*c == '\n')
            crlf[n++] = '\r';
        crlf[n++] = *c;
    }
    mp_sweep s;
    char err[512] = "";
    if (mp_sweep_read(write_bytes("crlf.conf", crlf, n), &s, err, sizeof err))
        fail_msg("%s", err);
    check_good(&s);
    mp_sweep_free(&s);

    char bom[sizeof good + 3] = "\xEF\xBB\xBF";
    memcpy(bom + 3, good, sizeof good);
    if (mp_sweep_read(write_file("bom.conf", bom), &s, err, sizeof err))
        fail_msg("%s", err);
    check_good(&s);
    mp_sweep_free(&s);
}

/* ---- errors ------------------------------------------------------------ */

typedef struct {
    const char *what, *text;
    int line;                 /* 0: a file-level error "PATH: ..." */
    const char *needs[3];     /* more strings the message must hold */
} bad_file;

static const bad_file bad_files[] = {
    {"unknown probe", "# x\n[banks]\nstride = 1\n", 2,
     {"unknown probe 'banks'", "[banks]", "bank, coalesce"}},
    {"unknown key", "[bank]\nop = ld\nstrid = 1\n", 3,
     {"unknown key 'strid'", "[bank]", "stride"}},
    {"bad value", "[bank]\nstride = abc\n", 2,
     {"--stride", "'abc' is not a whole number", "0..4096"}},
    {"value not allowed", "[bank]\nwidth = 4,12\n", 2, {"--width", "12"}},
    {"bad choice", "[bank]\nop = ld,xx\n", 2, {"--op", "'xx'", "ld|st"}},
    {"empty range", "[bank]\n\nstride = 5..1\n", 3,
     {"--stride", "5..1", "empty"}},
    {"range out of bounds", "[bank]\nstride = 0..5000\n", 2,
     {"--stride", "5000", "out of range"}},
    {"bad step", "[bank]\nstride = 0..8:0\n", 2, {"--stride", "step"}},
    {"empty value", "[bank]\nstride =\n", 2, {"--stride", "empty value"}},
    {"empty list item", "[bank]\nstride = 1,,2\n", 2,
     {"--stride", "empty item"}},
    {"duplicate key", "[bank]\nstride = 1\nop = st\nstride = 2\n", 4,
     {"'stride' given twice", "first on line 2", "[bank]"}},
    {"duplicate run option", "[coalesce]\nruns = 1\nruns = 2\n", 3,
     {"'runs' given twice", "line 2"}},
    {"bad run option", "[const]\nwarmup = 1001\n", 2,
     {"--warmup", "1001", "0..1000"}},
    {"run option list", "[const]\nruns = 1,2\n", 2, {"--runs", "'1,2'"}},
    {"key before any section", "stride = 1\n[bank]\n", 1,
     {"'stride'", "before the first [PROBE] section"}},
    {"no '='", "[bank]\nstride 4\n", 2, {"key = value"}},
    {"header without ]", "[bank\nstride = 1\n", 1, {"without ']'"}},
    {"text after header", "[bank] stride = 1\n", 1,
     {"after the section header", "stride = 1"}},
    {"empty tag", "[bank.]\n", 1, {"[bank.]", "tag"}},
    {"bad tag", "[bank.a/b]\n", 1, {"[bank.a/b]", "tag"}},
    {"empty section name", "[]\n", 1, {"[]", "[PROBE]"}},
    {"check: names the key's line",
     "[bank]\nop = ld\nstride = 0\n\npad = 1\n", 5,
     {"--pad", "bank/ld/w4/s0/b0/g1/p32/pad1", "[bank]"}},
    {"check: a combination, at the header",
     "[const]\n[const.x]\nspread = 2\nperiod = 16\ngroup = 1\n", 2,
     {"--group/--period", "[const.x]"}},
    {"too many configurations",
     "[bank]\nstride = 0..999\nbase = 0..999\nwidth = 4,8\n", 1,
     {"[bank]", "more than 1000000"}},
    {"the first error wins", "[bank]\nstride = x\nstrid = 1\n", 2,
     {"--stride"}},
    {"inih's error before ours", "[bank]\nnonsense\nstrid = 1\n", 2,
     {"key = value"}},
    {"empty file", "", 0, {"no [PROBE] section"}},
    {"only comments", "# nothing\n; here\n\n", 0, {"no [PROBE] section"}},
};

static void expect_error(const char *path, int line, const char *const *needs,
                         const char *what)
{
    mp_sweep s;
    char err[1024] = "", prefix[300];
    if (mp_sweep_read(path, &s, err, sizeof err) == 0)
        fail_msg("%s: read a bad file without an error", what);
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", path);
    print_message("# %s: %s\n", what, err);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        fail_msg("%s: '%s' does not start with '%s'", what, err, prefix);
    assert_null(strchr(err, '\n'));
    for (int i = 0; i < 3 && needs[i]; i++)
        if (!strstr(err, needs[i]))
            fail_msg("%s: '%s' lacks '%s'", what, err, needs[i]);
    /* Nothing is left to free. */
    assert_int_equal(s.nsections, 0);
    assert_null(s.sections);
    assert_null(s.path);
}

static void test_bad_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        const bad_file *b = &bad_files[i];
        expect_error(write_file("bad.conf", b->text), b->line, b->needs,
                     b->what);
    }
}

/* A line longer than inih's buffer is refused, not split. */
static void test_long_line(void **state)
{
    (void)state;
    char text[1024] = "[bank]\nstride = 1";
    for (int i = 0; i < 200; i++)
        strcat(text, ",1");
    strcat(text, "\n");
    const char *needs[] = {"longer than", NULL};
    expect_error(write_file("long.conf", text), 2, needs, "long line");

    /* A line of 199 characters is fine: "stride = 0,1,...,46" is 9 + 10 x
     * 2 + 37 x 3 - 1 = 139, padded with blanks to 199. */
    char fits[256] = "[bank]\nstride = 0";
    for (int i = 1; i <= 46; i++)
        sprintf(fits + strlen(fits), ",%d", i);
    size_t len = strlen(fits);
    assert_int_equal(len - 7, 139);
    while (len - 7 < 199)
        fits[len++] = ' ';
    strcpy(fits + len, "\n");
    mp_sweep s;
    char err[512];
    if (mp_sweep_read(write_file("fits.conf", fits), &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.total, 47);
    mp_sweep_free(&s);

    /* A value repeated in a list runs once. */
    if (mp_sweep_read(write_file("twice.conf", "[bank]\nstride = 1,2,1\n"),
                      &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.total, 2);
    assert_int_equal(s.duplicates, 1);
    mp_sweep_free(&s);
}

static void test_missing_and_unreadable(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/missing.conf", dir);
    const char *missing[] = {"cannot open", "No such file", NULL};
    expect_error(path, 0, missing, "missing file");

    /* A directory opens but cannot be read. */
    const char *isdir[] = {"cannot read", NULL};
    expect_error(dir, 0, isdir, "directory");

    if (geteuid() == 0) {
        print_message("# root reads any file: the permission case is "
                      "skipped\n");
        return;
    }
    const char *locked = write_file("locked.conf", "[bank]\n");
    assert_int_equal(chmod(locked, 0), 0);
    const char *denied[] = {"cannot open", "Permission denied", NULL};
    expect_error(locked, 0, denied, "unreadable file");
}

/* ---- repeats ------------------------------------------------------------ */

static void test_repeats_dropped(void **state)
{
    (void)state;
    /* [bank] 0..3 x ld,st = 8; [bank.again] 2..5 ld = 4, of which 2 and 3
     * repeat [bank]; [bank.runs] differs in runs: no repeat. */
    const char *path = write_file("repeat.conf",
                                  "[bank]\nop = ld,st\nstride = 0..3\n"
                                  "[bank.again]\nstride = 2..5\n"
                                  "[bank.runs]\nstride = 0\nruns = 5\n");
    mp_sweep s;
    char err[512];
    if (mp_sweep_read(path, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.duplicates, 2);
    assert_int_equal(s.total, 8 + 2 + 1);
    assert_int_equal(s.sections[1].configs.n, 2);
    expect_label(&s.sections[1], 0, "bank/ld/w4/s4/b0/g1/p32");
    expect_label(&s.sections[1], 1, "bank/ld/w4/s5/b0/g1/p32");
    assert_int_equal(s.sections[2].configs.n, 1);
    assert_string_equal(s.ambiguous, "");
    mp_sweep_free(&s);
}

/* Rows that would look the same in the CSV: both run, --resume refuses. */
static void test_ambiguous(void **state)
{
    (void)state;
    const char *path = write_file("ambiguous.conf",
                                  "[bank]\nstride = 1\n"
                                  "[bank.t]\nstride = 1\nthreads = 512\n");
    mp_sweep s;
    char err[1024];
    if (mp_sweep_read(path, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.total, 2);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:3: ", path);
    assert_true(strncmp(s.ambiguous, prefix, strlen(prefix)) == 0);
    assert_non_null(strstr(s.ambiguous, "bank/ld/w4/s1/b0/g1/p32"));
    char csv[256];
    snprintf(csv, sizeof csv, "%s/none.csv", dir);
    assert_int_equal(mp_sweep_resume(&s, csv, err, sizeof err), -1);
    assert_string_equal(err, s.ambiguous);
    mp_sweep_free(&s);
}

/* ---- --resume ----------------------------------------------------------- */

/* Appends the row the runner would write for configuration v (parameter
 * columns from describe, no measurement). */
static void write_row(mp_csv_writer *w, const mp_probe *p,
                      const long long *v, int warmup, int runs,
                      const char *verified)
{
    mp_row row;
    const char *cells[1024];
    char label[128], err[256];
    assert_int_equal(mp_row_init(&row), 0);
    assert_true(mp_schema_columns() <= 1024);
    p->describe(v, &row);
    p->label(v, label, sizeof label);
    mp_row_set(&row, MP_COL_CONFIG, "%s", label);
    mp_row_set(&row, MP_COL_WARMUP, "%d", warmup);
    mp_row_set(&row, MP_COL_RUNS, "%d", runs);
    mp_row_set(&row, MP_COL_VERIFIED, "%s", verified);
    mp_row_set(&row, MP_COL_THREADS, "256");   /* as derive would */
    mp_row_cells(&row, cells);
    if (mp_csv_write_row(w, cells, err, sizeof err))
        fail_msg("%s", err);
    mp_row_free(&row);
}

static void open_csv(mp_csv_writer *w, const char *path)
{
    const char *header[1024];
    char err[256];
    for (int i = 0; i < mp_schema_columns(); i++)
        header[i] = mp_schema_name(i);
    if (mp_csv_open(w, path, header, mp_schema_columns(), err, sizeof err))
        fail_msg("%s", err);
}

static const char resume_conf[] =
    "[bank]\nop = ld,st\nstride = 0..3\n"   /* 8 */
    "[const]\nspread = 1,2\n";              /* 2 */

static void test_resume(void **state)
{
    (void)state;
    mp_sweep s;
    char err[512];
    const char *conf = write_file("resume.conf", resume_conf);
    if (mp_sweep_read(conf, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.total, 10);

    char csv[256];
    snprintf(csv, sizeof csv, "%s/resume.csv", dir);
    unlink(csv);
    mp_csv_writer w;
    open_csv(&w, csv);
    const mp_sweep_section *bank = &s.sections[0], *cst = &s.sections[1];
    const mp_probe *bp = bank->probe;
    /* Done: ld stride 0 and 2, const spread 2. */
    write_row(&w, bp, bank->configs.v[0], 3, 20, "yes");
    write_row(&w, bp, bank->configs.v[2], 3, 20, "yes");
    write_row(&w, cst->probe, cst->configs.v[1], 3, 20, "yes");
    /* Not done: a wrong output (ld stride 1), other runs (ld stride 3),
     * other iterations under the same name (st stride 0). */
    write_row(&w, bp, bank->configs.v[1], 3, 20, "no");
    write_row(&w, bp, bank->configs.v[3], 3, 10, "yes");
    long long v[MP_MAX_PARAMS];
    memcpy(v, bank->configs.v[4], sizeof v);
    int it = mp_param_find(bp->params, bp->nparams, "iterations");
    v[it] = 4096;
    write_row(&w, bp, v, 3, 20, "yes");
    /* A second row of a done configuration changes nothing. */
    write_row(&w, bp, bank->configs.v[0], 3, 20, "yes");
    assert_int_equal(mp_csv_close(&w), 0);

    if (mp_sweep_resume(&s, csv, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.resumed, 3);
    assert_int_equal(s.total, 7);
    assert_int_equal(s.sections[0].configs.n, 6);
    assert_int_equal(s.sections[1].configs.n, 1);
    /* What is left keeps its order. */
    static const char *const left[] = {
        "bank/ld/w4/s1/b0/g1/p32", "bank/ld/w4/s3/b0/g1/p32",
        "bank/st/w4/s0/b0/g1/p32", "bank/st/w4/s1/b0/g1/p32",
        "bank/st/w4/s2/b0/g1/p32", "bank/st/w4/s3/b0/g1/p32"};
    for (int c = 0; c < 6; c++)
        expect_label(&s.sections[0], c, left[c]);
    expect_label(&s.sections[1], 0, "const/constant/s1/sp4/g32/p32");
    mp_sweep_free(&s);
}

/* Everything there: nothing left. A missing or empty file: nothing done. */
static void test_resume_all_and_none(void **state)
{
    (void)state;
    mp_sweep s;
    char err[512];
    const char *conf = write_file("resume.conf", resume_conf);
    char csv[256];
    snprintf(csv, sizeof csv, "%s/all.csv", dir);
    unlink(csv);
    if (mp_sweep_read(conf, &s, err, sizeof err))
        fail_msg("%s", err);
    mp_csv_writer w;
    open_csv(&w, csv);
    for (int i = 0; i < s.nsections; i++)
        for (int c = 0; c < s.sections[i].configs.n; c++)
            write_row(&w, s.sections[i].probe, s.sections[i].configs.v[c],
                      s.sections[i].warmup, s.sections[i].runs, "yes");
    assert_int_equal(mp_csv_close(&w), 0);
    if (mp_sweep_resume(&s, csv, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.total, 0);
    assert_int_equal(s.resumed, 10);
    mp_sweep_free(&s);

    snprintf(csv, sizeof csv, "%s/missing.csv", dir);
    if (mp_sweep_read(conf, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(mp_sweep_resume(&s, csv, err, sizeof err), 0);
    assert_int_equal(s.total, 10);
    assert_int_equal(s.resumed, 0);
    const char *empty = write_file("empty.csv", "");
    assert_int_equal(mp_sweep_resume(&s, empty, err, sizeof err), 0);
    assert_int_equal(s.total, 10);

    /* Header only (a sweep that stopped before its first row). */
    snprintf(csv, sizeof csv, "%s/header.csv", dir);
    unlink(csv);
    open_csv(&w, csv);
    assert_int_equal(mp_csv_close(&w), 0);
    assert_int_equal(mp_sweep_resume(&s, csv, err, sizeof err), 0);
    assert_int_equal(s.total, 10);
    mp_sweep_free(&s);
}

static void expect_resume_error(const char *csv, const char *needs)
{
    mp_sweep s;
    char err[512];
    if (mp_sweep_read(write_file("resume.conf", resume_conf), &s, err,
                      sizeof err))
        fail_msg("%s", err);
    assert_int_equal(mp_sweep_resume(&s, csv, err, sizeof err), -1);
    print_message("# %s\n", err);
    assert_true(strncmp(err, csv, strlen(csv)) == 0);
    assert_non_null(strstr(err, needs));
    assert_null(strchr(err, '\n'));
    assert_int_equal(s.total, 10);   /* nothing dropped */
    mp_sweep_free(&s);
}

static void test_resume_bad_csv(void **state)
{
    (void)state;
    /* Another program's CSV. */
    expect_resume_error(write_file("other.csv", "a,b\r\n1,2\r\n"), "header");

    /* memprobe's header but a cut-off last row. */
    char csv[256];
    snprintf(csv, sizeof csv, "%s/cut.csv", dir);
    unlink(csv);
    mp_csv_writer w;
    open_csv(&w, csv);
    assert_int_equal(mp_csv_close(&w), 0);
    FILE *f = fopen(csv, "ab");
    assert_non_null(f);
    fputs("1.0,2026-11-29T00:00:00Z,NVIDIA H2", f);
    assert_int_equal(fclose(f), 0);
    expect_resume_error(csv, "no line end");

    /* A row with a cell too few. */
    snprintf(csv, sizeof csv, "%s/short.csv", dir);
    unlink(csv);
    open_csv(&w, csv);
    assert_int_equal(mp_csv_close(&w), 0);
    f = fopen(csv, "ab");
    assert_non_null(f);
    fputs("1,2,3\r\n", f);
    assert_int_equal(fclose(f), 0);
    expect_resume_error(csv, "cells");
}

/* ---- the group --------------------------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    chmod(path, 0700);
    remove(path);
    return 0;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/memprobe-sweep-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_good_file_crlf_and_bom),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_missing_and_unreadable),
        cmocka_unit_test(test_repeats_dropped),
        cmocka_unit_test(test_ambiguous),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_resume_all_and_none),
        cmocka_unit_test(test_resume_bad_csv),
    };
    return cmocka_run_group_tests_name("sweep_file", tests, setup, teardown);
}
