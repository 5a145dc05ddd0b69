/*
 * test_gpu_profile_real.c - `memprobe profile` on programs of the kinds
 * users run (tests/profile/real/), each against Nsight Compute.
 *
 * For each program, in $GPU_TEST_DIR/profile-real/ (default
 * results/gpu-test), the programs run side by side (SASS counts are the
 * launch's own, whatever else runs):
 *   memprobe profile -o NAME.csv -- PROGRAM
 *   ncu --csv --page raw --print-units base --clock-control none
 *       --print-kernel-base mangled --metrics SASS_METRICS
 *       --log-file NAME-ncu.csv PROGRAM
 * and asserts: the program's own exit status 0 under memprobe, every
 * launch row counted (line_counts exact); the launches
 * paired with ncu's by mangled name and order (a row of `launches` runs
 * takes that many of ncu's), none left on either side, and every pair's
 * instructions, shared wavefronts and global sectors EQUAL; and each
 * kernel's launches, split into loads and stores, add up to their sums
 * and to the sums of its load and store instructions in NAME-lines.csv.
 * And each kernel's origin and library columns (NAME_origin; both CSVs),
 * where the kind of kernel says what they must be: cuBLAS's (a mangled
 * name with "cublas", or sm80_xmma / sm90_xmma) library 1 from
 * libcublas; PyTorch's at::native kernels library 1 from libtorch;
 * cpp_app's own (scale, shifted, apply, transpose_tile) library 0 from
 * the executable cpp_app; Triton's add_kernel, CuPy's RawKernel scale,
 * ElementwiseKernel sq1 and its own cupy_* kernels, and XLA's kernels
 * (fusions, wrapped_*) library 0, "(run-time compiled)". A '#' line lists every kernel with its origin, so that a
 * run shows what the injection library found even where the rule fails.
 *
 * The GPU gate runs the C++ program (build/tests/profile/cpp_app: C++
 * linkage, templates, an anonymous namespace, a lambda, cuBLAS) and
 * torch_small.py (PyTorch's own kernels); MEMPROBE_PROFILE_REAL=all adds
 * PyTorch eager with cuBLAS, PyTorch with torch.profiler on, Triton, JAX
 * (jit, and with jax.profiler), CuPy and Numba (scripts/gpu-check.sh's
 * profilereal step), each first run alone: one that fails alone is
 * skipped; MEMPROBE_PROFILE_REAL=NAME,NAME runs those programs so. A program with its own profiler passes with exit 0 (its
 * profiler worked) or with its refusal said in one line: memprobe's for
 * torch.profiler, XLA's own "CUPTI call error" for jax.profiler (XLA
 * looks CUPTI up by its own handle, past memprobe's client library). A
 * program whose Python package is missing, or all of them without a GPU,
 * ncu or the injection library, is a TAP skip with the reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../mp_skip.h"
#include "gpu_util.h"
#include "subprocess.h"

#define INST "smsp__sass_inst_executed"
#define SH "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define GL "smsp__sass_sectors_mem_global"
#define NCU_METRICS INST ".sum," SH ".sum," GL ".sum"
#define NPROG 9

typedef struct {
    const char *name;
    const char *script;   /* tests/profile/real/NAME.py; NULL: cpp_app */
    const char *module;   /* the Python package it needs */
    int gate;             /* run by the GPU gate */
    int run;              /* chosen for this run (MEMPROBE_PROFILE_REAL) */
    int own_client;       /* runs its own CUPTI client: 1 through the
                             linker (memprobe says it was refused), 2
                             through its own handle (it says so itself) */
    /* filled in */
    char skip[1400];
    int rc_memprobe, rc_ncu;
    mp_csv_table prof, lines, ncu;
    int have;
} program;

#define PROG(n, s, m, g, c)                                               \
    {.name = (n), .script = (s), .module = (m), .gate = (g),              \
     .own_client = (c)}
static program progs[NPROG] = {
    PROG("cpp_app", NULL, NULL, 1, 0),
    PROG("torch_small", "torch_small.py", "torch", 1, 0),
    PROG("torch_eager", "torch_eager.py", "torch", 0, 0),
    PROG("torch_profiler", "torch_profiler.py", "torch", 0, 1),
    PROG("triton_add", "triton_add.py", "triton", 0, 0),
    PROG("jax_jit", "jax_jit.py", "jax", 0, 0),
    PROG("jax_profiler", "jax_profiler.py", "jax", 0, 2),
    PROG("cupy_two", "cupy_two.py", "cupy", 0, 0),
    PROG("numba_k", "numba_k.py", "numba", 0, 0),
};

static char dir[1024], build[960], skip_all[2200];

/* Whether python3 imports module m: asked once per module (an import of
 * torch takes seconds, and several programs need it). */
static int has_module(const char *m)
{
    static struct {
        const char *name;
        int has;
    } seen[NPROG];
    static int nseen;
    for (int k = 0; k < nseen; k++)
        if (!strcmp(seen[k].name, m))
            return seen[k].has;
    char code[128];
    snprintf(code, sizeof code, "import %s", m);
    char *argv[] = {"python3", "-c", code, NULL};
    int has = mp_spawn_wait(argv, "/dev/null") == 0;
    if (nseen < NPROG)
        seen[nseen].name = m, seen[nseen++].has = has;
    return has;
}

static void command(const program *p, char **argv, char *script,
                    size_t len)
{
    if (!p->script) {
        snprintf(script, len, "%s/tests/profile/cpp_app", build);
        argv[0] = script;
        argv[1] = NULL;
        return;
    }
    snprintf(script, len, "tests/profile/real/%s", p->script);
    argv[0] = "python3";
    argv[1] = script;
    argv[2] = NULL;
}

/* Starts argv in a child that waits for it: the child's pid. */
static pid_t start(char **argv, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(mp_spawn_wait(argv, log) & 0xff);
    return pid;
}

static int finish(pid_t pid)
{
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void path(char *out, size_t len, const program *p, const char *tail)
{
    snprintf(out, len, "%s/%s%s", dir, p->name, tail);
}

/* Marks the programs to run: the gate's without MEMPROBE_PROFILE_REAL,
 * every one for "all", else those of a comma-separated list of names.
 * An unknown name: one line, 2. */
static int choose(const char *which)
{
    for (int k = 0; k < NPROG; k++)
        progs[k].run = which ? !strcmp(which, "all") : progs[k].gate;
    if (!which || !strcmp(which, "all"))
        return 0;
    char *copy = strdup(which), *save = NULL;
    int bad = 0;
    for (char *w = strtok_r(copy, ",", &save); w && !bad;
         w = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < NPROG && strcmp(progs[k].name, w))
            k++;
        if (k == NPROG) {
            fprintf(stderr, "test_gpu_profile_real: MEMPROBE_PROFILE_REAL: "
                    "no program '%s'\n", w);
            bad = 1;
        } else {
            progs[k].run = 1;
        }
    }
    free(copy);
    return bad ? 2 : 0;
}

/* Both runs of every program that can run, side by side. */
static void run_all(int all)
{
    pid_t pm[NPROG], pn[NPROG];
    for (int k = 0; k < NPROG; k++) {
        program *p = &progs[k];
        pm[k] = pn[k] = -1;
        if (!p->run)
            continue;   /* not registered either */
        if (p->module && !has_module(p->module))
            snprintf(p->skip, sizeof p->skip, "python3 has no %s",
                     p->module);
        if (p->skip[0])
            continue;
        char script[1200], csv[1200], log[1200], ncsv[1200], nlog[1200];
        char *prog[4];
        command(p, prog, script, sizeof script);
        if (all) {   /* a program broken on this machine is no finding */
            path(log, sizeof log, p, "-alone.log");
            int rc = mp_spawn_wait(prog, log);
            if (rc) {
                snprintf(p->skip, sizeof p->skip, "fails on its own here "
                         "(exit %d; %s)", rc, log);
                continue;
            }
        }
        path(csv, sizeof csv, p, ".csv");
        path(log, sizeof log, p, ".log");
        path(ncsv, sizeof ncsv, p, "-ncu.csv");
        path(nlog, sizeof nlog, p, "-ncu.log");
        char *am[] = {(char *)gpu_memprobe(), "profile", "-o", csv, "--",
                      prog[0], prog[1], NULL};
        char *an[] = {"ncu", "--csv", "--page", "raw", "--print-units",
                      "base", "--clock-control", "none",
                      "--print-kernel-base", "mangled", "--metrics",
                      NCU_METRICS, "--log-file", ncsv, prog[0], prog[1],
                      NULL};
        pm[k] = start(am, log);
        pn[k] = start(an, nlog);
    }
    for (int k = 0; k < NPROG; k++) {
        program *p = &progs[k];
        if (!p->run || p->skip[0])
            continue;
        p->rc_memprobe = finish(pm[k]);
        p->rc_ncu = finish(pn[k]);
        char csv[1200], lines[1200], ncsv[1200], err[512];
        path(csv, sizeof csv, p, ".csv");
        path(lines, sizeof lines, p, "-lines.csv");
        path(ncsv, sizeof ncsv, p, "-ncu.csv");
        int a = mp_csv_table_read(csv, &p->prof, err, sizeof err) == 0;
        int b = a && mp_csv_table_read(lines, &p->lines, err,
                                       sizeof err) == 0;
        int c = b && mp_ncu_read(ncsv, &p->ncu, err, sizeof err) == 0;
        p->have = a + b + c;
        printf("# %s: memprobe exit %d, ncu exit %d%s%s\n", p->name,
               p->rc_memprobe, p->rc_ncu, c ? "" : ": ", c ? "" : err);
    }
}

static program *prog_of(void **state)
{
    program *p = *state;
    if (skip_all[0])
        MP_SKIP("%s", skip_all);
    if (p->skip[0])
        MP_SKIP("%s", p->skip);
    if (p->have < 3)
        fail_msg("%s: a CSV could not be read (memprobe exit %d, ncu exit "
                 "%d; logs in %s)", p->name, p->rc_memprobe, p->rc_ncu,
                 dir);
    return p;
}

/* The program ran as it does alone, every launch counted. */
static void test_counted(void **state)
{
    program *p = prog_of(state);
    if (p->own_client && p->rc_memprobe != 0) {
        /* its profiler failed beside memprobe: said in one line, by
         * memprobe or (own handle) by the program */
        const char *says = p->own_client == 1
                           ? "memprobe: the program's own CUPTI client "
                             "was refused"
                           : "CUPTI call error";
        char log[1200];
        path(log, sizeof log, p, ".log");
        FILE *f = fopen(log, "r");
        char line[2048];
        int said = 0;
        while (f && fgets(line, sizeof line, f))
            said += strstr(line, says) != NULL;
        if (f)
            fclose(f);
        printf("# %s: exit %d beside memprobe, %d line(s) '%s'\n",
               p->name, p->rc_memprobe, said, says);
        if (p->own_client == 1)
            assert_int_equal(said, 1);
        else
            assert_true(said >= 1);
    } else {
        assert_int_equal(p->rc_memprobe, 0);
    }
    assert_true(p->prof.nrows > 0);
    int exact = 0;
    for (int r = 0; r < p->prof.nrows; r++)
        exact += !strcmp(gpu_cell(&p->prof, r, "line_counts"), "exact");
    printf("# %s: %d launch rows, %d counted exactly\n", p->name,
           p->prof.nrows, exact);
    assert_int_equal(exact, p->prof.nrows);
}

/* Launches paired by mangled name and order: every pair equal. */
static void test_equal_ncu(void **state)
{
    program *p = prog_of(state);
    const mp_csv_table *m = &p->prof, *n = &p->ncu;
    int kcol = mp_csv_column(n, "Kernel Name");
    assert_true(kcol >= 0);
    char *used = calloc((size_t)n->nrows + 1, 1);
    const char *cols[3][2] = {{INST, INST ".sum"}, {SH, SH ".sum"},
                              {GL, GL ".sum"}};
    int pairs = 0, differ = 0, unpaired = 0, next = 0;
    for (int r = 0; r < m->nrows; r++) {
        const char *k = gpu_cell(m, r, "mangled");
        int want = (int)gpu_number(m, r, "launches"), got = 0;
        double sum[3] = {0, 0, 0};
        for (int q = next; q < n->nrows && got < want; q++) {
            if (used[q] || strcmp(n->cells[q][kcol], k))
                continue;
            used[q] = 1;
            got++;
            for (int c = 0; c < 3; c++)
                sum[c] += gpu_number(n, q, cols[c][1]);
        }
        while (next < n->nrows && used[next])
            next++;
        if (got != want) {
            printf("# %s: %s launch %s: %d of its %d launches in ncu's "
                   "report\n", p->name, k, gpu_cell(m, r, "launch"), got,
                   want);
            unpaired++;
            continue;
        }
        pairs++;
        for (int c = 0; c < 3; c++)
            if (gpu_number(m, r, cols[c][0]) != sum[c]) {
                printf("# %s: %s launch %s: %s %.0f, ncu %.0f\n", p->name,
                       k, gpu_cell(m, r, "launch"), cols[c][0],
                       gpu_number(m, r, cols[c][0]), sum[c]);
                differ++;
            }
    }
    for (int q = 0; q < n->nrows; q++)
        if (!used[q]) {
            printf("# %s: ncu's launch %d (%s) not in memprobe's profile\n",
                   p->name, q, n->cells[q][kcol]);
            unpaired++;
        }
    free(used);
    printf("# %s: %d launch rows paired with ncu's by mangled name, %d "
           "values different, %d launches unpaired\n", p->name, pairs,
           differ, unpaired);
    assert_true(pairs > 0);
    assert_int_equal(unpaired, 0);
    assert_int_equal(differ, 0);
}

/* A kernel's loads and stores: the split of its launch rows (rows[0..n))
 * summed, against its instructions' in the lines file (summed over the
 * same launches). Prints both; the number of values that differ. */
static int split_matches(const program *p, const int *rows, int n)
{
    static const char *const space[2] = {SH, GL};
    const char *kernel = gpu_cell(&p->prof, rows[0], "mangled");
    int bad = 0;
    for (int s = 0; s < 2; s++) {
        char ld[160], st[160];
        snprintf(ld, sizeof ld, "%s_op_ld", space[s]);
        snprintf(st, sizeof st, "%s_op_st", space[s]);
        double l = 0, w = 0, all = 0, want[2] = {0, 0};
        for (int j = 0; j < n; j++) {
            l += gpu_number(&p->prof, rows[j], ld);
            w += gpu_number(&p->prof, rows[j], st);
            all += gpu_number(&p->prof, rows[j], space[s]);
        }
        for (int q = 0; q < p->lines.nrows; q++)
            if (!strcmp(gpu_cell(&p->lines, q, "mangled"), kernel))
                want[gpu_number(&p->lines, q, INST "_op_ld") == 0] +=
                    gpu_number(&p->lines, q, space[s]);
        printf("# %s: %s (%d rows) %s loads %.0f (lines %.0f), stores %.0f "
               "(lines %.0f)\n", p->name,
               gpu_cell(&p->prof, rows[0], "kernel"), n,
               s ? "global" : "shared", l, want[0], w, want[1]);
        bad += l + w != all || l != want[0] || w != want[1];
    }
    return bad;
}

/* ---- origins ------------------------------------------------------------ */

/* What a kernel's origin must be. */
typedef enum { EXP_NONE, EXP_CUBLAS, EXP_TORCH, EXP_EXE, EXP_RUNTIME } expect;

static expect expected_origin(const program *p, const char *mangled,
                              const char *kernel)
{
    if (strstr(mangled, "cublas") || !strncmp(mangled, "sm80_xmma", 9)
        || !strncmp(mangled, "sm90_xmma", 9))
        return EXP_CUBLAS;
    if (strstr(kernel, "at::native::"))
        return EXP_TORCH;
    if (!p->script) {   /* cpp_app's own kernels, by their mangled names */
        static const char *const own[] = {"5scale", "7shifted", "5apply",
                                          "14transpose_tile"};
        for (size_t k = 0; k < sizeof own / sizeof *own; k++)
            if (strstr(mangled, own[k]))
                return EXP_EXE;
        return EXP_NONE;
    }
    /* compiled while the program runs: Triton's kernel, CuPy's (NVRTC:
     * the RawKernel, the ElementwiseKernel, its own cupy_*), XLA's */
    if ((!strcmp(p->name, "triton_add") && !strcmp(mangled, "add_kernel"))
        || (!strcmp(p->name, "cupy_two")
            && (!strcmp(mangled, "scale") || !strcmp(mangled, "sq1")
                || !strncmp(mangled, "cupy_", 5)))
        || (!strncmp(p->name, "jax_", 4)
            && (strstr(mangled, "fusion") || !strncmp(mangled, "wrapped_",
                                                      8))))
        return EXP_RUNTIME;
    return EXP_NONE;
}

/* Whether origin and library are what e asks. */
static int origin_ok(expect e, const char *origin, const char *library)
{
    size_t n = strlen(origin);
    switch (e) {
    case EXP_CUBLAS:
        return !strcmp(library, "1") && strstr(origin, "libcublas");
    case EXP_TORCH:
        return !strcmp(library, "1") && strstr(origin, "libtorch");
    case EXP_EXE:
        return !strcmp(library, "0") && n >= 7
               && !strcmp(origin + n - 7, "cpp_app");
    case EXP_RUNTIME:
        return !strcmp(library, "0")
               && !strcmp(origin, "(run-time compiled)");
    default:
        return 1;
    }
}

/* The rows of t with an expected origin: *checked of them, the number
 * that are not as expected; each kernel (first row of its mangled name;
 * all: every kernel, else only rows not as expected) appended to found
 * as "KERNEL -> ORIGIN [library L]". */
static int check_origins(const program *p, const mp_csv_table *t, int all,
                         int *checked, char *found, size_t len)
{
    int wrong = 0;
    for (int r = 0; r < t->nrows; r++) {
        const char *m = gpu_cell(t, r, "mangled");
        const char *k = gpu_cell(t, r, "kernel");
        const char *o = gpu_cell(t, r, "origin");
        const char *lib = gpu_cell(t, r, "library");
        expect e = expected_origin(p, m, k);
        int ok = origin_ok(e, o, lib);
        *checked += e != EXP_NONE;
        wrong += !ok;
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(gpu_cell(t, q, "mangled"), m) != 0;
        size_t used = strlen(found);
        if (((first && all) || !ok) && used + 1 < len)
            snprintf(found + used, len - used, "%s%.60s -> %s [library %s]%s",
                     used ? "; " : "", k[0] ? k : m, o, lib,
                     ok ? "" : " WRONG");
    }
    return wrong;
}

/* Each kernel's origin and library (launch rows and instruction rows)
 * as its kind says (expected_origin); one '#' line lists them all. */
static void test_origin(void **state)
{
    program *p = prog_of(state);
    int checked = 0, wrong;
    char *found = calloc(1, 16384);
    wrong = check_origins(p, &p->prof, 1, &checked, found, 16384);
    printf("# %s: origins: %s\n", p->name, found);
    found[0] = '\0';
    int lines = 0;
    wrong += check_origins(p, &p->lines, 0, &lines, found, 16384);
    printf("# %s: %d launch rows and %d instruction rows with an expected "
           "origin, %d not as expected%s%s\n", p->name, checked, lines,
           wrong, found[0] ? "; instruction rows: " : "", found);
    free(found);
    if (!checked && !strcmp(p->name, "numba_k"))
        MP_SKIP("no origin is expected of Numba's kernels");
    assert_true(checked > 0);
    assert_int_equal(wrong, 0);
}

/* Every kernel whose launch rows all have a split (a row without one says
 * its instructions did not add up to its sums): their loads and stores
 * against the lines file's. */
static void test_split(void **state)
{
    program *p = prog_of(state);
    int checked = 0, bad = 0, both = 0;
    int *rows = calloc((size_t)p->prof.nrows + 1, sizeof *rows);
    for (int r = 0; r < p->prof.nrows; r++) {
        const char *k = gpu_cell(&p->prof, r, "mangled");
        int n = 0, first = 1, split = 1;
        for (int q = 0; q < p->prof.nrows; q++) {
            if (strcmp(gpu_cell(&p->prof, q, "mangled"), k))
                continue;
            first &= q >= r;   /* the kernel's first row is r */
            split &= gpu_cell(&p->prof, q, SH "_op_ld")[0] != '\0';
            rows[n++] = q;
        }
        if (!first || !split)
            continue;
        checked++;
        bad += split_matches(p, rows, n);
        both += gpu_number(&p->prof, r, SH "_op_ld") > 0
                && gpu_number(&p->prof, r, GL "_op_ld") > 0;
    }
    free(rows);
    printf("# %s: %d kernels' launches split into loads and stores, %d "
           "values off their instructions\n", p->name, checked, bad);
    assert_true(checked > 0);
    assert_int_equal(bad, 0);
    if (!strcmp(p->name, "cpp_app"))
        assert_true(both > 0);   /* transpose_tile loads in both spaces */
}

int main(void)
{
    const char *all = getenv("MEMPROBE_PROFILE_REAL");
    snprintf(build, sizeof build, "%s", gpu_build_dir());
    gpu_test_subdir("profile-real", dir, sizeof dir);
    if (choose(all))
        return 2;
    char need[2048];
    snprintf(need, sizeof need, "%s/lib/libmemprobe_inject.so", build);
    char *which[] = {"ncu", "--version", NULL};
    if (access("/dev/nvidiactl", F_OK))
        snprintf(skip_all, sizeof skip_all, "no NVIDIA GPU here "
                 "(/dev/nvidiactl missing)");
    else if (access(need, R_OK))
        snprintf(skip_all, sizeof skip_all, "no injection library %s", need);
    else if (mp_spawn_wait(which, "/dev/null") != 0)
        snprintf(skip_all, sizeof skip_all, "ncu not found");
    if (!skip_all[0]) {
        gpu_make_test_dirs(dir);
        run_all(all != NULL);
    }
    struct CMUnitTest tests[4 * NPROG];
    char names[4 * NPROG][64];
    int n = 0;
    for (int k = 0; k < NPROG; k++) {
        if (!progs[k].run)
            continue;
        static const struct {
            const char *what;
            CMUnitTestFunction f;
        } kinds[4] = {{"counted", test_counted},
                      {"equal_ncu", test_equal_ncu},
                      {"split", test_split},
                      {"origin", test_origin}};
        for (int j = 0; j < 4; j++, n++) {
            snprintf(names[n], sizeof names[n], "%s_%s", progs[k].name,
                     kinds[j].what);
            tests[n] = (struct CMUnitTest){names[n], kinds[j].f, NULL, NULL,
                                           &progs[k]};
        }
    }
    int rc = _cmocka_run_group_tests("gpu_profile_real", tests, (size_t)n,
                                     NULL, NULL);
    for (int k = 0; k < NPROG; k++)
        if (progs[k].have) {
            mp_csv_free(&progs[k].prof);
            if (progs[k].have > 1)
                mp_csv_free(&progs[k].lines);
            if (progs[k].have > 2)
                mp_csv_free(&progs[k].ncu);
        }
    return rc;
}
