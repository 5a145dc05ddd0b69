/*
 * inject.c - libmemprobe_inject.so: the CUPTI glue of `memprobe profile`;
 * this file is its entry (InitializeInjection), its subscription and the
 * dispatch of CUPTI's callbacks to the files that handle them.
 *
 * The CUDA driver loads this library into the profiled program
 * (CUDA_INJECTION64_PATH) and calls InitializeInjection at the program's
 * first CUDA call. From then on CUPTI callbacks
 *   - resource: context created (SASS metrics configured for its device
 *     and enabled: inject_context.c), module loaded (its cubin kept,
 *     keyed by CRC, and where it came from: the object holding its image,
 *     the file loaded, or the first caller outside the CUDA stack;
 *     inject_module.c), graph node created (a kernel node's function and
 *     shape remembered);
 *   - driver API: every kernel launch and graph launch, at its exit:
 *     filters, synchronise, flush the SASS metric records, attribute them
 *     to this launch, add them to the per-instruction table
 *     (inject_launch.c, inject_switch.c, inject_flush.c,
 *     inject_records.c); the calls that load a module from memory or a
 *     file (their image or file remembered while they run);
 *   - NVTX: push and pop of ranges, kept on a per-thread stack
 *     (inject_nvtx.c);
 * and the raw files of inject/raw.h are written every N launches or T
 * seconds, at NVTX range ends (inject_write.c), at exit and from fatal
 * signals (inject_exit.c). inject_start.c reads the settings,
 * inject_say.c says what happens, inject_state.h holds the state they
 * share; the files call one another downwards only, in the order of
 * tests/test_layering.c. docs/profile-design.md ("The injection
 * library") says how and why.
 *
 * Only libc, libcuda and CUPTI (component headers only: the wheel's
 * cupti.h does not compile against the 13.0 runtime headers). Every CUDA
 * and CUPTI return code goes through note_failure (cu_ok / cupti_ok,
 * inject_say.c): a failure is said in status.PID, never fatal to the
 * program.
 */
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_nvtx_cbid.h>
#include <cupti_result.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject_context.h"
#include "inject_exit.h"
#include "inject_flush.h"
#include "inject_launch.h"
#include "inject_module.h"
#include "inject_nvtx.h"
#include "inject_say.h"
#include "inject_start.h"
#include "inject_state.h"

/* A resource callback: contexts, modules, graph nodes. */
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

/* A driver API callback: a module load call, a synchronising call, a
 * stream capture's start (range pass) or a launch, entry or exit. */
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

/* CUPTI's one callback: under the lock, to the domain's handler (not
 * for the range pass's own calls). */
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

/* ---- subscription --------------------------------------------------- */

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

/* Reads the settings (inject_start.c) and subscribes to CUPTI; 1 when
 * profiling, 0 when not (said why). */
static int start(void)
{
    return start_settings() && start_subscribe();
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
        exit_install();
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
