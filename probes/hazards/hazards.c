/*
 * hazards.c - `memprobe hazards`: the hazard catalogue. Runs each of the
 * seeds' reduction kernels (probes/hazards/hazards.cu) with a result check and
 * under compute-sanitizer's memcheck, racecheck, synccheck and initcheck,
 * each run a child process with a time limit, reads what every tool
 * reported, and prints hazard x tool -> caught / not caught with the tool's
 * first finding, plus a CSV of its own (docs/hazards.md).
 *
 * Why child processes: a kernel whose barrier never opens hangs its
 * process, and only killing the process ends it. `memprobe hazards --run
 * NAME` runs one kernel once (the child); the table runs the children
 * through mp_spawn_wait_timeout, which kills a child's whole process group
 * (compute-sanitizer and the memprobe it started) at the limit and reports
 * a timeout.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "csv_writer.h"
#include "device.h"
#include "hazards.h"
#include "options.h"
#include "params.h"
#include "subprocess.h"
#include "version.h"

/* ---- the catalogue ------------------------------------------------------ */

const mp_hazard_def mp_hazard_defs[MP_HZ_COUNT] = {
    [MP_HZ_CORRECT] = {"correct", "seeds 003/004, fixed",
        "the reference: barrier after the shared write and after every "
        "halving step, thread 0 writes the result"},
    [MP_HZ_SYNC_IN_DIVERGENT_IF] = {"sync-in-divergent-if", "seed 003",
        "__syncthreads() inside if (cacheIndex < i): the threads that skip "
        "the branch never reach the barrier (the seed's deadlock)"},
    [MP_HZ_HALVING_SHIFT_2] = {"halving-shift-2", "seed 003",
        "the halving written i = i >> 2: every other level of the tree is "
        "skipped"},
    [MP_HZ_RESULT_BY_THREAD_2] = {"result-by-thread-2", "seed 004",
        "if (cacheIdx == 2) writes the block result: right with 3 or more "
        "threads per block, never written with 1 or 2"},
    [MP_HZ_MISSING_BARRIER] = {"missing-barrier", "seed 003, one line less",
        "no __syncthreads() between cache[cacheIndex] = temp and the "
        "reduction that reads other threads' elements"},
};

/* Each kernel at its seed's block size; result-by-thread-2 also at 2
 * threads, where its bug shows, with the correct kernel beside it. */
const mp_hazard_row mp_hazard_rows[] = {
    {MP_HZ_CORRECT, 256},
    {MP_HZ_CORRECT, 2},
    {MP_HZ_SYNC_IN_DIVERGENT_IF, 256},
    {MP_HZ_HALVING_SHIFT_2, 256},
    {MP_HZ_RESULT_BY_THREAD_2, 64},
    {MP_HZ_RESULT_BY_THREAD_2, 2},
    {MP_HZ_MISSING_BARRIER, 256},
};
const int mp_hazard_nrows = sizeof mp_hazard_rows / sizeof mp_hazard_rows[0];

const char *const mp_hazard_tool_names[MP_TOOL_COUNT] = {
    "none", "memcheck", "racecheck", "synccheck", "initcheck"};

int mp_hazard_find(const char *name)
{
    for (int k = 0; k < MP_HZ_COUNT; k++)
        if (!strcmp(name, mp_hazard_defs[k].name))
            return k;
    return -1;
}

int mp_hazard_tool_find(const char *name)
{
    for (int t = 0; t < MP_TOOL_COUNT; t++)
        if (!strcmp(name, mp_hazard_tool_names[t]))
            return t;
    return -1;
}

/* ---- options ------------------------------------------------------------ */

/* Splits a comma-separated list into at most max words of buf. Returns
 * how many, or -1 if a word is empty or there are too many. */
static int split_list(const char *text, char *buf, size_t len, char **words,
                      int max)
{
    snprintf(buf, len, "%s", text);
    int n = 0;
    for (char *p = buf;; ) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p || n == max)
            return -1;
        words[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static int parse_tools(const char *text, mp_hazard_options *o, char *err,
                       size_t errlen)
{
    static const char *allowed =
        "memcheck, racecheck, synccheck, initcheck, all, or none alone";
    char buf[256], *w[MP_TOOL_COUNT + 1];
    int n = split_list(text, buf, sizeof buf, w, MP_TOOL_COUNT + 1);
    if (n < 0) {
        mp_reason(err, errlen, "--tools: '%s' is not a list of tools (%s)",
                  text, allowed);
        return -1;
    }
    o->ntools = 0;
    if (n == 1 && !strcmp(w[0], "none"))
        return 0;
    if (n == 1 && !strcmp(w[0], "all")) {
        for (int t = MP_TOOL_MEMCHECK; t < MP_TOOL_COUNT; t++)
            o->tools[o->ntools++] = t;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int t = mp_hazard_tool_find(w[i]);
        if (t <= MP_TOOL_NONE) {
            mp_reason(err, errlen, "--tools: unknown tool '%s' (%s)", w[i],
                      allowed);
            return -1;
        }
        for (int j = 0; j < o->ntools; j++)
            if (o->tools[j] == t) {
                mp_reason(err, errlen, "--tools: '%s' given twice", w[i]);
                return -1;
            }
        o->tools[o->ntools++] = t;
    }
    return 0;
}

static void hazard_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < MP_HZ_COUNT; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? ", " : "",
                 mp_hazard_defs[k].name);
}

static int parse_hazards(const char *text, mp_hazard_options *o, char *err,
                         size_t errlen)
{
    char buf[512], names[256], *w[MP_HZ_COUNT + 1];
    hazard_names(names, sizeof names);
    int n = split_list(text, buf, sizeof buf, w, MP_HZ_COUNT + 1);
    if (n < 0) {
        mp_reason(err, errlen, "--hazards: '%s' is not a list of hazards "
                  "(%s, or all)", text, names);
        return -1;
    }
    memset(o->run_kernel, 0, sizeof o->run_kernel);
    for (int i = 0; i < n; i++) {
        if (n == 1 && !strcmp(w[i], "all")) {
            for (int k = 0; k < MP_HZ_COUNT; k++)
                o->run_kernel[k] = 1;
            return 0;
        }
        int k = mp_hazard_find(w[i]);
        if (k < 0) {
            mp_reason(err, errlen, "--hazards: unknown hazard '%s' (%s, or "
                      "all)", w[i], names);
            return -1;
        }
        if (o->run_kernel[k]) {
            mp_reason(err, errlen, "--hazards: '%s' given twice", w[i]);
            return -1;
        }
        o->run_kernel[k] = 1;
    }
    return 0;
}

/* A number of seconds in (0, MP_HZ_MAX_TIMEOUT]. */
static int parse_timeout(const char *text, double *out, char *err,
                         size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v > 0)
        || !(v <= MP_HZ_MAX_TIMEOUT)) {
        mp_reason(err, errlen, "--timeout: '%s' is not a number of seconds "
                  "> 0 and <= %.0f", text, MP_HZ_MAX_TIMEOUT);
        return -1;
    }
    *out = v;
    return 0;
}

/* A power of two from 1 to MP_HZ_MAX_THREADS. */
static int parse_threads(const char *text, int *out, char *err,
                         size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < 1 || v > MP_HZ_MAX_THREADS
        || (v & (v - 1))) {
        mp_reason(err, errlen, "--threads: '%s' is not a power of two from "
                  "1 to %d", text, MP_HZ_MAX_THREADS);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The option table's parsers (options.h): dest is the options. */
static int take_tools(const char *v, void *o, char *err, size_t errlen)
{
    return parse_tools(v, o, err, errlen);
}

static int take_hazards(const char *v, void *o, char *err, size_t errlen)
{
    return parse_hazards(v, o, err, errlen);
}

static int take_timeout(const char *v, void *o, char *err, size_t errlen)
{
    return parse_timeout(v, &((mp_hazard_options *)o)->timeout, err, errlen);
}

static int take_threads(const char *v, void *o, char *err, size_t errlen)
{
    return parse_threads(v, &((mp_hazard_options *)o)->threads, err, errlen);
}

static int take_run(const char *v, void *dest, char *err, size_t errlen)
{
    mp_hazard_options *o = dest;
    o->run = mp_hazard_find(v);
    if (o->run < 0) {
        char all[256];
        hazard_names(all, sizeof all);
        mp_reason(err, errlen, "--run: unknown hazard '%s' (%s)", v, all);
        return -1;
    }
    return 0;
}

int mp_hazard_parse_options(int argc, char **argv, mp_hazard_options *o,
                            char *err, size_t errlen)
{
    /* The options, in the order of the checks between them below. */
    enum { TOOLS, HAZARDS, TIMEOUT, SANITIZER, OUTPUT, LOGDIR, RUN, THREADS,
           IGNORE, NOPT };
#define FN(n, f) {.name = n, .kind = MP_OPT_FN, .dest = o, .once = 1, .fn = f}
#define TEXT(n, a, d, e) {.name = n, .alias = a, .kind = MP_OPT_TEXT, \
                          .dest = d, .once = 1, .empty = e}
    const mp_opt opts[NOPT] = {
        [TOOLS] = FN("tools", take_tools),
        [HAZARDS] = FN("hazards", take_hazards),
        [TIMEOUT] = FN("timeout", take_timeout),
        [SANITIZER] = TEXT("compute-sanitizer", NULL, &o->sanitizer,
                           "empty file name"),
        [OUTPUT] = TEXT("output", "-o", &o->output, "empty file name"),
        [LOGDIR] = TEXT("log-dir", NULL, &o->log_dir,
                        "empty directory name"),
        [RUN] = FN("run", take_run),
        [THREADS] = FN("threads", take_threads),
        [IGNORE] = {.name = "ignore-result", .kind = MP_OPT_FLAG,
                    .dest = &o->ignore_result, .once = 1, .value_error = 1},
    };
#undef FN
#undef TEXT
    const mp_opts_spec spec = {
        .cmd = "hazards", .opts = opts, .nopts = NOPT,
        .dashes = MP_OPTS_DASH_ANY,
        .unknown_tail = " (see memprobe hazards --help)",
        .unexpected_tail = " (see memprobe hazards --help)",
        .twice_first = 1};
    int given[NOPT];

    memset(o, 0, sizeof *o);
    o->run = -1;
    o->threads = MP_HZ_MAX_THREADS;
    o->timeout = MP_HZ_DEFAULT_TIMEOUT;
    o->output = MP_HZ_DEFAULT_OUTPUT;
    o->log_dir = MP_HZ_DEFAULT_LOG_DIR;
    for (int t = MP_TOOL_MEMCHECK; t < MP_TOOL_COUNT; t++)
        o->tools[o->ntools++] = t;
    for (int k = 0; k < MP_HZ_COUNT; k++)
        o->run_kernel[k] = 1;

    int rc = mp_opts_read(&spec, argc, argv, given, err, errlen);
    o->timeout_given = given[TIMEOUT] > 0;
    if (rc == MP_OPTS_ERROR)
        return -1;
    if (rc == MP_OPTS_HELP) {
        o->help = 1;
        return 0;
    }

    /* --run is the child mode: only --threads, --ignore-result and
     * --timeout go with it, the first two only with it. */
    for (int k = 0; k < NOPT; k++) {
        int child_opt = k == THREADS || k == IGNORE;
        if (given[k] && k != RUN && k != TIMEOUT
            && child_opt != given[RUN]) {
            mp_reason(err, errlen, "--%s: %s", opts[k].name,
                      child_opt ? "only with --run NAME"
                                : "not with --run (the child mode)");
            return -1;
        }
    }
    return 0;
}

/* ---- finding compute-sanitizer ------------------------------------------ */

static int executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode)
           && access(path, X_OK) == 0;
}

int mp_hazard_find_sanitizer(const char *given, char *path, size_t len)
{
    if (given) {
        if (!executable_file(given))
            return -1;
        snprintf(path, len, "%s", given);
        return 0;
    }
    const char *env = getenv("PATH");
    char *dirs = strdup(env ? env : "");
    if (!dirs)
        return -1;
    int found = 0;
    for (char *d = strtok(dirs, ":"); d && !found; d = strtok(NULL, ":")) {
        snprintf(path, len, "%s/compute-sanitizer", d);
        found = executable_file(path);
    }
    free(dirs);
    const char *cuda = getenv("CUDA_HOME");
    if (!found && cuda && cuda[0]) {
        snprintf(path, len, "%s/bin/compute-sanitizer", cuda);
        found = executable_file(path);
    }
    if (!found) {
        snprintf(path, len, "/usr/local/cuda/bin/compute-sanitizer");
        found = executable_file(path);
    }
    return found ? 0 : -1;
}

/* ---- compute-sanitizer's output ----------------------------------------- */

/* Non-indented tool lines that are not findings. */
static const char *const not_findings[] = {
    "COMPUTE-SANITIZER", "CUDA-MEMCHECK", "ERROR SUMMARY",
    "RACECHECK SUMMARY", "LEAK SUMMARY",
    "Target application returned an error", "No CUDA kernels were launched",
    NULL};

/* Tool lines that say the run itself failed, not the kernel. */
static const char *const tool_failures[] = {
    "Internal Sanitizer Error", "Error: No attachable",
    "Error: Target application terminated", "Error: Could not",
    "Error: Unable", "Error: Failed", "Error: process didn't terminate",
    "Error: Device not supported", NULL};

/* A report's lines after its first that go into the one-line finding. */
static const char *const finding_details[] = {"at ", "and ", "by thread",
                                              NULL};
#define MAX_DETAILS 2

static int starts_with_any(const char *s, const char *const *prefixes)
{
    for (int i = 0; prefixes[i]; i++)
        if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

static int contains_any(const char *s, const char *const *needles)
{
    for (int i = 0; needles[i]; i++)
        if (strstr(s, needles[i]))
            return 1;
    return 0;
}

/* Copies src into dst, cut to fit. */
static void copy_line(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Appends "; text" (or text when dst is empty), truncating. */
static void append_part(char *dst, size_t len, const char *text)
{
    size_t n = strlen(dst);
    if (n + 1 >= len)
        return;
    snprintf(dst + n, len - n, "%s%s", n ? "; " : "", text);
}

/* The integer after the first occurrence of `key` in s, or -1. */
static int number_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    if (!p)
        return -1;
    p += strlen(key);
    while (*p == ' ')
        p++;
    char *end;
    long v = strtol(p, &end, 10);
    return end == p || v < 0 || v > INT_MAX ? -1 : (int)v;
}

/* One line of a log, NUL-terminated, without its line end. */
static void parse_line(const char *line, mp_sanitizer_report *r,
                       int *details)
{
    /* compute-sanitizer's lines start with a run of '=' ("========= "). */
    size_t eq = strspn(line, "=");
    if (eq < 5) {
        *details = -1;
        /* memprobe's own lines: the child's result, or an error. */
        const char *res = strstr(line, ": result ");
        if (!strncmp(line, "memprobe hazards: ", 18) && res) {
            res += strlen(": result ");
            r->result = !strncmp(res, "right", 5) ? 1
                        : !strncmp(res, "wrong", 5) ? 0 : -1;
            const char *g = strstr(res, "got "), *w = strstr(res, "want ");
            r->got = g ? strtod(g + 4, NULL) : NAN;
            r->want = w ? strtod(w + 5, NULL) : NAN;
        } else if (!strncmp(line, "memprobe: ", 10) && !r->failure[0]) {
            copy_line(r->failure, sizeof r->failure, line);
        }
        return;
    }
    const char *body = line + eq;
    if (*body == ' ')
        body++;
    if (*body == ' ' || *body == '\t') {
        /* An indented line continues the report above it. */
        while (*body == ' ' || *body == '\t')
            body++;
        if (*details >= 0 && *details < MAX_DETAILS
            && starts_with_any(body, finding_details)) {
            append_part(r->finding, sizeof r->finding, body);
            ++*details;
        }
        return;
    }
    *details = -1;
    if (!*body)
        return;
    if (!strncmp(body, "ERROR SUMMARY", 13)) {
        int e = number_after(body, ":");
        r->summary = 1;
        if (e > r->errors)
            r->errors = e;
        return;
    }
    if (!strncmp(body, "RACECHECK SUMMARY", 17)) {
        int e = number_after(body, "("), w = number_after(body, ", ");
        r->summary = 1;
        if (e > r->errors)
            r->errors = e;
        if (w > r->warnings)
            r->warnings = w;
        return;
    }
    if (starts_with_any(body, not_findings))
        return;
    if (contains_any(body, tool_failures)) {
        if (!r->failure[0])
            copy_line(r->failure, sizeof r->failure, body);
        return;
    }
    /* Anything else at the left margin starts a report. */
    if (r->findings++ == 0) {
        copy_line(r->finding, sizeof r->finding, body);
        *details = 0;
    }
}

void mp_sanitizer_parse(const char *text, size_t len, mp_sanitizer_report *r)
{
    memset(r, 0, sizeof *r);
    r->result = -1;
    r->got = r->want = NAN;
    char line[2048];
    int details = -1;   /* detail lines taken for the first finding, -1 =
                           not collecting */
    size_t i = 0;
    while (i < len) {
        size_t n = 0;
        while (i < len && text[i] != '\n') {
            if (n + 1 < sizeof line && text[i] != '\r' && text[i] != '\0')
                line[n++] = text[i];
            i++;
        }
        i++;   /* the '\n' */
        line[n] = '\0';
        parse_line(line, r, &details);
    }
}

mp_hazard_outcome mp_hazard_classify(int tool, int status,
                                     const mp_sanitizer_report *r, char *why,
                                     size_t whylen)
{
    mp_reason(why, whylen, "%s", "");
    if (status == MP_SPAWN_TIMEOUT)
        return MP_OUT_TIMEOUT;
    if (tool == MP_TOOL_NONE) {
        /* The plain child exits 0 when right, 1 when wrong, and says so. */
        if (r->result >= 0 && status == (r->result ? 0 : 1))
            return r->result ? MP_OUT_RIGHT : MP_OUT_WRONG;
        if (r->failure[0])
            mp_reason(why, whylen, "exit %d: %s", status, r->failure);
        else if (r->result >= 0)
            mp_reason(why, whylen, "exit %d but the result is %s", status,
                      r->result ? "right" : "wrong");
        else
            mp_reason(why, whylen, "exit %d without a result line", status);
        return MP_OUT_ERROR;
    }
    if (r->findings > 0 || r->errors > 0 || r->warnings > 0
        || status == MP_HZ_ERROR_EXITCODE)
        return MP_OUT_CAUGHT;
    if (status == 0 && r->summary)
        return MP_OUT_NOT_CAUGHT;
    if (status == 127)
        mp_reason(why, whylen, "compute-sanitizer could not be started");
    else if (r->failure[0])
        mp_reason(why, whylen, "exit %d: %s", status, r->failure);
    else
        mp_reason(why, whylen, "exit %d without the tool's summary line",
                  status);
    return MP_OUT_ERROR;
}

const char *mp_hazard_outcome_name(mp_hazard_outcome o)
{
    static const char *const names[] = {"not_caught", "caught", "right",
                                        "wrong", "timeout", "error"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

/* ---- the child: one kernel once ----------------------------------------- */

int mp_hazard_run_child(const mp_hazard_options *o)
{
    mp_device d;
    char why[256];
    /* The table kills a child at --timeout; should that kill miss it (a
     * process that left the group), the child ends itself a little later:
     * SIGALRM's default action ends the process, a hung kernel with it. */
    if (o->timeout_given)
        alarm((unsigned)ceil(o->timeout) + 5);
    if (mp_device_open(0, &d, why, sizeof why)) {
        fprintf(stderr, "memprobe: hazards: %s; nothing run\n", why);
        return MP_EXIT_NOGPU;
    }
    const int n = MP_HZ_ELEMENTS, blocks = MP_HZ_BLOCKS;
    float *ha = mp_xmalloc(n * sizeof *ha), *hb = mp_xmalloc(n * sizeof *hb);
    long long want = 0;
    for (int i = 0; i < n; i++) {
        ha[i] = mp_hazard_a(i);
        hb[i] = mp_hazard_b(i);
        want += (long long)ha[i] * (long long)hb[i];
    }
    float *da, *db, *partials;
    double *total, got = 0;
    CHECK_CUDA(cudaMalloc((void **)&da, n * sizeof *da));
    CHECK_CUDA(cudaMalloc((void **)&db, n * sizeof *db));
    /* The partials are deliberately never written by the host: a partial
     * that no thread writes is then read uninitialised by the finalize
     * kernel, which initcheck reports. */
    CHECK_CUDA(cudaMalloc((void **)&partials, blocks * sizeof *partials));
    CHECK_CUDA(cudaMalloc((void **)&total, sizeof *total));
    CHECK_CUDA(cudaMemcpy(da, ha, n * sizeof *ha, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(db, hb, n * sizeof *hb, cudaMemcpyHostToDevice));
    CHECK_CUDA(mp_hazard_launch(o->run, da, db, n, o->threads, blocks,
                                partials));
    CHECK_CUDA(mp_hazard_finalize(partials, blocks, total));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(partials));
    CHECK_CUDA(cudaFree(total));
    free(ha);
    free(hb);
    /* Every partial is an exact integer below 2^24 and the sum is taken in
     * double, so a right result is exactly equal. */
    int right = got == (double)want;
    printf("memprobe hazards: %s threads %d blocks %d elements %d: result "
           "%s, got %.17g want %lld\n", mp_hazard_defs[o->run].name,
           o->threads, blocks, n, right ? "right" : "wrong", got, want);
    fflush(stdout);
    return right || o->ignore_result ? MP_EXIT_OK : MP_EXIT_FAIL;
}

/* ---- the table ---------------------------------------------------------- */

/* One run of the table. */
typedef struct {
    int status;                 /* exit status or MP_SPAWN_TIMEOUT */
    double seconds;             /* wall time of the run */
    mp_sanitizer_report rep;
    mp_hazard_outcome out;
    char why[512];              /* MP_OUT_ERROR: the reason */
    char log[PATH_MAX];
} run_cell;

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* mkdir -p: 0 when path is a directory at the end, or -1 with errno. */
static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    struct stat st;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return -1;
        if (!c)
            break;
        *p = c;
    }
    if (stat(path, &st))
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The directory part of a file path, created; 0 or -1. */
static int make_parent(const char *file)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", file);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = '\0';
    return make_dirs(buf);
}

/* The whole file (at most 16 MiB of it), malloc'd; NULL if unreadable. */
static char *read_log(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, max = 16u << 20;
    char *buf = mp_xmalloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap >= max)
                break;
            cap *= 2;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Runs one child: the kernel of `row` with `tool`, and classifies it. */
static void run_one(const mp_hazard_options *o, const char *self,
                    const char *sanitizer, const mp_hazard_row *row,
                    int tool, run_cell *c)
{
    const char *name = mp_hazard_defs[row->kernel].name;
    const char *tname = mp_hazard_tool_names[tool];
    char threads[16], code[16], timeout[32];
    snprintf(threads, sizeof threads, "%d", row->threads);
    snprintf(timeout, sizeof timeout, "%g", o->timeout);
    snprintf(code, sizeof code, "%d", MP_HZ_ERROR_EXITCODE);
    char *argv[16];
    int n = 0;
    if (tool != MP_TOOL_NONE) {
        argv[n++] = (char *)sanitizer;
        argv[n++] = "--tool";
        argv[n++] = (char *)tname;
        argv[n++] = "--error-exitcode";
        argv[n++] = code;
    }
    argv[n++] = (char *)self;
    argv[n++] = "hazards";
    argv[n++] = "--run";
    argv[n++] = (char *)name;
    argv[n++] = "--threads";
    argv[n++] = threads;
    argv[n++] = "--timeout";
    argv[n++] = timeout;
    if (tool != MP_TOOL_NONE)
        argv[n++] = "--ignore-result";
    argv[n] = NULL;

    snprintf(c->log, sizeof c->log, "%s/%s-t%d-%s.log", o->log_dir, name,
             row->threads, tname);
    /* The log starts with the command, so that it can be run again. */
    FILE *f = fopen(c->log, "w");
    if (f) {
        fputs("$", f);
        for (int i = 0; argv[i]; i++)
            fprintf(f, " %s", argv[i]);
        fputs("\n", f);
        fclose(f);
    }
    double t0 = wall_seconds();
    c->status = mp_spawn_wait_timeout(argv, c->log, o->timeout);
    c->seconds = wall_seconds() - t0;

    size_t len = 0;
    char *text = read_log(c->log, &len);
    mp_sanitizer_parse(text ? text : "", text ? len : 0, &c->rep);
    free(text);
    c->out = mp_hazard_classify(tool, c->status, &c->rep, c->why,
                                sizeof c->why);
    if (c->out == MP_OUT_CAUGHT && !c->rep.finding[0])
        snprintf(c->rep.finding, sizeof c->rep.finding,
                 "exit %d: the tool counted %d error(s), %d warning(s); no "
                 "report line recognised (see the log)", c->status,
                 c->rep.errors, c->rep.warnings);
}

/* The table cell of a run. */
static const char *cell_word(const run_cell *c)
{
    switch (c->out) {
    case MP_OUT_NOT_CAUGHT: return "not caught";
    case MP_OUT_CAUGHT: return "CAUGHT";
    case MP_OUT_RIGHT: return "right";
    case MP_OUT_WRONG: return "WRONG";
    case MP_OUT_TIMEOUT: return "TIMEOUT";
    case MP_OUT_ERROR: return "error";
    }
    return "?";
}

/* The one line that explains a run, "" when there is nothing to say. */
static void cell_text(const run_cell *c, double timeout, char *buf,
                      size_t len)
{
    switch (c->out) {
    case MP_OUT_CAUGHT:
        snprintf(buf, len, "%s", c->rep.finding);
        break;
    case MP_OUT_WRONG:
        snprintf(buf, len, "result wrong: got %.17g, want %.17g", c->rep.got,
                 c->rep.want);
        break;
    case MP_OUT_TIMEOUT:
        snprintf(buf, len, "no end within %g s: killed (a hang, or a run "
                 "slower than --timeout)", timeout);
        break;
    case MP_OUT_ERROR:
        snprintf(buf, len, "%s", c->why);
        break;
    default:
        buf[0] = '\0';
    }
}

static const char *const csv_header[] = {
    "tool_version", "timestamp", "device_name", "hazard", "threads",
    "blocks", "elements", "tool", "outcome", "finding", "errors", "warnings",
    "result", "got", "want", "exit_status", "seconds", "log"};
#define CSV_COLS ((int)(sizeof csv_header / sizeof csv_header[0]))

static int write_csv_row(mp_csv_writer *w, const char *stamp,
                         const char *device, const mp_hazard_row *row,
                         int tool, const run_cell *c, double timeout)
{
    char threads[16], blocks[16], elements[16], errors[16], warnings[16];
    char got[40] = "", want[40] = "", status[16] = "", seconds[32];
    char text[MP_HZ_FINDING_LEN + 64], err[256];
    snprintf(threads, sizeof threads, "%d", row->threads);
    snprintf(blocks, sizeof blocks, "%d", MP_HZ_BLOCKS);
    snprintf(elements, sizeof elements, "%d", MP_HZ_ELEMENTS);
    snprintf(errors, sizeof errors, "%d", c->rep.errors);
    snprintf(warnings, sizeof warnings, "%d", c->rep.warnings);
    if (c->rep.result >= 0) {
        snprintf(got, sizeof got, "%.17g", c->rep.got);
        snprintf(want, sizeof want, "%.17g", c->rep.want);
    }
    if (c->status != MP_SPAWN_TIMEOUT)
        snprintf(status, sizeof status, "%d", c->status);
    snprintf(seconds, sizeof seconds, "%.3f", c->seconds);
    cell_text(c, timeout, text, sizeof text);
    const char *cells[CSV_COLS] = {
        MP_VERSION, stamp, device, mp_hazard_defs[row->kernel].name, threads,
        blocks, elements, mp_hazard_tool_names[tool],
        mp_hazard_outcome_name(c->out), text,
        tool == MP_TOOL_NONE ? "" : errors,
        tool == MP_TOOL_NONE ? "" : warnings,
        c->rep.result < 0 ? "" : c->rep.result ? "right" : "wrong", got, want,
        status, seconds, c->log};
    if (mp_csv_write_row(w, cells, err, sizeof err)) {
        fprintf(stderr, "memprobe: hazards: %s\n", err);
        return -1;
    }
    return 0;
}

/* What the steps of mp_hazards_table share: its arguments, the CSV, and
 * the runs so far. */
typedef struct {
    const mp_hazard_options *o;
    const char *self, *sanitizer, *device_name;
    FILE *out;          /* the table: stderr when the CSV goes to stdout */
    mp_csv_writer w;
    char stamp[32];     /* when the table started, in every CSV row */
    run_cell *cells;    /* MP_TOOL_COUNT for each of mp_hazard_rows */
    int correct_ok, csv_ok;
} hazard_table;

/* Creates --log-dir and the directory of -o, and opens the CSV in w.
 * 0, or MP_EXIT_USAGE with the reason on stderr. */
static int open_outputs(const mp_hazard_options *o, mp_csv_writer *w)
{
    char err[512];
    if (make_dirs(o->log_dir)) {
        fprintf(stderr, "memprobe: hazards: --log-dir: cannot create %s: "
                "%s\n", o->log_dir, strerror(errno));
        return MP_EXIT_USAGE;
    }
    if (strcmp(o->output, "-") && make_parent(o->output)) {
        fprintf(stderr, "memprobe: hazards: -o: cannot create the directory "
                "of %s: %s\n", o->output, strerror(errno));
        return MP_EXIT_USAGE;
    }
    if (mp_csv_open(w, o->output, csv_header, CSV_COLS, err, sizeof err)) {
        fprintf(stderr, "memprobe: hazards: -o: %s\n", err);
        return MP_EXIT_USAGE;
    }
    return 0;
}

/* The time now in UTC, as 2024-01-31T12:00:00Z. */
static void utc_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Prints what the table measures, the tool command and the column heads. */
static void print_heading(const hazard_table *t)
{
    const mp_hazard_options *o = t->o;
    FILE *out = t->out;
    fprintf(out, "memprobe hazards on %s: dot product of %d floats, %d "
            "blocks; each run limited to %g s\n", t->device_name,
            MP_HZ_ELEMENTS, MP_HZ_BLOCKS, o->timeout);
    if (o->ntools)
        fprintf(out, "tools: %s --tool TOOL --error-exitcode %d\n",
                t->sanitizer, MP_HZ_ERROR_EXITCODE);
    fprintf(out, o->ntools ? "\n%-22s %7s  %-8s" : "\n%-22s %7s  %s",
            "hazard", "threads", "result");
    for (int i = 0; i < o->ntools; i++)
        fprintf(out, i + 1 < o->ntools ? " %-11s" : " %s",
                mp_hazard_tool_names[o->tools[i]]);
    fprintf(out, "\n");
    fflush(out);
}

/* Runs row r of mp_hazard_rows without a tool and under each tool, writes
 * each run's CSV row, and prints the row's line of the table. */
static void run_row(hazard_table *t, int r)
{
    const mp_hazard_options *o = t->o;
    FILE *out = t->out;
    const mp_hazard_row *row = &mp_hazard_rows[r];
    run_cell *rc = &t->cells[r * MP_TOOL_COUNT];
    for (int i = -1; i < o->ntools; i++) {
        int tool = i < 0 ? MP_TOOL_NONE : o->tools[i];
        run_one(o, t->self, t->sanitizer, row, tool, &rc[tool]);
        if (t->csv_ok && write_csv_row(&t->w, t->stamp, t->device_name, row,
                                       tool, &rc[tool], o->timeout))
            t->csv_ok = 0;
        /* The reference must be right and clean everywhere: its result
         * under the tools is checked too. */
        if (row->kernel == MP_HZ_CORRECT
            && (rc[tool].out != (tool == MP_TOOL_NONE ? MP_OUT_RIGHT
                                                      : MP_OUT_NOT_CAUGHT)
                || rc[tool].rep.result != 1))
            t->correct_ok = 0;
    }
    fprintf(out, o->ntools ? "%-22s %7d  %-8s" : "%-22s %7d  %s",
            mp_hazard_defs[row->kernel].name, row->threads,
            cell_word(&rc[MP_TOOL_NONE]));
    for (int i = 0; i < o->ntools; i++)
        fprintf(out, i + 1 < o->ntools ? " %-11s" : " %s",
                cell_word(&rc[o->tools[i]]));
    fprintf(out, "\n");
    fflush(out);
}

/* Prints the line that explains each run with something to say, or
 * "(none)". */
static void print_findings(const hazard_table *t)
{
    const mp_hazard_options *o = t->o;
    FILE *out = t->out;
    fprintf(out, "\nfindings (each tool's first report, wrong results, "
            "timeouts, failures; logs in %s):\n", o->log_dir);
    int nfind = 0;
    for (int r = 0; r < mp_hazard_nrows; r++) {
        const mp_hazard_row *row = &mp_hazard_rows[r];
        if (!o->run_kernel[row->kernel])
            continue;
        for (int i = -1; i < o->ntools; i++) {
            int tool = i < 0 ? MP_TOOL_NONE : o->tools[i];
            char text[MP_HZ_FINDING_LEN + 64];
            cell_text(&t->cells[r * MP_TOOL_COUNT + tool], o->timeout, text,
                      sizeof text);
            if (!text[0])
                continue;
            char where[64];
            snprintf(where, sizeof where, "%s/t%d %s:",
                     mp_hazard_defs[row->kernel].name, row->threads,
                     tool == MP_TOOL_NONE ? "result" : mp_hazard_tool_names[tool]);
            fprintf(out, "  %-38s %s\n", where, text);
            nfind++;
        }
    }
    if (!nfind)
        fprintf(out, "  (none)\n");
}

/* Prints the verdict on the correct kernel and where the CSV is, and
 * closes it. The exit status of the table. */
static int finish_table(hazard_table *t)
{
    const mp_hazard_options *o = t->o;
    if (o->run_kernel[MP_HZ_CORRECT])
        fprintf(t->out, "\ncorrect kernel: %s\n",
                t->correct_ok ? "right, and clean under every tool"
                              : "NOT right and clean under every tool (see "
                                "above)");
    if (strcmp(o->output, "-"))
        fprintf(t->out, "CSV: %s\n", o->output);
    if (mp_csv_close(&t->w))
        t->csv_ok = 0;
    if (!t->csv_ok) {
        fprintf(stderr, "memprobe: hazards: -o: writing %s failed\n",
                o->output);
        return MP_EXIT_FAIL;
    }
    return t->correct_ok ? MP_EXIT_OK : MP_EXIT_FAIL;
}

int mp_hazards_table(const mp_hazard_options *o, const char *self,
                     const char *sanitizer, const char *device_name,
                     FILE *out)
{
    hazard_table t = {.o = o, .self = self, .sanitizer = sanitizer,
                      .device_name = device_name, .out = out,
                      .correct_ok = 1, .csv_ok = 1};
    int rc = open_outputs(o, &t.w);
    if (rc)
        return rc;
    utc_stamp(t.stamp, sizeof t.stamp);
    /* With -o - the CSV goes to stdout: the table goes to stderr then. */
    if (!strcmp(o->output, "-"))
        t.out = stderr;
    print_heading(&t);
    t.cells = mp_xcalloc((size_t)mp_hazard_nrows * MP_TOOL_COUNT,
                         sizeof *t.cells);
    for (int r = 0; r < mp_hazard_nrows; r++)
        if (o->run_kernel[mp_hazard_rows[r].kernel])
            run_row(&t, r);
    print_findings(&t);
    free(t.cells);
    return finish_table(&t);
}

/* ---- the command -------------------------------------------------------- */

/* Prints text in lines of at most width columns, indented. */

/* Whether a GPU is visible, without creating a context in this process
 * (the children create theirs). 0 with its name, or MP_EXIT_NOGPU. */
int mp_hazard_gpu_name(char *name, size_t len, char *why, size_t whylen)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        mp_reason(why, whylen, "no CUDA GPU is visible (%s)",
                  e != cudaSuccess ? cudaGetErrorString(e)
                                   : "device count is 0");
        return MP_EXIT_NOGPU;
    }
    struct cudaDeviceProp p;
    CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
    snprintf(name, len, "%s", p.name);
    return 0;
}
