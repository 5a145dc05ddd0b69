/*
 * inject_range.c - the range pass (MEMPROBE_PASS=range): per-launch
 * hardware counters (inject/raw.h, MP_RAW_RANGES: L1 and L2 hit rates,
 * DRAM bytes, shared wavefronts, global sectors and requests) through
 * CUPTI's range profiler (cupti_range_profiler.h, target) and the
 * profiler host API (cupti_profiler_host.h: metric check, config image,
 * evaluation). inject_range.h is the interface; docs/profile-design.md,
 * "The range pass", the design.
 *
 * No SASS metrics are enabled in this pass (with SASS patching on, the
 * H200's cuptiRangeProfilerStop answered CUPTI_ERROR_UNKNOWN:
 * results/h200/profile/kernel-plus-attempt/). One run measures one group
 * of metrics (MEMPROBE_RANGE_GROUP, raw.h): the counts group in several
 * replay passes (kernel replay saves and restores device memory between
 * them; exact counts do not mind), the cache and l2 groups in one pass
 * each, with the L2 flushed by a kernel of this library that reads a
 * buffer of 4 x the L2 before every measured launch: CUPTI's own cache
 * control left the L2 warm on the H200 (results/h200/profile/l2-hit/).
 * Per context, at its first launch to measure, the profiler
 * is enabled (auto range, kernel replay, a counter-data image of IR_BATCH
 * ranges) and the session starts before that launch and runs on; each
 * launch while it runs is one range (launches not measured and the
 * flushes too: their values are dropped). A batch is stopped, decoded,
 * evaluated and written
 * to range.PID.csv when it is full, at the program's synchronising calls,
 * before a graph launch or a stream capture, when the context goes and
 * when the launch count is reached; the number of ranges must equal the
 * launches of the batch, else none is attributed (CUPTI drops surplus
 * ranges silently). Any failed call turns the range profiler off for
 * that context with a `warning`; its launches' rows then say why.
 */
#include "inject_range.h"

#include <cupti_driver_cbid.h>
#include <cupti_profiler_host.h> /* needs shim/string (Makefile: -Ishim) */
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RCTX = 64 };

typedef struct {
    int measure;
    ic_range_row row;
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
    char off_why[160];
    CUdeviceptr flush_buf;            /* the L2 flush's buffer, 4 x L2 */
    size_t flush_bytes;               /* 0: no flush (group counts) */
    CUmodule flush_mod;
    CUfunction flush_fn;
    unsigned flush_blocks;
} range_ctx;

enum { GROUP_CACHE, GROUP_L2, GROUP_COUNTS };

static struct {
    int on, profiler_initialized, has_re;
    int group;                        /* MEMPROBE_RANGE_GROUP */
    regex_t re;
    range_ctx ctx[MAX_RCTX];
    int nctx;
} R;

#define RANGE_NAME(id, name) name,
static const char *const range_names[MP_RAW_NRANGE] = {
    MP_RAW_RANGES(RANGE_NAME)};
#undef RANGE_NAME
#define RANGE_ID(id, name) R_##id,
enum { MP_RAW_RANGES(RANGE_ID) };
#undef RANGE_ID
static ir_glue G;

/* The L2 flush: every thread reads 16-byte words of a buffer of 4 x the
 * L2 with ordinary loads (grid-stride), so that the lines of the program
 * leave the L2 (written back when dirty) before a measured launch and
 * the launch starts from an L2 that holds none of its data, as under
 * Nsight Compute's --cache-control all. The xor of what was read is
 * stored only when it equals a value a zeroed buffer never gives, so
 * the loads cannot be removed. PTX, JIT-compiled for the device. */
static const char flush_ptx[] =
    ".version 6.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry memprobe_l2_flush(.param .u64 buf, .param .u64 n16,"
    " .param .u64 out)\n{\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<10>;\n"
    "ld.param.u64 %rd1, [buf];\nld.param.u64 %rd2, [n16];\n"
    "ld.param.u64 %rd3, [out];\ncvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\n"
    "mov.u32 %r4, %nctaid.x;\nmul.wide.u32 %rd4, %r1, %r2;\n"
    "cvt.u64.u32 %rd5, %r3;\nadd.u64 %rd4, %rd4, %rd5;\n"
    "mul.wide.u32 %rd6, %r4, %r2;\nmov.u32 %r5, 0;\n"
    "LOOP:\nsetp.ge.u64 %p1, %rd4, %rd2;\n@%p1 bra DONE;\n"
    "shl.b64 %rd7, %rd4, 4;\nadd.u64 %rd7, %rd1, %rd7;\n"
    "ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd7];\n"
    "xor.b32 %r5, %r5, %r6;\nxor.b32 %r5, %r5, %r7;\n"
    "xor.b32 %r5, %r5, %r8;\nxor.b32 %r5, %r5, %r9;\n"
    "add.u64 %rd4, %rd4, %rd6;\nbra LOOP;\n"
    "DONE:\nsetp.ne.u32 %p2, %r5, 1234567;\n@%p2 bra END;\n"
    "cvta.to.global.u64 %rd3, %rd3;\nst.global.u32 [%rd3], %r5;\n"
    "END:\nret;\n}\n";

/* this thread is inside one of the range pass's own CUDA calls: inject.c
 * ignores the callbacks they raise */
static _Thread_local int tl_own;

int ir_own_call(void)
{
    return tl_own;
}

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

int ir_init(const char *pass, const char *kernel_re, const char *group,
            const ir_glue *glue, char *err, size_t errlen)
{
    R.on = 0;
    G = *glue;
    if (!pass || !*pass || !strcmp(pass, MP_PASS_SASS))
        return 0;
    if (strcmp(pass, MP_PASS_RANGE)) {
        snprintf(err, errlen, MP_ENV_PASS " '%s' is not " MP_PASS_SASS
                 " or " MP_PASS_RANGE, pass);
        return -1;
    }
    if (!group || !*group || !strcmp(group, MP_RANGE_GROUP_COUNTS)) {
        R.group = GROUP_COUNTS;
    } else if (!strcmp(group, MP_RANGE_GROUP_CACHE)) {
        R.group = GROUP_CACHE;
    } else if (!strcmp(group, MP_RANGE_GROUP_L2)) {
        R.group = GROUP_L2;
    } else {
        snprintf(err, errlen, MP_ENV_RANGE_GROUP " '%.100s' is not "
                 MP_RANGE_GROUP_CACHE ", " MP_RANGE_GROUP_L2 " or "
                 MP_RANGE_GROUP_COUNTS, group);
        return -1;
    }
    if (kernel_re && *kernel_re) {
        if (regcomp(&R.re, kernel_re, REG_EXTENDED | REG_NOSUB)) {
            snprintf(err, errlen, MP_ENV_RANGE_KERNEL " '%.200s' is not a "
                     "POSIX extended regular expression", kernel_re);
            return -1;
        }
        R.has_re = 1;
    }
    R.on = 1;
    return 0;
}

int ir_on(void)
{
    return R.on;
}

int ir_wants(const char *mangled)
{
    return R.on && (!R.has_re || !mangled
                    || regexec(&R.re, mangled, 0, NULL, 0) == 0);
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

/* Writes one row at once. */
static void write_rows(const ic_range_row *r, size_t n)
{
    if (n && ic_write_range_rows(G.dir, G.pid, r, n))
        inj_say(MP_RAW_KEY_WARNING, "cannot write %s/" MP_RAW_RANGE_FMT,
                G.dir, G.pid);
}

/* The batch's launches to measure written with empty values and why. */
static void flush_empty(range_ctx *c, const char *why)
{
    for (size_t s = 0; s < c->nslot; s++) {
        if (!c->slot[s].measure)
            continue;
        ic_range_row *r = &c->slot[s].row;
        memset(r->value, 0, sizeof r->value);
        snprintf(r->why, sizeof r->why, "%s", why);
        write_rows(r, 1);
    }
    c->nslot = 0;
}

/* The flush's module and buffer go with the context. */
static void flush_free(range_ctx *c)
{
    tl_own = 1;
    if (c->flush_mod)
        cuModuleUnload(c->flush_mod);
    if (c->flush_buf)
        cuMemFree(c->flush_buf);
    tl_own = 0;
    c->flush_mod = NULL;
    c->flush_buf = 0;
    c->flush_bytes = 0;
}

/* What a context's session holds, let go: the profiler object disabled,
 * the batch's launches written without values and why (flush_empty), the
 * host object, images and flush freed. */
static void drop_session(range_ctx *c, const char *why)
{
    if (c->obj) {
        CUpti_RangeProfiler_Disable_Params dp = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        inj_cupti_ok(cuptiRangeProfilerDisable(&dp),
                     "cuptiRangeProfilerDisable", INJ_QUIET);
        c->obj = NULL;
    }
    flush_empty(c, why);
    host_free(c->host);
    c->host = NULL;
    free(c->config);
    free(c->data);
    c->config = c->data = NULL;
    c->ready = 0;
    flush_free(c);
}

/* The range profiler off for this context after a failed call (already
 * noted): the session stopped quietly, the batch written without values,
 * the objects freed. */
static void turn_off(range_ctx *c, const char *what)
{
    if (c->off)
        return;
    c->off = 1;
    snprintf(c->off_why, sizeof c->off_why, "range profiler off on this "
             "context: %s failed (status file)", what);
    inj_say(MP_RAW_KEY_WARNING, "range pass: the range profiler is off on "
            "context %p: %s failed; its launches get no range values",
            (void *)c->ctx, what);
    if (c->started) {
        CUpti_RangeProfiler_Stop_Params sp = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        inj_cupti_ok(cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop",
                     INJ_QUIET);
        c->started = 0;
    }
    drop_session(c, c->off_why);
}

/* A CUPTI call of the range pass: a failure is a `warning` and turns the
 * profiler off for the context. */
static int ok(range_ctx *c, CUptiResult r, const char *what)
{
    if (inj_cupti_ok(r, what, INJ_WARN))
        return 1;
    turn_off(c, what);
    return 0;
}

/* ---- setup ------------------------------------------------------------ */

/* A host object for the chip holding `names` (n) and its config image.
 * 0, or -1 (the failing call said in what). */
static int build_config(const char *chip, const uint8_t *avail,
                        const char *const *names, size_t n,
                        CUpti_Profiler_Host_Object **host, uint8_t **image,
                        size_t *size, const char **what)
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
    *size = sp.configImageSize;
    return 0;
fail:
    free(*image);
    *image = NULL;
    host_free(*host);
    *host = NULL;
    return -1;
}

/* The metrics, in raw.h's order, that the chip takes: all at once when it
 * can, else each tried with those kept so far, a refused one left out
 * with a `warning`. Keeps the last config (host object, image). */
static int choose_metrics(range_ctx *c, const uint8_t *avail)
{
    CUpti_Profiler_Host_Object *host;
    uint8_t *image;
    size_t size = 0;
    const char *what;
    /* The group's metrics (raw.h, MP_ENV_RANGE_GROUP). The L2 hit rate
     * is never asked for: its hits and lookups take two replay passes,
     * and kernel replay's restore leaves the inputs in the L2 (it read
     * 94-124% on the H200); memprobe divides the cache group's hits by the
     * l2 group's sectors, both from one-pass runs of a flushed L2. */
    static const int groups[][7] = {
        [GROUP_CACHE] = {R_L1_HIT, R_DRAM_RD, R_DRAM_WR, R_L2_LOOKUP_HIT,
                         R_GL_LD, R_GL_ST, -1},
        [GROUP_L2] = {R_L2_SECTORS, -1},
        [GROUP_COUNTS] = {R_SH_LD, R_SH_ST, R_GL_LD, R_GL_ST, R_RQ_LD,
                          R_RQ_ST, -1},
    };
    const char *want[MP_RAW_NRANGE];
    int wcol[MP_RAW_NRANGE], nw = 0;
    for (int i = 0; groups[R.group][i] >= 0; i++) {
        wcol[nw] = groups[R.group][i];
        want[nw] = range_names[wcol[nw]];
        nw++;
    }
    c->n = 0;
    if (!build_config(c->chip, avail, want, nw, &host, &image, &size,
                      &what)) {
        for (int m = 0; m < nw; m++) {
            c->names[m] = want[m];
            c->col[m] = wcol[m];
        }
        c->n = nw;
    } else {
        host = NULL;
        image = NULL;
        for (int w = 0; w < nw; w++) {
            int m = wcol[w];
            const char *try[MP_RAW_NRANGE];
            memcpy(try, c->names, c->n * sizeof *try);
            try[c->n] = range_names[m];
            CUpti_Profiler_Host_Object *h;
            uint8_t *im;
            size_t sz;
            if (build_config(c->chip, avail, try, c->n + 1, &h, &im, &sz,
                             &what)) {
                inj_say(MP_RAW_KEY_WARNING, "range pass: %s is left out on "
                        "%s: %s refused it; its column stays empty",
                        range_names[m], c->chip, what);
                continue;
            }
            host_free(host);
            free(image);
            host = h;
            image = im;
            size = sz;
            c->names[c->n] = range_names[m];
            c->col[c->n++] = m;
        }
    }
    if (!c->n) {
        turn_off(c, "choosing metrics (the chip took none)");
        return -1;
    }
    c->host = host;
    c->config = image;
    c->config_size = size;
    /* the flushed groups count on one pass: a replayed pass would start
     * from the memory kernel replay restored, partly in the L2 */
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = size, .pConfigImage = image};
    if (R.group != GROUP_COUNTS
        && inj_cupti_ok(cuptiProfilerHostGetNumOfPasses(&np),
                        "cuptiProfilerHostGetNumOfPasses", INJ_QUIET)
        && np.numOfPasses > 1)
        inj_say(MP_RAW_KEY_WARNING, "range pass: the metrics of this group "
                "take %zu replay passes on %s: only the first starts from "
                "the flushed L2", (size_t)np.numOfPasses, c->chip);
    return 0;
}

/* Counter image initialised and the config set: ready to Start. */
static int set_config(range_ctx *c)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        .structSize =
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj, .counterDataSize = c->data_size,
        .pCounterData = c->data};
    if (!ok(c, cuptiRangeProfilerCounterDataImageInitialize(&ip),
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
    return ok(c, cuptiRangeProfilerSetConfig(&sp),
              "cuptiRangeProfilerSetConfig") ? 0 : -1;
}

/* The profiler enabled on the context; with cache control (CUPTI 13.4+:
 * L2 flushed before each replay pass, as ncu's default) where it is
 * offered, else warm. 0 or -1. */
static int enable(range_ctx *c)
{
    CUpti_RangeProfiler_Enable_Params ep = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = c->ctx};
#if CUPTI_API_VERSION >= 130400
    ep.cacheControlMode = CUPTI_CACHE_CONTROL_MODE_ALL;
    if (!inj_cupti_ok(cuptiRangeProfilerEnable(&ep),
                      "cuptiRangeProfilerEnable (cache control all)",
                      INJ_QUIET)) {
        ep.cacheControlMode = CUPTI_CACHE_CONTROL_MODE_NONE;
        ep.pRangeProfilerObject = NULL;
        if (!ok(c, cuptiRangeProfilerEnable(&ep), "cuptiRangeProfilerEnable"))
            return -1;
        inj_say(MP_RAW_KEY_WARNING, "range pass: the range profiler refused "
                "cache control on %s: counters from a warm L2", c->chip);
    }
#else
    if (!ok(c, cuptiRangeProfilerEnable(&ep), "cuptiRangeProfilerEnable"))
        return -1;
#endif
    c->obj = ep.pRangeProfilerObject;
    return 0;
}

/* A CUDA call of the L2 flush, made with the program's callbacks ignored
 * (tl_own): 1 when it succeeded; else a `warning` (inject_say.c's cu_ok) and
 * the range profiler off for the context, so that no launch gets values
 * from an L2 that was not flushed. */
static int flush_ok(range_ctx *c, CUresult r, const char *what)
{
    if (G.cu_ok(r, what, INJ_WARN))
        return 1;
    char why[96];
    snprintf(why, sizeof why, "the L2 flush (%s)", what);
    turn_off(c, why);
    return 0;
}

/* The L2 flush for the cache and l2 groups: a zeroed buffer of 4 x the
 * L2 and the flush kernel, on this context. 0, or -1 (turned off). */
static int flush_setup(range_ctx *c, int dev)
{
    int l2 = 0, sms = 0;
    CUdevice d;
    tl_own = 1;
    int ok = flush_ok(c, cuDeviceGet(&d, dev < 0 ? 0 : dev), "cuDeviceGet")
        && flush_ok(c, cuDeviceGetAttribute(&l2,
                       CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d),
                    "cuDeviceGetAttribute (L2 size)")
        && flush_ok(c, cuDeviceGetAttribute(&sms,
                       CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d),
                    "cuDeviceGetAttribute (SMs)")
        && flush_ok(c, l2 > 0 && sms > 0 ? CUDA_SUCCESS
                       : CUDA_ERROR_INVALID_VALUE, "the L2 size")
        && flush_ok(c, cuMemAlloc(&c->flush_buf, 4 * (size_t)l2 + 16),
                    "cuMemAlloc")
        && flush_ok(c, cuMemsetD8(c->flush_buf, 0, 4 * (size_t)l2 + 16),
                    "cuMemsetD8")
        && flush_ok(c, cuModuleLoadData(&c->flush_mod, flush_ptx),
                    "cuModuleLoadData")
        && flush_ok(c, cuModuleGetFunction(&c->flush_fn, c->flush_mod,
                                           "memprobe_l2_flush"),
                    "cuModuleGetFunction");
    tl_own = 0;
    if (!ok)
        return -1;
    c->flush_bytes = 4 * (size_t)l2;
    c->flush_blocks = 4 * (unsigned)sms;
    return 0;
}

/* Before a measured launch of the cache or l2 group: what the program
 * queued is finished, then the flush kernel reads the buffer (its range
 * is a slot not measured) and is finished before the launch. */
static void flush_l2(range_ctx *c)
{
    double t0 = G.now();
    CUdeviceptr out = c->flush_buf + c->flush_bytes;
    unsigned long long n16 = c->flush_bytes / 16;
    void *args[] = {&c->flush_buf, &n16, &out};
    tl_own = 1;
    int ok = flush_ok(c, cuCtxSynchronize(), "cuCtxSynchronize");
    if (ok) {
        c->slot[c->nslot++] = (range_slot){.measure = 0};
        ok = flush_ok(c, cuLaunchKernel(c->flush_fn, c->flush_blocks, 1, 1,
                                        256, 1, 1, 0, NULL, args, NULL),
                      "cuLaunchKernel (the flush)")
             && flush_ok(c, cuCtxSynchronize(), "cuCtxSynchronize");
    }
    tl_own = 0;
    if (ok)
        inj_dbg("range pass: L2 flushed (%zu bytes read) in %.3f ms",
                c->flush_bytes, (G.now() - t0) * 1e3);
}

/* Once per context, at its first launch to measure. */
static void setup(range_ctx *c, int dev)
{
    c->tried = 1;
    double t0 = G.now();
    if (!R.profiler_initialized) {
        CUpti_Profiler_Initialize_Params ip = {
            .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if (!ok(c, cuptiProfilerInitialize(&ip), "cuptiProfilerInitialize"))
            return;
        R.profiler_initialized = 1;
    }
    CUpti_Device_GetChipName_Params cp = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = (size_t)(dev < 0 ? 0 : dev)};
    if (!ok(c, cuptiDeviceGetChipName(&cp), "cuptiDeviceGetChipName"))
        return;
    snprintf(c->chip, sizeof c->chip, "%s", cp.pChipName ? cp.pChipName : "");
    /* the counters this context can give; without them the host API
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
    int chosen = choose_metrics(c, avail);
    free(avail);
    if (chosen || enable(c))
        return;
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj, .pMetricNames = c->names,
        .numMetrics = c->n, .maxNumOfRanges = IR_BATCH,
        .maxNumRangeTreeNodes = IR_BATCH};
    if (!ok(c, cuptiRangeProfilerGetCounterDataSize(&sp),
            "cuptiRangeProfilerGetCounterDataSize"))
        return;
    c->data_size = sp.counterDataSize;
    c->data = malloc(c->data_size ? c->data_size : 1);
    if (!c->data) {
        turn_off(c, "malloc of the counter image");
        return;
    }
    if (R.group != GROUP_COUNTS && flush_setup(c, dev))
        return;
    c->ready = 1;
    inj_dbg("range pass: context %p, chip %s, %zu metrics, counter image "
            "%zu bytes for %d ranges, config %zu bytes; setup took %.1f ms",
            (void *)c->ctx, c->chip, c->n, c->data_size, IR_BATCH,
            c->config_size, (G.now() - t0) * 1e3);
}

/* ---- the session ----------------------------------------------------- */

/* Starts (on 1) or stops (on 0) the session on c and records which in
 * c->started. 0, or -1 (turned off). */
static int set_started(range_ctx *c, int on)
{
    CUptiResult r;
    if (on) {
        CUpti_RangeProfiler_Start_Params p = {
            .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        r = cuptiRangeProfilerStart(&p);
    } else {
        CUpti_RangeProfiler_Stop_Params p = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->obj};
        r = cuptiRangeProfilerStop(&p);
    }
    if (!ok(c, r, on ? "cuptiRangeProfilerStart" : "cuptiRangeProfilerStop"))
        return -1;
    c->started = on;
    return 0;
}

static void start(range_ctx *c)
{
    double t0 = G.now();
    if (set_config(c))
        return;
    double t1 = G.now();
    if (set_started(c, 1))
        return;
    c->nslot = 0;
    c->batches++;
    inj_dbg("range pass: start %zu on context %p: image init + SetConfig "
            "%.1f ms, cuptiRangeProfilerStart %.1f ms", c->batches,
            (void *)c->ctx, (t1 - t0) * 1e3, (G.now() - t1) * 1e3);
}

/* The values of range i into row r. 0, or -1 (turned off). */
static int evaluate(range_ctx *c, size_t i, ic_range_row *r)
{
    double v[MP_RAW_NRANGE];
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {
        .structSize =
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
        .pHostObject = c->host, .pCounterDataImage = c->data,
        .counterDataImageSize = c->data_size, .rangeIndex = i,
        .ppMetricNames = c->names, .numMetrics = c->n, .pMetricValues = v};
    if (!ok(c, cuptiProfilerHostEvaluateToGpuValues(&ep),
            "cuptiProfilerHostEvaluateToGpuValues"))
        return -1;
    for (size_t k = 0; k < c->n; k++)
        snprintf(r->value[c->col[k]], sizeof r->value[0], "%.15g", v[k]);
    return 0;
}

static void end_batch(range_ctx *c, const char *at)
{
    if (!c->started)
        return;
    double t0 = G.now();
    if (set_started(c, 0))
        return;
    double t1 = G.now();
    CUpti_RangeProfiler_DecodeData_Params dp = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->obj};
    if (!ok(c, cuptiRangeProfilerDecodeData(&dp),
            "cuptiRangeProfilerDecodeData"))
        return;
    double t2 = G.now();
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
        .structSize =
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
        .pCounterDataImage = c->data, .counterDataImageSize = c->data_size};
    if (!ok(c, cuptiRangeProfilerGetCounterDataInfo(&ip),
            "cuptiRangeProfilerGetCounterDataInfo"))
        return;
    size_t filled = 0;
    if (ip.numTotalRanges != c->nslot || dp.numOfRangeDropped) {
        /* ranges and launches no longer match one to one: none is
         * attributed rather than a wrong one */
        char why[160];
        snprintf(why, sizeof why, "a batch of %zu launches gave %zu ranges "
                 "(%zu dropped): not attributed", c->nslot,
                 (size_t)ip.numTotalRanges, (size_t)dp.numOfRangeDropped);
        inj_say(MP_RAW_KEY_WARNING, "range pass: %s", why);
        flush_empty(c, why);
        return;
    }
    for (size_t s = 0; s < c->nslot; s++) {
        if (!c->slot[s].measure)
            continue;
        ic_range_row *r = &c->slot[s].row;
        if (evaluate(c, s, r))
            return; /* turned off: the batch written without values */
        write_rows(r, 1);
        c->slot[s].measure = 0;
        filled++;
    }
    inj_dbg("range pass: batch of %zu launches ends (%s): %zu ranges, %zu "
            "rows; Stop %.1f ms, DecodeData %.1f ms, evaluation %.1f ms",
            c->nslot, at, (size_t)ip.numTotalRanges, filled,
            (t1 - t0) * 1e3, (t2 - t1) * 1e3, (G.now() - t2) * 1e3);
    c->nslot = 0;
}

void ir_before_launch(CUcontext ctx, int dev, int measure, int graph)
{
    if (!R.on)
        return;
    range_ctx *c = graph || !measure ? find(ctx) : get(ctx);
    if (!c || c->off)
        return;
    if (graph) {
        end_batch(c, "graph launch");
        return;
    }
    /* room for this launch and, with the flush, the flush's range */
    if (c->started && c->nslot + 1 + (c->flush_bytes != 0) > IR_BATCH)
        end_batch(c, "batch full");
    if (measure && !c->started) {
        if (!c->tried)
            setup(c, dev);
        if (c->ready && !c->off)
            start(c);
    }
    if (measure && c->started && c->flush_bytes)
        flush_l2(c);
}

void ir_after_launch(CUcontext ctx, uint64_t launch, int measure,
                     const ir_launch *l)
{
    if (!R.on)
        return;
    range_ctx *c = find(ctx);
    ic_range_row row;
    memset(&row, 0, sizeof row);
    row.launch = launch;
    snprintf(row.mangled, sizeof row.mangled, "%s",
             l->mangled ? l->mangled : "");
    memcpy(row.grid, l->grid, sizeof row.grid);
    memcpy(row.block, l->block, sizeof row.block);
    if (c && c->started && c->nslot < IR_BATCH) {
        c->slot[c->nslot++] = (range_slot){.measure = measure, .row = row};
        return;
    }
    if (!measure)
        return;
    snprintf(row.why, sizeof row.why, "%s", c && c->off ? c->off_why
             : !c ? "more CUDA contexts than the range pass follows"
             : "the range profiler session was not running");
    write_rows(&row, 1);
}

void ir_end_batch(CUcontext ctx, const char *at)
{
    for (int i = 0; R.on && i < R.nctx; i++)
        if (!ctx || R.ctx[i].ctx == ctx)
            end_batch(&R.ctx[i], at);
}

void ir_context_gone(CUcontext ctx)
{
    range_ctx *c = R.on ? find(ctx) : NULL;
    if (!c)
        return;
    end_batch(c, "context destroyed");
    drop_session(c, "the context went before its batch was decoded");
    *c = R.ctx[--R.nctx]; /* the last one fills the gap */
}

void ir_abandon(void)
{
    size_t held = 0;
    for (int i = 0; i < R.nctx; i++) {
        for (size_t s = 0; s < R.ctx[i].nslot; s++)
            held += R.ctx[i].slot[s].measure != 0;
        flush_empty(&R.ctx[i], "never decoded: the program ended without "
                    "a synchronising call after the launch");
    }
    if (held)
        inj_say(MP_RAW_KEY_WARNING, "range pass: %zu launches' range "
                "counters were never decoded (no synchronising call after "
                "them)", held);
}
