/*
 * cli_util.h - the harness shared by the CPU tests that run the built
 * memprobe binary (tests/test_cli*.c): spawn it without a shell and capture
 * exit status, stdout and stderr; the assertions those tests share (the
 * exit-2 usage-error contract, the no-GPU contract, one-row `predict
 * --format csv` output); and a group runner that turns tables of good and
 * bad command lines into one cmocka test per line and runs everything in a
 * fresh temporary working directory.
 *
 * The binary is $MEMPROBE, default ./memprobe, resolved when the group
 * starts. Every helper that checks something fails the current cmocka test
 * (fail_msg / assert_*) instead of returning an error.
 */
#ifndef MP_CLI_UTIL_H
#define MP_CLI_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mp_skip.h"

#include "report.h"

#define CLI_MAXARGS 24   /* arguments of one table line, the NULL included */
#define CLI_MAXOUT 4     /* strings a good line's stdout must contain */
#define CLI_MAXCOLS 64   /* columns of a `predict --format csv` line */

/* ---- running the binary ----------------------------------------------- */

typedef struct {
    int status;          /* exit status, or 128 + signal */
    char *out, *err;     /* NUL-terminated */
    size_t outlen, errlen;
} cli_result;

/* Runs `memprobe args...` (args NULL-terminated, without the program
 * name) with stdin from /dev/null, stdout and stderr captured in r.
 * Returns r->status. Free r with cli_result_free. */
int cli_run(const char *const *args, cli_result *r);
void cli_result_free(cli_result *r);
/* cli_run with stdout opened (for writing, not created) on path, such as
 * /dev/full, instead of captured: r->out stays empty. */
int cli_run_stdout_to(const char *path, const char *const *args,
                      cli_result *r);

/* Fills v[] with probe p's defaults, then sets the parameters named in
 * the NULL-terminated list of (const char *name, long long value) pairs;
 * fails the test on an unknown name. */
struct mp_probe;
void cli_param_values(const struct mp_probe *p, long long *v, ...);

/* The binary's absolute path (valid once the group has started). */
const char *cli_exe(void);

/* The build directory of $MEMPROBE (build, or build/san under SANITIZE=1)
 * into out. */
void cli_build_dir(char *out, size_t size);

/* The repository root (where the group started: make test runs there)
 * + "/" + rel, in one of 8 rotating buffers (valid once the group has
 * started). */
const char *cli_in_repo(const char *rel);

/* The whole file at path, NUL-terminated (malloc'd); *len its size. */
char *cli_read_file(const char *path, size_t *len);
/* The files of paths (NULL-terminated, at most 8), read now; and
 * whether each still holds exactly those bytes: a run that must leave
 * existing files as they were. */
typedef struct {
    int n;
    const char *path[8];
    char *bytes[8];
    size_t len[8];
} cli_files;
void cli_files_read(cli_files *f, const char *const *paths);
/* Fails naming the first file that changed; frees f. */
void cli_files_unchanged(cli_files *f);
/* The same from an open descriptor: a file from its start, a pipe (popen's
 * fileno) to its end. */
char *cli_read_fd(int fd, size_t *len);
/* Runs `sh -c cmd` (popen) with stdin and stderr as the test's own and
 * returns its whole stdout (malloc'd, NUL-terminated; its size in *len
 * where len is not NULL); *status gets its exit status, 128 + the signal
 * when one killed it. */
char *cli_sh_out(const char *cmd, int *status, size_t *len);

/* Writes text to path, replacing it; fails the test unless the file
 * opens, takes the text and closes. */
void cli_write_file(const char *path, const char *text);

/* Removes path and everything under it (a test's temporary folder). */
void cli_remove_tree(const char *path);

/* The tree walker of the tests that read the sources: visit(path, name,
 * is_dir, ctx) for every entry of dir except ".", ".." and symbolic links
 * (path is "DIR/NAME"); a directory is walked into when visit returns
 * nonzero for it. -1 when dir cannot be opened, else 0. */
typedef int (*cli_visit_fn)(const char *path, const char *name, int is_dir,
                            void *ctx);
int cli_walk(const char *dir, cli_visit_fn visit, void *ctx);

/* ---- small checks ---------------------------------------------------- */

int cli_count_char(const char *s, char c);
int cli_path_exists(const char *path);
/* Fails "WHAT lacks 'NEEDLE'" unless needle occurs in hay. */
void cli_must_contain(const char *what, const char *hay, const char *needle);
/* Fails "exit N, want WANT; stderr: ..." unless r->status == want. */
void cli_expect_status(const cli_result *r, int want);
/* cli_run, then cli_expect_status(r, 0): a run that must succeed. */
void cli_run_ok(const char *const *args, cli_result *r);

/* cli_run_ok(args), then stdout has exactly `lines` newlines (lines < 0:
 * any number) and contains each of the strings after it (NULL ends); the
 * result is freed. */
void cli_run_expect(const char *const *args, int lines, ...);

/* Bad input: `memprobe args` exits 2 with nothing on stdout and exactly
 * one stderr line "memprobe: ..." that contains `names`; results/ is not
 * created. */
void cli_expect_usage_error(const char *const *args, const char *names);

/* 1 where an NVIDIA device node exists: there a measuring command would
 * measure instead of taking the no-GPU path. */
int cli_gpu_present(void);

/* Skips the current test, with the reason, where cli_gpu_present(). */
void cli_skip_if_gpu(void);

/* No GPU: skipped where cli_gpu_present(), else `memprobe args` exits 3, prints the prediction (stdout contains
 * `needle`) and one stderr line that names the GPU and says "nothing
 * measured". With predict_args, stdout is exactly what `memprobe
 * predict_args` prints (which must exit 0). */
void cli_expect_no_gpu(const char *const *args, const char *needle,
                       const char *const *predict_args);
/* cli_expect_no_gpu, then: nothing written, neither the CSV args name
 * after "-o" (where they have one) nor the default folder results/. */
void cli_expect_no_gpu_nothing_written(const char *const *args,
                                       const char *needle,
                                       const char *const *predict_args);

/* ---- predict --format csv -------------------------------------------- */

/* Splits a CSV line without quotes (predict prints none) in place into at
 * most max cells; returns how many. */
int cli_split(char *line, char **cells, int max);
/* Index of `name` among names[0..n); fails the test if absent. */
int cli_column(char *const *names, int n, const char *name);
/* The cell as a number; fails the test unless it is all number. */
double cli_number(const char *cell);

/* A CSV text of a header and nrows rows (a `--format csv` output), read
 * line by line with strtok: cli_csv_header(text, nrows, h, max) fails the
 * test unless the text has 1 + nrows lines, splits its header into h and
 * returns the count of cells; then each cli_csv_next(v, max, n) splits the
 * next row into v, failing the test when there is none or it has not n
 * cells. */
int cli_csv_header(char *text, int nrows, char **h, int max);
void cli_csv_next(char **v, int max, int n);

/* The parsed output of a `predict ... --format csv` with one row. */
typedef struct {
    cli_result r;
    char *h[CLI_MAXCOLS], *v[CLI_MAXCOLS];   /* header and row cells */
    int n;                                   /* cells of each */
} cli_csv_row;

/* Runs args, which must exit 0 with no stderr and print exactly a header
 * starting "probe" and one row of `probe`, each ending in CRLF, with the
 * same number of cells; parses them into c. Free with
 * cli_result_free(&c->r). */
void cli_predict_row(const char *const *args, const char *probe,
                     cli_csv_row *c);
/* The row's cell / number in column `name` (failing if absent). */
const char *cli_csv_text(const cli_csv_row *c, const char *name);
double cli_csv_number(const cli_csv_row *c, const char *name);

/* ---- tables of command lines and the group ---------------------------- */

/* Works: exit 0, no stderr, stdout contains each of out (NULL ends). */
typedef struct {
    const char *args[CLI_MAXARGS];   /* NULL-terminated */
    const char *out[CLI_MAXOUT];
} cli_ok_case;

/* Bad input: cli_expect_usage_error(args, names). */
typedef struct {
    const char *args[CLI_MAXARGS];   /* NULL-terminated */
    const char *names;
} cli_bad_case;

/* Runs the cmocka group `group`: one test per ok case (named "ok: ARGS"),
 * one per bad case ("bad input: ARGS", an empty argument shown as ''),
 * then the extra tests, in that order. The group starts in a fresh
 * directory /tmp/memprobe-GROUP-XXXXXX, removed with all in it at the
 * end. Returns the number of failed tests, as _cmocka_run_group_tests. */
int cli_run_group(const char *group, const cli_ok_case *ok, size_t nok,
                  const cli_bad_case *bad, size_t nbad,
                  const struct CMUnitTest *extra, size_t nextra);

/* The elements of array a (not a pointer). */
#define CLI_COUNT(a) (sizeof (a) / sizeof (a)[0])
/* cli_run_group with its arrays counted: only extra tests; bad cases and
 * extra tests; ok cases, bad cases and extra tests. */
#define CLI_RUN_TESTS(group, extra) \
    cli_run_group(group, NULL, 0, NULL, 0, extra, CLI_COUNT(extra))
#define CLI_RUN_BAD(group, bad, extra) \
    cli_run_group(group, NULL, 0, bad, CLI_COUNT(bad), extra, \
                  CLI_COUNT(extra))
#define CLI_RUN_ALL(group, ok, bad, extra) \
    cli_run_group(group, ok, CLI_COUNT(ok), bad, CLI_COUNT(bad), extra, \
                  CLI_COUNT(extra))

/* A report table printed in format f into a string (free it). */
char *cli_table_text(const mp_rep_table *t, mp_rep_format f);

/* 1 when `gnuplot --version` runs (plot scripts can be drawn). */
int cli_have_gnuplot(void);

#endif
