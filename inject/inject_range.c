/*
 * inject_range.c - `--level kernel+`: per-launch L1 and L2 hit rates and
 * DRAM bytes (inject/raw.h, MP_RAW_RANGE_NAMES) through CUPTI's range
 * profiler (cupti_range_profiler.h, target) and the profiler host API
 * (cupti_profiler_host.h: metric check, config image, pass count,
 * evaluation). inject_range.h is the interface; docs/profile-design.md,
 * "--level kernel+", the design.
 *
 * In short: per context, at its first profiled launch, the metrics that
 * together need ONE replay pass are chosen (kernel replay runs the
 * SASS-patched kernel once per pass, so a second pass would count every
 * per-line count twice: a metric that needs more is left out, and a
 * `warning` names it); the profiler is enabled with auto range and kernel
 * replay, a counter-data image of IR_BATCH ranges; the session starts
 * before that launch and runs on; each launch while it runs is one range
 * (filtered-out launches too: their values are dropped). The batch is
 * stopped, decoded and evaluated when it is full, at the program's
 * synchronising calls, before a graph launch or a stream capture, when
 * the context goes, and when the launch count is reached; the number of
 * ranges must equal the launches of the batch, else none is attributed
 * (CUPTI drops surplus ranges silently). Any failed call turns kernel+
 * off for that context with a `warning`; the default columns go on.
 */
#include "inject_range.h"

#include <cupti_driver_cbid.h>
#include <cupti_profiler_host.h> /* needs shim/string (Makefile: -Ishim) */
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RCTX = 64 };

typedef struct {
    uint64_t launch;
    int profiled;
} range_slot;

typedef struct {
    CUcontext ctx;
    int tried, ready, started, off;
    char chip[64];
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *obj;
    uint8_t *config, *data;
    size_t config_size, data_size;
    const char *names[MP_RAW_NRANGE]; /* the metrics measured */
    int col[MP_RAW_NRANGE];           /* their column (raw.h order) */
    size_t n;
    size_t batches;                   /* batches started */
    range_slot slot[IR_BATCH];
    size_t nslot;
} range_ctx;

static struct {
    int on;
    range_ctx ctx[MAX_RCTX];
    int nctx;
} R;

static const char *const range_names[MP_RAW_NRANGE] = MP_RAW_RANGE_NAMES;
static ir_glue G;

static int inj_cupti_ok(CUptiResult r, const char *what, int sev)
{
    return G.cupti_ok(r, what, sev);
}

__attribute__((format(printf, 2, 3)))
static void inj_say(const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    G.vsay(key, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 1, 2)))
static void inj_dbg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    G.vdbg(fmt, ap);
    va_end(ap);
}

static double inj_now(void)
{
    return G.now();
}

const uint32_t ir_capture_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
};
const size_t ir_ncapture_cbids =
    sizeof ir_capture_cbids / sizeof ir_capture_cbids[0];

int ir_init(const char *level, const ir_glue *glue, char *err,
            size_t errlen)
{
    R.on = 0;
    G = *glue;
    if (!level || !*level || !strcmp(level, MP_LEVEL_KERNEL))
        return 0;
    if (!strcmp(level, MP_LEVEL_KERNEL_PLUS)) {
        R.on = 1;
        return 0;
    }
    snprintf(err, errlen, MP_ENV_LEVEL " '%s' is not " MP_LEVEL_KERNEL
             " or " MP_LEVEL_KERNEL_PLUS, level);
    return -1;
}

int ir_on(void)
{
    return R.on;
}

/* ---- the context's state --------------------------------------------- */

static range_ctx *find(CUcontext ctx)
{
    for (int i = 0; i < R.nctx; i++)
        if (R.ctx[i].ctx == ctx)
            return &R.ctx[i];
    return NULL;
}

static range_ctx *get(CUcontext ctx)
{
    range_ctx *c = find(ctx);
    if (c || R.nctx == MAX_RCTX)
        return c;
    c = &R.ctx[R.nctx++];
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    return c;
}

static void host_free(CUpti_Profiler_Host_Object *host)
{
    if (!host)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = host};
    inj_cupti_ok(cuptiProfilerHostDeinitialize(&p),
                 "cuptiProfilerHostDeinitialize", INJ_QUIET);
}

/* Every held row of this context's batch released (values as they are). */
static void release(range_ctx *c, ic_launches *rows)
{
    for (size_t s = 0; s < c->nslot; s++)
        for (size_t i = 0; rows && i < rows->n; i++)
            if (rows->v[i].launch == c->slot[s].launch && !rows->v[i].graph)
                rows->v[i].hold = 0;
    c->nslot = 0;
}

/* kernel+ off for this context after a failed call (already noted): the
 * session stopped quietly, the rows released, the objects freed. */
static void turn_off(range_ctx *c, ic_launches *rows, const char *what)
{
    if (c->off)
        return;
    c->off = 1;
    inj_say(MP_RAW_KEY_WARNING, "kernel+ is off on context %p: %s failed; "
            "the default columns go on, its launches' range columns stay "
            "empty", (void *)c->ctx, what);
    if (c->started) {
        CUpti_RangeProfiler_Stop_Params sp = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        inj_cupti_ok(cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop",
                     INJ_QUIET);
        c->started = 0;
    }
    if (c->obj) {
        CUpti_RangeProfiler_Disable_Params dp = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        inj_cupti_ok(cuptiRangeProfilerDisable(&dp),
                     "cuptiRangeProfilerDisable", INJ_QUIET);
        c->obj = NULL;
    }
    release(c, rows);
    host_free(c->host);
    c->host = NULL;
    free(c->config);
    free(c->data);
    c->config = c->data = NULL;
    c->ready = 0;
}

/* A CUPTI call of kernel+: a failure is a `warning` and turns it off. */
static int ok(range_ctx *c, ic_launches *rows, CUptiResult r,
              const char *what)
{
    if (inj_cupti_ok(r, what, INJ_WARN))
        return 1;
    turn_off(c, rows, what);
    return 0;
}

/* ---- setup: the metrics of one pass ---------------------------------- */

/* A host object for the chip holding `names` (n), its config image and
 * pass count. 0, or -1 (the failing call said in what). */
static int build_config(const char *chip, const uint8_t *avail,
                        const char *const *names, size_t n,
                        CUpti_Profiler_Host_Object **host, uint8_t **image,
                        size_t *size, size_t *passes, const char **what)
{
    *host = NULL;
    *image = NULL;
    CUpti_Profiler_Host_Initialize_Params ip = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = chip, .pCounterAvailabilityImage = avail};
    *what = "cuptiProfilerHostInitialize";
    if (!inj_cupti_ok(cuptiProfilerHostInitialize(&ip), *what, INJ_QUIET))
        return -1;
    *host = ip.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = *host, .ppMetricNames = (const char **)names,
        .numMetrics = n};
    CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = *host};
    *what = "cuptiProfilerHostConfigAddMetrics";
    if (!inj_cupti_ok(cuptiProfilerHostConfigAddMetrics(&ap), *what,
                      INJ_QUIET))
        goto fail;
    *what = "cuptiProfilerHostGetConfigImageSize";
    if (!inj_cupti_ok(cuptiProfilerHostGetConfigImageSize(&sp), *what,
                      INJ_QUIET))
        goto fail;
    *image = malloc(sp.configImageSize ? sp.configImageSize : 1);
    *what = "malloc";
    if (!*image)
        goto fail;
    CUpti_Profiler_Host_GetConfigImage_Params gp = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = *host, .configImageSize = sp.configImageSize,
        .pConfigImage = *image};
    *what = "cuptiProfilerHostGetConfigImage";
    if (!inj_cupti_ok(cuptiProfilerHostGetConfigImage(&gp), *what,
                      INJ_QUIET))
        goto fail;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = sp.configImageSize, .pConfigImage = *image};
    *what = "cuptiProfilerHostGetNumOfPasses";
    if (!inj_cupti_ok(cuptiProfilerHostGetNumOfPasses(&np), *what,
                      INJ_QUIET))
        goto fail;
    *size = sp.configImageSize;
    *passes = np.numOfPasses;
    return 0;
fail:
    free(*image);
    *image = NULL;
    host_free(*host);
    *host = NULL;
    return -1;
}

/* Chooses the metrics, in raw.h's order, that together need one pass:
 * each is tried with those kept so far, and one that is no metric of the
 * chip or that would add a pass is left out with a `warning` (kernel
 * replay would run the SASS-patched kernel once per pass and multiply
 * every per-line count). Keeps the last config (host object, image). */
static int choose_metrics(range_ctx *c, ic_launches *rows,
                          const uint8_t *avail)
{
    c->n = 0;
    for (int m = 0; m < MP_RAW_NRANGE; m++) {
        const char *try[MP_RAW_NRANGE];
        memcpy(try, c->names, c->n * sizeof *try);
        try[c->n] = range_names[m];
        CUpti_Profiler_Host_Object *host;
        uint8_t *image;
        size_t size = 0, passes = 0;
        const char *what;
        if (build_config(c->chip, avail, try, c->n + 1, &host, &image, &size,
                         &passes, &what)) {
            inj_say(MP_RAW_KEY_WARNING, "kernel+: %s is left out on %s: %s "
                    "refused it (not a metric of this chip?); its column "
                    "stays empty", range_names[m], c->chip, what);
            continue;
        }
        if (passes != 1) {
            inj_say(MP_RAW_KEY_WARNING, "kernel+: %s is left out on %s: "
                    "with the others it needs %zu replay passes, and kernel "
                    "replay would run the SASS-patched kernels %zu times "
                    "(every per-line count %zu-fold); its column stays "
                    "empty", range_names[m], c->chip, passes, passes,
                    passes);
            free(image);
            host_free(host);
            continue;
        }
        host_free(c->host);
        free(c->config);
        c->host = host;
        c->config = image;
        c->config_size = size;
        c->names[c->n] = range_names[m];
        c->col[c->n++] = m;
    }
    if (!c->n) {
        turn_off(c, rows, "choosing one-pass metrics (none is left)");
        return -1;
    }
    return 0;
}

/* Counter image initialised and the config set: ready to Start. */
static int set_config(range_ctx *c, ic_launches *rows)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        .structSize =
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj, .counterDataSize = c->data_size,
        .pCounterData = c->data};
    if (!ok(c, rows, cuptiRangeProfilerCounterDataImageInitialize(&ip),
            "cuptiRangeProfilerCounterDataImageInitialize"))
        return -1;
    CUpti_RangeProfiler_SetConfig_Params sp = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj, .configSize = c->config_size,
        .pConfig = c->config, .counterDataImageSize = c->data_size,
        .pCounterDataImage = c->data, .range = CUPTI_AutoRange,
        .replayMode = CUPTI_KernelReplay, .maxRangesPerPass = IR_BATCH,
        .numNestingLevels = 1, .minNestingLevel = 1, .passIndex = 0,
        .targetNestingLevel = 1};
    return ok(c, rows, cuptiRangeProfilerSetConfig(&sp),
              "cuptiRangeProfilerSetConfig") ? 0 : -1;
}

/* Once per context, at its first profiled launch (after SASS metrics
 * were enabled on it). */
static void setup(range_ctx *c, int dev, ic_launches *rows)
{
    c->tried = 1;
    double t0 = inj_now();
    CUpti_Device_GetChipName_Params cp = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = (size_t)(dev < 0 ? 0 : dev)};
    if (!ok(c, rows, cuptiDeviceGetChipName(&cp), "cuptiDeviceGetChipName"))
        return;
    snprintf(c->chip, sizeof c->chip, "%s", cp.pChipName ? cp.pChipName : "");
    /* the counters this context can give; without (the call may refuse
     * while another profiling session is on the context) the host API
     * judges by the chip alone */
    uint8_t *avail = NULL;
    CUpti_Profiler_GetCounterAvailability_Params ap = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
        .ctx = c->ctx};
    if (inj_cupti_ok(cuptiProfilerGetCounterAvailability(&ap),
                     "cuptiProfilerGetCounterAvailability (size)", INJ_QUIET)
        && (avail = malloc(ap.counterAvailabilityImageSize ?
                           ap.counterAvailabilityImageSize : 1))) {
        ap.pCounterAvailabilityImage = avail;
        if (!inj_cupti_ok(cuptiProfilerGetCounterAvailability(&ap),
                          "cuptiProfilerGetCounterAvailability", INJ_QUIET)) {
            free(avail);
            avail = NULL;
        }
    }
    int chosen = choose_metrics(c, rows, avail);
    free(avail);
    if (chosen)
        return;
    CUpti_RangeProfiler_Enable_Params ep = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = c->ctx};
#if CUPTI_API_VERSION >= 130400
    /* L2 reset before each replay pass (CUPTI 13.4+), as Nsight Compute's
     * default --cache-control all: each launch starts from a cold L2, so
     * its DRAM bytes and hit rates do not depend on what ran before; the
     * SASS counts do not depend on caches at all. Refused: warm. */
    ep.cacheControlMode = CUPTI_CACHE_CONTROL_MODE_ALL;
    if (!inj_cupti_ok(cuptiRangeProfilerEnable(&ep),
                      "cuptiRangeProfilerEnable (cache control all)",
                      INJ_QUIET)) {
        ep.cacheControlMode = CUPTI_CACHE_CONTROL_MODE_NONE;
        ep.pRangeProfilerObject = NULL;
        if (!ok(c, rows, cuptiRangeProfilerEnable(&ep),
                "cuptiRangeProfilerEnable"))
            return;
        inj_say(MP_RAW_KEY_WARNING, "kernel+: the range profiler refused "
                "cache control on %s: counters from a warm L2", c->chip);
    }
#else
    if (!ok(c, rows, cuptiRangeProfilerEnable(&ep), "cuptiRangeProfilerEnable"))
        return;
#endif
    c->obj = ep.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj, .pMetricNames = c->names,
        .numMetrics = c->n, .maxNumOfRanges = IR_BATCH,
        .maxNumRangeTreeNodes = IR_BATCH};
    if (!ok(c, rows, cuptiRangeProfilerGetCounterDataSize(&sp),
            "cuptiRangeProfilerGetCounterDataSize"))
        return;
    c->data_size = sp.counterDataSize;
    c->data = malloc(c->data_size ? c->data_size : 1);
    if (!c->data) {
        inj_say(MP_RAW_KEY_WARNING, "kernel+: out of memory for a %zu-byte "
                "counter image", c->data_size);
        turn_off(c, rows, "malloc");
        return;
    }
    char list[256] = "";
    for (size_t k = 0; k < c->n; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 k ? "," : "", c->names[k]);
    c->ready = 1;
    inj_dbg("kernel+: context %p, chip %s, metrics %s in one pass, counter "
            "image %zu bytes for %d ranges, config %zu bytes; setup took "
            "%.1f ms", (void *)c->ctx, c->chip, list, c->data_size, IR_BATCH,
            c->config_size, (inj_now() - t0) * 1e3);
}

/* ---- the session ----------------------------------------------------- */

static void start(range_ctx *c, ic_launches *rows)
{
    double t0 = inj_now();
    if (set_config(c, rows))
        return;
    double t1 = inj_now();
    CUpti_RangeProfiler_Start_Params sp = {
        .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj};
    if (!ok(c, rows, cuptiRangeProfilerStart(&sp), "cuptiRangeProfilerStart"))
        return;
    c->started = 1;
    c->nslot = 0;
    c->batches++;
    inj_dbg("kernel+: start %zu on context %p: image init + SetConfig "
            "%.1f ms, cuptiRangeProfilerStart %.1f ms", c->batches,
            (void *)c->ctx, (t1 - t0) * 1e3, (inj_now() - t1) * 1e3);
}

static ic_launch *row_of(ic_launches *rows, uint64_t launch)
{
    for (size_t i = rows ? rows->n : 0; i-- > 0;)
        if (rows->v[i].launch == launch && !rows->v[i].graph)
            return &rows->v[i];
    return NULL;
}

/* The values of range i for its row. */
static int evaluate(range_ctx *c, ic_launches *rows, size_t i, ic_launch *r)
{
    double v[MP_RAW_NRANGE];
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {
        .structSize =
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
        .pHostObject = c->host, .pCounterDataImage = c->data,
        .counterDataImageSize = c->data_size, .rangeIndex = i,
        .ppMetricNames = c->names, .numMetrics = c->n, .pMetricValues = v};
    if (!ok(c, rows, cuptiProfilerHostEvaluateToGpuValues(&ep),
            "cuptiProfilerHostEvaluateToGpuValues"))
        return -1;
    for (size_t k = 0; k < c->n; k++)
        snprintf(r->range[c->col[k]], sizeof r->range[0], "%.15g", v[k]);
    return 0;
}

static void end_batch(range_ctx *c, ic_launches *rows, const char *at)
{
    if (!c->started)
        return;
    double t0 = inj_now();
    CUpti_RangeProfiler_Stop_Params sp = {
        .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj};
    if (!ok(c, rows, cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop"))
        return;
    c->started = 0;
    double t1 = inj_now();
    CUpti_RangeProfiler_DecodeData_Params dp = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj};
    if (!ok(c, rows, cuptiRangeProfilerDecodeData(&dp),
            "cuptiRangeProfilerDecodeData"))
        return;
    double t2 = inj_now();
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
        .structSize =
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
        .pCounterDataImage = c->data, .counterDataImageSize = c->data_size};
    if (!ok(c, rows, cuptiRangeProfilerGetCounterDataInfo(&ip),
            "cuptiRangeProfilerGetCounterDataInfo"))
        return;
    size_t profiled = 0, filled = 0;
    for (size_t s = 0; s < c->nslot; s++)
        profiled += c->slot[s].profiled != 0;
    if (ip.numTotalRanges != c->nslot || dp.numOfRangeDropped) {
        /* ranges and launches no longer match one to one: none is
         * attributed rather than a wrong one */
        inj_say(MP_RAW_KEY_WARNING, "kernel+: a batch of %zu launches (%zu "
                "profiled) gave %zu ranges, %zu dropped: its range columns "
                "stay empty", c->nslot, profiled, ip.numTotalRanges,
                dp.numOfRangeDropped);
    } else {
        for (size_t s = 0; s < c->nslot; s++) {
            if (!c->slot[s].profiled)
                continue;
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params gp = {
                .structSize =
                CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE,
                .pCounterDataImage = c->data,
                .counterDataImageSize = c->data_size, .rangeIndex = s,
                .rangeDelimiter = "/"};
            if (inj_cupti_ok(cuptiRangeProfilerCounterDataGetRangeInfo(&gp),
                             "cuptiRangeProfilerCounterDataGetRangeInfo",
                             INJ_QUIET))
                inj_dbg("kernel+: range %zu '%s' is launch %llu", s,
                        gp.rangeName ? gp.rangeName : "",
                        (unsigned long long)c->slot[s].launch);
            ic_launch *r = row_of(rows, c->slot[s].launch);
            if (!r)
                continue;
            if (evaluate(c, rows, s, r))
                return; /* turned off: rows released */
            filled++;
        }
    }
    inj_dbg("kernel+: batch of %zu launches ends (%s): %zu ranges, %zu rows "
            "filled; Stop %.1f ms, DecodeData %.1f ms, evaluation %.1f ms",
            c->nslot, at, ip.numTotalRanges, filled, (t1 - t0) * 1e3,
            (t2 - t1) * 1e3, (inj_now() - t2) * 1e3);
    release(c, rows);
}

void ir_before_launch(CUcontext ctx, int dev, int profile, int graph,
                      int capture, ic_launches *rows)
{
    if (!R.on || capture)
        return;
    range_ctx *c = graph || !profile ? find(ctx) : get(ctx);
    if (!c || c->off)
        return;
    if (graph) {
        end_batch(c, rows, "graph launch");
        inj_say(MP_RAW_KEY_WARNING, "kernel+: kernels run by cuGraphLaunch "
                "get no range-profiler counters (their range columns stay "
                "empty)");
        return;
    }
    if (c->started && c->nslot == IR_BATCH)
        end_batch(c, rows, "batch full");
    if (!profile || c->started)
        return;
    if (!c->tried)
        setup(c, dev, rows);
    if (c->ready && !c->off)
        start(c, rows);
}

void ir_after_launch(CUcontext ctx, uint64_t launch, int profiled)
{
    range_ctx *c = R.on ? find(ctx) : NULL;
    if (!c || !c->started || c->nslot == IR_BATCH)
        return;
    c->slot[c->nslot++] = (range_slot){.launch = launch,
                                       .profiled = profiled};
}

void ir_row_made(CUcontext ctx, ic_launch *r)
{
    range_ctx *c = R.on ? find(ctx) : NULL;
    if (!c || !c->started || r->graph)
        return;
    for (size_t s = c->nslot; s-- > 0;)
        if (c->slot[s].launch == r->launch) {
            r->hold = 1;
            return;
        }
}

void ir_end_batch(CUcontext ctx, ic_launches *rows, const char *at)
{
    for (int i = 0; R.on && i < R.nctx; i++)
        if (!ctx || R.ctx[i].ctx == ctx)
            end_batch(&R.ctx[i], rows, at);
}

void ir_context_gone(CUcontext ctx, ic_launches *rows)
{
    range_ctx *c = R.on ? find(ctx) : NULL;
    if (!c)
        return;
    end_batch(c, rows, "context destroyed");
    if (c->obj) {
        CUpti_RangeProfiler_Disable_Params dp = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        inj_cupti_ok(cuptiRangeProfilerDisable(&dp),
                     "cuptiRangeProfilerDisable", INJ_QUIET);
    }
    release(c, rows);
    host_free(c->host);
    free(c->config);
    free(c->data);
    *c = R.ctx[--R.nctx]; /* the last one fills the gap */
}

void ir_abandon(ic_launches *rows)
{
    size_t held = 0;
    for (size_t i = 0; rows && i < rows->n; i++)
        if (rows->v[i].hold) {
            rows->v[i].hold = 0;
            held++;
        }
    for (int i = 0; i < R.nctx; i++)
        R.ctx[i].nslot = 0;
    if (held)
        inj_say(MP_RAW_KEY_WARNING, "kernel+: %zu launches' range counters "
                "were never decoded: the program ended without a "
                "synchronising call after them; their range columns stay "
                "empty", held);
}
