/*
 * inject_start.c - the library's start before it subscribes, in steps:
 * the debug switch and the raw folder, CUPTI's version and the process
 * ids said, the settings from the environment (when to write, batches,
 * granularity, patching, --per-kernel), the pass and the filters, and
 * what module origins need. inject_start.h is the interface.
 */
#include "inject_start.h"

#include <cupti_sass_metrics.h>
#include <cupti_version.h>

#include <execinfo.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject_flush.h"
#include "inject_say.h"
#include "inject_state.h"

/* Debugging knobs (docs/profile-design.md): where SASS metrics are
 * enabled ("context" at context creation, "launch" at a context's first
 * launch) and lazy patching (1, default) or eager (0). */
#define ENV_ENABLE_AT "MEMPROBE_ENABLE_AT"
#define ENV_LAZY "MEMPROBE_LAZY_PATCHING"
/* And for finding where the time goes (docs/profile-design.md): the
 * most runs a flush may wait for (1-64; default BATCH_RUNS_DEFAULT, 32;
 * 1 is a flush per run) and CUPTI's output granularity (gpu, the
 * default; sm or smsp cost more and their sums differ). */
#define ENV_BATCH_RUNS "MEMPROBE_BATCH_RUNS"
#define ENV_GRANULARITY "MEMPROBE_SASS_GRANULARITY"

/* A whole number from the environment, or def; -1 when malformed. */
static int env_u64(const char *name, uint64_t def, uint64_t *out)
{
    const char *s = getenv(name);
    *out = def;
    if (!s || !*s)
        return 0;
    if (ic_parse_u64(s, out)) {
        say(MP_RAW_KEY_ERROR, "%s '%s' is not a whole number", name, s);
        return -1;
    }
    return 0;
}

/* start, step 1: the debug switch and the raw directory from the
 * environment, and the run's clocks and tables; 0 (not profiling) when the
 * directory is unset or too long. */
static int start_raw_dir(void)
{
    g.t_start = now_s();
    const char *dbgenv = getenv(MP_ENV_DEBUG);
    g.debug = dbgenv && *dbgenv && strcmp(dbgenv, "0") != 0;
    const char *dir = getenv(MP_ENV_RAW_DIR);
    if (!dir || !*dir) {
        fprintf(stderr, "memprobe-inject: " MP_ENV_RAW_DIR " is not set: "
                "not profiling\n");
        return 0;
    }
    if (strlen(dir) >= sizeof g.dir) {
        fprintf(stderr, "memprobe-inject: " MP_ENV_RAW_DIR " is too long: "
                "not profiling\n");
        return 0;
    }
    snprintf(g.dir, sizeof g.dir, "%s", dir);
    g.pid = (long)getpid();
    ic_lines_init(&g.lines);
    ic_launches_init(&g.rows);
    g.last_write = now_s();
    return 1;
}

/* start, step 2: says CUPTI's version, the process ids and this process's
 * ordinal among the profiled processes. */
static void start_say_process(void)
{
    uint32_t v = 0;
    if (cupti_ok(cuptiGetVersion(&v), "cuptiGetVersion", WARN))
        g.cupti_version = v;
    say(MP_RAW_KEY_CUPTI_VERSION, "%u", g.cupti_version);
    say(MP_RAW_KEY_PID, "%ld", g.pid);
    say(MP_RAW_KEY_PPID, "%ld", (long)getppid());
    g.ordinal = ic_claim_ordinal(g.dir, g.pid, 65536);
    say(MP_RAW_KEY_ORDINAL, "%d", g.ordinal);
}

/* start, step 3: when to write (launches, seconds), lazy patching and when
 * to enable CUPTI, from the environment; 0 on a malformed value. */
static int start_read_settings(void)
{
    uint64_t secs, lazy, per_kernel;
    if (env_u64(MP_ENV_FLUSH_LAUNCHES, MP_FLUSH_LAUNCHES_DEFAULT,
                &g.flush_launches) ||
        env_u64(MP_ENV_FLUSH_SECONDS, MP_FLUSH_SECONDS_DEFAULT, &secs) ||
        env_u64(ENV_LAZY, 1, &lazy) ||
        env_u64(MP_ENV_PER_KERNEL, 0, &per_kernel))
        return 0;
    ic_kernels_init(&g.kernels, per_kernel);
    if (!g.flush_launches)
        g.flush_launches = 1;
    uint64_t runs;
    if (env_u64(ENV_BATCH_RUNS, BATCH_RUNS_DEFAULT, &runs))
        return 0;
    if (runs < 1 || runs > BATCH_MAX) {
        say(MP_RAW_KEY_ERROR, "%s %llu is out of range (1-%d)",
            ENV_BATCH_RUNS, (unsigned long long)runs, BATCH_MAX);
        return 0;
    }
    g.batch_runs = (int)runs;
    const char *gr = getenv(ENV_GRANULARITY);
    g.granularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    if (gr && !strcmp(gr, "sm"))
        g.granularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SM;
    else if (gr && !strcmp(gr, "smsp"))
        g.granularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SMSP;
    else if (gr && *gr && strcmp(gr, "gpu")) {
        say(MP_RAW_KEY_ERROR, "%s '%s' is not gpu, sm or smsp",
            ENV_GRANULARITY, gr);
        return 0;
    }
    g.flush_seconds = (double)secs;
    g.lazy = lazy != 0;
    /* CUPTI 13.0 gave records only when enabled inside a launch; 13.5
     * at context creation too (docs/profile-design.md) */
    const char *at = getenv(ENV_ENABLE_AT);
    g.enable_at_launch = at && *at ? strcmp(at, "launch") == 0
                                   : g.cupti_version < 130500;
    return 1;
}

/* start, step 4: the range pass, the test hook that drops SASS records and
 * the kernel filter; 0 with the error said. */
static int start_pass_and_filter(void)
{
    char err[512];
    const ir_glue glue = {.cupti_ok = cupti_ok, .cu_ok = cu_ok,
                          .vsay = vsay, .vdbg = vdbg,
                          .now = now_s, .dir = g.dir, .pid = g.pid};
    if (ir_init(getenv(MP_ENV_PASS), getenv(MP_ENV_RANGE_KERNEL),
                getenv(MP_ENV_RANGE_GROUP), &glue, err,
                sizeof err)) {
        say(MP_RAW_KEY_ERROR, "%s", err);
        return 0;
    }
    say(MP_RAW_KEY_PASS, "%s", ir_on() ? MP_PASS_RANGE : MP_PASS_SASS);
    const char *hook = getenv(MP_ENV_NO_SASS);
    if (hook && *hook && !ir_on()) {
        if (regcomp(&g.no_sass, hook, REG_EXTENDED | REG_NOSUB)) {
            say(MP_RAW_KEY_ERROR, MP_ENV_NO_SASS " '%.200s' is not a POSIX "
                "extended regular expression", hook);
            return 0;
        }
        g.has_no_sass = 1;
        say(MP_RAW_KEY_WARNING, "test hook " MP_ENV_NO_SASS "='%.200s': "
            "those kernels' SASS records are dropped", hook);
    }
    if (ic_filter_init(&g.filter, getenv(MP_ENV_KERNEL),
                       getenv(MP_ENV_NVTX_INCLUDE),
                       getenv(MP_ENV_LAUNCH_SKIP),
                       getenv(MP_ENV_LAUNCH_COUNT), err, sizeof err)) {
        say(MP_RAW_KEY_ERROR, "%s", err);
        return 0;
    }
    return 1;
}

/* start, step 5: what module origins need: the executable's path
 * (dladdr names it by argv[0]), and backtrace's unwinder loaded now: its
 * first call loads libgcc_s, not a thing to do inside a driver call. */
static void start_origins(void)
{
    ssize_t n = readlink("/proc/self/exe", g.exe, sizeof g.exe - 1);
    g.exe[n > 0 ? n : 0] = '\0';
    void *frame[1];
    backtrace(frame, 1);
    ic_modules_init(&g.modules);
}

/* Reads the settings in the steps above; 1 when profiling, 0 when not
 * (said why). */
int start_settings(void)
{
    if (!start_raw_dir())
        return 0;
    start_say_process();
    if (!start_read_settings() || !start_pass_and_filter())
        return 0;
    start_origins();
    dbg("raw dir %s, CUPTI %u, enable at %s, %s patching, write every "
        "%llu launches or %.0f s, flush after up to %d runs, granularity "
        "%d", g.dir, g.cupti_version,
        g.enable_at_launch ? "launch" : "context", g.lazy ? "lazy" : "eager",
        (unsigned long long)g.flush_launches, g.flush_seconds, g.batch_runs,
        g.granularity);
    return 1;
}
