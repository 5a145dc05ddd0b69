/*
 * inject_launch.c - kernel and graph launches: at a launch call's entry
 * it is described (kernel, shape, stream, NVTX stack) and decided
 * (filters, --per-kernel), ending the batch first when it differs; at its
 * exit it is counted and queued in the batch, a graph launch flushed at
 * once, or in the range pass handed to inject_range.c.
 * inject_launch.h is the interface.
 */
#include "inject_launch.h"

#include <cuda.h>
#include <cupti_driver_cbid.h>

#include <stdio.h>
#include <string.h>

#include "inject_context.h"
#include "inject_flush.h"
#include "inject_module.h"
#include "inject_nvtx.h"
#include "inject_say.h"
#include "inject_state.h"
#include "inject_switch.h"
#include "inject_write.h"

/* The parameter blocks CUPTI hands over for the launch calls, as laid out
 * in CUPTI's generated_cuda_meta.h (which does not compile as C against
 * the 13.0 cuda.h, so its three layouts are restated here). */
typedef struct { /* cuLaunchKernel, cuLaunchCooperativeKernel, _ptsz */
    CUfunction f;
    unsigned grid[3], block[3], shared;
    CUstream stream;
} launch_params;
typedef struct { /* cuLaunchKernelEx, _ptsz */
    const CUlaunchConfig *config;
    CUfunction f;
} launch_ex_params;
typedef struct { /* cuGraphLaunch, _ptsz */
    CUgraphExec exec;
    CUstream stream;
} graph_launch_params;

/* The launch being made on this thread: described and decided at the
 * launch call's entry, counted at its exit. */
static _Thread_local struct {
    int valid, capture;
    size_t pk;      /* its g.kernels entry + 1; 0: none */
    double t_call;  /* when the library's entry work ended (0: not timed) */
    int t_off;      /* SASS metrics were off on its context then */
    int pk_profile; /* the decision counted there */
    launch_key key;
    launch_desc ld;
} cur;

static int describe_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb,
                           launch_desc *ld)
{
    memset(ld, 0, sizeof *ld);
    ld->name = cb->symbolName;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        ld->ptsz = 1;
        /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
        const launch_params *p = cb->functionParams;
        memcpy(ld->grid, p->grid, sizeof ld->grid);
        memcpy(ld->block, p->block, sizeof ld->block);
        ld->shared = p->shared;
        ld->stream = p->stream;
        if (!ld->name)
            ld->name = function_name(p->f, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        ld->ptsz = 1;
        /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
        const launch_ex_params *p = cb->functionParams;
        const CUlaunchConfig *c = p->config;
        if (c) {
            ld->grid[0] = c->gridDimX;
            ld->grid[1] = c->gridDimY;
            ld->grid[2] = c->gridDimZ;
            ld->block[0] = c->blockDimX;
            ld->block[1] = c->blockDimY;
            ld->block[2] = c->blockDimZ;
            ld->shared = c->sharedMemBytes;
            ld->stream = c->hStream;
        }
        if (!ld->name)
            ld->name = function_name(p->f, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        ld->ptsz = 1;
        /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch: {
        const graph_launch_params *p = cb->functionParams;
        ld->stream = p->stream;
        ld->exec = p->exec;
        ld->graph = 1;
        ld->name = NULL;
        return 1;
    }
    default:
        return 0;
    }
}

/* At a launch call's entry: describe and decide it; end the run when it
 * differs (before its kernel is queued behind the run's). */
void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    cur.valid = 0;
    cur.pk = 0;
    cur.t_call = 0;
    if (!describe_launch(cbid, cb, &cur.ld))
        return;
    launch_desc *ld = &cur.ld;
    CUstream stream = ld->stream;
    if (!stream && ld->ptsz)
        stream = CU_STREAM_PER_THREAD;
    CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
    cu_ok(cuStreamGetCaptureInfo(stream, &cap, NULL, NULL, NULL, NULL, NULL),
          "cuStreamGetCaptureInfo", QUIET);
    cur.valid = 1;
    cur.capture = cap != CU_STREAM_CAPTURE_STATUS_NONE;
    if (cur.capture)
        return;   /* nothing runs now: never synchronise in a capture */
    launch_key *k = &cur.key;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", ld->name ? ld->name : "");
    memcpy(k->grid, ld->grid, sizeof k->grid);
    memcpy(k->block, ld->block, sizeof k->block);
    k->shared = ld->shared;
    cu_ok(cuStreamGetId(stream, &k->sid), "cuStreamGetId", QUIET);
    const char *names[NVTX_DEPTH];
    size_t depth = nvtx_stack(names, k->nvtx, sizeof k->nvtx);
    k->profile = !g.stopped
                 && ic_filter_decide(&g.filter, ld->name, names, depth);
    per_kernel_decide(ld, k, &cur.pk, &cur.pk_profile);
    if (ir_on()) {   /* the range pass: no runs, no SASS records */
        context_info *c = context_of(cb->context);
        ir_before_launch(cb->context, c ? c->dev : 0,
                         k->profile && ir_wants(ld->name), ld->graph);
        return;
    }
    if (batch_ends_before(k, cb->context, ld->graph))
        end_run(1, NULL);
    context_info *c = find_context(cb->context);
    if (k->profile)
        per_kernel_resume(c);
    cur.t_off = !c || !c->enabled;
    cur.t_call = now_s();
}

void on_launch_exit(const CUpti_CallbackData *cb)
{
    if (!cur.valid)
        return;
    cur.valid = 0;
    if (cur.t_call > 0)   /* the driver's and CUPTI's time in the call */
        cost(cur.t_off ? IC_COST_LAUNCH_OFF : IC_COST_LAUNCH, cur.t_call);
    const launch_desc *ld = &cur.ld;
    const CUresult *ret = cb->functionReturnValue;
    if (ret && *ret != CUDA_SUCCESS) {
        dbg("%s returned %d: not counted", cb->functionName, (int)*ret);
        per_kernel_count(cur.pk, cur.pk_profile, 0);
        cur.pk = 0;
        return;
    }
    per_kernel_count(cur.pk, cur.pk_profile, 1);
    cur.pk = 0;
    if (cur.capture) {
        dbg("%s %s during stream capture: recorded when the graph runs",
            cb->functionName, ld->name ? ld->name : "");
        return;
    }
    const launch_key *k = &cur.key;
    uint64_t launch = g.status.seen++;
    g.since_write++;
    if (k->profile)
        g.status.profiled++;
    dbg("launch %llu: %s %s grid %u,%u,%u block %u,%u,%u shared %u "
        "stream %llu nvtx '%s': %s", (unsigned long long)launch,
        cb->functionName, ld->name ? ld->name : "(graph)", ld->grid[0],
        ld->grid[1], ld->grid[2], ld->block[0], ld->block[1], ld->block[2],
        ld->shared, k->sid, k->nvtx, k->profile ? "profiled"
        : "filtered out");
    if (ir_on()) {
        if (!ld->graph) {
            ir_launch il = {.mangled = ld->name};
            memcpy(il.grid, ld->grid, sizeof il.grid);
            memcpy(il.block, ld->block, sizeof il.block);
            ir_after_launch(cb->context, launch,
                            k->profile && ir_wants(ld->name), &il);
        }
    } else if (ld->graph) {
        graph_launch(cb, launch, k);
    } else {
        batch_add(k, cb->context, launch);
    }
    if (ic_filter_done(&g.filter)) {
        end_run(1, NULL);
        stop_all();
    }
    per_kernel_pause();
    maybe_write();
}

/* 1 while this thread is inside a launch call described at its entry (the
 * range pass decodes no batch there: kernel replay may call back). */
int launch_in_call(void)
{
    return cur.valid;
}
