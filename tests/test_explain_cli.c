/*
 * test_explain_cli.c - `memprobe explain` without a GPU, by running the
 * binary:
 *
 *   --capture with the transpose fixture (tests/data/explain/
 *   transpose_naive.csv) and --from a profile of it counted by hand
 *   (transpose_profile.csv and its -lines.csv: the column-walk LDS at
 *   0x180, 4 warp executions of 32 wavefronts, ideal 1 each): the table
 *   and Markdown outputs whole, explain.csv cell by cell and --format csv
 *   equal to it; `memprobe report PROFILE.csv EXPLAIN.csv`; a measured count that differs ("differ"), launches that
 *   differ and a capture cut at its cap ("not compared"), an opcode the
 *   model does not explain, the capture library's error lines; a capture
 *   alone (judged on its own counts); exit 4 with no offender and with no
 *   row of any offender; bad input (exit 2, one line naming the
 *   parameter); `-- PROGRAM` without the capture library or without a GPU
 *   (exit 3, nothing written);
 *
 *   and the `-- PROGRAM` flow end to end on tests/profile/fake_app: the
 *   profile engine's run (MEMPROBE_INJECT_LIB naming any file, as in
 *   tests/test_profile.c), then fake_app again with the stand-in capture
 *   library tests/explain/fake_capture.so preloaded (MEMPROBE_CAPTURE_LIB)
 *   and the fake-device hook instead of a GPU: the want file, model equal
 *   to measured for the instructions captured, not captured for the
 *   others, --max-warps cutting the capture, --conflict 16 making the
 *   measured count differ, --from skipping the first run, and a library
 *   that wrote nothing (exit 4).
 */
#include "cli_util.h"
#include "csv_table.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char app[PATH_MAX + 320], fake_lib[PATH_MAX + 320];

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
#define FIX(name) cli_in_repo("tests/data/explain/" name)

/* ---- helpers ----------------------------------------------------------- */

/* `memprobe explain ARGS` with one expected exit status; the result. */
static void explain(const char *const *args, int status, cli_result *r)
{
    const char *argv[CLI_MAXARGS + 2];
    int n = 0;
    argv[n++] = "explain";
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    assert_true(n <= CLI_MAXARGS);
    cli_run(argv, r);
    cli_expect_status(r, status);
}

/* Lines of text (newlines). */
static int nlines(const char *text)
{
    return cli_count_char(text, '\n');
}

static void read_csv(const char *path, mp_csv_table *t)
{
    char err[1024];
    if (mp_csv_table_read(path, t, err, sizeof err))
        fail_msg("%s", err);
}

static void expect_cell(const mp_csv_table *t, int row, const char *col,
                        const char *want)
{
    int c = mp_csv_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    assert_true(row < t->nrows);
    if (strcmp(t->cells[row][c], want))
        fail_msg("row %d, %s: '%s', want '%s'", row, col, t->cells[row][c],
                 want);
}

/* The hand-counted profile, with the LDS row's measured count, launches
 * and opcode replaced, under name (and name-lines.csv). */
static void profile_variant(const char *name, const char *sh,
                            const char *launches)
{
    size_t len;
    char *p = cli_read_file(FIX("transpose_profile.csv"), &len);
    char path[256];
    snprintf(path, sizeof path, "%s.csv", name);
    cli_write_file(path, p);
    free(p);
    char *lines = cli_read_file(FIX("transpose_profile-lines.csv"), &len);
    const char *old = "0x180,LDS,1,4,128,4,";
    char *at = strstr(lines, old), row[128], *out = malloc(len + 64);
    assert_non_null(at);
    assert_non_null(out);
    snprintf(row, sizeof row, "0x180,LDS,%s,4,%s,4,", launches, sh);
    snprintf(out, len + 64, "%.*s%s%s", (int)(at - lines), lines, row,
             at + strlen(old));
    snprintf(path, sizeof path, "%s-lines.csv", name);
    cli_write_file(path, out);
    free(out);
    free(lines);
}

/* ---- a recorded capture and a profile ---------------------------------- */

static const char table_text[] =
    "transpose_naive transpose.cu:21: shared load (LDS): 32.0x ideal (128 "
    "wavefronts, ideal 4)\n"
    "\n"
    "+0x180 LDS: 4 warp executions in 1 launch\n"
    "field              value\n"
    "space, width       shared, 4 bytes, load\n"
    "pattern            stride 32 words (128 bytes); 32 distinct addresses; "
    "a column of a tile of 32-word rows\n"
    "per request        32-way (128 wavefronts, ideal 4)\n"
    "model vs measured  model 128, measured 128: equal\n"
    "probe              memprobe bank --op ld --width 4 --stride 32\n"
    "H200               32.00 wavefronts a request (results/h200/bank/"
    "bank-pads.csv, bank/ld/w4/s32/b0/g1/p32)\n"
    "\n"
    "fixes, ranked by the wavefronts the model predicts for the same "
    "addresses:\n"
    "#  fix                                                   predicted  "
    "reaches the ideal\n"
    "1  pad each 32-word row by 1 word                                4  "
    "yes\n"
    "2  XOR swizzle: column ^ (row % 32) in each 32-word row          4  "
    "yes\n"
    "\n"
    "1 offending line, 1 instruction: 1 captured, 1 explained; model equal "
    "to measured for 1, differing for 0, not compared for 0.\n";

/* The column walk's LDS: 4 executions x 32 wavefronts = 128 measured and
 * modelled, ideal 4; padding or the swizzle 4. */
static void test_table(void **state)
{
    (void)state;
    cli_result r;
    explain(L("--capture", FIX("transpose_naive.csv"), "--from",
              FIX("transpose_profile.csv")), 0, &r);
    assert_string_equal(r.out, table_text);
    assert_string_equal(r.err, "");
    cli_result_free(&r);
}

static const char md_text[] =
    "### transpose_naive transpose.cu:21: shared load (LDS): 32.0x ideal "
    "(128 wavefronts, ideal 4)\n"
    "\n"
    "`+0x180 LDS: 4 warp executions in 1 launch`\n"
    "\n"
    "| field | value |\n"
    "| --- | --- |\n"
    "| space, width | shared, 4 bytes, load |\n"
    "| pattern | stride 32 words (128 bytes); 32 distinct addresses; a "
    "column of a tile of 32-word rows |\n"
    "| per request | 32-way (128 wavefronts, ideal 4) |\n"
    "| model vs measured | model 128, measured 128: equal |\n"
    "| probe | `memprobe bank --op ld --width 4 --stride 32` |\n"
    "| H200 | 32.00 wavefronts a request (results/h200/bank/bank-pads.csv, "
    "bank/ld/w4/s32/b0/g1/p32) |\n"
    "\n"
    "fixes, ranked by the wavefronts the model predicts for the same "
    "addresses:\n"
    "\n"
    "| # | fix | predicted | reaches the ideal |\n"
    "| ---: | --- | ---: | --- |\n"
    "| 1 | pad each 32-word row by 1 word | 4 | yes |\n"
    "| 2 | XOR swizzle: column ^ (row % 32) in each 32-word row | 4 | yes |\n"
    "\n"
    "1 offending line, 1 instruction: 1 captured, 1 explained; model equal "
    "to measured for 1, differing for 0, not compared for 0.\n";

static void test_markdown(void **state)
{
    (void)state;
    cli_result r;
    explain(L("--capture", FIX("transpose_naive.csv"), "--from",
              FIX("transpose_profile.csv"), "--format", "md"), 0, &r);
    assert_string_equal(r.out, md_text);
    cli_result_free(&r);
}

/* explain.csv: one row per fix, the pattern's and the counts' cells; the
 * same bytes on stdout with --format csv. */
static void test_csv(void **state)
{
    (void)state;
    cli_result r;
    explain(L("--capture", FIX("transpose_naive.csv"), "--from",
              FIX("transpose_profile.csv"), "--format", "csv", "-o",
              "x.csv"), 0, &r);
    cli_must_contain("stderr", r.err, "memprobe: wrote x.csv (1 instruction "
                     "of 1 offending line)");
    size_t len;
    char *file = cli_read_file("x.csv", &len);
    assert_string_equal(r.out, file);
    free(file);
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("x.csv", &t);
    assert_int_equal(t.nrows, 2);
    static const char *const both[][2] = {
        {"kernel", "transpose_naive"}, {"mangled", "transpose_naive"},
        {"file", "/src/transpose.cu"}, {"line", "21"},
        {"function_offset", "0x180"}, {"opcode", "LDS"}, {"space", "shared"},
        {"width", "4"}, {"direction", "load"}, {"explained", "yes"},
        {"regular", "1"}, {"stride_bytes", "128"}, {"stride_words", "32"},
        {"stride_elements", "32"}, {"group", "1"}, {"period", "32"},
        {"base_bytes", "0"}, {"broadcast_groups", "32"}, {"n_way", "32"},
        {"tile_row_words", "32"}, {"misalign_bytes", ""},
        {"sectors_per_request", ""}, {"executions", "4"},
        {"launches_profiled", "1"}, {"launches_captured", "1"},
        {"measured", "128"}, {"measured_ideal", "4"}, {"model", "128"},
        {"model_ideal", "4"}, {"equal", "yes"}, {"why_not_compared", ""},
        {"predicted", "4"}, {"reaches_ideal", "yes"},
        {"probe_command", "memprobe bank --op ld --width 4 --stride 32"},
    };
    for (int row = 0; row < 2; row++)
        for (size_t k = 0; k < CLI_COUNT(both); k++)
            expect_cell(&t, row, both[k][0], both[k][1]);
    expect_cell(&t, 0, "fix_rank", "1");
    expect_cell(&t, 0, "fix", "pad each 32-word row by 1 word");
    /* the H200's count quoted is the committed row's */
    expect_cell(&t, 0, "h200_file", "results/h200/bank/bank-pads.csv");
    mp_csv_table h;
    read_csv(cli_in_repo("results/h200/bank/bank-pads.csv"), &h);
    int hc = mp_csv_column(&h, "config"), found = 0;
    for (int r = 0; r < h.nrows && !found; r++)
        if (!strcmp(h.cells[r][hc], "bank/ld/w4/s32/b0/g1/p32")) {
            char want[32];
            double v;
            assert_int_equal(mp_csv_number(&h, r, mp_csv_column(
                                 &h, "wavefronts_per_request"), &v), 0);
            snprintf(want, sizeof want, "%.2f", v);
            expect_cell(&t, 0, "h200_per_request", want);
            found = 1;
        }
    assert_true(found);
    mp_csv_free(&h);
    expect_cell(&t, 1, "fix_rank", "2");
    expect_cell(&t, 1, "fix", "XOR swizzle: column ^ (row % 32) in each "
                "32-word row");
    mp_csv_free(&t);
}

/* `memprobe report PROFILE.csv EXPLAIN.csv`: the explained instruction
 * beside the worst line, its counts and the best fix of the two; the
 * same in Markdown; an explain CSV of other lines is refused, and one
 * whose columns are not explain's. */
static void test_report_beside(void **state)
{
    (void)state;
    cli_result r;
    explain(L("--capture", FIX("transpose_naive.csv"), "--from",
              FIX("transpose_profile.csv"), "-o", "rx.csv"), 0, &r);
    cli_result_free(&r);
    const char *args[] = {"report", FIX("transpose_profile.csv"), "rx.csv",
                          NULL};
    cli_run_ok(args, &r);
    cli_must_contain("stdout", r.out, "Explained by rx.csv");
    cli_must_contain("stdout", r.out, "(1 of its 1 instruction)");
    /* rank, line, opcode, offset, equal, the fix ranked 1, measured,
     * model, predicted, reaches ideal */
    const char *title = strstr(r.out, "Explained by");
    assert_non_null(title);
    const char *row = strstr(title, "\n1  transpose.cu:21");
    assert_non_null(row);
    row++;
    char rank[8], where[64], op[16], off[16], eq[8], reaches[8];
    long measured, model, predicted;
    assert_int_equal(sscanf(row, "%7s %63s %15s %15s %7s", rank, where, op,
                            off, eq), 5);
    assert_string_equal(off, "0x180");
    assert_string_equal(eq, "yes");
    const char *fix = strstr(row, "pad each 32-word row by 1 word");
    assert_true(fix && fix < strchr(row, '\n'));
    assert_int_equal(sscanf(fix + strlen("pad each 32-word row by 1 word"),
                            "%ld %ld %ld %7s", &measured, &model,
                            &predicted, reaches), 4);
    assert_int_equal(measured, 128);
    assert_int_equal(model, 128);
    assert_int_equal(predicted, 4);
    assert_string_equal(reaches, "yes");
    /* the Explained table comes after the worst lines, before the kernels */
    assert_true(strstr(r.out, "Worst source lines") < row);
    assert_true(row < strstr(r.out, "Per kernel"));
    cli_result_free(&r);
    const char *md[] = {"report", FIX("transpose_profile.csv"), "rx.csv",
                        "--format", "md", NULL};
    cli_run_expect(md, -1, "**Explained by rx.csv",
                   "| 1 | transpose.cu:21 | LDS | 0x180 | yes | pad each "
                   "32-word row by 1 word | 128 | 128 | 4 | yes |", NULL);
    /* an explain CSV whose instruction is on no line of this profile */
    size_t xlen;
    char *x = cli_read_file("rx.csv", &xlen);
    int moved = 0;
    for (char *at = strstr(x, ",21,0x180,"); at;
         at = strstr(at, ",21,0x180,"), moved++)
        memcpy(at, ",22,", 4);
    assert_int_equal(moved, 2);     /* both fixes' rows */
    cli_write_file("other.csv", x);
    free(x);
    const char *other[] = {"report", FIX("transpose_profile.csv"),
                           "other.csv", NULL};
    cli_expect_usage_error(other, "none of its 2 rows");
    /* A line with excess in two classes, another line's between them in
     * the worst order (21 shared 124, 23 shared 60, 21 global 4): line
     * 21's instruction is listed once, at its first rank. */
    size_t plen;
    char *prof = cli_read_file(FIX("transpose_profile.csv"), &plen);
    cli_write_file("two.csv", prof);
    free(prof);
    cli_write_file("two-lines.csv",
        "pid,kernel,mangled,file,line,function_offset,opcode,launches,"
        "smsp__sass_inst_executed,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal,"
        "smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal,"
        "smsp__sass_inst_executed_op_ld,ratio,origin,library\n"
        "4242,transpose_naive,transpose_naive,/src/transpose.cu,21,0x180,"
        "LDS,1,4,128,4,0,0,4,32,/src/transpose,0\n"
        "4242,transpose_naive,transpose_naive,/src/transpose.cu,21,0x190,"
        "STG.E,1,4,0,0,20,16,0,1,/src/transpose,0\n"
        "4242,transpose_naive,transpose_naive,/src/transpose.cu,23,0x1a0,"
        "LDS,1,4,64,4,0,0,4,16,/src/transpose,0\n");
    const char *two[] = {"report", "two.csv", "rx.csv", NULL};
    cli_run_ok(two, &r);
    cli_must_contain("stdout", r.out, "(1 of its 1 instruction)");
    title = strstr(r.out, "Explained by");
    assert_non_null(title);
    assert_non_null(strstr(title, "\n1  transpose.cu:21"));
    assert_null(strstr(title, "\n3  transpose.cu:21"));
    cli_result_free(&r);
    cli_write_file("bad.csv", "kernel,function_offset,fix_rank\r\nk,0x0,1\r\n");
    const char *bad[] = {"report", FIX("transpose_profile.csv"), "bad.csv",
                         NULL};
    cli_expect_usage_error(bad, "not a CSV of memprobe explain");
}

/* The profile measured 132 where the model counts 128: a finding, shown,
 * exit 0. */
static void test_differ(void **state)
{
    (void)state;
    cli_result r;
    profile_variant("differ", "132", "1");
    explain(L("--capture", FIX("transpose_naive.csv"), "--from",
              "differ.csv", "-o", "d.csv"), 0, &r);
    cli_must_contain("stdout", r.out, "\nmodel vs measured  model 128, "
                     "measured 132: differ\n");
    cli_must_contain("stdout", r.out, "model equal to measured for 0, "
                     "differing for 1, not compared for 0.");
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("d.csv", &t);
    expect_cell(&t, 0, "measured", "132");
    expect_cell(&t, 0, "model", "128");
    expect_cell(&t, 0, "equal", "no");
    mp_csv_free(&t);
}

/* A profile of 2 launches against a capture of 1: not compared, the model
 * figure kept. */
static void test_launches_differ(void **state)
{
    (void)state;
    cli_result r;
    profile_variant("two", "256", "2");
    explain(L("--capture", FIX("transpose_naive.csv"), "--from", "two.csv",
              "-o", "n.csv"), 0, &r);
    cli_must_contain("stdout", r.out, "\nmodel vs measured  model 128, "
                     "measured 256; not compared: the profile counted 2 "
                     "launches, the capture 1\n");
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("n.csv", &t);
    expect_cell(&t, 0, "equal", "not compared");
    expect_cell(&t, 0, "why_not_compared", "the profile counted 2 launches, "
                "the capture 1");
    expect_cell(&t, 0, "launches_profiled", "2");
    expect_cell(&t, 0, "launches_captured", "1");
    mp_csv_free(&t);
}

/* The capture's rows of the LDS (launch 0) again as launch 5: 2 launches
 * of 8 executions, as a profile of 2 launches counting 256. */
static void two_launch_capture(const char *path)
{
    size_t len;
    char *c = cli_read_file(FIX("transpose_naive.csv"), &len);
    char *out = malloc(2 * len + 1), *o = out;
    assert_non_null(out);
    o += sprintf(o, "%s", c);
    for (char *line = c; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
        if (!strncmp(line, "transpose_naive,0x180,0,", 24))
            o += sprintf(o, "transpose_naive,0x180,5,%.*s", (int)n - 24,
                         line + 24);
        line += n;
    }
    cli_write_file(path, out);
    free(out);
    free(c);
}

/* Two launches on both sides: compared again; the status beside the
 * capture says 8 executions were dropped past the cap: not compared; its
 * error line is said. */
static void test_status_dropped(void **state)
{
    (void)state;
    cli_result r;
    profile_variant("two", "256", "2");
    two_launch_capture("cap2.csv");
    explain(L("--capture", "cap2.csv", "--from", "two.csv"), 0, &r);
    cli_must_contain("stdout", r.out, "+0x180 LDS: 8 warp executions in 2 "
                     "launches\n");
    cli_must_contain("stdout", r.out, "model 256, measured 256: equal\n");
    cli_result_free(&r);
    cli_write_file("cap2.csv.status",
                   "start patches x cap 4 wants 1\n"
                   "captured transpose_naive 0x180 launch 0 executions 4\n"
                   "dropped transpose_naive 0x180 launch 0 executions 3\n"
                   "captured transpose_naive 0x180 launch 5 executions 4\n"
                   "dropped transpose_naive 0x180 launch 5 executions 5\n"
                   "error sanitizerPatchModule: 3 not ready\n");
    explain(L("--capture", "cap2.csv", "--from", "two.csv"), 0, &r);
    cli_must_contain("stdout", r.out, "model 256, measured 256; not "
                     "compared: the capture kept 8 of 16 executions (the "
                     "cap, --max-warps)\n");
    assert_string_equal(r.err, "memprobe: capture library: error "
                        "sanitizerPatchModule: 3 not ready\n");
    cli_result_free(&r);
}

/* A capture alone: its instructions judged on the model's own counts;
 * the misaligned loads, 5 sectors a request where 4 would do. */
static void test_capture_alone(void **state)
{
    (void)state;
    cli_result r;
    explain(L("--capture", FIX("misaligned.csv")), 0, &r);
    static const char *const want[] = {
        "offset_copy+0x80: global load (LDG.E): 1.25x ideal (20 sectors, "
        "ideal 16)\n",
        "\npattern            stride 1 element of 4 bytes (4 bytes); 32 "
        "distinct addresses; first lane 4 bytes past a sector (4 into its "
        "128-byte line)\n",
        "\nper request        5 sectors a request (20 sectors, ideal 16)\n",
        "\nmodel vs measured  model 20; not compared: no profile to compare "
        "with (--from, or a program run)\n",
        "\nprobe              memprobe coalesce --op ld --width 4 --offset 4 "
        "--stride 1\n",
        "\n1  align to a 32-byte sector (the first lane 4 bytes off)",
    };
    for (size_t k = 0; k < CLI_COUNT(want); k++)
        cli_must_contain("stdout", r.out, want[k]);
    cli_result_free(&r);
}

/* An opcode the model does not explain: said what it is; nothing
 * explained is exit 4. */
static void test_not_explained(void **state)
{
    (void)state;
    cli_result r;
    char text[2048] = "kernel,pc_offset,launch,warp,space,opcode,width,"
                      "is_store,active";
    for (int l = 0; l < 32; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",lane%d",
                 l);
    strcat(text, "\ntranspose_naive,0x180,0,0,shared,LDGSTS,4,1,"
                 "0x00000001,0");
    for (int l = 1; l < 32; l++)
        strcat(text, ",");
    strcat(text, "\n");
    cli_write_file("ldgsts.csv", text);
    explain(L("--capture", "ldgsts.csv", "--from",
              FIX("transpose_profile.csv")), 4, &r);
    cli_must_contain("stdout", r.out, "+0x180 LDGSTS: 1 warp execution in 1 "
                     "launch\nnot explained (asynchronous copy LDGSTS: the "
                     "capture holds its destinations without their sources "
                     "(made before memprobe kept them); capture it "
                     "again)\n");
    assert_string_equal(r.err, "memprobe: nothing explained: the offenders' "
                        "captured instructions are all of opcodes the model "
                        "does not explain\n");
    cli_result_free(&r);
}

/* A shared atomic (a histogram's bins 0, 32, 64, 96 from 8 lanes each)
 * explained as the store of its addresses: 4 wavefronts, ideal 1; the
 * private copy per lane offered, 1 predicted; no other width. */
static void test_atomics(void **state)
{
    (void)state;
    cli_result r;
    char text[4096] = "kernel,pc_offset,launch,warp,space,opcode,width,"
                      "is_store,active";
    for (int l = 0; l < 32; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",lane%d",
                 l);
    strcat(text, "\nhist,0x260,0,0,shared,ATOMS,4,1,0xffffffff");
    for (int l = 0; l < 32; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",0x%x",
                 1024 + 128 * (l % 4));
    strcat(text, "\n");
    cli_write_file("hist.csv", text);
    explain(L("--capture", "hist.csv", "-o", "hist-x.csv"), 0, &r);
    cli_must_contain("stdout", r.out, "shared, 4 bytes, atomic (counted as "
                     "a store)");
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("hist-x.csv", &t);
    int fix = mp_csv_column(&t, "fix"), private = 0;
    assert_true(fix >= 0 && t.nrows > 0);
    for (int row = 0; row < t.nrows; row++) {
        expect_cell(&t, row, "explained", "yes");
        expect_cell(&t, row, "model", "4");
        expect_cell(&t, row, "model_ideal", "1");
        expect_cell(&t, row, "width", "4");
        assert_null(strstr(t.cells[row][fix], "-byte accesses"));
        if (strstr(t.cells[row][fix], "a private copy per lane")) {
            private++;
            expect_cell(&t, row, "predicted", "1");
            expect_cell(&t, row, "reaches_ideal", "yes");
        }
    }
    assert_int_equal(private, 1);
    mp_csv_free(&t);
}

/* An ldmatrix .x4 on rows 128 bytes apart: each matrix's 8 rows in one
 * bank group, 8 wavefronts a matrix, 32 for the ideal 4; said as a matrix
 * load, replayed by the bank probe's matrix mode, fixed by padding or the
 * XOR swizzle (4 each). */
static void test_matrix(void **state)
{
    (void)state;
    cli_result r;
    char text[4096] = "kernel,pc_offset,launch,warp,space,opcode,width,"
                      "is_store,active";
    for (int l = 0; l < 32; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",lane%d",
                 l);
    strcat(text, "\nldsm_rows,0x300,0,0,shared,LDSM.16.M88.4,16,0,"
                 "0xffffffff");
    for (int l = 0; l < 32; l++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",0x%x",
                 128 * l);
    strcat(text, "\n");
    cli_write_file("ldsm.csv", text);
    explain(L("--capture", "ldsm.csv", "-o", "ldsm-x.csv"), 0, &r);
    cli_must_contain("stdout", r.out, "shared, 16-byte rows, matrix load of "
                     "4 8x8 matrices (each one's 8 rows a phase)");
    cli_must_contain("stdout", r.out, "memprobe bank --op ldsm --matrices 4 "
                     "--offsets '0;128;256;");
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("ldsm-x.csv", &t);
    int fix = mp_csv_column(&t, "fix"), reach = 0;
    assert_true(fix >= 0 && t.nrows > 0);
    for (int row = 0; row < t.nrows; row++) {
        expect_cell(&t, row, "model", "32");
        expect_cell(&t, row, "model_ideal", "4");
        if (strstr(t.cells[row][fix], "pad each")
            || strstr(t.cells[row][fix], "XOR swizzle")) {
            reach++;
            expect_cell(&t, row, "predicted", "4");
        }
    }
    assert_int_equal(reach, 2);
    mp_csv_free(&t);
}

/* Nothing to explain: no offender (the padded tile), or no capture row
 * of any offender: exit 4, one line, nothing on stdout, no -o file. */
static void test_nothing(void **state)
{
    (void)state;
    cli_result r;
    explain(L("--capture", FIX("transpose_padded.csv"), "-o", "none.csv"),
            4, &r);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "memprobe: nothing to explain: --check "
                        "'shared<=1.0,global<=1.0' found no offender among "
                        "2 captured instructions judged\n");
    assert_false(cli_path_exists("none.csv"));
    cli_result_free(&r);
    explain(L("--capture", FIX("misaligned.csv"), "--from",
              FIX("transpose_profile.csv"), "-o", "none.csv"), 4, &r);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "memprobe: nothing captured: the capture "
                        "holds no row of the 1 instruction of the 1 "
                        "offending line (the first: transpose_naive+0x180)"
                        "\n");
    assert_false(cli_path_exists("none.csv"));
    cli_result_free(&r);
    /* a limit the LDS keeps to */
    explain(L("--capture", FIX("transpose_naive.csv"), "--from",
              FIX("transpose_profile.csv"), "--check", "shared<=32"), 4, &r);
    cli_must_contain("stderr", r.err, "found no offender among 2 source "
                     "lines judged");
    cli_result_free(&r);
}

/* ---- bad input: exit 2, one line naming the parameter ------------------- */

static const cli_bad_case bad[] = {
    {{"explain"}, "no program given and no --capture"},
    {{"explain", "--"}, "no program after '--'"},
    {{"explain", "--nosuch", "--", "true"}, "--nosuch"},
    {{"explain", "--format", "pdf", "--", "true"}, "--format"},
    {{"explain", "--format", "", "--", "true"}, "--format"},
    {{"explain", "--max-warps", "0", "--", "true"}, "--max-warps"},
    {{"explain", "--max-warps", "abc", "--", "true"}, "--max-warps"},
    {{"explain", "--max-warps", "16777217", "--", "true"}, "--max-warps"},
    {{"explain", "--max-warps", "99999999999999999999", "--", "true"},
     "--max-warps"},
    {{"explain", "--check", "shared<1", "--", "true"}, "--check"},
    {{"explain", "--check", "local<=1", "--", "true"}, "local"},
    {{"explain", "--check-libraries=yes", "--", "true"},
     "--check-libraries"},
    {{"explain", "-o", "-", "--", "true"}, "-o"},
    {{"explain", "-o", "no/such/folder/e.csv", "--", "true"}, "-o"},
    {{"explain", "--capture", "missing.csv"}, "--capture: missing.csv"},
    {{"explain", "--capture", "x.csv", "--", "true"}, "--capture"},
    {{"explain", "--capture", "x.csv", "--max-warps", "8"}, "--max-warps"},
    {{"explain", "--from", "missing.csv", "--", "true"}, "--from"},
    {{"explain", "--", "/no/such/program"}, "/no/such/program"},
    {{"explain", "--", "no-such-program-xyz"}, "not found in PATH"},
};

/* The bad files: a malformed capture, a malformed status beside a good
 * capture, a results CSV as --from, and -o naming a CSV of another kind
 * (left as it was). */
static void test_bad_files(void **state)
{
    (void)state;
    static const char results[] = "tool_version,config\r\nx,y\r\n";
    cli_write_file("bad.csv", "kernel,pc_offset\nx,1\n");
    cli_write_file("results.csv", results);
    size_t len;
    char *good = cli_read_file(FIX("transpose_naive.csv"), &len);
    cli_write_file("good.csv", good);
    free(good);
    cli_write_file("good.csv.status", "captured transpose_naive 0x180\n");
    cli_expect_usage_error(L("explain", "--capture", "bad.csv"),
                           "--capture: bad.csv:1: not the capture header");
    cli_expect_usage_error(L("explain", "--capture", "good.csv"),
                           "--capture: good.csv.status:1");
    cli_expect_usage_error(L("explain", "--capture",
                             FIX("transpose_naive.csv"), "--from",
                             "results.csv"), "--from: results.csv");
    cli_expect_usage_error(L("explain", "--capture",
                             FIX("transpose_naive.csv"), "-o",
                             "results.csv"), "-o: ");
    char *kept = cli_read_file("results.csv", &len);
    assert_string_equal(kept, results);
    free(kept);
}

/* ---- a program, without the capture library or a GPU ------------------ */

/* Nothing of -o's files after a refused run. */
static void expect_nothing_written(void)
{
    static const char *const files[] = {"out.csv", "out-profile.csv",
                                        "out-capture.csv", "out-want.txt"};
    for (size_t k = 0; k < CLI_COUNT(files); k++)
        if (cli_path_exists(files[k]))
            fail_msg("%s written by a refused run", files[k]);
}

/* MEMPROBE_CAPTURE_LIB naming no file, or no library beside memprobe:
 * exit 3, one line saying what is missing, nothing written. */
static void test_no_capture_lib(void **state)
{
    (void)state;
    cli_result r;
    setenv("MEMPROBE_CAPTURE_LIB", "/no/such/libmemprobe_capture.so", 1);
    explain(L("-o", "out.csv", "--", "true"), 3, &r);
    assert_string_equal(r.out, "");
    assert_int_equal(nlines(r.err), 1);
    cli_must_contain("stderr", r.err, "memprobe: explain needs the capture "
                     "library, and MEMPROBE_CAPTURE_LIB names /no/such/"
                     "libmemprobe_capture.so: no such file");
    cli_result_free(&r);
    expect_nothing_written();
    unsetenv("MEMPROBE_CAPTURE_LIB");
    char beside[PATH_MAX + 64];
    const char *exe = cli_exe(), *slash = strrchr(exe, '/');
    snprintf(beside, sizeof beside, "%.*s/build/lib/libmemprobe_capture.so",
             slash ? (int)(slash - exe) : 1, slash ? exe : ".");
    if (cli_path_exists(beside))
        return;   /* built here: the next case is the GPU's */
    explain(L("-o", "out.csv", "--", "true"), 3, &r);
    assert_int_equal(nlines(r.err), 1);
    cli_must_contain("stderr", r.err, "memprobe: explain needs ");
    cli_must_contain("stderr", r.err, "build/lib/libmemprobe_capture.so "
                     "(built where the CUDA toolkit has compute-sanitizer: "
                     "make capture");
    cli_result_free(&r);
    expect_nothing_written();
}

/* A capture library but no GPU: exit 3, one line, nothing written. */
static void test_no_gpu(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    cli_result r;
    setenv("MEMPROBE_CAPTURE_LIB", fake_lib, 1);
    explain(L("-o", "out.csv", "--", "true"), 3, &r);
    unsetenv("MEMPROBE_CAPTURE_LIB");
    assert_string_equal(r.out, "");
    assert_int_equal(nlines(r.err), 1);
    if (!strstr(r.err, "no NVIDIA driver found")
        && !strstr(r.err, "no GPU visible"))
        fail_msg("stderr names no missing GPU: %s", r.err);
    cli_must_contain("stderr", r.err, "(explain runs true on the GPU)");
    cli_result_free(&r);
    expect_nothing_written();
}

/* ---- the program flow end to end, on the stand-ins ---------------------- */

/* The stand-ins' environment on (a GPU replaced by the fake-device hook)
 * or off. */
static void stand_ins(int on)
{
    if (on) {
        setenv("MEMPROBE_CAPTURE_LIB", fake_lib, 1);
        setenv("MEMPROBE_FAKE_DEVICE", "1", 1);
    } else {
        unsetenv("MEMPROBE_CAPTURE_LIB");
        unsetenv("MEMPROBE_FAKE_DEVICE");
        unsetenv("FAKE_CAPTURE_NONE");
    }
}

static const char want_text[] =
    "copy_kernel,0x80\n"
    "copy_kernel,0x90\n"
    "_Z15transpose_naivePfPKfi,0x110\n"
    "_Z15transpose_naivePfPKfi,0x100\n"
    "_Z15transpose_naivePfPKfi,0x210\n";

/* fake_app's five offending lines: the STS (32 x 1024 wavefronts) and the
 * STG.E (32768 sectors) captured, model equal to measured; the others
 * not captured. */
static void test_program(void **state)
{
    (void)state;
    cli_result r;
    stand_ins(1);
    explain(L("-o", "e.csv", "--", app), 0, &r);
    stand_ins(0);
    static const char *const want[] = {
        "transpose_naive app.cu:19: shared store: 32.0x ideal (32768 "
        "wavefronts, ideal 1024)\n\n+0x110 STS: 1024 warp executions in 1 "
        "launch\n",
        "\nmodel vs measured  model 32768, measured 32768: equal\n"
        "probe              memprobe bank --op st --width 4 --stride 32\n",
        "transpose_naive app.cu:21: global store: 8.0x ideal (32768 "
        "sectors, ideal 4096)\n\n+0x210 STG.E: 1024 warp executions in 1 "
        "launch\n",
        "\nper request        32 sectors a request (32768 sectors, ideal "
        "4096)\nmodel vs measured  model 32768, measured 32768: equal\n",
        "transpose_naive app.cu:19: global load: 1.5x ideal (6144 sectors, "
        "ideal 4096)\n\n+0x100\nnot captured: the capture holds no row of "
        "it\n",
        "5 offending lines, 5 instructions: 2 captured, 2 explained; model "
        "equal to measured for 2, differing for 0, not compared for 0.\n",
    };
    for (size_t k = 0; k < CLI_COUNT(want); k++)
        cli_must_contain("stdout", r.out, want[k]);
    cli_must_contain("stderr", r.err, "memprobe: explain: run 1 of 2");
    cli_must_contain("stderr", r.err, "memprobe: explain: run 2 of 2, the "
                     "addresses: ");
    cli_must_contain("stderr", r.err, "5 instructions of 5 offending lines "
                     "wanted\n");
    cli_result_free(&r);
    size_t len;
    char *w = cli_read_file("e-want.txt", &len);
    assert_string_equal(w, want_text);
    free(w);
    assert_true(cli_path_exists("e-profile.csv"));
    assert_true(cli_path_exists("e-profile-lines.csv"));
    assert_true(cli_path_exists("e-capture.csv.status"));
    mp_csv_table t;
    read_csv("e.csv", &t);
    assert_int_equal(t.nrows, 3 + 2 + 3);   /* STS 2 fixes, STG.E 3 */
    mp_csv_free(&t);
}

/* An instruction the library left (past the instructions a kernel's
 * capture follows) is not captured with the library's why. */
static void test_program_left(void **state)
{
    (void)state;
    cli_result r;
    stand_ins(1);
    setenv("FAKE_CAPTURE_LEFT", "1", 1);
    explain(L("-o", "e.csv", "--", app), 0, &r);
    unsetenv("FAKE_CAPTURE_LEFT");
    stand_ins(0);
    cli_must_contain("stdout", r.out, "+0x100\nnot captured: past the 1024 "
                     "instructions one kernel's capture follows\n");
    cli_must_contain("stdout", r.out, "5 instructions: 2 captured, 2 "
                     "explained; model equal to measured for 2");
    cli_result_free(&r);
}

/* --max-warps 512: half of each instruction's 1024 executions kept, not
 * compared; --conflict 16: the measured STS count halves, differs; --from
 * the first profile: only the capture run. */
static void test_program_cap_differ_from(void **state)
{
    (void)state;
    cli_result r;
    stand_ins(1);
    explain(L("--max-warps", "512", "-o", "m.csv", "--", app), 0, &r);
    cli_must_contain("stdout", r.out, "model 16384, measured 32768; not "
                     "compared: the capture kept 512 of 1024 executions "
                     "(the cap, --max-warps)\n");
    cli_result_free(&r);
    explain(L("--", app, "--conflict", "16"), 0, &r);
    cli_must_contain("stdout", r.out, "model 32768, measured 16384: "
                     "differ\n");
    cli_result_free(&r);
    explain(L("--from", "m-profile.csv", "--", app), 0, &r);
    assert_null(strstr(r.err, "run 1 of 2"));
    cli_must_contain("stdout", r.out, "model 32768, measured 32768: "
                     "equal\n");
    cli_result_free(&r);
    stand_ins(0);
}

/* A library that wrote nothing: nothing captured, exit 4. */
static void test_program_nothing_captured(void **state)
{
    (void)state;
    cli_result r;
    stand_ins(1);
    setenv("FAKE_CAPTURE_NONE", "1", 1);
    explain(L("--", app), 4, &r);
    stand_ins(0);
    cli_must_contain("stderr", r.err, "memprobe: nothing captured: the "
                     "capture library wrote no ");
    cli_must_contain("stderr", r.err, "(it did not start in the program)\n");
    assert_null(strstr(r.out, "model vs measured"));
    cli_result_free(&r);
}

/* A failed run leaves the files of the last one byte for byte: run 1
 * collecting nothing (exit 4), and a capture library that wrote nothing
 * (exit 4); both say which files were kept. */
static void test_program_failed_keeps_files(void **state)
{
    (void)state;
    static const char *const files[] = {
        "k.csv", "k-profile.csv", "k-profile-lines.csv", "k-capture.csv",
        "k-capture.csv.status", "k-want.txt", NULL};
    cli_result r;
    cli_files f;
    stand_ins(1);
    explain(L("-o", "k.csv", "--", app), 0, &r);
    cli_result_free(&r);
    cli_files_read(&f, files);
    explain(L("-o", "k.csv", "--", app, "--no-status"), 4, &r);
    cli_must_contain("stderr", r.err, "memprobe: left unchanged: "
                     "k-profile.csv, k-profile-lines.csv\n");
    cli_must_contain("stderr", r.err, "memprobe: nothing to explain: run 1 "
                     "collected no counts\n");
    cli_result_free(&r);
    cli_files_unchanged(&f);
    /* run 1 collects (a new profile: its pid column differs); run 2 not */
    static const char *const run2[] = {
        "k.csv", "k-capture.csv", "k-capture.csv.status", "k-want.txt",
        NULL};
    cli_files_read(&f, run2);
    setenv("FAKE_CAPTURE_NONE", "1", 1);
    explain(L("-o", "k.csv", "--", app), 4, &r);
    stand_ins(0);
    cli_must_contain("stderr", r.err, "memprobe: left unchanged: "
                     "k-want.txt, k-capture.csv, k-capture.csv.status\n");
    cli_result_free(&r);
    cli_files_unchanged(&f);
}

int main(void)
{
    char repo[PATH_MAX], build[256];
    if (!getcwd(repo, sizeof repo))
        return 1;
    cli_build_dir(build, sizeof build);
    snprintf(app, sizeof app, "%s/%s/tests/profile/fake_app", repo, build);
    snprintf(fake_lib, sizeof fake_lib, "%s/%s/tests/explain/"
             "fake_capture.so", repo, build);
    /* any existing file lets the profile engine start without its
     * library (tests/test_profile.c) */
    setenv("MEMPROBE_INJECT_LIB", app, 1);
    unsetenv("MEMPROBE_CAPTURE_LIB");
    unsetenv("MEMPROBE_FAKE_DEVICE");
    unsetenv("MEMPROBE_KERNEL");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_report_beside),
        cmocka_unit_test(test_differ),
        cmocka_unit_test(test_launches_differ),
        cmocka_unit_test(test_status_dropped),
        cmocka_unit_test(test_capture_alone),
        cmocka_unit_test(test_not_explained),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_matrix),
        cmocka_unit_test(test_nothing),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_no_capture_lib),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_program),
        cmocka_unit_test(test_program_left),
        cmocka_unit_test(test_program_cap_differ_from),
        cmocka_unit_test(test_program_nothing_captured),
        cmocka_unit_test(test_program_failed_keeps_files),
    };
    return CLI_RUN_BAD("explain", bad, tests);
}
