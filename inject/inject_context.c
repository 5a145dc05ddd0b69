/*
 * inject_context.c - devices and contexts: the SASS metrics of raw.h
 * configured once per device and enabled and disabled per context, a
 * context made current for a few calls, and the launch limit's stop.
 * inject_context.h is the interface.
 */
#include "inject_context.h"

#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject_say.h"

/* The SASS metrics the chip offers, NAME ID DESCRIPTION per line
 * (MEMPROBE_DEBUG). */
static void write_metric_list(const char *chip)
{
    CUpti_SassMetrics_GetNumOfMetrics_Params np = {
        .structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE,
        .pChipName = chip};
    if (!cupti_ok(cuptiSassMetricsGetNumOfMetrics(&np),
                  "cuptiSassMetricsGetNumOfMetrics", QUIET))
        return;
    CUpti_SassMetrics_MetricDetails *list =
        calloc(np.numOfMetrics ? np.numOfMetrics : 1, sizeof *list);
    CUpti_SassMetrics_GetMetrics_Params mp = {
        .structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE,
        .pChipName = chip, .numOfMetrics = np.numOfMetrics,
        .pMetricsList = list};
    char path[4200];
    snprintf(path, sizeof path, "%s/" MP_RAW_SASS_METRICS_FMT, g.dir, g.pid);
    FILE *f = NULL;
    if (list && cupti_ok(cuptiSassMetricsGetMetrics(&mp),
                         "cuptiSassMetricsGetMetrics", QUIET) &&
        (f = fopen(path, "w"))) {
        fprintf(f, "# chip %s: %zu SASS metrics\n", chip, np.numOfMetrics);
        for (size_t i = 0; i < np.numOfMetrics; i++)
            fprintf(f, "%s %llu %s\n", list[i].pMetricName,
                    (unsigned long long)list[i].metricId,
                    list[i].pMetricDescription ? list[i].pMetricDescription
                                               : "");
        fclose(f);
        dbg("%zu SASS metrics of %s in %s", np.numOfMetrics, chip, path);
    }
    free(list);
}

/* Makes ctx the calling thread's current context for a few calls (JAX
 * creates its contexts without making them current, and a context's
 * run may end in a thread where another is current): 1 when it pushed
 * ctx, to be undone by pop_context; 0 when ctx was current already or
 * could not be made so (sev says how loudly). */
int push_context(CUcontext ctx, int sev)
{
    CUcontext cur = NULL;
    if (!ctx || (cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx))
        return 0;
    return cu_ok(cuCtxPushCurrent(ctx), "cuCtxPushCurrent", sev);
}

void pop_context(int pushed)
{
    CUcontext ctx;
    if (pushed)
        cu_ok(cuCtxPopCurrent(&ctx), "cuCtxPopCurrent", WARN);
}

/* The metrics of raw.h configured on device dev, once. 1 when ready. */
int setup_device(int dev)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return 0;
    device_info *d = &g.devs[dev];
    if (d->tried)
        return d->ok;
    d->tried = 1;
    CUpti_Device_GetChipName_Params cp = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = (size_t)dev};
    if (!cupti_ok(cuptiDeviceGetChipName(&cp), "cuptiDeviceGetChipName",
                  FATAL))
        return 0;
    char chip[64];
    snprintf(chip, sizeof chip, "%s", cp.pChipName ? cp.pChipName : "");
    dbg("device %d: chip %s", dev, chip);
    /* The SASS metrics calls answer CUPTI_ERROR_NOT_INITIALIZED until the
     * profiler is initialised (seen on the H200 with CUPTI 13.5); once per
     * process. */
    if (!g.profiler_initialized) {
        CUpti_Profiler_Initialize_Params ip = {
            .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if (!cupti_ok(cuptiProfilerInitialize(&ip), "cuptiProfilerInitialize",
                      FATAL))
            return 0;
        g.profiler_initialized = 1;
    }
    if (g.debug)
        write_metric_list(chip);
    static const char *const names[MP_RAW_NMETRICS] = MP_RAW_METRIC_NAMES;
    CUpti_SassMetrics_Config cfg[MP_RAW_NMETRICS];
    for (int m = 0; m < MP_RAW_NMETRICS; m++) {
        CUpti_SassMetrics_GetProperties_Params pp = {
            .structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE,
            .pChipName = chip, .pMetricName = names[m]};
        char what[160];
        snprintf(what, sizeof what, "SASS metric %s on %s", names[m], chip);
        if (!cupti_ok(cuptiSassMetricsGetProperties(&pp), what, FATAL))
            return 0;
        d->ids[m] = pp.metric.metricId;
        cfg[m] = (CUpti_SassMetrics_Config){
            .metricId = pp.metric.metricId,
            .outputGranularity = (uint8_t)g.granularity};
        dbg("metric %s: id %llu", names[m], (unsigned long long)d->ids[m]);
    }
    CUpti_SassMetricsSetConfig_Params sp = {
        .structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE,
        .numOfMetricConfig = MP_RAW_NMETRICS, .pConfigs = cfg,
        .deviceIndex = (uint32_t)dev};
    if (!cupti_ok(cuptiSassMetricsSetConfig(&sp), "cuptiSassMetricsSetConfig",
                  FATAL))
        return 0;
    d->ok = 1;
    return 1;
}

context_info *find_context(CUcontext ctx)
{
    for (int i = 0; i < g.nctx; i++)
        if (g.ctxs[i].ctx == ctx)
            return &g.ctxs[i];
    return NULL;
}

context_info *add_context(CUcontext ctx)
{
    context_info *c = find_context(ctx);
    if (c)
        return c;
    if (g.nctx == MAX_CONTEXTS) {
        say(MP_RAW_KEY_WARNING, "more than %d CUDA contexts: the others are "
            "not profiled", MAX_CONTEXTS);
        return NULL;
    }
    c = &g.ctxs[g.nctx++];
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    CUdevice dev = -1;
    if (!cu_ok(cuCtxGetDevice_v2(&dev, ctx), "cuCtxGetDevice", FATAL))
        c->failed = 1;
    c->dev = dev;
    return c;
}

context_info *context_of(CUcontext ctx)
{
    context_info *c = find_context(ctx);
    if (!c) {
        c = add_context(ctx);
        if (c && !c->failed && !ir_on())
            setup_device(c->dev);
    }
    return c;
}

const device_info *device_of(const context_info *c)
{
    return &g.devs[c && c->dev >= 0 && c->dev < MAX_DEVICES ? c->dev : 0];
}

/* SASS metrics on for this context (once). */
void enable_context(context_info *c)
{
    if (!c || c->enabled || c->failed || g.stopped)
        return;
    if (!setup_device(c->dev)) {
        c->failed = 1;
        return;
    }
    CUpti_SassMetricsEnable_Params ep = {
        .structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE,
        .ctx = c->ctx, .enableLazyPatching = (uint8_t)g.lazy};
    double t0 = now_s();
    if (cupti_ok(cuptiSassMetricsEnable(&ep), "cuptiSassMetricsEnable", FATAL))
        c->enabled = 1;
    else
        c->failed = 1;
    cost(IC_COST_ENABLE, t0);
    c->paused = 0;
    dbg("SASS metrics %s on context %p (device %d, %s patching)",
        c->enabled ? "enabled" : "NOT enabled", (void *)c->ctx, c->dev,
        g.lazy ? "lazy" : "eager");
}

/* SASS metrics off on a context (its kernels run unpatched). */
void disable_context(context_info *c)
{
    if (!c || !c->enabled)
        return;
    CUpti_SassMetricsDisable_Params dp = {
        .structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE,
        .ctx = c->ctx};
    double t0 = now_s();
    cupti_ok(cuptiSassMetricsDisable(&dp), "cuptiSassMetricsDisable", QUIET);
    cost(IC_COST_DISABLE, t0);
    c->enabled = 0;
}

/* The launch limit is reached: SASS metrics off, no more syncs. */
void stop_all(void)
{
    g.stopped = 1;
    ir_end_batch(NULL, "launch count reached");
    for (int i = 0; i < g.nctx; i++)
        disable_context(&g.ctxs[i]);
    dbg("launch count reached: SASS metrics disabled");
}
