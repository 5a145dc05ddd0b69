/*
 * profile.c - `memprobe profile` (profile.h): finds the program, makes
 * the raw directory, starts the program with the injection library's
 * environment (docs/profile-design.md, "How memprobe starts the program"),
 * forwards SIGINT and SIGTERM to it, waits, merges the raw files of every
 * process into the two CSVs, judges --check and --baseline, and returns
 * the exit status in the documented order.
 */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "device.h"
#include "own_files.h"
#include "profile_range.h"
#include "raw.h"
#include "replace.h"
#include "subprocess.h"

#define INJECT_LIB "libmemprobe_inject.so"
#define NVTX_LIB "libcupti.so.13"
#define CLIENT_LIB "libmemprobe_client.so"

/* ---- before the program starts ---------------------------------------- */

void mp_prof_need_program(const char *cmd, const char *name, char *out,
                          size_t len)
{
    if (!name[0])
        mp_usage_error("%s: empty program name", cmd);
    if (!mp_prof_find_program(name, NULL, out, len))
        return;
    struct stat st;
    if (!strchr(name, '/'))
        mp_usage_error("%s: %s: not found in PATH", cmd, name);
    if (stat(name, &st))
        mp_usage_error("%s: %s: %s", cmd, name, strerror(errno));
    if (!S_ISREG(st.st_mode))
        mp_usage_error("%s: %s: not a regular file", cmd, name);
    mp_usage_error("%s: %s: not executable", cmd, name);
}

int mp_prof_gpu_ready(const char *cmd, const char *prog)
{
    char why[512];
    const char *fake = getenv(MP_FAKE_DEVICE_ENV);
    if (fake && fake[0]) {
        fprintf(stderr, "memprobe: warning: %s is set: the GPU is not "
                "looked for\n", MP_FAKE_DEVICE_ENV);
        return 0;
    }
    if (!mp_device_available(why, sizeof why))
        return 0;
    fprintf(stderr, "memprobe: %s (%s runs %s on the GPU)\n", why, cmd,
            prog);
    return -1;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int mp_prof_find_lib(const char *env_name, const char *lib, char *out,
                     size_t len)
{
    const char *env = getenv(env_name);
    if (!env || !env[0])
        return mp_own_path(MP_OWN_LIB, lib, out, len);
    if (!is_file(env) || !realpath(env, out)) {
        snprintf(out, len, "%s", env);
        return -1;
    }
    return 0;
}

/* The raw directory: --keep-raw DIR (made here, must be new), else a
 * private one under $TMPDIR or /tmp. Its absolute path into out; 0, or -1
 * with the one-line reason in err. */
static int make_raw_dir(const char *keep, char *out, size_t len, char *err,
                        size_t errlen)
{
    if (keep) {
        if (mkdir(keep, 0700) || !realpath(keep, out)) {
            mp_reason(err, errlen, "--keep-raw: %s: %s (give a new folder)",
                      keep, strerror(errno));
            return -1;
        }
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(out, len, "%s/memprobe-raw-XXXXXX", tmp && tmp[0] ? tmp
             : "/tmp");
    if (!mkdtemp(out)) {
        snprintf(out, len, "/tmp/memprobe-raw-XXXXXX");
        if (!mkdtemp(out)) {
            mp_reason(err, errlen, "profile: cannot make a raw folder in "
                      "/tmp: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

void mp_prof_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX + 256];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                if (unlink(path) && errno == EISDIR)
                    mp_prof_remove_dir(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* ---- running ---------------------------------------------------------- */

static volatile sig_atomic_t child_pid;

/* SIGINT / SIGTERM sent to memprobe go on to the program; the terminal's
 * (SI_KERNEL) reached it already, as it is in our process group. */
static void forward(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (child_pid > 0 && si->si_code != SI_KERNEL)
        kill((pid_t)child_pid, sig);
}

/* How a run is made: the first (SASS metrics), or the range pass with
 * its kernel regex (NULL: every profiled launch). */
typedef struct {
    int range;
    const char *range_re;
    const char *group;   /* MEMPROBE_RANGE_GROUP of a range run */
} run_kind;

/* memprobe's CUPTI first in LD_PRELOAD, the program's own preloads after
 * it: every library that needs libcupti.so.13 then binds to the one the
 * injection library was built for, also in a program that brings an older
 * one of its own and loads it before CUDA starts (PyTorch's wheels). */
void mp_prof_preload_first(const char *cupti)
{
    const char *old = getenv("LD_PRELOAD");
    if (!old || !old[0]) {
        setenv("LD_PRELOAD", cupti, 1);
        return;
    }
    size_t n = strlen(cupti) + strlen(old) + 2;
    char *v = mp_xmalloc(n);
    snprintf(v, n, "%s:%s", cupti, old);
    setenv("LD_PRELOAD", v, 1);
    free(v);
}

/* In the child: the environment of docs/profile-design.md, then exec. */
static void exec_program(const mp_prof_opts *o, const char *prog,
                         const char *lib, const char *raw,
                         const run_kind *rk)
{
    char nvtx[PATH_MAX + 64], client[PATH_MAX + 64];
    int dir = (int)(strrchr(lib, '/') - lib);
    snprintf(nvtx, sizeof nvtx, "%.*s/%s", dir, lib, NVTX_LIB);
    snprintf(client, sizeof client, "%.*s/%s", dir, lib, CLIENT_LIB);
    setenv("CUDA_INJECTION64_PATH", lib, 1);
    if (is_file(nvtx)) {
        /* NVTX's first call subscribes memprobe (ranges and registered
         * strings before the first CUDA call), then hands NVTX to CUPTI */
        setenv("NVTX_INJECTION64_PATH", lib, 1);
        setenv(MP_ENV_NVTX_CUPTI, nvtx, 1);
        mp_prof_preload_first(nvtx);
    }
    /* before CUPTI: the program's own cuptiSubscribe comes here first */
    if (is_file(client))
        mp_prof_preload_first(client);
    setenv("MEMPROBE_RAW_DIR", raw, 1);
    const struct {
        const char *name, *value;
    } filters[] = {
        {"MEMPROBE_KERNEL", o->kernel},
        {"MEMPROBE_NVTX_INCLUDE", o->nvtx_include},
        {"MEMPROBE_LAUNCH_SKIP", o->launch_skip},
        {"MEMPROBE_LAUNCH_COUNT", o->launch_count},
        {MP_ENV_PER_KERNEL, o->per_kernel},
        {MP_ENV_PASS, rk->range ? MP_PASS_RANGE : NULL},
        {MP_ENV_RANGE_KERNEL, rk->range ? rk->range_re : NULL},
        {MP_ENV_RANGE_GROUP, rk->range ? rk->group : NULL},
    };
    for (size_t k = 0; k < sizeof filters / sizeof *filters; k++) {
        if (filters[k].value)
            setenv(filters[k].name, filters[k].value, 1);
        else
            unsetenv(filters[k].name);   /* only memprobe's options count */
    }
    if (rk->range) {
        /* the second run reads no input: the first one had it */
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != 0) {
            dup2(fd, 0);
            close(fd);
        }
    }
    execv(prog, o->argv);
    fprintf(stderr, "memprobe: cannot run %s: %s\n", prog, strerror(errno));
    _exit(127);
}

int mp_prof_spawn(const char *prog, void (*exec_fn)(void *ctx), void *ctx)
{
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "memprobe: cannot start %s: %s\n", prog,
                strerror(errno));
        return 127;
    }
    if (pid == 0) {
        exec_fn(ctx);
        _exit(127);
    }
    child_pid = pid;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* What exec_program needs, through mp_prof_spawn. */
typedef struct {
    const mp_prof_opts *o;
    const char *prog, *lib, *raw;
    const run_kind *rk;
} exec_args;

static void exec_spawned(void *ctx)
{
    const exec_args *a = ctx;
    exec_program(a->o, a->prog, a->lib, a->raw, a->rk);
}

/* Starts the program and waits for it: its status (128 + signal). */
static int run_program(const mp_prof_opts *o, const char *prog,
                       const char *lib, const char *raw, const run_kind *rk)
{
    exec_args a = {o, prog, lib, raw, rk};
    return mp_prof_spawn(prog, exec_spawned, &a);
}

/* ---- the range pass ----------------------------------------------------- */

/* The range pass failed as a whole: every launch that wanted its values
 * says why, and so does one line. */
static void range_failed(mp_prof_data *d, int kplus, const char *why)
{
    fprintf(stderr, "memprobe: no range-profiler values: %s\n", why);
    mp_prof_range_none(d, kplus, why);
}

/* The program runs once: no range run unless --level kernel+ or
 * --fallback rerun asks for one. */
static int runs_once(const mp_prof_opts *o)
{
    return !o->kernel_plus && !o->fallback_rerun;
}

/* The range runs' rows joined onto the first run's; a failure, and the
 * launches that found no match or no values, said. */
static void join_runs(const mp_prof_opts *o, const char *raw,
                      const mp_prof_range_run *runs, int nruns,
                      mp_prof_data *d)
{
    mp_prof_join_stats js;
    char err[1024];
    if (mp_prof_range_join(d, raw, runs, nruns, o->kernel_plus, &js, err,
                           sizeof err)) {
        range_failed(d, o->kernel_plus, err);
        return;
    }
    if (js.unmatched)
        fprintf(stderr, "memprobe: %ld of %ld launch%s found no same launch "
                "in the second run (the program did not repeat itself): "
                "their range columns are empty (range_why says why)\n",
                js.unmatched, js.wanted, js.wanted == 1 ? "" : "es");
    if (js.other)
        fprintf(stderr, "memprobe: %ld of %ld launch%s got no range-profiler "
                "values: %s\n", js.other, js.wanted,
                js.wanted == 1 ? "" : "es", js.other_why);
}

/* After the first run: when --level kernel+ asks for it, or a launch has
 * no line counts and --fallback rerun asks for their counts, the program
 * runs again with the range profiler (inject/inject_range.c), once per
 * metric group: at kernel+ the cache group (L1 and L2 hits, DRAM bytes)
 * and the l2 group (L2 sectors), each of one replay pass from an L2
 * flushed before every measured launch, so that the two L2 counts divided
 * for the hit rate both come from a cold start; for launches without line
 * counts the counts group (kernel replay), at kernel+ whatever --fallback
 * says.
 * Their rows are joined onto the first run's (profile_range.c); a failure
 * is said in the rows, and so are the launches without line counts that
 * no run measured (the program runs once by default). */
static void range_pass(const mp_prof_opts *o, const char *prog,
                      const char *lib, const char *raw, int status1,
                      mp_prof_data *d)
{
    if (runs_once(o)) {
        mp_prof_range_none(d, 0, MP_PROF_RANGE_NOT_RUN);
        return;   /* the program runs once */
    }
    char *re = mp_prof_fallback_regex(d);
    if ((!o->kernel_plus && !re) || !d->nl) {
        free(re);
        return;   /* every launch has line counts */
    }
    /* every: the run measures every launch (kernel+'s groups), else only
     * the launches without line counts (the counts group, the fallback) */
    static const struct {
        const char *group, *dir, *what;
        int every;
    } kinds[] = {
        {MP_RANGE_GROUP_CACHE, "range-cache", "L1 and L2 hits and DRAM "
         "bytes from an L2 flushed before each launch", 1},
        {MP_RANGE_GROUP_L2, "range-l2", "L2 sectors from an L2 flushed "
         "before each launch", 1},
        {MP_RANGE_GROUP_COUNTS, "range", "hardware counts, kernel replay", 0},
    };
    enum { NKINDS = sizeof kinds / sizeof kinds[0] };
    int use[NKINDS], nuse = 0;
    for (int g = 0; g < NKINDS; g++)
        nuse += use[g] = kinds[g].every ? o->kernel_plus : re != NULL;
    mp_prof_range_run runs[NKINDS];
    char dirs[NKINDS][PATH_MAX + 16];
    int nruns = 0, done = 0;
    for (int g = 0; g < NKINDS; g++) {
        if (!use[g])
            continue;
        int all = kinds[g].every;
        long wanted = 0;
        for (int k = 0; k < d->nl; k++)
            if (mp_prof_range_wanted(&d->l[k], all))
                wanted += d->l[k].launches;
        snprintf(dirs[nruns], sizeof dirs[nruns], "%s/%s", raw, kinds[g].dir);
        if (mkdir(dirs[nruns], 0700)) {
            char why[PATH_MAX + 300];
            snprintf(why, sizeof why, "cannot make %s: %s", dirs[nruns],
                     strerror(errno));
            range_failed(d, o->kernel_plus, why);
            free(re);
            return;
        }
        fprintf(stderr, "memprobe: running %s again (range run %d of %d) "
                "with the range profiler for %ld launch%s (%s: %s); its "
                "output follows\n", o->argv[0], ++done, nuse, wanted,
                wanted == 1 ? "" : "es", all ? "--level kernel+"
                : "without line counts", kinds[g].what);
        const run_kind rk = {.range = 1, .range_re = all ? NULL : re,
                             .group = kinds[g].group};
        int status2 = run_program(o, prog, lib, dirs[nruns], &rk);
        if (status2 != status1)
            fprintf(stderr, "memprobe: range run %d ended with status %d, "
                    "the first run with %d: its launches may not match\n",
                    done, status2, status1);
        runs[nruns] = (mp_prof_range_run){.dir = dirs[nruns],
                                          .fallback_only = !all
                                                           && o->kernel_plus};
        nruns++;
    }
    free(re);
    join_runs(o, raw, runs, nruns, d);
}

/* ---- after it ended ---------------------------------------------------- */

/* The counts could not be collected: the reason, or NULL when they were. */
static const char *no_counts(const mp_prof_status *st, const mp_prof_data *d,
                             char *buf, size_t len)
{
    if (!st->nstatus)
        return "the program never initialised CUDA (no status file from "
               "the injection library)";
    if (st->nerrors) {
        snprintf(buf, len, "%s", st->error);
        return buf;
    }
    if (!st->seen)
        return "no kernel launch seen";
    if (!d->nl) {
        snprintf(buf, len, "no launch matched the filters (%llu seen, %llu "
                 "profiled by the injection library, %d left out by "
                 "--kernel)", st->seen, st->profiled, st->dropped);
        return buf;
    }
    return NULL;
}

/* The launches without line counts (*n) of all (*all); the first's why. */
static const char *count_no_lines(const mp_prof_data *d, long *n, long *all)
{
    const char *why = "";
    *n = *all = 0;
    for (int k = 0; k < d->nl; k++) {
        *all += d->l[k].launches;
        if (strcmp(d->l[k].line_counts, MP_RAW_EXACT)) {
            if (!*n)
                why = d->l[k].why;
            *n += d->l[k].launches;
        }
    }
    return why;
}

/* Launches without line counts: a note (with once: how to get their
 * hardware counts, as the program ran once). */
static void note_no_lines(const mp_prof_data *d, int once)
{
    long n, all;
    const char *why = count_no_lines(d, &n, &all);
    if (n)
        fprintf(stderr, "memprobe: %ld of %ld launch%s without line counts "
                "(%s)%s\n", n, all, all == 1 ? "" : "es",
                why[0] ? why : "no reason given", once ? "; --fallback "
                "rerun runs the program again for their hardware counts"
                : "");
}

/* Why --check judged no line (exit 4: never a pass), the one place that
 * says it: no instruction row at all (no launch with line counts), only
 * library kernels' lines to judge, or none that the spec and --min-count
 * let in. */
static const char *nothing_judged(const mp_prof_opts *o,
                                  const mp_prof_data *d,
                                  const mp_prof_judged *j, char *buf,
                                  size_t len)
{
    long n, all;
    count_no_lines(d, &n, &all);
    if (!d->ni)
        snprintf(buf, len, "--check: no instruction row to judge (%ld of "
                 "%ld launches without line counts)", n, all);
    else if (j->library_left)
        snprintf(buf, len, "--check: no line of the program's own kernels "
                 "to judge; %d line%s of library kernels not judged "
                 "(--check-libraries judges them)", j->library_left,
                 j->library_left == 1 ? "" : "s");
    else
        snprintf(buf, len, "--check: no source line to judge: no line of "
                 "at least %llu instructions has an ideal count in a class "
                 "of '%s' (%d instruction rows)", o->min_count,
                 o->check_text, d->ni);
    return buf;
}

static void say_program(const char *name, int status)
{
    if (status == 0)
        return;
    if (status > 128 && status < 128 + 65)
        fprintf(stderr, "memprobe: %s was killed by signal %d (%s)\n", name,
                status - 128, strsignal(status - 128));
    else
        fprintf(stderr, "memprobe: %s failed: exit status %d\n", name,
                status);
}

/* --check never passes a launch without line counts silently: one line
 * says how many were not judged, and where their counts went. */
static void unjudged(const mp_prof_data *d)
{
    long n = 0, filled = 0;
    const char *name = "", *why = "";
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        if (!strcmp(l->line_counts, MP_RAW_EXACT))
            continue;
        if (!n)
            name = l->name, why = l->why;
        n += l->launches;
        if (l->range_src && !strcmp(l->range_src, MP_PROF_RANGE_FILLED))
            filled += l->launches;
    }
    if (n)
        fprintf(stderr, "memprobe: check: %ld launch%s NOT judged: no line "
                "counts (the first: %s, %s); %ld of them have the range "
                "profiler's per-launch counts in profile.csv "
                "(range_counters)\n", n, n == 1 ? "" : "es", name,
                why[0] ? why : "no reason given", filled);
}

/* How many launches --per-kernel profiled, and where the injection
 * library's time inside the program went (docs/profile.md, "What it
 * costs"). */
static void say_cost(const mp_prof_opts *o, const mp_prof_status *st)
{
    if (o->per_kernel)
        fprintf(stderr, "memprobe: --per-kernel %s: %llu of %llu launches "
                "profiled, the others ran uninstrumented\n", o->per_kernel,
                st->profiled, st->seen);
    if (!st->has_cost)
        return;
    const double *s = st->cost_s;
    const mp_u64 *n = st->cost_n;
    double total = 0;
    for (int k = 0; k < MP_PC_N; k++)   /* lines: inside attribute */
        total += k == MP_PC_LINES || k == MP_PC_LAUNCH
                 || k == MP_PC_LAUNCH_OFF ? 0 : s[k];
    fprintf(stderr, "memprobe: time in the library's calls inside the "
            "program: %.3f s (synchronising %.3f s before %llu flushes; "
            "reading records %.3f s, %llu records; attributing %.3f s, "
            "source lines %.3f s of it for %llu instructions; keeping "
            "modules %.3f s for %llu; writing files %.3f s; SASS metrics "
            "on %llu, off %llu: %.3f s); inside the %llu launch calls "
            "themselves (the driver's and CUPTI's work) %.3f s with SASS "
            "metrics on, %.3f s in %llu with them off\n", total,
            s[MP_PC_SYNC],
            n[MP_PC_SYNC], s[MP_PC_FLUSH], st->records, s[MP_PC_ATTRIBUTE],
            s[MP_PC_LINES], n[MP_PC_LINES], s[MP_PC_MODULES], n[MP_PC_MODULES],
            s[MP_PC_WRITES], n[MP_PC_ENABLE], n[MP_PC_DISABLE],
            s[MP_PC_ENABLE] + s[MP_PC_DISABLE], n[MP_PC_LAUNCH],
            s[MP_PC_LAUNCH], s[MP_PC_LAUNCH_OFF], n[MP_PC_LAUNCH_OFF]);
}

/* What a judgement left to library kernels, after its summary: "; N
 * lines of library kernels not judged (--check-libraries judges them)"
 * (--baseline: "N comparisons ... left out (... makes them)"), or with
 * --check-libraries "; N of them in library kernels". */
static void library_tail(const mp_prof_judged *j, const char *what,
                         const char *done, const char *does, char *buf,
                         size_t len)
{
    buf[0] = '\0';
    if (j->library_left)
        snprintf(buf, len, "; %d %s%s of library kernels %s "
                 "(--check-libraries %s them)", j->library_left, what,
                 j->library_left == 1 ? "" : "s", done, does);
    else if (j->library)
        snprintf(buf, len, "; %d of them in library kernels", j->library);
}

/* --check and --baseline: 0, MP_EXIT_FAIL, or MP_EXIT_COUNTERS when
 * --check judged no line (never a pass; nothing_judged says why). */
static int judge(const mp_prof_opts *o, const mp_prof_data *d,
                 const mp_prof_data *old)
{
    int bad = 0, none = 0, n;
    mp_prof_judged j;
    char tail[256], why[512];
    if (o->has_check) {
        n = mp_prof_check(d, &o->check, o->min_count, o->check_libraries,
                          "memprobe: check: ", stderr, &j);
        library_tail(&j, "line", "not judged", "judges", tail,
                     sizeof tail);
        none = !j.judged;
        if (none)
            fprintf(stderr, "memprobe: no counts: %s\n",
                    nothing_judged(o, d, &j, why, sizeof why));
        else
            fprintf(stderr, "memprobe: check %s: %d offender%s among %d "
                    "source line%s judged (%s; lines of at least %llu "
                    "instructions)%s\n", n ? "failed" : "passed", n,
                    n == 1 ? "" : "s", j.judged, j.judged == 1 ? "" : "s",
                    o->check_text, o->min_count, tail);
        bad += n;
        unjudged(d);
    }
    if (old) {
        n = mp_prof_baseline(d, old, o->tolerance, o->min_count,
                             o->check_libraries, "memprobe: baseline: ",
                             stderr, &j);
        library_tail(&j, "comparison", "left out", "makes", tail,
                     sizeof tail);
        fprintf(stderr, "memprobe: baseline %s: %d grew of %d compared "
                "(kernels and source lines against %s, tolerance %g)%s\n",
                n ? "failed" : "passed", n, j.judged, o->baseline,
                o->tolerance, tail);
        bad += n;
    }
    return none ? MP_EXIT_COUNTERS : bad ? MP_EXIT_FAIL : MP_EXIT_OK;
}

/* --from: judge an existing profile. */
static int judge_file(const mp_prof_opts *o, const mp_prof_data *old)
{
    mp_prof_data d;
    char err[1024];
    if (mp_prof_load(o->from, &d, err, sizeof err))
        mp_usage_error("--from: %s", err);
    int rc;
    if (!d.nl) {
        fprintf(stderr, "memprobe: no counts: %s has no profiled launch\n",
                o->from);
        rc = MP_EXIT_COUNTERS;
    } else {
        note_no_lines(&d, 0);
        rc = judge(o, &d, old);
    }
    mp_prof_free(&d);
    return rc;
}

/* -o names the file --baseline read (the same device and inode, under
 * any name): said, as a run that collects launches replaces it. */
static void say_output_is_baseline(const mp_prof_opts *o, const char *out)
{
    struct stat a, b;
    if (o->baseline && !stat(out, &a) && !stat(o->baseline, &b)
        && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        fprintf(stderr, "memprobe: -o %s is the baseline %s: read before "
                "the run, replaced only when the run collects launches\n",
                out, o->baseline);
}

/* The raw files merged, the range pass run, and d written beside out and
 * its -lines.csv (into set); d and st filled. NULL, or why no counts
 * were collected (in why), and then nothing is written. */
static const char *collect(const mp_prof_opts *o, const char *prog,
                           const char *lib, const char *raw, int status,
                           mp_prof_data *d, mp_prof_status *st,
                           mp_replace_set *set, char *why, size_t len)
{
    char err[1024];
    if (mp_prof_merge(raw, o->kernel, o->opcodes, d, st, err, sizeof err)) {
        snprintf(why, len, "the raw files cannot be read: %s", err);
        return why;
    }
    range_pass(o, prog, lib, raw, status, d);
    say_cost(o, st);
    const char *none = no_counts(st, d, why, len);
    if (none)
        return none;
    if (mp_prof_write(d, set->temp[0], set->temp[1], err, sizeof err)) {
        snprintf(why, len, "cannot write the profile: %s", err);
        return why;
    }
    note_no_lines(d, runs_once(o));
    return NULL;
}

/* profile.csv and its -lines.csv replaced together by the new files
 * beside them (the run collected launches): 0, or -1 when they could not
 * be (said; the old ones are left). */
static int replace_files(mp_replace_set *set, const mp_prof_data *d)
{
    char err[1024], out[PATH_MAX], lines[PATH_MAX];
    snprintf(out, sizeof out, "%s", set->target[0]);
    snprintf(lines, sizeof lines, "%s", set->target[1]);
    if (mp_replace_commit(set, err, sizeof err)) {
        fprintf(stderr, "memprobe: no counts: cannot write the profile: "
                "%s\n", err);
        return -1;
    }
    long launches = 0;
    for (int k = 0; k < d->nl; k++)
        launches += d->l[k].launches;
    fprintf(stderr, "memprobe: wrote %s (%ld launch%s in %d row%s) and %s "
            "(%d instruction row%s)\n", out, launches,
            launches == 1 ? "" : "es", d->nl, d->nl == 1 ? "" : "s", lines,
            d->ni, d->ni == 1 ? "" : "s");
    return 0;
}

int mp_prof_run(const mp_prof_opts *o)
{
    char err[1024];
    mp_prof_data old = {0};
    if (o->baseline && mp_prof_load(o->baseline, &old, err, sizeof err))
        mp_usage_error("--baseline: %s", err);
    const mp_prof_data *oldp = o->baseline ? &old : NULL;
    if (o->from) {
        int rc = judge_file(o, oldp);
        mp_prof_free(&old);
        return rc;
    }

    char prog[PATH_MAX], lib[PATH_MAX], raw[PATH_MAX], lines[PATH_MAX];
    mp_prof_need_program("profile", o->argv[0], prog, sizeof prog);
    const char *out = o->output ? o->output : "profile.csv";
    if (mp_prof_check_output(out, err, sizeof err)) {
        mp_prof_free(&old);
        mp_usage_error("-o: %s", err);
    }
    if (make_raw_dir(o->keep_raw, raw, sizeof raw, err, sizeof err)) {
        mp_prof_free(&old);
        mp_usage_error("%s", err);
    }
    if (!o->gpu_checked && mp_prof_gpu_ready("profile", o->argv[0])) {
        mp_prof_remove_dir(raw);   /* made just now */
        mp_prof_free(&old);
        return MP_EXIT_NOGPU;
    }
    say_output_is_baseline(o, out);
    if (mp_prof_find_lib("MEMPROBE_INJECT_LIB", INJECT_LIB, lib,
                         sizeof lib)) {
        fprintf(stderr, "memprobe: no counts: the injection library %s is "
                "missing (build it with make, or set MEMPROBE_INJECT_LIB)\n",
                lib);
        mp_prof_remove_dir(raw);
        mp_prof_free(&old);
        return MP_EXIT_COUNTERS;
    }

    const run_kind first = {0};
    int status = run_program(o, prog, lib, raw, &first);

    mp_prof_data d = {0};
    mp_prof_status st;
    mp_replace_set set = {0};
    char why[1200];
    mp_prof_lines_path(out, lines, sizeof lines);
    mp_replace_add(&set, out);
    mp_replace_add(&set, lines);
    const char *none = collect(o, prog, lib, raw, status, &d, &st, &set,
                               why, sizeof why);
    int lost = none ? 0 : replace_files(&set, &d);
    say_program(o->argv[0], status);
    int rc = status;
    if (none) {
        fprintf(stderr, "memprobe: no counts: %s\n", none);
        mp_replace_drop(&set, 1);   /* the last profile, as it was */
        rc = MP_EXIT_COUNTERS;
    } else if (lost) {
        rc = MP_EXIT_COUNTERS;
    } else if (o->has_check || oldp) {
        int judged = judge(o, &d, oldp);
        rc = judged ? judged : rc;
    }
    if (o->written)
        *o->written = !none && !lost;
    mp_prof_free(&d);
    mp_prof_free(&old);
    if (o->keep_raw)
        fprintf(stderr, "memprobe: raw files kept in %s\n", raw);
    else
        mp_prof_remove_dir(raw);
    return rc;
}
