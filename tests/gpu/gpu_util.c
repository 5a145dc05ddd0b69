/*
 * gpu_util.c - helpers shared by the GPU tests (see gpu_util.h): sweeps,
 * cell and row lookups, the per-row test group and "# " tables.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpu_util.h"
#include "metrics.h"
#include "subprocess.h"

const char *gpu_memprobe(void)
{
    const char *m = getenv("MEMPROBE");
    return m ? m : "./memprobe";
}

const char *gpu_test_dir(void)
{
    const char *d = getenv("GPU_TEST_DIR");
    return d ? d : "results/gpu-test";
}

void gpu_test_subdir(const char *name, char *dir, size_t len)
{
    snprintf(dir, len, "%s/%s", gpu_test_dir(), name);
}

void gpu_make_test_dirs(const char *dir)
{
    mkdir("results", 0777);
    mkdir(gpu_test_dir(), 0777);
    mkdir(dir, 0777);
}

const char *gpu_build_dir(void)
{
    static char build[960];
    snprintf(build, sizeof build, "%s", gpu_memprobe());
    char *slash = strrchr(build, '/');
    if (!slash || !strcmp(build, "./memprobe"))
        snprintf(build, sizeof build, "build");
    else
        *slash = '\0';
    return build;
}

int gpu_run_sweep(const char *probe, const char *name, const char *args,
                  mp_csv_table *t)
{
    char path[1024], log[1024], err[512];
    mkdir("results", 0777);
    mkdir(gpu_test_dir(), 0777);
    snprintf(path, sizeof path, "%s/%s.csv", gpu_test_dir(), name);
    snprintf(log, sizeof log, "%s/%s.log", gpu_test_dir(), name);
    remove(path);
    char *argv[96];
    int n = 0;
    argv[n++] = (char *)gpu_memprobe();
    argv[n++] = (char *)probe;
    char *words = strdup(args);
    for (char *w = strtok(words, " "); w && n < 88; w = strtok(NULL, " "))
        argv[n++] = w;
    argv[n++] = "--counters";
    argv[n++] = "on";
    argv[n++] = "-o";
    argv[n++] = path;
    argv[n] = NULL;
    int rc = mp_spawn_wait(argv, log);
    free(words);
    printf("# %s: memprobe %s %s -> exit %d (%s)\n", name, probe, args, rc,
           path);
    if (mp_csv_table_read(path, t, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return rc;
}

void gpu_run_sweeps(const char *probe, const gpu_sweep *defs, int n,
                    mp_csv_table *tables, int *rc)
{
    for (int s = 0; s < n; s++) {
        int r = gpu_run_sweep(probe, defs[s].name, defs[s].args, &tables[s]);
        if (rc)
            rc[s] = r;
    }
}

int gpu_read_csv(const char *dir, const char *name, mp_csv_table *t)
{
    char path[2048], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mp_csv_table_read(path, t, err, sizeof err)) {
        printf("# %s\n", err);
        return 0;
    }
    return 1;
}

const char *gpu_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

const char *gpu_cell(const mp_csv_table *t, int row, const char *col)
{
    int c = mp_csv_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    return t->cells[row][c];
}

double gpu_number(const mp_csv_table *t, int row, const char *col)
{
    double x = 0;
    int c = mp_csv_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    if (mp_csv_number(t, row, c, &x))
        fail_msg("row %d column %s: '%s' is not a number", row, col,
                 t->cells[row][c]);
    return x;
}

void gpu_assert_one_shared_inst(const mp_csv_table *t, int row)
{
    char inst[96];
    snprintf(inst, sizeof inst, "smsp__sass_inst_executed_op_shared_%s.sum",
             gpu_cell(t, row, "op"));
    assert_true(gpu_number(t, row, inst) == gpu_number(t, row, "requests"));
}

int gpu_find_row(const mp_csv_table *t, const char *config)
{
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(gpu_cell(t, i, "config"), config))
            return i;
    fail_msg("no row %s", config);
    return -1;
}

/* ---- one test per row ------------------------------------------------- */

/* A row test's state. */
typedef struct {
    const mp_csv_table *t;
    int row;
    gpu_row_check check;
} row_ref;

static void row_test(void **state)
{
    const row_ref *r = *state;
    assert_string_equal(gpu_cell(r->t, r->row, "verified"), "yes");
    /* "ok", or "ok; unavailable on CHIP: ..." on a chip lacking some */
    const char *status = gpu_cell(r->t, r->row, "counters_status");
    if (!mp_counters_status_ok(status))
        fail_msg("counters_status '%s'", status);
    r->check(r->t, r->row);
}

int gpu_run_row_tests(const char *group, mp_csv_table *tables, int ntables,
                      gpu_row_check check,
                      const struct CMUnitTest *before, int nbefore,
                      const struct CMUnitTest *after, int nafter)
{
    int rows = 0;
    for (int s = 0; s < ntables; s++)
        rows += tables[s].nrows;
    struct CMUnitTest *tests =
        calloc((size_t)(nbefore + rows + nafter) + 1, sizeof *tests);
    row_ref *refs = calloc((size_t)rows + 1, sizeof *refs);
    if (!tests || !refs) {
        free(tests);
        free(refs);
        return 1;
    }
    int k = 0, r = 0;
    for (int i = 0; i < nbefore; i++)
        tests[k++] = before[i];
    for (int s = 0; s < ntables; s++) {
        int c = mp_csv_column(&tables[s], "config");
        for (int i = 0; i < tables[s].nrows; i++, k++, r++) {
            refs[r] = (row_ref){&tables[s], i, check};
            tests[k].name = c >= 0 ? tables[s].cells[i][c] : "?";
            tests[k].test_func = row_test;
            tests[k].initial_state = &refs[r];
        }
    }
    for (int i = 0; i < nafter; i++)
        tests[k++] = after[i];
    int failed = _cmocka_run_group_tests(group, tests, (size_t)k, NULL, NULL);
    for (int s = 0; s < ntables; s++)
        mp_csv_free(&tables[s]);
    free(tests);
    free(refs);
    return failed;
}

/* ---- tables of "# " lines --------------------------------------------- */

/* A column's conversion "%[-]W[.P]C": width (negative: left-justified),
 * precision (-1: none) and C, one of s, f, g, e. */
typedef struct {
    int width, prec;
    char conv;
} conversion;

static conversion parse_fmt(const char *fmt)
{
    conversion v = {0, -1, 0};
    const char *p = fmt + (fmt[0] == '%');
    int left = *p == '-';
    char *end;
    v.width = (int)strtol(p + left, &end, 10);
    if (left)
        v.width = -v.width;
    if (*end == '.')
        v.prec = (int)strtol(end + 1, &end, 10);
    v.conv = *end;
    if (!strchr("sfge", v.conv) || !v.conv || end[1])
        fail_msg("table column format '%s': want %%[-]W[.P]s|f|g|e", fmt);
    return v;
}

void gpu_print_header(const gpu_col *cols)
{
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "#");
    for (const gpu_col *c = cols; c->title && n < sizeof line; c++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %*s",
                              parse_fmt(c->fmt).width, c->title);
    printf("%s\n", line);
}

static double col_value(const gpu_col *c, const mp_csv_table *t, int row)
{
    double x;
    if (c->value)
        x = c->value(t, row);
    else if ((c->flags & GPU_COL_OPTIONAL)
             && (mp_csv_column(t, c->column) < 0
                 || !gpu_cell(t, row, c->column)[0]))
        return NAN;
    else
        x = gpu_number(t, row, c->column);
    if (c->flags & GPU_COL_PER_REQUEST)
        x /= gpu_number(t, row, "requests");
    return c->scale ? x * c->scale : x;
}

void gpu_print_row(const gpu_col *cols, const mp_csv_table *t, int row)
{
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "#");
    for (const gpu_col *c = cols; c->title && n < sizeof line; c++) {
        conversion v = parse_fmt(c->fmt);
        size_t left = sizeof line - n;
        if (v.conv == 's') {
            const char *text = gpu_cell(t, row, c->column);
            n += (size_t)snprintf(line + n, left, " %*s", v.width,
                                  text[0] ? text : "-");
        } else {
            double x = col_value(c, t, row);
            n += (size_t)(v.conv == 'f'
                              ? snprintf(line + n, left, " %*.*f", v.width,
                                         v.prec, x)
                          : v.conv == 'g'
                              ? snprintf(line + n, left, " %*.*g", v.width,
                                         v.prec, x)
                              : snprintf(line + n, left, " %*.*e", v.width,
                                         v.prec, x));
        }
    }
    printf("%s\n", line);
}

void gpu_print_table(const gpu_col *cols, const mp_csv_table *t)
{
    gpu_print_header(cols);
    for (int i = 0; i < t->nrows; i++)
        gpu_print_row(cols, t, i);
}

/* The families' registry hands the engine its probes and the report its
 * parts (probes/family.h); memprobe's main() does it first, and so does
 * every program linked with this harness, before its tests run. */
#include "family.h"
__attribute__((constructor)) static void register_families(void)
{
    mp_families_register();
}

/* ---- explain on a program --------------------------------------------- */

void gpu_explain_program(gpu_explain_run *r, const char *subdir,
                         const char *prog, const char *name,
                         const char *const *args)
{
    memset(r, 0, sizeof *r);
    r->rc = -1;
    gpu_test_subdir(subdir, r->dir, sizeof r->dir);
    snprintf(r->prog, sizeof r->prog, "%s/tests/profile/%s",
             gpu_build_dir(), prog);
    char lib[1100];
    snprintf(lib, sizeof lib, "%s/lib/libmemprobe_capture.so",
             gpu_build_dir());
    if (access("/dev/nvidiactl", F_OK)) {
        snprintf(r->skip_why, sizeof r->skip_why, "no NVIDIA GPU here "
                 "(/dev/nvidiactl missing)");
        return;
    }
    if (access(r->prog, X_OK)) {
        snprintf(r->skip_why, sizeof r->skip_why, "%s not built (make "
                 "real-cpp)", r->prog);
        return;
    }
    if (access(lib, R_OK)) {
        snprintf(r->skip_why, sizeof r->skip_why, "no capture library %s "
                 "(make capture: it needs the toolkit's compute-sanitizer)",
                 lib);
        return;
    }
    gpu_make_test_dirs(r->dir);
    char out[1200], log[1200], csv[256], lines[300];
    snprintf(out, sizeof out, "%s/%s.csv", r->dir, name);
    snprintf(log, sizeof log, "%s/%s.log", r->dir, name);
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)gpu_memprobe();
    argv[n++] = "explain";
    for (int i = 0; args && args[i] && n < 18; i++)
        argv[n++] = (char *)args[i];
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n++] = "--";
    argv[n++] = r->prog;
    argv[n] = NULL;
    r->rc = mp_spawn_wait_timeout(argv, log, 120);
    printf("# memprobe explain ... -o %s -- %s -> exit %d (log %s)\n", out,
           r->prog, r->rc, log);
    snprintf(csv, sizeof csv, "%s.csv", name);
    snprintf(lines, sizeof lines, "%s-profile-lines.csv", name);
    r->have_xp = gpu_read_csv(r->dir, csv, &r->xp);
    r->have_plines = gpu_read_csv(r->dir, lines, &r->plines);
}

void gpu_explain_free(gpu_explain_run *r)
{
    if (r->have_xp)
        mp_csv_free(&r->xp);
    if (r->have_plines)
        mp_csv_free(&r->plines);
    r->have_xp = r->have_plines = 0;
}

int gpu_explain_row(const gpu_explain_run *r, const char *k)
{
    for (int i = 0; r->have_xp && i < r->xp.nrows; i++)
        if (!strncmp(gpu_cell(&r->xp, i, "kernel"), k, strlen(k)))
            return i;
    return -1;
}

void gpu_explain_assert_ran(const gpu_explain_run *r)
{
    assert_int_equal(r->rc, 0);
    assert_true(r->have_xp);
    assert_true(r->have_plines);
}

void gpu_explain_assert_equal(const gpu_explain_run *r, int i)
{
    assert_string_equal(gpu_cell(&r->xp, i, "explained"), "yes");
    assert_string_equal(gpu_cell(&r->xp, i, "equal"), "yes");
    assert_true(gpu_number(&r->xp, i, "model")
                == gpu_number(&r->xp, i, "measured"));
    assert_true(gpu_number(&r->xp, i, "measured")
                > gpu_number(&r->xp, i, "measured_ideal"));
}
