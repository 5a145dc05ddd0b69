/*
 * explain_program.c - `memprobe explain -- PROGRAM` (explain_run.h): the
 * program run twice, first under the profile engine with --per-kernel 1
 * for the measured counts of the first launch of each kernel, grid and
 * block (profile/profile.c; skipped with --from), then with the capture
 * library preloaded for the lane addresses of the offenders'
 * instructions in the same launches. What can refuse (the program, -o's
 * files, the capture library, the GPU) is looked at before either run,
 * and nothing is written before those pass.
 */
#include "explain_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "explain_analyse.h"
#include "profile.h"
#include "replace.h"

/* The files of the two runs: beside -o X.csv as X-profile.csv (and its
 * -lines.csv), X-capture.csv (and .status) and X-want.txt, kept; else in
 * a new temporary folder, removed at the end. */
typedef struct {
    char dir[PATH_MAX];   /* the temporary folder, "" with -o */
    char profile[PATH_MAX], capture[PATH_MAX], status[PATH_MAX + 8],
        want[PATH_MAX];
} work_files;

/* The file names under stem (X of X.csv, or the folder's "dir/"). */
static void name_files(work_files *w, const char *stem, const char *sep)
{
    snprintf(w->profile, sizeof w->profile, "%s%sprofile.csv", stem, sep);
    snprintf(w->capture, sizeof w->capture, "%s%scapture.csv", stem, sep);
    snprintf(w->status, sizeof w->status, "%s.status", w->capture);
    snprintf(w->want, sizeof w->want, "%s%swant.txt", stem, sep);
}

/* -o's files named, the profile's refused as profile refuses -o. */
static void files_beside_output(const char *out, work_files *w)
{
    char stem[PATH_MAX], err[1024];
    size_t n = strlen(out);
    snprintf(stem, sizeof stem, "%.*s", (int)(n > 4
             && !strcmp(out + n - 4, ".csv") ? n - 4 : n), out);
    w->dir[0] = '\0';
    name_files(w, stem, "-");
    if (mp_prof_check_output(w->profile, err, sizeof err))
        mp_usage_error("-o: %s", err);
}

/* A new temporary folder for the files; 0, or -1 with why said. */
static int temporary_files(work_files *w)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(w->dir, sizeof w->dir, "%s/memprobe-explain-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(w->dir)) {
        fprintf(stderr, "memprobe: explain: cannot make a folder %s: %s\n",
                w->dir, strerror(errno));
        return -1;
    }
    name_files(w, w->dir, "/");
    return 0;
}

/* The capture library, else one line and exit 3. */
static int find_capture_lib(char *lib, size_t len)
{
    if (!mp_prof_find_lib(MP_XP_ENV_LIB, MP_XP_CAPTURE_LIB, lib, len))
        return 0;
    const char *env = getenv(MP_XP_ENV_LIB);
    if (env && env[0])
        fprintf(stderr, "memprobe: explain needs the capture library, and "
                "%s names %s: no such file (unset it to use the %s beside "
                "memprobe)\n", MP_XP_ENV_LIB, lib, MP_XP_CAPTURE_LIB);
    else
        fprintf(stderr, "memprobe: explain needs %s (built where the CUDA "
                "toolkit has compute-sanitizer: make capture, then make "
                "install puts it in PREFIX/lib/memprobe/; %s names another); --capture FILE explains "
                "a recorded capture without it\n", lib, MP_XP_ENV_LIB);
    return -1;
}

/* Run 1, the counts: the profile engine with --per-kernel 1 into
 * w->profile, read back into d. 0, or -1 (nothing to explain, said). */
static int counts_run(const mp_xp_opts *o, const work_files *w,
                      mp_prof_data *d)
{
    mp_prof_opts po;
    char err[1024];
    memset(&po, 0, sizeof po);
    po.output = w->profile;
    po.per_kernel = "1";
    po.min_count = 1;
    po.opcodes = MP_PROF_OPCODES_AUTO;
    po.argv = o->argv;
    po.gpu_checked = 1;
    int written = 0;
    po.written = &written;
    fprintf(stderr, "memprobe: explain: run 1 of 2, the counts: %s under "
            "the profile engine, the first launch of each kernel, grid and "
            "block (--per-kernel 1)\n", o->argv[0]);
    mp_prof_run(&po);
    if (!written) {   /* an earlier run's profile is not this one's */
        fprintf(stderr, "memprobe: nothing to explain: run 1 collected no "
                "counts\n");
        return -1;
    }
    if (mp_prof_load(w->profile, d, err, sizeof err)) {
        fprintf(stderr, "memprobe: nothing to explain: no profile: %s\n",
                err);
        return -1;
    }
    if (!d->ni) {
        fprintf(stderr, "memprobe: nothing to explain: the profile of %s "
                "holds no instruction row\n", o->argv[0]);
        return -1;
    }
    return 0;
}

/* What the child of the capture run needs. */
typedef struct {
    const mp_xp_opts *o;
    const char *prog, *lib;
    const work_files *w;
} capture_args;

/* In the child: the capture library's environment, then exec. */
static void exec_capture(void *ctx)
{
    const capture_args *a = ctx;
    mp_prof_preload_first(a->lib);
    setenv(MP_XP_ENV_FILE, a->w->capture, 1);
    setenv(MP_XP_ENV_WANT, a->w->want, 1);
    setenv(MP_XP_ENV_MAX, a->o->max_warps, 1);
    int fd = open("/dev/null", O_RDONLY);   /* run 1 had the input */
    if (fd > 0) {
        dup2(fd, 0);
        close(fd);
    }
    execv(a->prog, a->o->argv);
    fprintf(stderr, "memprobe: cannot run %s: %s\n", a->prog,
            strerror(errno));
}

/* The capture library's status and capture into st and c: 0, or -1
 * (nothing captured, said). */
static int read_capture(const work_files *w, mp_capture *c,
                        mp_capture_status *st)
{
    char err[1024];
    if (access(w->status, F_OK)) {
        fprintf(stderr, "memprobe: nothing captured: the capture library "
                "wrote no %s (it did not start in the program)\n",
                w->status);
        return -1;
    }
    if (mp_capture_status_read(w->status, st, err, sizeof err)) {
        fprintf(stderr, "memprobe: nothing captured: %s\n", err);
        return -1;
    }
    mp_xp_say_status_errors(st);
    if (mp_capture_read(w->capture, c, err, sizeof err)) {
        fprintf(stderr, "memprobe: nothing captured: %s\n", err);
        mp_capture_status_free(st);
        return -1;
    }
    return 0;
}

/* Run 2, the addresses: the want file of d's n offenders, the program
 * with the capture library, its capture and status read into c and st.
 * The three files are written beside their names and replace them only
 * when something was captured; else the last ones are left as they were.
 * 0, or -1 (nothing captured, said). */
static int capture_run(const mp_xp_opts *o, const char *prog,
                       const char *lib, const work_files *w,
                       const mp_prof_data *d, const mp_prof_offender *off,
                       int n, mp_capture *c, mp_capture_status *st)
{
    int nwant, rc = -1;
    char err[1024];
    work_files t = *w;   /* the new files, beside w's */
    mp_replace_set set = {0};
    snprintf(t.want, sizeof t.want, "%s", mp_replace_add(&set, w->want));
    snprintf(t.capture, sizeof t.capture, "%s",
             mp_replace_add(&set, w->capture));
    snprintf(t.status, sizeof t.status, "%s.status", t.capture);
    mp_replace_add_temp(&set, w->status, t.status);
    if (mp_xp_write_want(d, off, n, t.want, &nwant, err, sizeof err)) {
        fprintf(stderr, "memprobe: nothing captured: %s\n", err);
        mp_replace_drop(&set, 1);
        return -1;
    }
    fprintf(stderr, "memprobe: explain: run 2 of 2, the addresses: %s with "
            "the capture library, %d instruction%s of %d offending line%s "
            "wanted\n", o->argv[0], nwant, nwant == 1 ? "" : "s", n,
            n == 1 ? "" : "s");
    capture_args a = {o, prog, lib, &t};
    int status = mp_prof_spawn(prog, exec_capture, &a);
    if (status)
        fprintf(stderr, "memprobe: %s ended with status %d in the capture "
                "run\n", o->argv[0], status);
    if (read_capture(&t, c, st)) {
        mp_replace_drop(&set, 1);
    } else if (mp_replace_commit(&set, err, sizeof err)) {
        fprintf(stderr, "memprobe: nothing captured: %s\n", err);
        mp_capture_status_free(st);
        mp_capture_free(c);
    } else {
        rc = 0;
    }
    return rc;
}

/* Run 2 and the explanation of d's offenders: the status. */
static int addresses_and_verdict(const mp_xp_opts *o, const mp_prof_data *d,
                                 const char *prog, const char *lib,
                                 const work_files *w)
{
    mp_capture c = {0};
    mp_capture_status st = {0};
    int n;
    mp_prof_judged j;
    mp_prof_offender *off = mp_xp_offenders(o, d, &n, &j);
    int rc = MP_EXIT_COUNTERS;
    /* with no offender the program is not run again: the verdict says so */
    if (!n || capture_run(o, prog, lib, w, d, off, n, &c, &st) == 0)
        rc = mp_xp_explain_offenders(o, d, 1, off, n, &j, &c, &st);
    free(off);
    mp_capture_status_free(&st);
    mp_capture_free(&c);
    return rc;
}

/* Both runs (run 1 not with --from) and the explanation: the status. */
static int both_runs(const mp_xp_opts *o, const mp_prof_data *d_from,
                     const char *prog, const char *lib, const work_files *w)
{
    if (d_from)
        return addresses_and_verdict(o, d_from, prog, lib, w);
    mp_prof_data d = {0};
    int rc = MP_EXIT_COUNTERS;
    if (!counts_run(o, w, &d))
        rc = addresses_and_verdict(o, &d, prog, lib, w);
    mp_prof_free(&d);
    return rc;
}

int mp_xp_run_program(const mp_xp_opts *o, const mp_prof_data *d_from)
{
    char prog[PATH_MAX], lib[PATH_MAX];
    work_files w;
    mp_prof_need_program("explain", o->argv[0], prog, sizeof prog);
    if (o->output)
        files_beside_output(o->output, &w);
    if (find_capture_lib(lib, sizeof lib) || mp_prof_gpu_ready("explain", o->argv[0]))
        return MP_EXIT_NOGPU;
    if (!o->output && temporary_files(&w))
        return MP_EXIT_FAIL;
    int rc = both_runs(o, d_from, prog, lib, &w);
    if (w.dir[0])
        mp_prof_remove_dir(w.dir);
    return rc;
}
