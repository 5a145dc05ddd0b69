/*
 * cli_util.c - the harness shared by the CPU tests that run the built
 * memprobe binary (see cli_util.h): spawning and capturing, the shared
 * assertions, and the group runner with its temporary working directory.
 */
#include "cli_util.h"
#include "probe.h"
#include "subprocess.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAXARGV 64   /* arguments of one run, the program name excluded */

static char exe[PATH_MAX];       /* absolute path of the binary */
static char workdir[PATH_MAX];   /* temporary cwd of every run */
static char origdir[PATH_MAX];

/* ---- running the binary ----------------------------------------------- */

/* Reads fd from its start to its end. */
void cli_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s", path);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

char *cli_read_fd(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    /* A file from its start; a pipe as it comes. */
    off_t at = lseek(fd, 0, SEEK_SET);
    assert_true(at == 0 || (at < 0 && errno == ESPIPE));
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n - 1);
        assert_true(r >= 0);
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap - 1) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *cli_sh_out(const char *cmd, int *status, size_t *len)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n;
    char *out = cli_read_fd(fileno(p), &n);
    int st = pclose(p);
    assert_true(st != -1);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (len)
        *len = n;
    return out;
}

static int tmp_fd(void)
{
    char name[] = "/tmp/memprobe-cli-XXXXXX";
    int fd = mkstemp(name);
    assert_true(fd >= 0);
    unlink(name);
    return fd;
}

/* stdout and stderr go to unlinked temporary files that are read back;
 * with out_path, stdout goes to that file instead (r->out stays ""). */
static int run_binary(const char *const *args, const char *out_path,
                      cli_result *r)
{
    char *argv[MAXARGV + 2];
    int n = 0;
    argv[n++] = exe;
    for (int i = 0; args[i]; i++) {
        assert_true(n < MAXARGV + 1);
        argv[n++] = (char *)args[i];
    }
    argv[n] = NULL;

    int out = tmp_fd(), err = tmp_fd();
    posix_spawn_file_actions_t fa;
    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
                                                      O_RDONLY, 0), 0);
    if (out_path)
        assert_int_equal(posix_spawn_file_actions_addopen(&fa, 1, out_path,
                                                          O_WRONLY, 0), 0);
    else
        assert_int_equal(posix_spawn_file_actions_adddup2(&fa, out, 1), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, err, 2), 0);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        fail_msg("cannot run %s: %s", exe, strerror(rc));
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r->out = cli_read_fd(out, &r->outlen);
    r->err = cli_read_fd(err, &r->errlen);
    close(out);
    close(err);
    return r->status;
}

int cli_run(const char *const *args, cli_result *r)
{
    return run_binary(args, NULL, r);
}

int cli_run_stdout_to(const char *path, const char *const *args,
                      cli_result *r)
{
    return run_binary(args, path, r);
}

void cli_param_values(const mp_probe *p, long long *v, ...)
{
    for (int i = 0; i < p->nparams; i++)
        v[i] = p->params[i].def;
    va_list ap;
    va_start(ap, v);
    for (const char *name; (name = va_arg(ap, const char *)) != NULL;) {
        long long value = va_arg(ap, long long);
        int k = mp_param_find(p->params, p->nparams, name);
        assert_true(k >= 0);
        v[k] = value;
    }
    va_end(ap);
}

const char *cli_exe(void)
{
    return exe;
}

const char *cli_in_repo(const char *rel)
{
    static char buf[8][PATH_MAX + 64];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", origdir, rel);
    return b;
}

void cli_result_free(cli_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

char *cli_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    char *s = cli_read_fd(fd, len);
    close(fd);
    return s;
}

void cli_files_read(cli_files *f, const char *const *paths)
{
    f->n = 0;
    for (; paths[f->n]; f->n++) {
        assert_true(f->n < 8);
        f->path[f->n] = paths[f->n];
        f->bytes[f->n] = cli_read_file(paths[f->n], &f->len[f->n]);
    }
}

void cli_files_unchanged(cli_files *f)
{
    for (int k = 0; k < f->n; k++) {
        if (!cli_path_exists(f->path[k]))
            fail_msg("%s was removed", f->path[k]);
        size_t len;
        char *now = cli_read_file(f->path[k], &len);
        int same = len == f->len[k] && !memcmp(now, f->bytes[k], len);
        free(now);
        if (!same)
            fail_msg("%s changed (%zu bytes, was %zu)", f->path[k], len,
                     f->len[k]);
    }
    for (int k = 0; k < f->n; k++)
        free(f->bytes[k]);
    f->n = 0;
}

/* ---- small checks ---------------------------------------------------- */

int cli_count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

int cli_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void cli_must_contain(const char *what, const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("%s lacks '%s':\n%s", what, needle, hay);
}

void cli_expect_status(const cli_result *r, int want)
{
    if (r->status != want)
        fail_msg("exit %d, want %d; stderr:\n%s", r->status, want, r->err);
}

void cli_run_ok(const char *const *args, cli_result *r)
{
    cli_run(args, r);
    cli_expect_status(r, 0);
}

void cli_run_expect(const char *const *args, int lines, ...)
{
    cli_result r;
    cli_run_ok(args, &r);
    if (lines >= 0)
        assert_int_equal(cli_count_char(r.out, '\n'), lines);
    va_list ap;
    va_start(ap, lines);
    for (const char *s; (s = va_arg(ap, const char *));)
        cli_must_contain("stdout", r.out, s);
    va_end(ap);
    cli_result_free(&r);
}

void cli_expect_usage_error(const char *const *args, const char *names)
{
    cli_result r;
    cli_run(args, &r);
    if (r.status != 2)
        fail_msg("exit %d, want 2; stdout:\n%s\nstderr:\n%s", r.status,
                 r.out, r.err);
    if (cli_count_char(r.err, '\n') != 1 || r.err[r.errlen - 1] != '\n')
        fail_msg("stderr is not exactly one line:\n%s", r.err);
    cli_must_contain("stderr", r.err, "memprobe: ");
    cli_must_contain("stderr", r.err, names);
    if (r.outlen)
        fail_msg("unexpected stdout:\n%s", r.out);
    /* Bad input never gets as far as the default output. */
    assert_false(cli_path_exists("results"));
    cli_result_free(&r);
}

int cli_gpu_present(void)
{
    return access("/dev/nvidiactl", F_OK) == 0
           || access("/dev/nvidia0", F_OK) == 0;
}

void cli_skip_if_gpu(void)
{
    if (cli_gpu_present())
        MP_SKIP("a GPU is present: this test checks the no-GPU path");
}

void cli_expect_no_gpu(const char *const *args, const char *needle,
                       const char *const *predict_args)
{
    /* There `args` would measure. */
    cli_skip_if_gpu();
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 3);
    cli_must_contain("stdout", r.out, needle);
    if (predict_args) {
        /* The prediction printed is exactly what `predict` prints. */
        cli_result p;
        cli_run(predict_args, &p);
        assert_int_equal(p.status, 0);
        assert_string_equal(r.out, p.out);
        cli_result_free(&p);
    }
    cli_must_contain("stderr", r.err, "GPU");
    cli_must_contain("stderr", r.err, "nothing measured");
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_result_free(&r);
}

void cli_expect_no_gpu_nothing_written(const char *const *args,
                                       const char *needle,
                                       const char *const *predict_args)
{
    cli_expect_no_gpu(args, needle, predict_args);
    for (int i = 0; args[i]; i++)
        if (!strcmp(args[i], "-o") && args[i + 1]
            && cli_path_exists(args[i + 1]))
            fail_msg("no GPU, yet %s was written", args[i + 1]);
    assert_false(cli_path_exists("results"));
}

/* ---- predict --format csv -------------------------------------------- */

int cli_split(char *line, char **cells, int max)
{
    int n = 0;
    for (char *p = line;; ) {
        assert_true(n < max);
        cells[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

int cli_csv_header(char *text, int nrows, char **h, int max)
{
    assert_int_equal(cli_count_char(text, '\n'), 1 + nrows);
    char *line = strtok(text, "\r\n");
    assert_non_null(line);
    return cli_split(line, h, max);
}

void cli_csv_next(char **v, int max, int n)
{
    char *line = strtok(NULL, "\r\n");
    assert_non_null(line);
    assert_int_equal(cli_split(line, v, max), n);
}

int cli_column(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return i;
    fail_msg("no column '%s' in the header", name);
    return -1;
}

double cli_number(const char *cell)
{
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || *end)
        fail_msg("'%s' is not a number", cell);
    return v;
}

void cli_predict_row(const char *const *args, const char *probe,
                     cli_csv_row *c)
{
    cli_run(args, &c->r);
    if (c->r.status != 0)
        fail_msg("exit %d: %s", c->r.status, c->r.err);
    assert_int_equal(c->r.errlen, 0);
    /* Exactly a header and one row, each ending with CRLF. */
    assert_int_equal(cli_count_char(c->r.out, '\n'), 2);
    assert_int_equal(cli_count_char(c->r.out, '\r'), 2);
    assert_true(c->r.outlen >= 2
                && !strcmp(c->r.out + c->r.outlen - 2, "\r\n"));
    char *header = c->r.out;
    char *crlf = strstr(header, "\r\n");
    *crlf = '\0';
    char *row = crlf + 2;
    row[strlen(row) - 2] = '\0';
    c->n = cli_split(header, c->h, CLI_MAXCOLS);
    assert_int_equal(cli_split(row, c->v, CLI_MAXCOLS), c->n);
    assert_string_equal(c->h[0], "probe");
    assert_string_equal(c->v[0], probe);
}

const char *cli_csv_text(const cli_csv_row *c, const char *name)
{
    return c->v[cli_column(c->h, c->n, name)];
}

double cli_csv_number(const cli_csv_row *c, const char *name)
{
    return cli_number(cli_csv_text(c, name));
}

/* ---- tables of command lines and the group ---------------------------- */

static void test_ok(void **state)
{
    const cli_ok_case *c = *state;
    cli_result r;
    cli_run(c->args, &r);
    cli_expect_status(&r, 0);
    for (int i = 0; i < CLI_MAXOUT && c->out[i]; i++)
        cli_must_contain("stdout", r.out, c->out[i]);
    if (r.errlen)
        fail_msg("unexpected stderr:\n%s", r.err);
    cli_result_free(&r);
}

static void test_bad(void **state)
{
    const cli_bad_case *c = *state;
    cli_expect_usage_error(c->args, c->names);
}

/* "PREFIX bank --stride ''" from a NULL-terminated argument list. */
static char *name_of(const char *prefix, const char *const *args)
{
    size_t len = strlen(prefix) + 1;
    for (int i = 0; args[i]; i++)
        len += strlen(args[i]) + 3;
    char *s = malloc(len);
    if (!s)
        return NULL;
    strcpy(s, prefix);
    for (int i = 0; args[i]; i++) {
        strcat(s, " ");
        strcat(s, args[i][0] ? args[i] : "''");
    }
    return s;
}

/* The build directory of $MEMPROBE, where the test programs and objects
 * of this build are: the binary's folder (build/san for
 * ./build/san/memprobe under SANITIZE=1), or build for the top-level
 * ./memprobe. */
void cli_build_dir(char *out, size_t size)
{
    const char *m = getenv("MEMPROBE");
    if (m && !strncmp(m, "./", 2))
        m += 2;
    const char *slash = m ? strrchr(m, '/') : NULL;
    if (slash)
        snprintf(out, size, "%.*s", (int)(slash - m), m);
    else
        snprintf(out, size, "build");
}

/* The group's name for its working directory. */
static const char *group_name;

static int group_setup(void **state)
{
    (void)state;
    const char *m = getenv("MEMPROBE");
    if (!m || !*m)
        m = "./memprobe";
    if (!realpath(m, exe)) {
        fprintf(stderr, "memprobe binary %s: not found\n", m);
        return -1;
    }
    if (!getcwd(origdir, sizeof origdir))
        return -1;
    snprintf(workdir, sizeof workdir, "/tmp/memprobe-%s-XXXXXX", group_name);
    if (!mkdtemp(workdir)) {
        workdir[0] = '\0';
        return -1;
    }
    return chdir(workdir) ? -1 : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

int cli_walk(const char *dir, cli_visit_fn visit, void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) || S_ISLNK(st.st_mode))
            continue;
        int is_dir = S_ISDIR(st.st_mode);
        if (!is_dir && !S_ISREG(st.st_mode))
            continue;
        if (visit(path, e->d_name, is_dir, ctx) && is_dir)
            cli_walk(path, visit, ctx);
    }
    closedir(d);
    return 0;
}

void cli_remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Back to the first directory; the working directory goes with whatever
 * the tests left in it. */
static int group_teardown(void **state)
{
    (void)state;
    if (chdir(origdir))
        return -1;
    if (workdir[0])
        cli_remove_tree(workdir);
    return 0;
}

int cli_run_group(const char *group, const cli_ok_case *ok, size_t nok,
                  const cli_bad_case *bad, size_t nbad,
                  const struct CMUnitTest *extra, size_t nextra)
{
    size_t ntests = nok + nbad + nextra;
    struct CMUnitTest *tests = calloc(ntests + 1, sizeof *tests);
    char **names = calloc(nok + nbad + 1, sizeof *names);
    if (!tests || !names)
        return 1;
    size_t n = 0;
    for (size_t i = 0; i < nok; i++, n++) {
        names[n] = name_of("ok:", ok[i].args);
        tests[n] = (struct CMUnitTest){names[n], test_ok, NULL, NULL,
                                       (void *)&ok[i]};
    }
    for (size_t i = 0; i < nbad; i++, n++) {
        names[n] = name_of("bad input:", bad[i].args);
        tests[n] = (struct CMUnitTest){names[n], test_bad, NULL, NULL,
                                       (void *)&bad[i]};
    }
    size_t named = n;
    for (size_t i = 0; i < named; i++)
        if (!names[i])
            return 1;
    for (size_t i = 0; i < nextra; i++)
        tests[n++] = extra[i];
    group_name = group;
    int failed = _cmocka_run_group_tests(group, tests, n, group_setup,
                                         group_teardown);
    for (size_t i = 0; i < named; i++)
        free(names[i]);
    free(names);
    free(tests);
    return failed;
}

int cli_have_gnuplot(void)
{
    char *const argv[] = {"gnuplot", "--version", NULL};
    return mp_spawn_wait(argv, "/dev/null") == 0;
}

char *cli_table_text(const mp_rep_table *t, mp_rep_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    mp_rep_table_print(t, f, 0, m);
    assert_int_equal(fclose(m), 0);
    return buf;
}

/* The families' registry hands the engine its probes and the report its
 * parts (probes/family.h); memprobe's main() does it first, and so does
 * every program linked with this harness, before its tests run. */
#include "family.h"
__attribute__((constructor)) static void register_families(void)
{
    mp_families_register();
}
