/*
 * inject.c - libmemprobe_inject.so: the CUPTI glue of `memprobe profile`.
 *
 * The CUDA driver loads this library into the profiled program
 * (CUDA_INJECTION64_PATH) and calls InitializeInjection at the program's
 * first CUDA call. From then on CUPTI callbacks
 *   - resource: context created (SASS metrics configured for its device
 *     and enabled), module loaded (its cubin kept, keyed by CRC, and
 *     where it came from: the object holding its image, the file loaded,
 *     or the first caller outside the CUDA stack), graph node created (a
 *     kernel node's function and shape remembered);
 *   - driver API: every kernel launch and graph launch, at its exit:
 *     filters, synchronise, flush the SASS metric records, attribute them
 *     to this launch, add them to the per-instruction table; the calls
 *     that load a module from memory or a file (their image or file
 *     remembered while they run);
 *   - NVTX: push and pop of ranges, kept on a per-thread stack;
 * and the raw files of inject/raw.h are written every N launches or T
 * seconds, at NVTX range ends, at exit and from fatal signals.
 * docs/profile-design.md ("The injection library") says how and why.
 *
 * Only libc, libcuda and CUPTI (component headers only: the wheel's
 * cupti.h does not compile against the 13.0 runtime headers). Every CUDA
 * and CUPTI return code goes through note_failure (cu_ok / cupti_ok): a
 * failure is said in status.PID, never fatal to the program.
 */
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_nvtx_cbid.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "inject_core.h"
#include "inject_range.h"
#include "raw.h"
#include "inject_context.h"
#include "inject_flush.h"
#include "inject_launch.h"
#include "inject_module.h"
#include "inject_nvtx.h"
#include "inject_records.h"
#include "inject_say.h"
#include "inject_state.h"
#include "inject_switch.h"
#include "inject_write.h"

/* Debugging knobs (docs/profile-design.md): where SASS metrics are
 * enabled ("context" at context creation, "launch" at a context's first
 * launch) and lazy patching (1, default) or eager (0). */
#define ENV_ENABLE_AT "MEMPROBE_ENABLE_AT"
#define ENV_LAZY "MEMPROBE_LAZY_PATCHING"
/* And for finding where the time goes (docs/profile-design.md): the
 * most runs a flush may wait for (1-64; default 1, a flush per run) and
 * CUPTI's output granularity (gpu, the default; sm or smsp cost more and
 * their sums differ). */
#define ENV_BATCH_RUNS "MEMPROBE_BATCH_RUNS"
#define ENV_GRANULARITY "MEMPROBE_SASS_GRANULARITY"

static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGSEGV, SIGABRT};
static struct sigaction old_actions[4];

static void at_exit(void)
{
    if (!g.on)
        return;
    if (pthread_mutex_trylock(&g_lock) == 0) {
        tl_locked++;
        end_run_at_exit();
        ir_abandon();
        write_all("exit");
        g.on = 0;
        unlock();
    } else {
        write_status("exit"); /* another thread is inside a callback */
    }
}

static void on_signal(int sig)
{
    int i = 0;
    while (i < 3 && fatal_sigs[i] != sig)
        i++;
    if (g.on) {
        char end[32] = "signal ";
        char d[12];
        int n = 0, s = sig;
        do {
            d[n++] = (char)('0' + s % 10);
            s /= 10;
        } while (s);
        size_t len = strlen(end);
        while (n)
            end[len++] = d[--n];
        end[len] = '\0';
        /* the tables only when no thread is changing them */
        if (!tl_locked && pthread_mutex_trylock(&g_lock) == 0) {
            end_run(0, "a signal ended the program before this run of "
                       "launches was flushed");
            if (!ir_on()) {
                ic_write_launches(g.dir, g.pid, &g.rows);
                ic_write_lines(g.dir, g.pid, &g.lines);
                ic_write_modules(g.dir, g.pid, &g.modules);
            }
            ic_write_status(g.dir, g.pid, &g.status, end);
            pthread_mutex_unlock(&g_lock);
        } else {
            ic_write_status(g.dir, g.pid, &g.status, end);
        }
        /* the program's own handler may let it live on: then it goes on
         * being profiled and writes again at exit */
        if (old_actions[i].sa_handler == SIG_DFL)
            g.on = 0;
    }
    sigaction(sig, &old_actions[i], NULL);
    raise(sig);
}

static void in_child(void)
{
    /* a forked child without exec cannot use CUDA: it writes nothing */
    g.on = 0;
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: {
        context_info *c = add_context(rd->context);
        dbg("context %p created (device %d)", (void *)rd->context,
            c ? c->dev : -1);
        if (c && !c->failed && !ir_on()) {   /* no SASS in the range pass */
            int pushed = push_context(rd->context, WARN);
            setup_device(c->dev);
            if (!g.enable_at_launch)
                enable_context(c);
            pop_context(pushed);
        }
        break;
    }
    case CUPTI_CBID_RESOURCE_MODULE_LOADED:
        on_module_loaded(rd->resourceDescriptor);
        break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        on_graph_node(rd->resourceDescriptor);
        break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
        end_run(1, NULL);   /* the run's records, while they can be read */
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
            ir_context_gone(rd->context);
        break;
    default:
        break;
    }
}

/* The program's own synchronising calls (and context teardown) end the
 * run: its launches are flushed before the program reads their results
 * or ends. */
static const CUpti_CallbackId sync_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
    CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload,
};

/* Is cbid one of ids (n)? */
static int cbid_in(const CUpti_CallbackId *ids, size_t n, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == cbid)
            return 1;
    return 0;
}

/* The calls that load a module from memory or from a file: a module that
 * loads inside one comes from its image or file (on_load_call). */
static const CUpti_CallbackId load_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoad,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile,
};

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cbid_in(load_cbids, sizeof load_cbids / sizeof *load_cbids, cbid)) {
        on_load_call(cbid, cb);
        return;
    }
    if (cbid_in(sync_cbids, sizeof sync_cbids / sizeof *sync_cbids, cbid)) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            end_run(1, NULL);
            /* the range pass: the batch is decoded before the program
             * reads results or ends (never inside a launch call of this
             * thread: kernel replay may make such calls itself) */
            if (!launch_in_call())
                ir_end_batch(cb->context, cb->functionName);
        }
        return;
    }
    /* subscribed in the range pass only */
    if (cbid_in(ir_capture_cbids, ir_ncapture_cbids, cbid)) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            ir_end_batch(cb->context, cb->functionName);
        return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
        /* "launch" mode: SASS metrics on at a context's first launch */
        if (g.enable_at_launch && !g.stopped && !ir_on()) {
            context_info *c = add_context(cb->context);
            if (c && !c->paused)
                enable_context(c);
        }
        on_launch_enter(cbid, cb);
        return;
    }
    on_launch_exit(cb);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (ir_own_call())
        return;
    lock();
    if (g.on) {
        if (domain == CUPTI_CB_DOMAIN_RESOURCE)
            on_resource(cbid, data);
        else if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
            on_driver(cbid, data);
        else if (domain == CUPTI_CB_DOMAIN_NVTX)
            on_nvtx(cbid, data);
    }
    unlock();
}

/* ---- start ---------------------------------------------------------- */

static const CUpti_CallbackId launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
static const CUpti_CallbackId resource_cbids[] = {
    CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
    CUPTI_CBID_RESOURCE_MODULE_LOADED,
    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
    CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
};
static const CUpti_CallbackId nvtx_cbids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,       CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx,      CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringW,
};

static int enable_callbacks(CUpti_CallbackDomain domain,
                            const CUpti_CallbackId *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char what[96];
        snprintf(what, sizeof what, "cuptiEnableCallback(domain %d, id %u)",
                 (int)domain, ids[i]);
        if (!cupti_ok(cuptiEnableCallback(1, g.sub, domain, ids[i]), what,
                      FATAL))
            return 0;
    }
    return 1;
}

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

/* start, step 6: subscribes to CUPTI, alone: a second subscriber beside
 * it (torch.profiler's Kineto, measured on the H200) left the kernels
 * launched in its session unpatched, without counts; the program's own
 * client is refused and told so (inject/client.c). 0 when refused. */
static int start_subscribe(void)
{
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    CUpti_SubscriberParams sp = {
        .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
        .subscriberName = "memprobe", .oldSubscriberName = old,
        .oldSubscriberSize = sizeof old - 1};
    CUptiResult r = cuptiSubscribe_v2(&g.sub, on_callback, NULL, &sp);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        say(MP_RAW_KEY_ERROR, "cuptiSubscribe refused: another profiler is "
            "attached (%s)", old[0] ? old : "ncu, nsys, cuda-gdb or "
            "compute-sanitizer?");
        return 0;
    }
    if (!cupti_ok(r, "cuptiSubscribe", FATAL))
        return 0;
    if (!enable_callbacks(CUPTI_CB_DOMAIN_RESOURCE, resource_cbids,
                          sizeof resource_cbids / sizeof resource_cbids[0]) ||
        !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, launch_cbids,
                          sizeof launch_cbids / sizeof launch_cbids[0]) ||
        !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, sync_cbids,
                          sizeof sync_cbids / sizeof sync_cbids[0]) ||
        !enable_callbacks(CUPTI_CB_DOMAIN_NVTX, nvtx_cbids,
                          sizeof nvtx_cbids / sizeof nvtx_cbids[0]) ||
        (!ir_on() &&
         !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, load_cbids,
                           sizeof load_cbids / sizeof load_cbids[0])) ||
        (ir_on() &&
         !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, ir_capture_cbids,
                           ir_ncapture_cbids))) {
        cupti_ok(cuptiUnsubscribe(g.sub), "cuptiUnsubscribe", QUIET);
        return 0;
    }
    return 1;
}

/* Reads the settings and subscribes to CUPTI, in the steps above; 1 when
 * profiling, 0 when not (said why). */
static int start(void)
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
    return start_subscribe();
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int called;
    if (called)
        return 1;
    called = 1;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    /* CUPTI may call back (a module loaded) inside our own calls */
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_lock, &a);
    pthread_mutexattr_destroy(&a);

    lock();
    int ok = start();
    if (ok) {
        g.on = 1;
        atexit(at_exit);
        pthread_atfork(NULL, NULL, in_child);
        for (int i = 0; i < 4; i++) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            if (sigaction(fatal_sigs[i], NULL, &old_actions[i]) == 0 &&
                old_actions[i].sa_handler != SIG_IGN)
                sigaction(fatal_sigs[i], &sa, NULL);
        }
    }
    write_status("flush");
    unlock();
    return 1;
}

/* NVTX's first call in the process loads NVTX_INJECTION64_PATH (this
 * library, from memprobe profile) and calls this: memprobe subscribes
 * now, not at the first CUDA call, so the strings a program registers and
 * the ranges it pushes before it touches CUDA are seen (Thrust's sort
 * test registers its range names first thing in main); then CUPTI's own
 * NVTX entry (MEMPROBE_NVTX_CUPTI) takes NVTX's calls and hands them to
 * the subscriber. 0 (NVTX then calls no tool) when that entry is missing. */
__attribute__((visibility("default"))) int
InitializeInjectionNvtx2(void *get_export_table)
{
    InitializeInjection();
    const char *path = getenv(MP_ENV_NVTX_CUPTI);
    void *h = path && *path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    int (*next)(void *) = NULL;
    void *sym = h ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
    memcpy(&next, &sym, sizeof next);
    if (!next) {
        fprintf(stderr, "memprobe-inject: no NVTX ranges: %s%s has no "
                "InitializeInjectionNvtx2\n", MP_ENV_NVTX_CUPTI "=",
                path ? path : "(unset)");
        return 0;
    }
    dbg("NVTX: started before the first CUDA call; NVTX's calls handed "
        "to CUPTI's NVTX entry in %s", path);
    return next(get_export_table);
}
