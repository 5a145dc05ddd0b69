/*
 * gpu_util.h - helpers shared by the GPU tests (tests/gpu/test_gpu_*.c):
 * run memprobe sweeps and read their CSVs back, look up cells and rows,
 * run one cmocka test per CSV row (plus a file's own tests), and print
 * tables of the evidence as "# " lines.
 */
#ifndef MP_GPU_UTIL_H
#define MP_GPU_UTIL_H

#include <stddef.h>

#include "csv_table.h"

struct CMUnitTest;

/* $MEMPROBE or ./memprobe; $GPU_TEST_DIR or results/gpu-test. */
const char *gpu_memprobe(void);
const char *gpu_test_dir(void);
/* A test's own folder, gpu_test_dir()/NAME, into dir. */
void gpu_test_subdir(const char *name, char *dir, size_t len);
/* Makes results/, gpu_test_dir() and dir (a gpu_test_subdir), as far
 * as they are missing. */
void gpu_make_test_dirs(const char *dir);
/* The build folder: the folder of $MEMPROBE, or build for ./memprobe. */
const char *gpu_build_dir(void);

/* ---- sweeps ----------------------------------------------------------- */

/* Runs `memprobe PROBE ARGS --counters on -o DIR/NAME.csv` (log in
 * DIR/NAME.log), prints a "# ..." line, reads the CSV into t. Exits 1 if
 * the CSV cannot be read. Returns memprobe's exit status. */
int gpu_run_sweep(const char *probe, const char *name, const char *args,
                  mp_csv_table *t);

/* One sweep of a probe: the CSV's name and memprobe's arguments. */
typedef struct {
    const char *name, *args;
} gpu_sweep;

/* gpu_run_sweep(probe, defs[s].name, defs[s].args, &tables[s]) for each
 * of the n sweeps, in order; their exit statuses go to rc[s] unless rc is
 * NULL. */
void gpu_run_sweeps(const char *probe, const gpu_sweep *defs, int n,
                    mp_csv_table *tables, int *rc);

/* ---- explain on a program --------------------------------------------- */

/* A memprobe explain run of a program: its files in dir, NAME.csv (the
 * explanation) and NAME-profile-lines.csv (the measured counts) read
 * back; why a test skips, when it must ("" when it runs). */
typedef struct {
    char dir[1024], prog[1024], skip_why[1200];
    int rc;
    mp_csv_table xp, plines;
    int have_xp, have_plines;
} gpu_explain_run;

/* Skips (skip_why) without a GPU, the program BUILD/tests/profile/PROG
 * or the capture library; else runs `memprobe explain ARGS -o
 * DIR/NAME.csv -- PROG` (ARGS: words, NULL-ended) with DIR its
 * gpu_test_subdir(subdir), and reads both CSVs. */
void gpu_explain_program(gpu_explain_run *r, const char *subdir,
                         const char *prog, const char *name,
                         const char *const *args);
void gpu_explain_free(gpu_explain_run *r);

/* explain.csv's first row whose kernel starts with k, or -1. */
int gpu_explain_row(const gpu_explain_run *r, const char *k);

/* In a test of run r: skips with r's reason when it must (mp_skip.h's
 * MP_SKIP, which the test includes). */
#define GPU_EXPLAIN_NEED_RUN(r)                                           \
    do {                                                                  \
        if ((r)->skip_why[0])                                             \
            MP_SKIP("%s", (r)->skip_why);                                 \
    } while (0)

/* Asserts that run r exited 0 and wrote both CSVs. */
void gpu_explain_assert_ran(const gpu_explain_run *r);

/* Asserts that explain.csv's row i is explained, its model equal to the
 * measured count, which is above its ideal. */
void gpu_explain_assert_equal(const gpu_explain_run *r, int i);

/* ---- files ----------------------------------------------------------- */

/* Reads DIR/NAME into t: 1, or 0 after a "# why" line. */
int gpu_read_csv(const char *dir, const char *name, mp_csv_table *t);

/* The file name of path, after its last '/'. */
const char *gpu_base_name(const char *path);

/* ---- cells and rows --------------------------------------------------- */

/* Cell text / number of column `col` in `row`; a missing column or a
 * non-number fails the current cmocka test. */
const char *gpu_cell(const mp_csv_table *t, int row, const char *col);
double gpu_number(const mp_csv_table *t, int row, const char *col);

/* The row whose "config" is `config`; fails the current test if none. */
int gpu_find_row(const mp_csv_table *t, const char *config);

/* One shared-memory instruction (LDS or STS, by the row's "op") per
 * warp-level request: the probe does what it claims. Fails the current
 * test otherwise. */
void gpu_assert_one_shared_inst(const mp_csv_table *t, int row);

/* ---- one test per row ------------------------------------------------- */

/* The checks of one configuration: row `row` of `t`. */
typedef void (*gpu_row_check)(const mp_csv_table *t, int row);

/* Runs the cmocka group `group`: the `before` tests, then one test per
 * row of tables[0..ntables), in order, named by the row's "config" cell
 * ("?" if the table has none), then the `after` tests. A row's test
 * asserts verified = yes and counters_status = ok, then calls check.
 * Frees the tables afterwards. Returns the number of failed tests (1 if
 * memory runs out before they run). */
int gpu_run_row_tests(const char *group, mp_csv_table *tables, int ntables,
                      gpu_row_check check,
                      const struct CMUnitTest *before, int nbefore,
                      const struct CMUnitTest *after, int nafter);

/* A cmocka test with its own name (cmocka_unit_test names it after the
 * function): GPU_TEST("ncu_check", test_ncu_check). */
#define GPU_TEST(name, func) {(name), (func), NULL, NULL, NULL}

/* ---- tables of "# " lines --------------------------------------------- */

/* Column flags: divided by the row's "requests"; NAN where the table
 * lacks the column or the cell is empty (otherwise that fails the test). */
enum { GPU_COL_PER_REQUEST = 1, GPU_COL_OPTIONAL = 2 };

/* One column of a printed table. fmt is one printf conversion with its
 * width ("%-30s", "%9.3f"): an "s" conversion prints the cell's text ("-"
 * if empty), any other (f, g, e) the cell's number, or value(t, row)
 * where value is set, times scale unless scale is 0. The header prints
 * title in the same width. An array of columns ends with GPU_COL_END.
 * Write them with the macros below. */
typedef struct {
    const char *title;
    const char *fmt;
    const char *column;
    unsigned flags;
    double scale;
    double (*value)(const mp_csv_table *t, int row);
} gpu_col;

#define GPU_COL(title, fmt, column) {(title), (fmt), (column), 0, 0, NULL}
#define GPU_COL_FLAGS(title, fmt, column, flags) \
    {(title), (fmt), (column), (flags), 0, NULL}
#define GPU_COL_SCALED(title, fmt, column, scale) \
    {(title), (fmt), (column), 0, (scale), NULL}
#define GPU_COL_VALUE(title, fmt, value) {(title), (fmt), NULL, 0, 0, (value)}
#define GPU_COL_END {NULL, NULL, NULL, 0, 0, NULL}

/* "# " and the titles; "# " and row `row`'s values; the header and then
 * every row of t. A line prints only once all its values are read, so a
 * missing column fails the test without a partial line. */
void gpu_print_header(const gpu_col *cols);
void gpu_print_row(const gpu_col *cols, const mp_csv_table *t, int row);
void gpu_print_table(const gpu_col *cols, const mp_csv_table *t);

#endif
