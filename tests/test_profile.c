/*
 * test_profile.c - `memprobe profile` without a GPU: it runs the stand-in
 * program tests/profile/fake_app (which writes the injection library's raw
 * files with known counts, see its header) with MEMPROBE_INJECT_LIB naming
 * an existing file and CUDA_HOME=tests/profile/fakecuda (whose cuobjdump
 * prints the stand-in's SASS), and checks: the exit status in its order
 * (2, 4, 1, the program's own, 128 + signal), the program's stdout and
 * stderr passed through, the merged CSVs number by number (sums, the
 * load/store split, ratios, pid column, a forking program, a crashed
 * one), --check lines and --min-count, --baseline and --tolerance, the
 * filters, SIGTERM forwarded, `columns --profile` against the written
 * headers, the report's worst lines and shares, the names kernels are
 * printed by (templates, instantiations, lines without line info), and
 * library kernels apart (origin and library columns from the modules
 * file, --check and --baseline judging the program's own kernels unless
 * --check-libraries, exit 4 when nothing was judged, the report's
 * heading for library kernels, profiles from before the columns).
 */
#include "cli_util.h"
#include "csv_table.h"
#include "profile_csv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char app[PATH_MAX + 320];

/* ---- helpers ----------------------------------------------------------- */

/* `memprobe profile OPTS... -- fake_app ARGS...`: the two lists are
 * NULL-terminated. */
static int profile(const char *const *opts, const char *const *args,
                   cli_result *r)
{
    const char *argv[CLI_MAXARGS + 8];
    int n = 0, when = 0;
    argv[n++] = "profile";
    for (int i = 0; opts && opts[i]; i++) {
        when |= !strcmp(opts[i], "--opcodes");
        argv[n++] = opts[i];
    }
    /* the stand-in's modules have line info: --opcodes auto would not
     * disassemble them, and these tests read the opcodes */
    if (!when) {
        argv[n++] = "--opcodes";
        argv[n++] = "on";
    }
    argv[n++] = "--";
    argv[n++] = app;
    for (int i = 0; args && args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    assert_true(n < CLI_MAXARGS + 8);
    return cli_run(argv, r);
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const *)NULL)

/* profile(opts, args) that must exit 0; its output is not read. */
static void profile_ok(const char *const *opts, const char *const *args)
{
    cli_result r;
    profile(opts, args, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
}

static void read_csv(const char *path, mp_csv_table *t)
{
    char err[1024];
    if (mp_csv_table_read(path, t, err, sizeof err))
        fail_msg("%s", err);
}

static const char *cell(const mp_csv_table *t, int row, const char *col)
{
    int c = mp_csv_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    assert_true(row < t->nrows);
    return t->cells[row][c];
}

static void expect_cell(const mp_csv_table *t, int row, const char *col,
                        const char *want)
{
    const char *got = cell(t, row, col);
    if (strcmp(got, want))
        fail_msg("row %d, %s: '%s', want '%s'", row, col, got, want);
}

/* The row whose `col` is `value` (the n-th such, from 0). */
static int row_where(const mp_csv_table *t, const char *col,
                     const char *value, int nth)
{
    for (int r = 0; r < t->nrows; r++)
        if (!strcmp(cell(t, r, col), value) && nth-- == 0)
            return r;
    fail_msg("no row with %s = %s", col, value);
    return -1;
}

/* Lines of text starting with prefix. */
static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, prefix, strlen(prefix)))
            n++;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return n;
}

#define SH "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define GL "smsp__sass_sectors_mem_global"
#define INST "smsp__sass_inst_executed"
#define SPEC "shared<=1.0,global<=1.25"

static const char *const check_lines[] = {
    "memprobe: check: copy.cu:5 copy_kernel global store (STG.E): 1.75x "
    "ideal (56 sectors, ideal 32)\n",
    "memprobe: check: app.cu:19 transpose_naive shared store (STS): 32.0x "
    "ideal (65536 wavefronts, ideal 2048)\n",
    "memprobe: check: app.cu:19 transpose_naive global load (LDG.E): 1.5x "
    "ideal (12288 sectors, ideal 8192)\n",
    "memprobe: check: app.cu:21 transpose_naive global store (STG.E): 8.0x "
    "ideal (65536 sectors, ideal 8192)\n",
};

/* ---- the CSVs ---------------------------------------------------------- */

/* One process, four launches: the sums, the split, the names, the lines,
 * and the program's own output untouched. */
static void test_merged_csv(void **state)
{
    (void)state;
    cli_result r;
    profile(NONE, NONE, &r);
    cli_expect_status(&r, 0);
    assert_string_equal(r.out, "fake_app: the program's own stdout\n");
    cli_must_contain("stderr", r.err, "fake_app: the program's own stderr\n");
    cli_must_contain("stderr", r.err, "memprobe: wrote profile.csv (4 "
                     "launches in 4 rows) and profile-lines.csv (11 "
                     "instruction rows)");
    /* and the fake-device hook's warning */
    cli_must_contain("stderr", r.err, "memprobe: warning: MEMPROBE_FAKE_"
                     "DEVICE is set: the GPU is not looked for\n");
    assert_int_equal(count_lines(r.err, "memprobe: "), 2);
    cli_result_free(&r);

    mp_csv_table t;
    read_csv("profile.csv", &t);
    assert_int_equal(t.nrows, 4);
    for (int i = 0; i < 4; i++) {
        char n[8];
        snprintf(n, sizeof n, "%d", i);
        expect_cell(&t, i, "launch", n);
    }
    expect_cell(&t, 0, "kernel", "transpose_naive(float*, float const*, int)");
    expect_cell(&t, 0, "mangled", "_Z15transpose_naivePfPKfi");
    expect_cell(&t, 0, "grid", "64,64,1");
    expect_cell(&t, 0, "block", "32,8,1");
    expect_cell(&t, 0, INST, "6144");
    expect_cell(&t, 0, SH, "33792");
    expect_cell(&t, 0, SH "_ideal", "2048");
    expect_cell(&t, 0, SH "_op_ld", "1024");          /* LDS */
    expect_cell(&t, 0, SH "_op_st", "32768");         /* STS, 32-way */
    expect_cell(&t, 0, SH "_ideal_op_ld", "1024");
    expect_cell(&t, 0, SH "_ideal_op_st", "1024");
    expect_cell(&t, 0, GL, "38912");
    expect_cell(&t, 0, GL "_ideal", "8192");
    expect_cell(&t, 0, GL "_op_ld", "6144");
    expect_cell(&t, 0, GL "_op_st", "32768");
    expect_cell(&t, 1, "kernel", "transpose_pad(float*, float const*, int)");
    expect_cell(&t, 1, "nvtx", "outer/step");
    expect_cell(&t, 0, "nvtx", "");
    expect_cell(&t, 3, "kernel", "copy_kernel");   /* extern "C" */
    expect_cell(&t, 3, GL, "96");
    expect_cell(&t, 3, GL "_op_ld", "40");
    expect_cell(&t, 3, GL "_op_st", "56");
    expect_cell(&t, 3, GL "_ideal_op_st", "32");
    expect_cell(&t, 3, "line_counts", "exact");
    char pid[16];
    snprintf(pid, sizeof pid, "%s", cell(&t, 0, "pid"));
    assert_true(atoi(pid) > 1);
    for (int i = 1; i < 4; i++)
        expect_cell(&t, i, "pid", pid);
    mp_csv_free(&t);

    read_csv("profile-lines.csv", &t);
    assert_int_equal(t.nrows, 11);
    int sts = row_where(&t, "opcode", "STS", 1);   /* naive's, after pad's */
    expect_cell(&t, sts, "mangled", "_Z15transpose_naivePfPKfi");
    expect_cell(&t, sts, "file", "/src/app.cu");
    expect_cell(&t, sts, "line", "19");
    expect_cell(&t, sts, "function_offset", "0x110");
    expect_cell(&t, sts, "launches", "2");
    expect_cell(&t, sts, INST, "2048");
    expect_cell(&t, sts, SH, "65536");
    expect_cell(&t, sts, SH "_ideal", "2048");
    expect_cell(&t, sts, "ratio", "32");
    int imad = row_where(&t, "opcode", "IMAD", 0);
    expect_cell(&t, imad, "ratio", "");
    expect_cell(&t, imad, INST, "4096");
    int ldg = row_where(&t, "function_offset", "0x80", 0);
    expect_cell(&t, ldg, "opcode", "LDG.E");
    expect_cell(&t, ldg, "ratio", "1.25");
    expect_cell(&t, ldg, "pid", pid);
    mp_csv_free(&t);
}

/* No cuobjdump: no opcodes, so no load/store split (empty, not a guess). */
static void test_no_opcodes(void **state)
{
    (void)state;
    cli_result r;
    /* no cubin: no opcodes, but the split from the load-instruction
     * metric all the same (33792 = STS 32768 + LDS 1024; STG 32768) */
    profile(L("-o", "noop.csv"), L("--no-cubin"), &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("noop.csv", &t);
    expect_cell(&t, 0, SH, "33792");
    expect_cell(&t, 0, SH "_op_ld", "1024");
    expect_cell(&t, 0, SH "_op_st", "32768");
    expect_cell(&t, 0, GL "_op_ld", "6144");
    expect_cell(&t, 0, GL "_op_st", "32768");
    expect_cell(&t, 0, "smsp__sass_inst_executed_op_ld", "2048");
    mp_csv_free(&t);
    read_csv("noop-lines.csv", &t);
    expect_cell(&t, 0, "opcode", "");
    mp_csv_free(&t);
    /* --opcodes auto (the default): the modules have line info, so no
     * disassembly; the check names the class and load or store */
    profile(L("-o", "auto.csv", "--opcodes", "auto", "--check",
              "shared<=1.0"), NONE, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, "memprobe: check: app.cu:19 "
                     "transpose_naive shared store: 32.0x ideal");
    cli_result_free(&r);
    read_csv("auto-lines.csv", &t);
    expect_cell(&t, 0, "opcode", "");
    mp_csv_free(&t);
}

/* A program that forks: one CSV, both processes' rows by pid. */
/* --opcodes auto leaves a library's modules alone (PyTorch's copy kernel
 * with --library), however they lack line information; --opcodes on
 * disassembles them too. */
static void test_opcodes_library(void **state)
{
    (void)state;
    static const char *const how[2] = {"auto", "on"};
    for (int k = 0; k < 2; k++) {
        cli_result r;
        char out[32], lines[40];
        snprintf(out, sizeof out, "ol-%s.csv", how[k]);
        snprintf(lines, sizeof lines, "ol-%s-lines.csv", how[k]);
        profile(L("-o", out, "--opcodes", how[k]),
                L("--templates", "--library"), &r);
        cli_expect_status(&r, 0);
        cli_result_free(&r);
        mp_csv_table t;
        read_csv(lines, &t);
        int lib = 0, own = 0;
        for (int row = 0; row < t.nrows; row++) {
            const char *op = cell(&t, row, "opcode");
            int is_lib = !strcmp(cell(&t, row, "library"), "1");
            lib += is_lib;
            own += !is_lib;
            if (!is_lib || k == 1)
                assert_true(!strcmp(op, "LDG.E") || !strcmp(op, "STG.E"));
            else
                assert_string_equal(op, "");
        }
        assert_int_equal(lib, 2);
        assert_int_equal(own, 4);
        mp_csv_free(&t);
    }
}

static void test_fork(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "fork.csv", "--check", SPEC), L("--fork"), &r);
    cli_expect_status(&r, 1);
    /* the two processes' line 19 summed */
    cli_must_contain("stderr", r.err, "memprobe: check: app.cu:19 "
                     "transpose_naive shared store (STS): 32.0x ideal "
                     "(131072 wavefronts, "
                     "ideal 4096)\n");
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 4);
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("fork.csv", &t);
    assert_int_equal(t.nrows, 8);
    char a[16], b[16];
    snprintf(a, sizeof a, "%s", cell(&t, 0, "pid"));
    snprintf(b, sizeof b, "%s", cell(&t, 7, "pid"));
    assert_string_not_equal(a, b);
    for (int i = 0; i < 8; i++)
        expect_cell(&t, i, "pid", i < 4 ? (atoi(a) < atoi(b) ? a : b)
                    : (atoi(a) < atoi(b) ? b : a));
    mp_csv_free(&t);
    read_csv("fork-lines.csv", &t);
    assert_int_equal(t.nrows, 22);
    row_where(&t, "pid", a, 10);
    row_where(&t, "pid", b, 10);
    mp_csv_free(&t);
}

/* A crash: 128 + 11, said on stderr, and the rows flushed before it (the
 * cut-off row dropped). */
static void test_crash(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "crash.csv"), L("--crash"), &r);
    cli_expect_status(&r, 128 + SIGSEGV);
    cli_must_contain("stderr", r.err, "was killed by signal 11");
    cli_must_contain("stderr", r.err, "(2 launches in 2 rows)");
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("crash.csv", &t);
    assert_int_equal(t.nrows, 2);
    expect_cell(&t, 0, "launch", "0");
    expect_cell(&t, 1, "launch", "1");
    expect_cell(&t, 1, SH, "2048");
    mp_csv_free(&t);
    read_csv("crash-lines.csv", &t);
    assert_int_equal(t.nrows, 9);
    expect_cell(&t, row_where(&t, "opcode", "STS", 1), "launches", "1");
    mp_csv_free(&t);
    /* with --check the offender wins over the program's status */
    profile(L("-o", "crash2.csv", "--check", "shared<=1"), L("--crash"), &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, "memprobe: check: app.cu:19 "
                     "transpose_naive shared store (STS): 32.0x ideal "
                     "(32768 wavefronts, "
                     "ideal 1024)\n");
    cli_must_contain("stderr", r.err, "was killed by signal 11");
    cli_result_free(&r);
}

/* `columns --profile` lists exactly the headers written. */
static void test_columns_match_header(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "cols.csv"), NONE, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    const char *args[] = {"columns", "--profile", NULL};
    cli_run_ok(args, &r);
    char want[2][4096] = {"", ""};
    int section = -1;
    for (char *line = r.out; line && *line;) {
        char *nl = strchr(line, '\n');
        if (line[0] == '#') {
            section++;
        } else if (line[0] != '\n' && section >= 0 && section < 2) {
            size_t n = strcspn(line, " \n");
            size_t used = strlen(want[section]);
            snprintf(want[section] + used, sizeof want[0] - used, "%s%.*s",
                     used ? "," : "", (int)n, line);
        }
        line = nl ? nl + 1 : NULL;
    }
    cli_result_free(&r);
    assert_int_equal(section, 1);
    const char *files[2] = {"cols.csv", "cols-lines.csv"};
    for (int k = 0; k < 2; k++) {
        size_t len;
        char *text = cli_read_file(files[k], &len);
        text[strcspn(text, "\r\n")] = '\0';
        assert_string_equal(text, want[k]);
        free(text);
    }
}

/* ---- exit status, in its order ----------------------------------------- */

typedef struct {
    const char *opts[8];
    const char *args[8];
    int status;
    const char *say[3];
} status_case;

static const status_case statuses[] = {
    /* the program's own */
    {{0}, {"--exit", "3"}, 3, {"memprobe: ", "failed: exit status 3"}},
    /* 4: no status file, also with --check, and before the program's */
    {{0}, {"--no-status"}, 4, {"never initialised CUDA"}},
    {{"--check", SPEC}, {"--no-status"}, 4, {"no counts"}},
    {{0}, {"--no-status", "--exit", "3"}, 4,
     {"failed: exit status 3", "never initialised CUDA"}},
    /* 4: an error line; no launch seen; a filter that matched nothing */
    {{"--check", SPEC}, {"--error", "insufficient privileges"}, 4,
     {"memprobe: no counts: insufficient privileges (pid "}},
    {{0}, {"--launches", "0"}, 4, {"no kernel launch seen"}},
    {{"--kernel", "nomatch"}, {0}, 4, {"no launch matched the filters "
                                       "(4 seen, 0 profiled"}},
    {{"--kernel", "nomatch", "--check", SPEC}, {"--exit", "3"}, 4,
     {"no launch matched"}},
    /* 4 with --check when no launch has line counts; without, a note */
    {{"--check", SPEC}, {"--unavailable"}, 4,
     {"memprobe: 4 of 4 launches without line counts (CUPTI 13.0 patched "
      "no code for this kernel)", "no instruction row to judge"}},
    {{0}, {"--unavailable"}, 0, {"4 of 4 launches without line counts"}},
    /* 1 before the program's status; a failed program said even when the
     * check passed */
    {{"--check", SPEC}, {"--exit", "3"}, 1,
     {"memprobe: check failed: 4 offenders among 5 source lines",
      "failed: exit status 3"}},
    {{"--check", "shared<=32,global<=8"}, {"--exit", "3"}, 3,
     {"memprobe: check passed: 0 offenders among 5",
      "failed: exit status 3"}},
};

static void test_exit_status(void **state)
{
    (void)state;
    for (size_t k = 0; k < CLI_COUNT(statuses); k++) {
        const status_case *c = &statuses[k];
        cli_result r;
        profile(c->opts, c->args, &r);
        if (r.status != c->status)
            fail_msg("case %zu: exit %d, want %d; stderr:\n%s", k, r.status,
                     c->status, r.err);
        for (int i = 0; i < 3 && c->say[i]; i++)
            cli_must_contain("stderr", r.err, c->say[i]);
        /* the program's own output passes through in every case */
        cli_must_contain("stdout", r.out, "fake_app: the program's own "
                         "stdout\n");
        cli_result_free(&r);
    }
}

/* ---- the range pass: --level kernel+ and the fallback ------------------ */

#define R_L1 "l1tex__t_sector_hit_rate.pct"
#define R_L2 "lts__t_sector_hit_rate.pct"
#define R_DRAM "dram__bytes_read.sum"
#define R_SH_ST "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define R_GL_LD "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define R_GL_ST "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"

/* --level kernel+: every launch joined (fake_app's values per kernel),
 * the program run three times (its output thrice: the first run, the
 * cache and the l2 groups' runs), the SASS columns untouched; the L2 hit
 * rate is the cache run's lookup hits over the l2 run's sectors; the
 * counts group does not run (every launch has line counts), so the
 * shared-wavefront counts stay empty. */
static void test_kernel_plus(void **state)
{
    (void)state;
    cli_result r;
    profile(L("--level", "kernel+", "-o", "kp.csv"), NONE, &r);
    cli_expect_status(&r, 0);
    assert_string_equal(r.out, "fake_app: the program's own stdout\n"
                               "fake_app: the program's own stdout\n"
                               "fake_app: the program's own stdout\n");
    cli_must_contain("stderr", r.err, "again (range run 1 of 2) with the "
                     "range profiler for 4 launches (--level kernel+: L1 "
                     "and L2 hits and DRAM bytes from an L2 flushed before "
                     "each launch)");
    cli_must_contain("stderr", r.err, "again (range run 2 of 2) with the "
                     "range profiler for 4 launches (--level kernel+: L2 "
                     "sectors from an L2 flushed before each launch)");
    assert_null(strstr(r.err, "did not repeat"));
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("kp.csv", &t);
    assert_int_equal(t.nrows, 4);
    static const char *const l1[4] = {"25", "87.5", "25", "0"};
    static const char *const l2[4] = {"75", "50", "75", "75"};
    static const char *const dram[4] = {"1048576", "4096", "1048576", "512"};
    static const char *const gl[4] = {"6144", "4096", "6144", "40"};
    for (int i = 0; i < 4; i++) {
        expect_cell(&t, i, "range_counters", "range_profiler");
        expect_cell(&t, i, "range_why", "");
        expect_cell(&t, i, R_L1, l1[i]);
        expect_cell(&t, i, R_L2, l2[i]);
        expect_cell(&t, i, R_DRAM, dram[i]);
        expect_cell(&t, i, R_GL_LD, gl[i]);
        expect_cell(&t, i, R_SH_ST, "");
        expect_cell(&t, i, "line_counts", "exact");
    }
    expect_cell(&t, 0, SH, "33792");   /* the SASS sums stay the first run's */
    mp_csv_free(&t);
}

/* A second run that does not repeat the first: the launch it changed
 * gets empty range columns and a reason, one memprobe: line counts it;
 * the others are joined. */
static void test_kernel_plus_unmatched(void **state)
{
    (void)state;
    cli_result r;
    profile(L("--level", "kernel+", "-o", "un.csv"),
            L("--nondeterministic"), &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "memprobe: 1 of 4 launches found no "
                     "same launch in the second run");
    assert_int_equal(count_lines(r.err, "memprobe: 1 of 4"), 1);
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("un.csv", &t);
    expect_cell(&t, 1, "range_counters", "unavailable");
    expect_cell(&t, 1, R_L1, "");
    expect_cell(&t, 1, R_DRAM, "");
    cli_must_contain("range_why", cell(&t, 1, "range_why"),
                     "launch 1 of process #0 was copy_kernel");
    for (int i = 0; i < 4; i += 1 + (i == 0))
        expect_cell(&t, i, "range_counters", "range_profiler");
    expect_cell(&t, 3, R_DRAM, "512");
    mp_csv_free(&t);
}

/* Two processes: each first-run process joins the second run's process of
 * the same ordinal, though every pid differs. */
static void test_kernel_plus_fork(void **state)
{
    (void)state;
    cli_result r;
    profile(L("--level", "kernel+", "-o", "kf.csv"), L("--fork"), &r);
    cli_expect_status(&r, 0);
    assert_null(strstr(r.err, "did not repeat"));
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("kf.csv", &t);
    assert_int_equal(t.nrows, 8);
    int naive = 0;
    for (int i = 0; i < 8; i++) {
        expect_cell(&t, i, "range_counters", "range_profiler");
        naive += !strcmp(cell(&t, i, R_DRAM), "1048576");
    }
    assert_int_equal(naive, 4);   /* launches 0 and 2 of both processes */
    mp_csv_free(&t);
}

/* --fallback rerun: without --level kernel+, launches without line counts
 * (the NO_SASS hook) get the range profiler's counts from a second run of
 * the program, equal to the SASS sums the same kernel has in a run
 * without the hook; launches with line counts get no range values;
 * --check says what it could not judge. */
static void test_fallback(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "plain.csv", "--fallback", "rerun"), NONE, &r);
    cli_expect_status(&r, 0);
    assert_null(strstr(r.err, "again"));   /* nothing to fall back */
    assert_string_equal(r.out, "fake_app: the program's own stdout\n");
    cli_result_free(&r);
    setenv("MEMPROBE_INJECT_NO_SASS", "transpose_naive", 1);
    profile(L("-o", "fb.csv", "--check", "shared<=1.0,global<=1.8",
              "--fallback", "rerun"), NONE, &r);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    cli_expect_status(&r, 0);
    /* the program ran twice: its own line twice, memprobe's between */
    assert_string_equal(r.out, "fake_app: the program's own stdout\n"
                               "fake_app: the program's own stdout\n");
    cli_must_contain("stderr", r.err, "memprobe: running ");
    cli_must_contain("stderr", r.err, " again (range run 1 of 1) with the "
                     "range profiler for 2 launches (without line "
                     "counts: hardware counts, kernel replay)");
    cli_must_contain("stderr", r.err, "memprobe: 2 of 4 launches without "
                     "line counts (no SASS records: dropped by the test "
                     "hook MEMPROBE_INJECT_NO_SASS)\n");
    cli_must_contain("stderr", r.err, "memprobe: check: 2 launches NOT "
                     "judged: no line counts (the first: transpose_naive");
    cli_must_contain("stderr", r.err, "2 of them have the range profiler's "
                     "per-launch counts");
    cli_result_free(&r);
    mp_csv_table p, t;
    read_csv("plain.csv", &p);
    read_csv("fb.csv", &t);
    assert_int_equal(t.nrows, 4);
    for (int i = 0; i < 4; i++) {
        int naive = i == 0 || i == 2;
        expect_cell(&t, i, "line_counts", naive ? "unavailable" : "exact");
        expect_cell(&t, i, "range_counters", naive ? "range_profiler" : "");
        if (!naive) {
            expect_cell(&t, i, R_L1, "");
            continue;
        }
        cli_must_contain("why", cell(&t, i, "why"),
                         "MEMPROBE_INJECT_NO_SASS");
        expect_cell(&t, i, SH, "0");
        /* hardware counts = the SASS split of the run without the hook */
        expect_cell(&t, i, R_SH_ST, cell(&p, i, SH "_op_st"));
        expect_cell(&t, i, R_GL_LD, cell(&p, i, GL "_op_ld"));
        expect_cell(&t, i, R_GL_ST, cell(&p, i, GL "_op_st"));
    }
    mp_csv_free(&p);
    mp_csv_free(&t);
    /* every kernel without line counts: --check judges nothing: 4 */
    setenv("MEMPROBE_INJECT_NO_SASS", ".", 1);
    profile(L("-o", "fb2.csv", "--check", SPEC, "--fallback", "rerun"), NONE,
            &r);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    cli_expect_status(&r, 4);
    cli_must_contain("stderr", r.err, "no instruction row to judge");
    cli_result_free(&r);
    read_csv("fb2.csv", &t);
    for (int i = 0; i < 4; i++)
        expect_cell(&t, i, "range_counters", "range_profiler");
    mp_csv_free(&t);
}

static char *report_of(const char *csv, const char *format);

#define NOT_RUN "not measured: the program runs once; --fallback rerun " \
    "runs it again for these launches"

/* By default (and with --fallback off) the program runs once: launches
 * without line counts keep their why, their range columns say they were
 * not measured, the note says how to measure them; --check counts them
 * as not judged, none with hardware counts; the report lists them. */
static void test_fallback_off(void **state)
{
    (void)state;
    const char *const *how[2] = {L("-o", "once.csv"),
                                 L("-o", "once.csv", "--fallback", "off")};
    for (int k = 0; k < 2; k++) {
        cli_result r;
        setenv("MEMPROBE_INJECT_NO_SASS", "transpose_naive", 1);
        profile(how[k], NONE, &r);
        unsetenv("MEMPROBE_INJECT_NO_SASS");
        cli_expect_status(&r, 0);
        assert_string_equal(r.out, "fake_app: the program's own stdout\n");
        assert_null(strstr(r.err, "memprobe: running"));
        assert_null(strstr(r.err, "range run"));
        assert_int_equal(count_lines(r.err, "fake_app: the program's own "
                                     "stderr"), 1);
        cli_must_contain("stderr", r.err, "memprobe: 2 of 4 launches "
                         "without line counts (no SASS records: dropped by "
                         "the test hook MEMPROBE_INJECT_NO_SASS); --fallback "
                         "rerun runs the program again for their hardware "
                         "counts\n");
        cli_result_free(&r);
        mp_csv_table t;
        read_csv("once.csv", &t);
        assert_int_equal(t.nrows, 4);
        for (int i = 0; i < 4; i++) {
            int naive = i == 0 || i == 2;
            expect_cell(&t, i, "line_counts",
                        naive ? "unavailable" : "exact");
            expect_cell(&t, i, "range_counters", naive ? "unavailable" : "");
            expect_cell(&t, i, "range_why", naive ? NOT_RUN : "");
            expect_cell(&t, i, R_SH_ST, "");
            expect_cell(&t, i, R_GL_LD, "");
            expect_cell(&t, i, R_GL_ST, "");
            if (naive)
                expect_cell(&t, i, "why", "no SASS records: dropped by the "
                            "test hook MEMPROBE_INJECT_NO_SASS");
        }
        mp_csv_free(&t);
    }
    /* --check: the two launches not judged, none with hardware counts */
    cli_result r;
    setenv("MEMPROBE_INJECT_NO_SASS", "transpose_naive", 1);
    profile(L("-o", "once2.csv", "--check", "shared<=1.0,global<=1.8"),
            NONE, &r);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    cli_expect_status(&r, 0);
    assert_string_equal(r.out, "fake_app: the program's own stdout\n");
    cli_must_contain("stderr", r.err, "memprobe: check: 2 launches NOT "
                     "judged: no line counts (the first: transpose_naive");
    cli_must_contain("stderr", r.err, "; 0 of them have the range "
                     "profiler's per-launch counts");
    cli_result_free(&r);
    /* no launch with line counts: still one run, --check's 4 */
    profile(L("-o", "once3.csv", "--check", SPEC), L("--unavailable"), &r);
    cli_expect_status(&r, 4);
    assert_string_equal(r.out, "fake_app: the program's own stdout\n");
    cli_must_contain("stderr", r.err, "memprobe: 4 of 4 launches without "
                     "line counts (CUPTI 13.0 patched no code for this "
                     "kernel); --fallback rerun runs the program again for "
                     "their hardware counts\n");
    cli_must_contain("stderr", r.err, "no instruction row to judge");
    cli_result_free(&r);
    char *out = report_of("once.csv", "txt");
    cli_must_contain("report", out, "Range profiler: 0 of 4 launches "
                     "measured; 4 without range values:\n- 2 launches: "
                     NOT_RUN "\n");
    free(out);
}

/* OPT VALUE refused before any run: exactly `message` on stderr, nothing
 * on stdout, exit 2. */
static void expect_bad_value(const char *opt, const char *value,
                             const char *message)
{
    cli_result r;
    profile(L(opt, value), NONE, &r);
    cli_expect_status(&r, 2);
    assert_string_equal(r.err, message);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
}

/* --fallback: a bad value is one line naming it, exit 2, before any
 * run; only when a program is run. */
static void test_fallback_option(void **state)
{
    (void)state;
    cli_result r;
    expect_bad_value("--fallback", "bogus", "memprobe: --fallback: 'bogus' "
                     "is not off or rerun\n");
    const char *from[] = {"profile", "--from", "x.csv", "--check", SPEC,
                          "--fallback", "rerun", NULL};
    cli_run(from, &r);
    cli_expect_status(&r, 2);
    assert_string_equal(r.err, "memprobe: --fallback: only when a program "
                               "is run (not with --from)\n");
    cli_result_free(&r);
}

/* --level: a bad value is one line naming it, exit 2, before any run. */
static void test_level_option(void **state)
{
    (void)state;
    cli_result r;
    expect_bad_value("--level", "kernel++", "memprobe: --level: 'kernel++' "
                     "is not kernel or kernel+\n");
    profile(L("--level", "kernel", "-o", "lk.csv"), NONE, &r);
    cli_expect_status(&r, 0);
    assert_null(strstr(r.err, "again"));
    cli_result_free(&r);
}

/* memprobe's CUPTI (libcupti.so.13 beside the injection library) goes
 * first in the program's LD_PRELOAD, the user's own preloads after it, so
 * that a program bringing an older CUPTI binds to memprobe's. */
static void test_preload(void **state)
{
    (void)state;
    char cwd[PATH_MAX], lib[PATH_MAX + 32], cupti[PATH_MAX + 32];
    assert_non_null(getcwd(cwd, sizeof cwd));
    mkdir("libdir", 0700);
    snprintf(lib, sizeof lib, "%s/libdir/libmemprobe_inject.so", cwd);
    snprintf(cupti, sizeof cupti, "%s/libdir/libcupti.so.13", cwd);
    cli_write_file(lib, "stand-in\n");
    cli_write_file(cupti, "stand-in\n");
    char *saved = strdup(getenv("MEMPROBE_INJECT_LIB"));
    setenv("MEMPROBE_INJECT_LIB", lib, 1);
    setenv("LD_PRELOAD", "/nonexistent/users-own.so", 1);
    cli_result r;
    profile(L("-o", "pre.csv"), L("--print-preload"), &r);
    unsetenv("LD_PRELOAD");
    setenv("MEMPROBE_INJECT_LIB", saved, 1);
    free(saved);
    cli_expect_status(&r, 0);
    char want[2 * PATH_MAX];
    snprintf(want, sizeof want, "LD_PRELOAD=%s:/nonexistent/users-own.so\n",
             cupti);
    cli_must_contain("stdout", r.out, want);
    cli_result_free(&r);
    /* without a libcupti.so.13 beside the library: nothing preloaded */
    profile(L("-o", "nopre.csv"), L("--print-preload"), &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stdout", r.out, "LD_PRELOAD=\n");
    cli_result_free(&r);
}

/* The program's own CUPTI client (tests/profile/fake_cupti.c stands in for
 * CUPTI while memprobe holds the subscription): memprobe's client library
 * goes first in LD_PRELOAD, before its CUPTI; the program's cuptiSubscribe
 * reaches CUPTI unchanged, and its refusal is said in one `memprobe:`
 * line; a subscription CUPTI grants is not reported. */
static void test_own_cupti_client(void **state)
{
    (void)state;
    char cwd[PATH_MAX], build[PATH_MAX], src[PATH_MAX + 64];
    char lib[PATH_MAX + 32], cupti[PATH_MAX + 32], client[PATH_MAX + 32];
    assert_non_null(getcwd(cwd, sizeof cwd));
    cli_build_dir(build, sizeof build);
    mkdir("clientdir", 0700);
    snprintf(lib, sizeof lib, "%s/clientdir/libmemprobe_inject.so", cwd);
    snprintf(cupti, sizeof cupti, "%s/clientdir/libcupti.so.13", cwd);
    snprintf(client, sizeof client, "%s/clientdir/libmemprobe_client.so",
             cwd);
    cli_write_file(lib, "stand-in\n");
    const char *copies[][2] = {{"tests/profile/fake_cupti.so", cupti},
                               {"lib/libmemprobe_client.so", client}};
    for (int k = 0; k < 2; k++) {
        size_t n;
        snprintf(src, sizeof src, "%s", cli_in_repo(build));
        snprintf(src + strlen(src), sizeof src - strlen(src), "/%s",
                 copies[k][0]);
        char *bytes = cli_read_file(src, &n);
        assert_non_null(bytes);
        FILE *f = fopen(copies[k][1], "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bytes, 1, n, f), n);
        fclose(f);
        free(bytes);
    }
    char *saved = strdup(getenv("MEMPROBE_INJECT_LIB"));
    setenv("MEMPROBE_INJECT_LIB", lib, 1);
    cli_result r;
    profile(L("-o", "client.csv"), L("--subscribe", "--print-preload"), &r);
    cli_expect_status(&r, 0);
    char want[4 * PATH_MAX];
    snprintf(want, sizeof want, "LD_PRELOAD=%s:%s\n", client, cupti);
    cli_must_contain("stdout", r.out, want);
    cli_must_contain("stdout", r.out, "fake_app: cuptiSubscribe refused\n");
    cli_must_contain("stderr", r.err, "fake_cupti: cuptiSubscribe\n");
    assert_int_equal(count_lines(r.err, "memprobe: the program's own "), 1);
    cli_must_contain("stderr", r.err,
                     "memprobe: the program's own CUPTI client was refused "
                     "(cuptiSubscribe: 39 CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_"
                     "NOT_SUPPORTED, held by memprobe): its profiler "
                     "(torch.profiler, a CUPTI tool) records no GPU "
                     "activity under memprobe; memprobe's counts are not "
                     "affected\n");
    cli_result_free(&r);
    /* nobody holds CUPTI: the program's subscription passes, unreported */
    setenv("FAKE_CUPTI_FREE", "1", 1);
    profile(L("-o", "client2.csv"), L("--subscribe"), &r);
    unsetenv("FAKE_CUPTI_FREE");
    setenv("MEMPROBE_INJECT_LIB", saved, 1);
    free(saved);
    cli_expect_status(&r, 0);
    cli_must_contain("stdout", r.out, "fake_app: cuptiSubscribe ok\n");
    assert_int_equal(count_lines(r.err, "memprobe: the program's own "), 0);
    cli_result_free(&r);
}

/* ---- --check, --min-count, --from -------------------------------------- */

static void test_check(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "chk.csv", "--check", SPEC), NONE, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 4);
    for (size_t k = 0; k < CLI_COUNT(check_lines); k++)
        cli_must_contain("stderr", r.err, check_lines[k]);
    cli_result_free(&r);

    /* copy.cu:5 executed 32 instructions: out below --min-count 33 */
    const char *from33[] = {"profile", "--from", "chk.csv", "--check", SPEC,
                            "--min-count", "33", NULL};
    cli_run(from33, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 3);
    assert_null(strstr(r.err, "copy.cu"));
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    const char *from32[] = {"profile", "--from", "chk.csv", "--check", SPEC,
                            "--min-count", "32", NULL};
    cli_run(from32, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 4);
    cli_result_free(&r);
    /* the limits are measured / ideal: 32.0x passes shared<=32 */
    const char *loose[] = {"profile", "--from", "chk.csv", "--check",
                           "shared<=32,global<=8", NULL};
    cli_run(loose, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "check passed: 0 offenders among 5");
    cli_result_free(&r);
    /* no line counts in the file: never a pass */
    profile(L("-o", "unavail.csv"), L("--unavailable"), &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    const char *unavail[] = {"profile", "--from", "unavail.csv", "--check",
                             SPEC, NULL};
    cli_run(unavail, &r);
    cli_expect_status(&r, 4);
    cli_must_contain("stderr", r.err, "no instruction row to judge");
    cli_result_free(&r);
    const char *shared_only[] = {"profile", "--from", "chk.csv", "--check",
                                 "shared<=31.9", NULL};
    cli_run(shared_only, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 1);
    cli_must_contain("stderr", r.err, check_lines[1]);
    cli_result_free(&r);
    /* loads and stores judged apart: copy.cu:5 loads 1.25x and stores
     * 1.75x its ideal sectors (1.5x together); global<=1.5 passes the
     * load and flags the store, as it does app.cu:21's 8.0x store, and
     * passes app.cu:19's 1.5x load */
    const char *apart[] = {"profile", "--from", "chk.csv", "--check",
                           "global<=1.5", NULL};
    cli_run(apart, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 2);
    cli_must_contain("stderr", r.err, check_lines[0]);
    cli_must_contain("stderr", r.err, check_lines[3]);
    assert_null(strstr(r.err, "global load"));
    cli_result_free(&r);
}

/* ---- --baseline -------------------------------------------------------- */

static void test_baseline(void **state)
{
    (void)state;
    cli_result r;
    /* the baseline: no bank conflict on line 19 */
    profile(L("-o", "base.csv"), L("--conflict", "1"), &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    profile(L("-o", "new.csv", "--baseline", "base.csv"), NONE, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: baseline: "), 2);
    cli_must_contain("stderr", r.err, "memprobe: baseline: kernel "
                     "transpose_naive shared: 1.0x -> 16.5x ideal (67584 "
                     "wavefronts, ideal 4096)\n");
    cli_must_contain("stderr", r.err, "memprobe: baseline: app.cu:19 "
                     "transpose_naive shared store (STS): 1.0x -> 32.0x "
                     "ideal (65536 "
                     "wavefronts, ideal 2048)\n");
    cli_result_free(&r);
    /* against itself: nothing grew */
    const char *same[] = {"profile", "--from", "new.csv", "--baseline",
                          "new.csv", NULL};
    cli_run(same, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "baseline passed: 0 grew of");
    cli_result_free(&r);
    /* better than the baseline: not an offender */
    const char *better[] = {"profile", "--from", "base.csv", "--baseline",
                            "new.csv", NULL};
    cli_run(better, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    /* --tolerance 20: 16.5x <= 1.0 x 21 passes, 32.0x does not */
    const char *tol20[] = {"profile", "--from", "new.csv", "--baseline",
                           "base.csv", "--tolerance", "20", NULL};
    cli_run(tol20, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: baseline: "), 1);
    cli_must_contain("stderr", r.err, "app.cu:19 transpose_naive shared "
                     "store (STS): 1.0x -> 32.0x");
    cli_result_free(&r);
    const char *tol40[] = {"profile", "--from", "new.csv", "--baseline",
                           "base.csv", "--tolerance", "40", NULL};
    cli_run(tol40, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    /* check and baseline together: both judged, both counted */
    const char *both[] = {"profile", "--from", "new.csv", "--baseline",
                          "base.csv", "--check", "shared<=1", NULL};
    cli_run(both, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: baseline: "), 2);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 1);
    cli_result_free(&r);
}

/* ---- kernel names ------------------------------------------------------ */

/* fake_app --templates: scale<float> (line info), scale<double> and
 * PyTorch's copy kernel (none). */
#define TORCH_COPY_HEAD "void at::native::elementwise_kernel<128, 2, "
static const char *const template_check[] = {
    "memprobe: check: at::native::elementwise_kernel+0x13c0 global load "
    "(LDG.E): 6.0x ideal (192 sectors, ideal 32)\n",
    "memprobe: check: scale<double>+0x90 global store (STG.E): 4.0x ideal (256 "
    "sectors, ideal 64)\n",
    "memprobe: check: scale.cu:7 scale<float> global load (LDG.E): 2.0x ideal "
    "(128 sectors, ideal 64)\n",
};

/* Every line of text starting with prefix shorter than max characters. */
static void lines_shorter(const char *text, const char *prefix, size_t max)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (n >= max && !strncmp(p, prefix, strlen(prefix)))
            fail_msg("a line of %zu characters: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* The check names a kernel by its short name, told apart from another
 * instantiation by its template arguments, and a line without
 * line info KERNEL+0xOFF (the name once); the CSVs keep the full names. */
static void test_names_check(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "tpl.csv", "--check", SPEC), L("--templates"), &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 3);
    for (size_t k = 0; k < CLI_COUNT(template_check); k++)
        cli_must_contain("stderr", r.err, template_check[k]);
    cli_must_contain("stderr", r.err, "memprobe: check failed: 3 offenders "
                     "among 5 source lines judged");
    lines_shorter(r.err, "memprobe: check", 200);
    cli_result_free(&r);
    mp_csv_table t;
    read_csv("tpl.csv", &t);
    assert_int_equal(t.nrows, 4);
    expect_cell(&t, 0, "kernel", "void scale<float>(float const*, float*, "
                "int, float)");
    expect_cell(&t, 0, "mangled", "_Z5scaleIfEvPKT_PS0_iS0_");
    expect_cell(&t, 1, "kernel", "void scale<double>(double const*, "
                "double*, int, double)");
    expect_cell(&t, 1, "mangled", "_Z5scaleIdEvPKT_PS0_iS0_");
    assert_int_equal(strlen(cell(&t, 3, "kernel")), 814);
    assert_int_equal(strncmp(cell(&t, 3, "kernel"), TORCH_COPY_HEAD,
                             strlen(TORCH_COPY_HEAD)), 0);
    mp_csv_free(&t);
    read_csv("tpl-lines.csv", &t);
    int row = row_where(&t, "function_offset", "0x13c0", 0);
    assert_int_equal(strlen(cell(&t, row, "kernel")), 814);
    expect_cell(&t, row, "file", "");
    mp_csv_free(&t);

    /* the same from the file, and a launch not judged named likewise */
    const char *from[] = {"profile", "--from", "tpl.csv", "--check", SPEC,
                          NULL};
    cli_run(from, &r);
    cli_expect_status(&r, 1);
    for (size_t k = 0; k < CLI_COUNT(template_check); k++)
        cli_must_contain("stderr", r.err, template_check[k]);
    cli_result_free(&r);
    setenv("MEMPROBE_INJECT_NO_SASS", "elementwise", 1);
    profile(L("-o", "tpl-nosass.csv", "--check", SPEC), L("--templates"),
            &r);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, "memprobe: check: 1 launch NOT "
                     "judged: no line counts (the first: "
                     "at::native::elementwise_kernel, no SASS records");
    cli_result_free(&r);
}

/* --baseline and the report print the same names. */
static void test_names_baseline_report(void **state)
{
    (void)state;
    cli_result r;
    profile_ok(L("-o", "tpl-base.csv"), L("--templates", "--scatter", "1"));
    profile(L("-o", "tpl-new.csv", "--baseline", "tpl-base.csv"),
            L("--templates"), &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: baseline: "), 2);
    cli_must_contain("stderr", r.err, "memprobe: baseline: kernel scale<double> "
                     "global: 1.0x -> 2.5x ideal (320 sectors, ideal 128)\n");
    cli_must_contain("stderr", r.err, "memprobe: baseline: scale<double>+0x90 "
                     "global store (STG.E): 1.0x -> 4.0x ideal (256 sectors, "
                     "ideal 64)\n");
    cli_result_free(&r);
    const char *csv[] = {"report", "tpl-new.csv", "--format", "csv", NULL};
    cli_run_ok(csv, &r);
    cli_must_contain("report --format csv", r.out,
                     "lines,1,+0x90,scale<double>,STG.E,sectors,16,4,192,100%\r\n"
                     "lines,2,+0x13c0,at::native::elementwise_kernel,LDG.E,"
                     "sectors,12,2,160,100%\r\n"
                     "lines,3,scale.cu:7,scale<float>,LDG.E/STG.E,sectors,3,2,64,"
                     "100%\r\n");
    cli_must_contain("report --format csv", r.out,
                     "kernels,scale<float>,2,64,0,0,,192,128,1.5\r\n"
                     "kernels,scale<double>,1,32,0,0,,320,128,2.5\r\n"
                     "kernels,at::native::elementwise_kernel,1,32,0,0,,224,"
                     "64,3.5\r\n");
    cli_result_free(&r);
    const char *txt[] = {"report", "tpl-new.csv", NULL};
    cli_run_ok(txt, &r);
    lines_shorter(r.out, "", 200);
    cli_result_free(&r);
    const char *plot[] = {"report", "tpl-new.csv", "--plot-data", "tpl-pd",
                          NULL};
    cli_run(plot, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    size_t len;
    char *gp = cli_read_file("tpl-pd/profile-excess.gp", &len);
    cli_must_contain("plot script", gp, "index 0 using 1:3 title \"scale<double> "
                     "global\"");
    cli_must_contain("plot script", gp, "index 1 using 1:3 title "
                     "\"at::native::elementwise_kernel global\"");
    free(gp);
    char *dat = cli_read_file("tpl-pd/profile-excess.dat", &len);
    cli_must_contain("plot data", dat, "# kernel 2: scale<float>\n7 0 64\n");
    free(dat);
}

/* ---- filters ----------------------------------------------------------- */

static void test_filters(void **state)
{
    (void)state;
    cli_result r;
    mp_csv_table t;
    /* through the environment: the stand-in matches the mangled name */
    profile(L("-o", "k.csv", "--kernel", "transpose_naive"), NONE, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    read_csv("k.csv", &t);
    assert_int_equal(t.nrows, 2);
    expect_cell(&t, 0, "launch", "0");
    expect_cell(&t, 1, "launch", "2");   /* the gap shows the filter */
    mp_csv_free(&t);
    profile(L("-o", "s.csv", "--launch-skip", "1", "--launch-count", "2"),
            NONE, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    read_csv("s.csv", &t);
    assert_int_equal(t.nrows, 2);
    expect_cell(&t, 0, "launch", "1");
    expect_cell(&t, 1, "launch", "2");
    mp_csv_free(&t);
    /* rechecked at merge, on the mangled or the demangled name */
    profile(L("-o", "m.csv", "--kernel", "^copy"),
            L("--ignore-kernel-filter"), &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    read_csv("m.csv", &t);
    assert_int_equal(t.nrows, 1);
    expect_cell(&t, 0, "kernel", "copy_kernel");
    mp_csv_free(&t);
    read_csv("m-lines.csv", &t);
    assert_int_equal(t.nrows, 2);
    mp_csv_free(&t);
    profile(L("-o", "d.csv", "--kernel", "naive\\(float"),
            L("--ignore-kernel-filter"), &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    read_csv("d.csv", &t);
    assert_int_equal(t.nrows, 2);
    mp_csv_free(&t);
}

/* --per-kernel 1 over 8 launches (naive 4, pad 2, copy 2): one row per
 * kernel, each saying its launches seen and profiled; the cost line of
 * the status said once, its total the library's calls without the
 * source lines (inside attributing). */
static void test_per_kernel(void **state)
{
    (void)state;
    cli_result r;
    mp_csv_table t;
    profile(L("-o", "pk.csv", "--per-kernel", "1"),
            L("--launches", "8", "--cost"), &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "memprobe: --per-kernel 1: 3 of 8 "
                     "launches profiled, the others ran uninstrumented\n");
    cli_must_contain("stderr", r.err, "memprobe: time in the library's "
                     "calls inside the program: 1.500 s (synchronising "
                     "0.250 s before 3 flushes; reading records 0.500 s, 77 "
                     "records; attributing 0.700 s, source lines 0.600 s "
                     "of it for 10 instructions; keeping modules 0.040 s "
                     "for 2; writing files 0.010 s; SASS metrics on 1, off "
                     "0: 0.000 s); inside the 8 launch calls themselves (the "
                     "driver's and CUPTI's work) 0.200 s with SASS metrics "
                     "on, 0.030 s in 5 with them off\n");
    cli_result_free(&r);
    read_csv("pk.csv", &t);
    assert_int_equal(t.nrows, 3);
    static const char *const want[3][3] = {
        {"transpose_naive", "4", "1"}, {"transpose_pad", "2", "1"},
        {"copy_kernel", "2", "1"}};
    for (int k = 0; k < 3; k++) {
        int row = -1;
        for (int j = 0; j < t.nrows && row < 0; j++)
            if (!strncmp(cell(&t, j, "kernel"), want[k][0],
                         strlen(want[k][0])))
                row = j;
        if (row < 0)
            fail_msg("no row of %s", want[k][0]);
        expect_cell(&t, row, "kernel_launches_seen", want[k][1]);
        expect_cell(&t, row, "kernel_launches_profiled", want[k][2]);
        expect_cell(&t, row, "launches", "1");
    }
    mp_csv_free(&t);
    /* without it: every launch profiled, the same columns 4/4, 2/2 */
    profile(L("-o", "all.csv"), L("--launches", "8"), &r);
    cli_expect_status(&r, 0);
    assert_null(strstr(r.err, "--per-kernel"));
    assert_null(strstr(r.err, "time in the library"));   /* no cost line */
    cli_result_free(&r);
    read_csv("all.csv", &t);
    assert_int_equal(t.nrows, 8);
    int naive = row_where(&t, "launch", "6", 0);   /* naive's fourth */
    expect_cell(&t, naive, "kernel_launches_seen", "4");
    expect_cell(&t, naive, "kernel_launches_profiled", "4");
    mp_csv_free(&t);
    /* bad values, before the program starts */
    static const char *const bad[][2] = {{"0", "positive"}, {"-1", "positive"},
                                         {"x", "positive"}, {"", "empty"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        profile(L("-o", "bad.csv", "--per-kernel", bad[i][0]), NONE, &r);
        cli_expect_status(&r, 2);
        cli_must_contain("stderr", r.err, "--per-kernel");
        cli_must_contain("stderr", r.err, bad[i][1]);
        cli_result_free(&r);
    }
}

/* --keep-raw keeps what the library wrote. */
static void test_keep_raw(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "kr.csv", "--keep-raw", "raw"), NONE, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "raw files kept in ");
    cli_result_free(&r);
    assert_true(cli_path_exists("raw/cubin.12345"));
    mp_csv_table t;
    const char *status = NULL;
    char path[64];
    read_csv("kr.csv", &t);
    snprintf(path, sizeof path, "raw/status.%s", cell(&t, 0, "pid"));
    mp_csv_free(&t);
    assert_true(cli_path_exists(path));
    (void)status;
    /* a second run into the same folder is refused before it starts */
    profile(L("-o", "kr.csv", "--keep-raw", "raw"), NONE, &r);
    cli_expect_status(&r, 2);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
}

/* SIGTERM to memprobe reaches the program; the profile is still written. */
static void test_sigterm_forwarded(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)
            || !freopen("term.err", "w", stderr))
            _exit(120);
        execl(cli_exe(), cli_exe(), "profile", "-o", "term.csv", "--", app,
              "--ready", "ready", (char *)NULL);
        _exit(121);
    }
    for (int i = 0; i < 1000 && !cli_path_exists("ready"); i++)
        usleep(10000);
    assert_true(cli_path_exists("ready"));
    assert_int_equal(kill(pid, SIGTERM), 0);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 128 + SIGTERM);
    size_t len;
    char *err = cli_read_file("term.err", &len);
    cli_must_contain("stderr", err, "was killed by signal 15");
    free(err);
    mp_csv_table t;
    read_csv("term.csv", &t);
    assert_int_equal(t.nrows, 4);
    mp_csv_free(&t);
}

/* ---- the report -------------------------------------------------------- */

static void test_report(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "rep.csv"), NONE, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    const char *csv[] = {"report", "rep.csv", "--format", "csv", NULL};
    cli_run_ok(csv, &r);
    /* worst first; shares of the kernel's excess in its class */
    static const char *const rows[] = {
        "lines,1,app.cu:19,transpose_naive,STS,wavefronts,32,1,63488,100%\r\n"
        "lines,2,app.cu:21,transpose_naive,STG.E,sectors,32,4,57344,93.3%\r\n"
        "lines,3,app.cu:19,transpose_naive,LDG.E,sectors,6,4,4096,6.7%\r\n"
        "lines,4,copy.cu:5,copy_kernel,LDG.E/STG.E,sectors,3,2,32,100%\r\n",
        "kernels,transpose_naive,2,12288,67584,4096,16.5,77824,16384,4.75\r\n",
        "kernels,copy_kernel,1,32,0,0,,96,64,1.5\r\n",
        "nvtx,outer/step,1,4096,2048,2048,1,8192,8192,1\r\n",
        "nvtx,(none),3,12320,67584,4096,16.5,77920,16448,4.74\r\n",
    };
    for (size_t k = 0; k < CLI_COUNT(rows); k++)
        cli_must_contain("report --format csv", r.out, rows[k]);
    assert_int_equal(count_lines(r.out, "lines,"), 4);
    cli_result_free(&r);
    const char *txt[] = {"report", "rep.csv", NULL};
    cli_run_ok(txt, &r);
    cli_must_contain("report", r.out, "Worst source lines of rep.csv");
    cli_must_contain("report", r.out, "Per NVTX range");
    cli_must_contain("report", r.out, "4 launches in 4 rows, 11 instruction "
                     "rows; 0 launches without line counts.");
    cli_result_free(&r);
    /* among results (a folder's glob) both profile CSVs are left out,
     * each said, and the results are reported */
    cli_write_file("res.csv", "tool_version,device,probe,config,op\r\n"
                   "1,H200,bank,bank/ld/w4/s1/b0/g1/p32,ld\r\n");
    const char *mixed[] = {"report", "rep.csv", "res.csv", "rep-lines.csv",
                           NULL};
    cli_run(mixed, &r);
    cli_must_contain("stderr", r.err, "memprobe: report: skipping rep.csv: "
                     "a CSV of memprobe profile (report it alone)");
    cli_must_contain("stderr", r.err, "memprobe: report: skipping "
                     "rep-lines.csv: a CSV of memprobe profile");
    assert_true(strstr(r.out, "Worst source lines") == NULL);
    cli_result_free(&r);
    const char *md[] = {"report", "rep.csv", "--format", "md", NULL};
    cli_run_ok(md, &r);
    cli_must_contain("report --format md", r.out, "| 1 | app.cu:19 | "
                     "transpose_naive | STS | wavefronts | 32 | 1 | 63488 | "
                     "100% |");
    cli_result_free(&r);
    /* plot data: the two worst kernels' excess by line */
    const char *plot[] = {"report", "rep.csv", "--plot-data", "pd", NULL};
    cli_run(plot, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stdout", r.out, "wrote the plot data to pd");
    if (cli_have_gnuplot())
        assert_true(cli_path_exists("pd/profile-excess.svg"));
    else
        cli_must_contain("stderr", r.err, "gnuplot not found");
    cli_result_free(&r);
    size_t len;
    char *dat = cli_read_file("pd/profile-excess.dat", &len);
    cli_must_contain("plot data", dat, "# kernel 0: transpose_naive\n"
                     "19 63488 4096\n21 0 57344\n22 0 0\n\n\n"
                     "# kernel 1: copy_kernel\n5 0 32\n");
    free(dat);
}

/* ---- the report of the range pass --------------------------------------- */

#define R_GL_LD_ST(t, r) (atof(cell(t, r, R_GL_LD)) + atof(cell(t, r, R_GL_ST)))

/* The cell `col` of the row starting `row` ("kernels,copy_kernel,sass,")
 * of `memprobe report --format csv` output, by the header of its table
 * (the line "table,KEY,..." before the row): malloc'd. */
static char *report_cell(const char *out, const char *row, const char *col)
{
    const char *r = strstr(out, row);
    if (!r)
        fail_msg("report: no row %s in\n%s", row, out);
    const char *h = r;   /* back to the table's header line */
    while (h > out && strncmp(h, "table,", 6))
        h--;
    int want = -1, k = 0;
    for (const char *p = h; *p != '\r' && *p != '\n'; k++) {
        size_t n = strcspn(p, ",\r\n");
        if (strlen(col) == n && !strncmp(p, col, n))
            want = k;
        p += n + (p[n] == ',');
    }
    if (want < 0)
        fail_msg("report: no column %s", col);
    const char *p = r;
    for (k = 0; k < want; k++)
        p += strcspn(p, ",\r\n") + 1;
    size_t n = strcspn(p, ",\r\n");
    char *v = malloc(n + 1);
    assert_non_null(v);
    memcpy(v, p, n);
    v[n] = '\0';
    return v;
}

static void expect_report_cell(const char *out, const char *row,
                               const char *col, const char *want)
{
    char *got = report_cell(out, row, col);
    if (strcmp(got, want))
        fail_msg("report %s %s: '%s', want '%s'", row, col, got, want);
    free(got);
}

/* The report's numeric cell, within its two decimals of `want`. */
static void expect_report_num(const char *out, const char *row,
                              const char *col, double want)
{
    char *got = report_cell(out, row, col);
    if (!got[0] || fabs(atof(got) - want) > 0.005)
        fail_msg("report %s %s: '%s', want %.4f", row, col, got, want);
    free(got);
}

/* The range values of the profile.csv rows whose kernel (kernel_col
 * "kernel") or NVTX stack ("nvtx") is `key`, summed as the report should:
 * L1 weighted by each row's global sectors, DRAM bytes and launches
 * summed; *plain: the mean of the rows' rates by launches. */
typedef struct {
    double l1, plain, rd, wr, l2;
    long launches;
} range_sums;

static range_sums sums_of(const mp_csv_table *t, const char *col,
                          const char *key)
{
    range_sums s = {0, 0, 0, 0, 0, 0};
    double w = 0, l2_hits = 0, l2_sectors = 0;
    for (int r = 0; r < t->nrows; r++) {
        const char *v = cell(t, r, col);
        if (strcmp(col, "kernel") ? strcmp(v, key)
                                  : strncmp(v, key, strlen(key)))
            continue;
        long n = atol(cell(t, r, "launches"));
        double rate = atof(cell(t, r, R_L1)), g = R_GL_LD_ST(t, r);
        s.l1 += rate * g, w += g;
        s.plain += rate * (double)n;
        s.rd += atof(cell(t, r, R_DRAM));
        s.wr += atof(cell(t, r, "dram__bytes_write.sum"));
        l2_hits += atof(cell(t, r, "lts__t_sectors_lookup_hit.sum"));
        l2_sectors += atof(cell(t, r, "lts__t_sectors.sum"));
        s.launches += n;
    }
    assert_true(w > 0 && s.launches > 0 && l2_sectors > 0);
    s.l1 /= w;
    s.l2 = 100 * l2_hits / l2_sectors;
    s.plain /= (double)s.launches;
    return s;
}

static char *report_of(const char *csv, const char *format)
{
    const char *args[] = {"report", csv, "--format", format, NULL};
    cli_result r;
    cli_run_ok(args, &r);
    free(r.err);
    return r.out;
}

/* A run of two copy_kernel launches whose traffic differs (--run): the
 * run's L1 hit rate is weighted by each launch's global sectors, from
 * fake_app's two range rows; DRAM bytes summed. */
static void test_kernel_plus_run(void **state)
{
    (void)state;
    profile_ok(L("--level", "kernel+", "-o", "run.csv"), L("--run"));
    mp_csv_table t;
    read_csv("run.csv", &t);
    assert_int_equal(t.nrows, 5);
    expect_cell(&t, 4, "launches", "2");
    expect_cell(&t, 4, "range_counters", "range_profiler");
    /* fake_app: the first launch 0 % of 40 + 56 sectors, the second
     * 60 % of 120 + 168 */
    double first = 40 + 56, second = 120 + 168;
    double weighted = (0 * first + 60 * second) / (first + second);
    assert_true(fabs(weighted - (0 + 60) / 2.0) > 1);   /* not the mean */
    char want[40];
    snprintf(want, sizeof want, "%.15g", weighted);
    expect_cell(&t, 4, R_L1, want);
    expect_cell(&t, 4, R_DRAM, "2048");   /* 512 + 1536 */
    expect_cell(&t, 4, R_GL_LD, "160");   /* 40 + 120 */
    /* L2: (24 + 96) hits of (32 + 96) sectors, not the mean of 75 and
     * 100 % */
    expect_cell(&t, 4, "lts__t_sectors_lookup_hit.sum", "120");
    expect_cell(&t, 4, "lts__t_sectors.sum", "128");
    expect_cell(&t, 4, R_L2, "93.75");
    mp_csv_free(&t);
}

/* --level kernel+ with launches without line counts: a third range run
 * (the counts group) for those launches only; they get the hardware
 * counts beside kernel+'s values, the others kernel+'s values only. */
static void test_kernel_plus_fallback(void **state)
{
    (void)state;
    cli_result r;
    setenv("MEMPROBE_INJECT_NO_SASS", "transpose_naive", 1);
    profile(L("--level", "kernel+", "-o", "kpf.csv"), NONE, &r);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "again (range run 3 of 3) with the "
                     "range profiler for 2 launches (without line counts: "
                     "hardware counts, kernel replay)");
    cli_result_free(&r);
    /* --fallback off changes nothing at kernel+: the program runs again
     * anyway, and the counts run with it */
    setenv("MEMPROBE_INJECT_NO_SASS", "transpose_naive", 1);
    profile(L("--level", "kernel+", "-o", "kpf-off.csv", "--fallback",
              "off"), NONE, &r);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    cli_expect_status(&r, 0);
    assert_int_equal(count_lines(r.out, "fake_app: the program's own "
                                 "stdout"), 4);
    cli_must_contain("stderr", r.err, "again (range run 3 of 3) with the "
                     "range profiler for 2 launches (without line counts: "
                     "hardware counts, kernel replay)");
    cli_must_contain("stderr", r.err, "memprobe: 2 of 4 launches without "
                     "line counts (no SASS records: dropped by the test "
                     "hook MEMPROBE_INJECT_NO_SASS)\n");
    cli_result_free(&r);
    for (int f = 0; f < 2; f++) {
        mp_csv_table t;
        read_csv(f ? "kpf-off.csv" : "kpf.csv", &t);
        assert_int_equal(t.nrows, 4);
        for (int i = 0; i < 4; i++) {
            int naive = i == 0 || i == 2;
            expect_cell(&t, i, "range_counters", "range_profiler");
            expect_cell(&t, i, R_L2, i == 1 ? "50" : "75");
            expect_cell(&t, i, R_SH_ST, naive ? "32768" : "");
        }
        mp_csv_free(&t);
    }
}

/* --level kernel+: the per-kernel and per-NVTX tables' L1 hit rate (by
 * global sectors), DRAM bytes and launches measured equal those computed
 * from profile.csv's rows; with the --run rows too; text and Markdown
 * say every launch was measured and what the columns mean. */
static void test_report_range(void **state)
{
    (void)state;
    static const struct {
        const char *file, *arg;
    } runs[] = {{"rk.csv", "--launches"}, {"rr.csv", "--run"}};
    for (size_t f = 0; f < CLI_COUNT(runs); f++) {
        profile_ok(L("--level", "kernel+", "-o", runs[f].file),
                f ? L(runs[f].arg) : L(runs[f].arg, "4"));
        mp_csv_table t;
        read_csv(runs[f].file, &t);
        char *out = report_of(runs[f].file, "csv");
        static const struct {
            const char *col, *key, *row;
        } g[] = {
            {"kernel", "transpose_naive(", "kernels,transpose_naive,sass,"},
            {"kernel", "transpose_pad(", "kernels,transpose_pad,sass,"},
            {"kernel", "copy_kernel", "kernels,copy_kernel,sass,"},
            {"nvtx", "", "nvtx,(none),sass,"},
            {"nvtx", "outer/step", "nvtx,outer/step,sass,"},
        };
        for (size_t k = 0; k < CLI_COUNT(g); k++) {
            range_sums s = sums_of(&t, g[k].col, g[k].key);
            char n[32];
            expect_report_num(out, g[k].row, "L1 hit %", s.l1);
            expect_report_num(out, g[k].row, "L2 hit %", s.l2);
            expect_report_num(out, g[k].row, "DRAM read", s.rd);
            expect_report_num(out, g[k].row, "DRAM written", s.wr);
            snprintf(n, sizeof n, "%ld", s.launches);
            expect_report_cell(out, g[k].row, "range launches", n);
            expect_report_cell(out, g[k].row, "launches", n);
        }
        /* the data tell a weighted mean from a plain one */
        range_sums none = sums_of(&t, "nvtx", "");
        assert_true(fabs(none.l1 - none.plain) > 1);
        if (f) {
            range_sums copy = sums_of(&t, "kernel", "copy_kernel");
            assert_true(fabs(copy.l1 - copy.plain) > 1);
        }
        free(out);
        out = report_of(runs[f].file, "txt");
        cli_must_contain("report", out, "L1 hit %: the launches' rates "
                         "weighted by their global sectors");
        char line[128];
        snprintf(line, sizeof line, "Range profiler: %d of %d launches "
                 "measured.\n", f ? 6 : 4, f ? 6 : 4);
        cli_must_contain("report", out, line);
        free(out);
        out = report_of(runs[f].file, "md");
        cli_must_contain("report md", out, "| kernel | counts | launches |");
        cli_must_contain("report md", out, "| L1 hit % | L2 hit % | DRAM "
                         "read | DRAM written |\n");
        free(out);
        mp_csv_free(&t);
    }
}

/* Launches without line counts stay in the kernel table with their
 * hardware counts (counts "hw", equal to the SASS sums of a plain run),
 * the rest "not wanted" with a reason; a launch the second run did not
 * repeat is counted with its range_why; one with neither line nor range
 * counts is "none". */
static void test_report_range_gaps(void **state)
{
    (void)state;
    profile_ok(L("-o", "rp.csv"), NONE);
    setenv("MEMPROBE_INJECT_NO_SASS", "transpose_naive", 1);
    profile_ok(L("-o", "rf.csv", "--fallback", "rerun"), NONE);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    char *plain = report_of("rp.csv", "csv");
    char *out = report_of("rf.csv", "csv");
    static const char *const cols[] = {"shared wavefronts",
                                       "global sectors", "launches"};
    for (size_t k = 0; k < CLI_COUNT(cols); k++) {
        char *want = report_cell(plain, "kernels,transpose_naive,",
                                 cols[k]);
        expect_report_cell(out, "kernels,transpose_naive,hw,", cols[k],
                           want);
        free(want);
    }
    expect_report_cell(out, "kernels,transpose_naive,hw,", "ideal", "");
    expect_report_cell(out, "kernels,transpose_naive,hw,", "instructions",
                       "");
    /* no --level kernel+: the fallback's counts only, no kernel+ columns */
    assert_null(strstr(out, "range launches"));
    assert_null(strstr(out, "L2 hit %"));
    expect_report_cell(out, "nvtx,(none),hw,", "launches", "2");
    expect_report_cell(out, "nvtx,(none),sass,", "launches", "1");
    free(plain);
    free(out);
    out = report_of("rf.csv", "txt");
    cli_must_contain("report", out, "hw = the range profiler's hardware "
                     "counts of launches without line counts");
    cli_must_contain("report", out, "Range profiler: 2 of 4 launches "
                     "measured; 2 without range values:\n- 2 launches: not "
                     "wanted (line counts exact");
    free(out);

    /* no line counts anywhere, and launch 1 not repeated: "none" */
    profile_ok(L("--level", "kernel+", "-o", "rn.csv"),
            L("--unavailable", "--nondeterministic"));
    mp_csv_table t;
    read_csv("rn.csv", &t);
    out = report_of("rn.csv", "csv");
    expect_report_cell(out, "kernels,transpose_pad,none,", "launches", "1");
    expect_report_cell(out, "kernels,transpose_pad,none,",
                       "shared wavefronts", "");
    expect_report_cell(out, "kernels,transpose_pad,none,", "L1 hit %", "");
    free(out);
    out = report_of("rn.csv", "md");
    char line[1024];
    snprintf(line, sizeof line, "Range profiler: 3 of 4 launches measured; "
             "1 without range values:\n- 1 launch: %s\n",
             cell(&t, 1, "range_why"));
    cli_must_contain("report md", out, line);
    cli_must_contain("report md", out, "none = neither.\n\n");
    free(out);
    mp_csv_free(&t);
}

/* A CSV without range values (plain --level kernel) and one from before
 * the range columns report exactly alike, without any range column or
 * line. */
static void test_report_no_range(void **state)
{
    (void)state;
    profile_ok(L("-o", "nr.csv"), NONE);
    static const char *const formats[] = {"txt", "md", "csv"};
    char *now[3];
    for (int f = 0; f < 3; f++) {
        now[f] = report_of("nr.csv", formats[f]);
        assert_null(strstr(now[f], "range launches"));
        assert_null(strstr(now[f], "counts:"));
        assert_null(strstr(now[f], "L1 hit"));
        assert_null(strstr(now[f], "Range profiler"));
    }
    /* the old file: the columns up to the range columns */
    mp_csv_table t;
    read_csv("nr.csv", &t);
    int keep = mp_csv_column(&t, R_L1);
    assert_true(keep > 0);
    FILE *o = fopen("nr.csv", "w");
    assert_non_null(o);
    for (int c = 0; c < keep; c++)
        fprintf(o, "%s%s", c ? "," : "", t.header[c]);
    fputs("\r\n", o);
    for (int r2 = 0; r2 < t.nrows; r2++) {
        for (int c = 0; c < keep; c++)
            fprintf(o, "%s\"%s\"", c ? "," : "", t.cells[r2][c]);
        fputs("\r\n", o);
    }
    fclose(o);
    mp_csv_free(&t);
    read_csv("nr.csv", &t);
    assert_int_equal(mp_csv_column(&t, R_L1), -1);
    mp_csv_free(&t);
    for (int f = 0; f < 3; f++) {
        char *old = report_of("nr.csv", formats[f]);
        assert_string_equal(old, now[f]);
        free(old);
        free(now[f]);
    }
}

/* ---- library kernels apart (origins) ----------------------------------- */

#define LIB_PATH "/opt/vendor,x/lib/libcublasLt.so.13"
#define TORCH_LIB "/site-packages/torch/lib/libtorch_cuda.so"
#define LIB_TAIL "; 1 line of library kernels not judged (--check-libraries " \
    "judges them)\n"

/* Every row of csv and its -lines.csv has origin `origin` and library
 * 0, except the rows whose kernel starts with `other` (want_other launch
 * rows, two instruction rows each), which have other_origin and
 * other_library. */
static void expect_origins(const char *csv, const char *origin,
                           const char *other, const char *other_origin,
                           const char *other_library, int want_other)
{
    char lines[PATH_MAX];
    mp_prof_lines_path(csv, lines, sizeof lines);
    const char *files[2] = {csv, lines};
    for (int f = 0; f < 2; f++) {
        mp_csv_table t;
        read_csv(files[f], &t);
        int others = 0;
        for (int r = 0; r < t.nrows; r++) {
            int o = other && !strncmp(cell(&t, r, "kernel"), other,
                                      strlen(other));
            others += o;
            expect_cell(&t, r, "origin", o ? other_origin : origin);
            expect_cell(&t, r, "library", o ? other_library : "0");
        }
        /* profile.csv: the kernel's launches; -lines.csv: its rows */
        assert_int_equal(others, f ? 2 * want_other : want_other);
        mp_csv_free(&t);
    }
}

/* The origin and library columns, from the modules file: the program's
 * own path (both CSVs), a vendor library's (a comma in its path), code
 * compiled at run time, a PyTorch library, and no modules file. */
static void test_origins_csv(void **state)
{
    (void)state;
    char exe[PATH_MAX];
    assert_non_null(realpath(app, exe));
    profile_ok(L("-o", "org.csv"), NONE);
    expect_origins("org.csv", exe, NULL, NULL, NULL, 0);
    profile_ok(L("-o", "orglib.csv"), L("--library"));
    expect_origins("orglib.csv", exe, "copy_kernel", LIB_PATH, "1", 1);
    profile_ok(L("-o", "orgjit.csv"), L("--jit"));
    expect_origins("orgjit.csv", "(run-time compiled)", "copy_kernel", exe,
                   "0", 1);
    profile_ok(L("-o", "orgnone.csv"), L("--no-modules"));
    expect_origins("orgnone.csv", "(unknown)", NULL, NULL, NULL, 0);
    profile_ok(L("-o", "orgtorch.csv"), L("--templates", "--library"));
    expect_origins("orgtorch.csv", exe, "void at::native::", TORCH_LIB, "1",
                   1);
}

/* --check judges the program's own kernels: copy_kernel (cuBLAS's here)
 * is counted, not judged, unless --check-libraries; the same from the
 * file. */
static void test_check_libraries(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "cl.csv", "--check", SPEC), L("--library"), &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 3);
    assert_null(strstr(r.err, "copy.cu"));
    cli_must_contain("stderr", r.err, "memprobe: check failed: 3 offenders "
                     "among 4 source lines judged (" SPEC "; lines of at "
                     "least 1 instructions)" LIB_TAIL);
    cli_result_free(&r);
    const char *from[] = {"profile", "--from", "cl.csv", "--check", SPEC,
                          NULL};
    cli_run(from, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 3);
    cli_must_contain("stderr", r.err, "among 4 source lines judged (" SPEC
                     "; lines of at least 1 instructions)" LIB_TAIL);
    cli_result_free(&r);
    profile(L("-o", "cl2.csv", "--check", SPEC, "--check-libraries"),
            L("--library"), &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 4);
    for (size_t k = 0; k < CLI_COUNT(check_lines); k++)
        cli_must_contain("stderr", r.err, check_lines[k]);
    cli_must_contain("stderr", r.err, "memprobe: check failed: 4 offenders "
                     "among 5 source lines judged (" SPEC "; lines of at "
                     "least 1 instructions); 1 of them in library "
                     "kernels\n");
    cli_result_free(&r);
    const char *from_all[] = {"profile", "--from", "cl.csv", "--check", SPEC,
                              "--check-libraries", NULL};
    cli_run(from_all, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 4);
    cli_must_contain("stderr", r.err, check_lines[0]);
    cli_result_free(&r);
    /* loose limits: a pass that says what it left */
    const char *loose[] = {"profile", "--from", "cl.csv", "--check",
                           "shared<=32,global<=8", NULL};
    cli_run(loose, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "memprobe: check passed: 0 offenders "
                     "among 4 source lines judged (shared<=32,global<=8; "
                     "lines of at least 1 instructions)" LIB_TAIL);
    cli_result_free(&r);
}

/* A kernel of CUB's compiled into the program is a library's, and so
 * is each of its lines, the one in the toolkit's intrinsic header
 * (device_atomic_functions.hpp, 3x its ideal) too: --check leaves it
 * unless --check-libraries. */
static void test_check_toolkit_kernel(void **state)
{
    (void)state;
    char root[PATH_MAX + 16];
    assert_non_null(getcwd(root, PATH_MAX));
    strcat(root, "/tk");
    assert_int_equal(mkdir("tk", 0777) && errno != EEXIST, 0);
    assert_int_equal(mkdir("tk/bin", 0777) && errno != EEXIST, 0);
    FILE *nvcc = fopen("tk/bin/nvcc", "w");
    assert_non_null(nvcc);
    fclose(nvcc);
    cli_result r;
    profile(L("-o", "cub.csv", "--check", SPEC), L("--cub", root), &r);
    cli_expect_status(&r, 1);
    assert_null(strstr(r.err, "device_atomic_functions"));
    assert_null(strstr(r.err, "cub::"));
    cli_result_free(&r);
    const char *files[2] = {"cub.csv", "cub-lines.csv"};
    for (int f = 0; f < 2; f++) {
        mp_csv_table t;
        read_csv(files[f], &t);
        int cub = 0;
        for (int row = 0; row < t.nrows; row++) {
            int is_cub = !strncmp(cell(&t, row, "mangled"), "_ZN3cub", 7);
            cub += is_cub;
            expect_cell(&t, row, "library", is_cub ? "1" : "0");
        }
        assert_int_equal(cub, f ? 2 : 1);   /* a launch; its two lines */
        mp_csv_free(&t);
    }
    const char *all[] = {"profile", "--from", "cub.csv", "--check", SPEC,
                         "--check-libraries", NULL};
    cli_run(all, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, "device_atomic_functions.hpp:112 ");
    cli_result_free(&r);
}

/* A --check that judged no line exits 4, never a pass, and one line says
 * why: only library kernels' lines (naming --check-libraries), or none
 * with what the spec and --min-count ask. */
static void test_check_nothing_judged(void **state)
{
    (void)state;
    cli_result r;
    profile(L("-o", "nj.csv", "--kernel", "copy", "--check", SPEC),
            L("--library"), &r);
    cli_expect_status(&r, 4);
    assert_int_equal(count_lines(r.err, "memprobe: check"), 0);
    assert_int_equal(count_lines(r.err, "memprobe: no counts: "), 1);
    cli_must_contain("stderr", r.err, "memprobe: no counts: --check: no "
                     "line of the program's own kernels to judge; 1 line "
                     "of library kernels not judged (--check-libraries "
                     "judges them)\n");
    cli_result_free(&r);
    const char *all[] = {"profile", "--from", "nj.csv", "--check", SPEC,
                         "--check-libraries", NULL};
    cli_run(all, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, "memprobe: check failed: 1 offender "
                     "among 1 source line judged");
    cli_result_free(&r);
    /* own code, but nothing the spec judges: copy_kernel has no shared
     * access */
    profile(L("-o", "nj2.csv", "--kernel", "copy", "--check",
              "shared<=1.0"), NONE, &r);
    cli_expect_status(&r, 4);
    cli_must_contain("stderr", r.err, "memprobe: no counts: --check: no "
                     "source line to judge: no line of at least 1 "
                     "instructions has an ideal count in a class of "
                     "'shared<=1.0' (2 instruction rows)\n");
    assert_null(strstr(r.err, "check passed"));
    cli_result_free(&r);
    /* --min-count above every line */
    const char *high[] = {"profile", "--from", "nj2.csv", "--check", SPEC,
                          "--min-count", "33", NULL};
    cli_run(high, &r);
    cli_expect_status(&r, 4);
    cli_must_contain("stderr", r.err, "no line of at least 33 "
                     "instructions");
    cli_result_free(&r);
}

/* --baseline compares the program's own kernels: every kernel a
 * library's, a grown conflict passes and says how much it left out;
 * --check-libraries compares them. */
static void test_baseline_libraries(void **state)
{
    (void)state;
    cli_result r;
    profile_ok(L("-o", "bl-base.csv"), L("--conflict", "1",
                                         "--all-library"));
    profile(L("-o", "bl-new.csv", "--baseline", "bl-base.csv"),
            L("--all-library"), &r);
    cli_expect_status(&r, 0);
    assert_int_equal(count_lines(r.err, "memprobe: baseline: "), 0);
    cli_must_contain("stderr", r.err, "memprobe: baseline passed: 0 grew of "
                     "0 compared (kernels and source lines against "
                     "bl-base.csv, tolerance 0); 15 comparisons of library "
                     "kernels left out (--check-libraries makes them)\n");
    cli_result_free(&r);
    const char *all[] = {"profile", "--from", "bl-new.csv", "--baseline",
                         "bl-base.csv", "--check-libraries", NULL};
    cli_run(all, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: baseline: "), 2);
    cli_must_contain("stderr", r.err, "memprobe: baseline failed: 2 grew of "
                     "15 compared (kernels and source lines against "
                     "bl-base.csv, tolerance 0); 15 of them in library "
                     "kernels\n");
    cli_result_free(&r);
}

/* --check-libraries: only with --check or --baseline, once, no value. */
static void test_check_libraries_option(void **state)
{
    (void)state;
    cli_result r;
    const char *alone[] = {"profile", "--check-libraries", "--", app, NULL};
    cli_run(alone, &r);
    cli_expect_status(&r, 2);
    assert_string_equal(r.err, "memprobe: --check-libraries: only with "
                        "--check or --baseline\n");
    cli_result_free(&r);
    const char *twice[] = {"profile", "--check", SPEC, "--check-libraries",
                           "--check-libraries", "--", app, NULL};
    cli_run(twice, &r);
    cli_expect_status(&r, 2);
    assert_string_equal(r.err, "memprobe: --check-libraries: given twice\n");
    cli_result_free(&r);
    const char *value[] = {"profile", "--check", SPEC, "--check-libraries=1",
                           "--", app, NULL};
    cli_run(value, &r);
    cli_expect_status(&r, 2);
    assert_string_equal(r.err, "memprobe: --check-libraries: takes no "
                        "value\n");
    assert_string_equal(r.out, "");
    cli_result_free(&r);
}

/* Writes path again with its first `keep` columns only (a CSV of an older
 * memprobe). */
static void keep_columns(const char *path, int keep)
{
    mp_csv_table t;
    read_csv(path, &t);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    for (int c = 0; c < keep; c++)
        fprintf(o, "%s%s", c ? "," : "", t.header[c]);
    fputs("\r\n", o);
    for (int r = 0; r < t.nrows; r++) {
        for (int c = 0; c < keep; c++)
            fprintf(o, "%s\"%s\"", c ? "," : "", t.cells[r][c]);
        fputs("\r\n", o);
    }
    fclose(o);
    mp_csv_free(&t);
}

/* A profile from before the origin columns: still read, its kernels all
 * the program's own (judged, in the own table); -o may replace it. */
static void test_origins_old_csv(void **state)
{
    (void)state;
    profile_ok(L("-o", "old.csv"), L("--library"));
    mp_csv_table t;
    read_csv("old.csv", &t);   /* before the per-kernel counts too */
    int keep = mp_csv_column(&t, "kernel_launches_seen");
    assert_int_equal(keep, t.ncols - 4);
    mp_csv_free(&t);
    keep_columns("old.csv", keep);
    read_csv("old-lines.csv", &t);
    keep = mp_csv_column(&t, "origin");
    assert_int_equal(keep, t.ncols - 2);
    mp_csv_free(&t);
    keep_columns("old-lines.csv", keep);
    cli_result r;
    const char *from[] = {"profile", "--from", "old.csv", "--check", SPEC,
                          NULL};
    cli_run(from, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(count_lines(r.err, "memprobe: check: "), 4);
    cli_must_contain("stderr", r.err, "memprobe: check failed: 4 offenders "
                     "among 5 source lines judged (" SPEC "; lines of at "
                     "least 1 instructions)\n");
    cli_result_free(&r);
    char *out = report_of("old.csv", "csv");
    cli_must_contain("report", out, "kernels,copy_kernel,1,32,");
    assert_null(strstr(out, "library_kernels"));
    free(out);
    profile_ok(L("-o", "old.csv"), NONE);   /* replaced */
    read_csv("old-lines.csv", &t);
    assert_true(mp_csv_column(&t, "library") > 0);
    mp_csv_free(&t);
}

/* The report: library kernels under their own heading after the
 * program's own, with the library's file name; out of the worst lines
 * and the own kernels' table; none without library kernels. */
static void test_report_libraries(void **state)
{
    (void)state;
    profile_ok(L("-o", "rl.csv"), L("--library"));
    char *out = report_of("rl.csv", "csv");
    cli_must_contain("report", out, "table,kernel,library,launches,"
                     "instructions,shared wavefronts,ideal,shared x,global "
                     "sectors,ideal,global x\r\nlibrary_kernels,copy_kernel,"
                     "libcublasLt.so.13,1,32,0,0,,96,64,1.5\r\n");
    assert_null(strstr(out, "kernels,copy_kernel,1"));
    assert_null(strstr(out, "copy.cu"));
    assert_int_equal(count_lines(out, "lines,"), 3);
    cli_must_contain("report", out, "nvtx,(none),3,12320,");
    free(out);
    out = report_of("rl.csv", "txt");
    char *own = strstr(out, "Per kernel (x = measured / ideal)\n");
    char *lib = strstr(out, "\nLibrary kernels (counted, not judged; "
                            "--check-libraries judges them)\nkernel ");
    char *nvtx = strstr(out, "\nPer NVTX range\n");
    assert_non_null(own);
    assert_non_null(lib);
    assert_non_null(nvtx);
    assert_true(own < lib && lib < nvtx);
    cli_must_contain("report", out, "Worst source lines of rl.csv (the "
                     "program's own kernels; excess");
    cli_must_contain("report", lib, "copy_kernel  libcublasLt.so.13 ");
    assert_null(memmem(own, (size_t)(lib - own), "copy_kernel", 11));
    free(out);
    out = report_of("rl.csv", "md");
    cli_must_contain("report md", out, "**Library kernels (counted, not "
                     "judged; --check-libraries judges them)**\n\n| kernel "
                     "| library | launches |");
    free(out);
    profile_ok(L("-o", "rn-own.csv"), NONE);
    out = report_of("rn-own.csv", "txt");
    assert_null(strstr(out, "Library kernels"));
    assert_null(strstr(out, "the program's own kernels"));
    free(out);
}

/* ---- bad input: exit 2 before the program starts ----------------------- */

static const cli_bad_case bad[] = {
    {{"profile", "--nosuch", "--", "true"}, "--nosuch"},
    {{"profile", "--", "/no/such/program"}, "/no/such/program"},
    {{"profile", "--", "no-such-program-xyz"}, "not found in PATH"},
    {{"profile", "--", "/tmp"}, "not a regular file"},
};

/* The bad inputs that need files: a file without the x bit, a CSV of
 * results given as -o (left as it was), a profile CSV misused. */
static const cli_bad_case bad_files[] = {
    {{"profile", "--", "noexec"}, "not found in PATH"},
    {{"profile", "--", "./noexec"}, "./noexec: not executable"},
    {{"profile", "-o", "notprofile.csv", "--", "true"}, "-o: "},
    {{"report", "prof.csv", "--table", "bank"}, "--table"},
    {{"report", "prof.csv", "prof.csv"}, "reported one at a time"},
    {{"report", "prof.csv", "--plot-data", "x", "--format", "md"},
     "--plot-data"},
    {{"profile", "--from", "notprofile.csv", "--check", "shared<=1"},
     "not a profile CSV"},
};

static void test_bad_files(void **state)
{
    (void)state;
    static const char results[] = "tool_version,config\r\nx,y\r\n";
    cli_write_file("noexec", "#!/bin/sh\nexit 0\n");
    cli_write_file("notprofile.csv", results);
    char header[4096] = "";
    for (int i = 0; i < mp_prof_launch_ncols(); i++)
        snprintf(header + strlen(header), sizeof header - strlen(header),
                 "%s%s", i ? "," : "", mp_prof_launch_col(i));
    strcat(header, "\r\n");
    cli_write_file("prof.csv", header);
    for (size_t k = 0; k < CLI_COUNT(bad_files); k++)
        cli_expect_usage_error(bad_files[k].args, bad_files[k].names);
    size_t len;
    char *kept = cli_read_file("notprofile.csv", &len);
    assert_string_equal(kept, results);
    free(kept);
    assert_false(cli_path_exists("notprofile-lines.csv"));
}

/* ---- a run that collects nothing keeps the last profile ---------------- */

static const char *const kept_files[] = {"kept.csv", "kept-lines.csv", NULL};

/* Exit 4 (no status file, an error line, no launch, a program that never
 * used CUDA): kept.csv and kept-lines.csv stay byte for byte what the last
 * run wrote, and one line says so. */
static void test_failed_run_keeps_profile(void **state)
{
    (void)state;
    profile_ok(L("-o", "kept.csv"), NONE);
    static const char *const args[][3] = {
        {"--no-status"}, {"--error", "insufficient privileges"},
        {"--launches", "0"}, {"--no-status", "--crash"}};
    cli_files f;
    cli_result r;
    for (size_t k = 0; k < CLI_COUNT(args); k++) {
        cli_files_read(&f, kept_files);
        profile(L("-o", "kept.csv"), args[k], &r);
        cli_expect_status(&r, 4);
        cli_must_contain("stderr", r.err, "memprobe: left unchanged: "
                         "kept.csv, kept-lines.csv\n");
        assert_null(strstr(r.err, "memprobe: wrote"));
        cli_result_free(&r);
        cli_files_unchanged(&f);
    }
    const char *const programs[] = {"/bin/true", "/bin/false"};
    for (int k = 0; k < 2; k++) {
        cli_files_read(&f, kept_files);
        const char *const argv[] = {"profile", "-o", "kept.csv", "--",
                                    programs[k], NULL};
        cli_run(argv, &r);
        cli_expect_status(&r, 4);
        cli_must_contain("stderr", r.err, "never initialised CUDA");
        cli_result_free(&r);
        cli_files_unchanged(&f);
    }
    /* a run that collects launches replaces both */
    profile_ok(L("-o", "kept.csv"), L("--launches", "2"));
    mp_csv_table t;
    read_csv("kept.csv", &t);
    assert_int_equal(t.nrows, 2);
    mp_csv_free(&t);
}

#define SAME_FILE "memprobe: -o ./base.csv is the baseline base.csv: read " \
                  "before the run, replaced only when the run collects " \
                  "launches\n"

/* --baseline X with -o naming the same file (./X, and the default
 * profile.csv): read before the run and said to be replaced; a run that
 * collects nothing leaves both files; one that collects launches judges
 * against the old counts (--conflict 2, then fake_app's 32: grew), then
 * replaces them (the same run again passes). */
static void test_baseline_is_output(void **state)
{
    (void)state;
    static const char *const base[] = {"base.csv", "base-lines.csv", NULL};
    profile_ok(L("-o", "base.csv"), L("--conflict", "2"));
    cli_files f;
    cli_result r;
    cli_files_read(&f, base);
    profile(L("--baseline", "base.csv", "-o", "./base.csv"),
            L("--no-status"), &r);
    cli_expect_status(&r, 4);
    cli_must_contain("stderr", r.err, SAME_FILE);
    cli_result_free(&r);
    cli_files_unchanged(&f);
    /* the default output, profile.csv, is the baseline */
    static const char *const dflt[] = {"profile.csv", "profile-lines.csv",
                                       NULL};
    profile_ok(NONE, NONE);
    cli_files_read(&f, dflt);
    profile(L("--baseline", "profile.csv"), L("--launches", "0"), &r);
    cli_expect_status(&r, 4);
    cli_must_contain("stderr", r.err, "memprobe: -o profile.csv is the "
                     "baseline profile.csv: read before the run");
    cli_result_free(&r);
    cli_files_unchanged(&f);
    /* launches collected: judged against the old counts, then replaced */
    profile(L("--baseline", "base.csv", "-o", "./base.csv"), NONE, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, SAME_FILE);
    cli_must_contain("stderr", r.err, "memprobe: baseline failed");
    cli_result_free(&r);
    profile(L("--baseline", "base.csv", "-o", "./base.csv"), NONE, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "memprobe: baseline passed");
    cli_result_free(&r);
}

/* No GPU (the fake-device hook off): exit 3 with the probes' reason,
 * before the program runs, and the last profile left as it was. */
static void test_no_gpu(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    profile_ok(L("-o", "kept.csv"), NONE);
    cli_files f;
    cli_files_read(&f, kept_files);
    cli_result r;
    unsetenv("MEMPROBE_FAKE_DEVICE");
    profile(L("-o", "kept.csv"), NONE, &r);
    setenv("MEMPROBE_FAKE_DEVICE", "1", 1);
    cli_expect_status(&r, 3);
    assert_string_equal(r.out, "");
    if (!strstr(r.err, "no NVIDIA driver found")
        && !strstr(r.err, "no GPU visible"))
        fail_msg("stderr names no missing GPU: %s", r.err);
    cli_must_contain("stderr", r.err, "(profile runs ");
    assert_int_equal(count_lines(r.err, ""), 1);
    cli_result_free(&r);
    cli_files_unchanged(&f);
}

/* report --plot-data whose write fails midway (a file-size limit of 512
 * bytes, profile-excess.gp being larger): the last plot files are left
 * byte for byte, and the line says so. */
static void test_plot_data_kept(void **state)
{
    (void)state;
    profile_ok(L("-o", "plot.csv"), NONE);
    const char *const argv[] = {"report", "plot.csv", "--plot-data", "pd",
                                NULL};
    cli_result r;
    cli_run(argv, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    static const char *const files[] = {"pd/profile-excess.dat",
                                        "pd/profile-excess.gp", NULL};
    cli_files f;
    cli_files_read(&f, files);
    assert_true(f.len[1] > 512);
    char cmd[PATH_MAX + 200];
    snprintf(cmd, sizeof cmd, "exec %s report plot.csv --plot-data pd 2>&1",
             cli_exe());
    struct rlimit was, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    small = was;
    small.rlim_cur = 512;
    void (*old)(int) = signal(SIGXFSZ, SIG_IGN);   /* write: EFBIG */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int status;
    char *out = cli_sh_out(cmd, &status, NULL);   /* a pipe: no limit */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, old);
    assert_int_not_equal(status, 0);
    cli_must_contain("stderr", out, "pd/profile-excess.gp: write failed (an "
                     "existing file is left unchanged)");
    free(out);
    cli_files_unchanged(&f);
}

int main(void)
{
    char repo[PATH_MAX], cuda[PATH_MAX + 32];
    if (!getcwd(repo, sizeof repo))
        return 1;
    char build[256];
    cli_build_dir(build, sizeof build);
    snprintf(app, sizeof app, "%s/%s/tests/profile/fake_app", repo, build);
    snprintf(cuda, sizeof cuda, "%s/tests/profile/fakecuda", repo);
    /* any existing file lets the command start without the real library */
    setenv("MEMPROBE_INJECT_LIB", app, 1);
    setenv("CUDA_HOME", cuda, 1);
    /* no GPU here: the fake-device hook lets the stand-in run */
    setenv("MEMPROBE_FAKE_DEVICE", "1", 1);
    unsetenv("MEMPROBE_KERNEL");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_merged_csv),
        cmocka_unit_test(test_no_opcodes),
        cmocka_unit_test(test_opcodes_library),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_crash),
        cmocka_unit_test(test_columns_match_header),
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_baseline),
        cmocka_unit_test(test_names_check),
        cmocka_unit_test(test_names_baseline_report),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_per_kernel),
        cmocka_unit_test(test_keep_raw),
        cmocka_unit_test(test_preload),
        cmocka_unit_test(test_own_cupti_client),
        cmocka_unit_test(test_sigterm_forwarded),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_kernel_plus),
        cmocka_unit_test(test_kernel_plus_unmatched),
        cmocka_unit_test(test_kernel_plus_fork),
        cmocka_unit_test(test_kernel_plus_run),
        cmocka_unit_test(test_report_range),
        cmocka_unit_test(test_report_range_gaps),
        cmocka_unit_test(test_kernel_plus_fallback),
        cmocka_unit_test(test_report_no_range),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_fallback_off),
        cmocka_unit_test(test_fallback_option),
        cmocka_unit_test(test_level_option),
        cmocka_unit_test(test_origins_csv),
        cmocka_unit_test(test_check_libraries),
        cmocka_unit_test(test_check_toolkit_kernel),
        cmocka_unit_test(test_check_nothing_judged),
        cmocka_unit_test(test_baseline_libraries),
        cmocka_unit_test(test_check_libraries_option),
        cmocka_unit_test(test_origins_old_csv),
        cmocka_unit_test(test_report_libraries),
        cmocka_unit_test(test_failed_run_keeps_profile),
        cmocka_unit_test(test_baseline_is_output),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_plot_data_kept),
    };
    return CLI_RUN_BAD("profile", bad, tests);
}
