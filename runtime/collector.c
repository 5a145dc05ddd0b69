/*
 * collector.c - the in-process hardware-counter collector: one CUPTI 13
 * Range Profiler session (auto range; user replay, or kernel replay) per
 * open(), reused for any number of begin()/end() groups of launches.
 *
 * Call order inside (names as in the CUPTI headers):
 *
 *   open:  [CUDA_INJECTION64_PATH check]
 *          cuptiProfilerInitialize              (fails without a driver)
 *          cudaGetDevice, cuCtxGetCurrent       (via the runtime's entry-point
 *                                                lookup: no -lcuda)
 *          cuptiDeviceGetChipName
 *          mp_metrics_filter                    (the names this chip lacks are
 *                                                dropped, named in `unavailable`)
 *          cuptiProfilerGetCounterAvailability  (size, then fill)
 *          cuptiProfilerHostInitialize + GetMetricProperties + ConfigAddMetrics
 *            + GetConfigImageSize/GetConfigImage + GetNumOfPasses
 *          cuptiRangeProfilerEnable             (privileges are checked here)
 *          cuptiRangeProfilerGetCounterDataSize (maxNumOfRanges = max_ranges)
 *          prepare_image: CounterDataImageInitialize + SetConfig (user
 *                                                replay; kernel replay if
 *                                                SetConfig refuses it)
 *   begin: [prepare_image again when the image cannot hold the group]
 *          cudaDeviceSynchronize, cuptiRangeProfilerStart
 *   pass:  cudaDeviceSynchronize, cuptiRangeProfilerStop; while CUPTI
 *          wants more passes (user replay), Start again: the caller
 *          launches the same kernels once per pass
 *   end:   [Stop], DecodeData, GetCounterDataInfo (count check),
 *          EvaluateToGpuValues for the group's ranges
 *   close: [Stop if a group is open], cuptiRangeProfilerDisable,
 *          cuptiProfilerHostDeinitialize, cuptiProfilerDeInitialize
 *
 * Replay. Kernel replay runs every pass inside the launch, saving and
 * restoring the device memory the kernel may write around each pass: on
 * the H200 that cost ~11 ms per pass for a kernel of a few microseconds.
 * User replay has the CALLER launch the group once per pass, with nothing
 * saved: the runner relaunches the configuration's kernel on its live
 * state (probes are relaunchable: the timed launches rely on it) and
 * verifies the output after the last pass.
 *
 * Ranges of consecutive groups go into one image (decode appends them);
 * end() evaluates only the group's own, found by the image's range count.
 * Should a decode not append (the count equals the group's launches
 * alone), the newest ranges are still the group's. Any other count is an
 * error; after one such error the collector starts a fresh image for
 * every group (mp_collector_retry() tells the caller to profile the group
 * again).
 *
 * All state lives in struct mp_collector; there are no globals.
 */
#include "collector.h"
#include "cost.h"
#include "check.h"
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_profiler_host.h>   /* needs shim/string: see there */

/* The CUDA version whose ABI of cuCtxGetCurrent we ask the driver for.
 * Any driver able to run the CUDA 13 runtime supports it. */
#define MP_CUDA_ENTRY_VERSION 12000

typedef CUresult (CUDAAPI *mp_ctx_get_current_fn)(CUcontext *pctx);
_Static_assert(sizeof(mp_ctx_get_current_fn) == sizeof(void *),
               "function and object pointers differ in size");

struct mp_collector {
    CUcontext ctx;              /* context the profiler is enabled on */
    int device;                 /* CUDA device ordinal of ctx */
    char chip[64];              /* e.g. "GH100" */

    char **names;               /* n owned copies of the metric names */
    size_t n;
    /* The names the chip has, in order: kept[k] = names[index[k]]; the
     * profiler sees only these. The others' values are NaN. */
    const char **kept;
    size_t *index;
    size_t nk;
    double *scratch;            /* nk values of one range */
    char unavailable[512];      /* "unavailable on CHIP: a, b" or "" */
    size_t max_ranges;          /* ranges per batch (counter image size) */
    size_t passes;              /* replay passes per kernel */

    CUpti_Profiler_Host_Object *host;   /* config building and evaluation */
    CUpti_RangeProfiler_Object *rp;     /* the enabled range profiler */

    uint8_t *avail;             /* counter availability image */
    size_t avail_size;
    uint8_t *config;            /* config image (metric schedule) */
    size_t config_size;
    uint8_t *image;             /* counter data image: max_ranges ranges */
    size_t image_size;

    size_t groups;              /* groups started */
    size_t used;                /* ranges the image holds */
    int user_replay;            /* 1: CUPTI_UserReplay, 0: kernel replay */
    int fresh_images;           /* a fresh image for every group */
    int retry;                  /* the last end() asks for a retry */
    int profiler_initialized;   /* cuptiProfilerInitialize succeeded */
    int opening;                /* inside mp_collector_open */
    int active;                 /* between a successful begin() and end() */
    int stopped;                /* active, all passes submitted and stopped */
    size_t pass;                /* passes of the open group stopped */
    int broken;                 /* a CUPTI call failed mid-session */
};

/* Appends to the reason already in why. */
static void append(char *why, size_t whylen, const char *text)
{
    size_t len;

    if (!why || whylen == 0) return;
    len = strnlen(why, whylen);
    if (len + 1 < whylen) snprintf(why + len, whylen - len, "%s", text);
}

/* Errors that mean "this machine or process cannot profile" rather than
 * "something went wrong while profiling". */
static int environment_error(int code)
{
    switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        return 1;
    default:
        return 0;
    }
}

/* Adds what the user can do about an environment error. */
static void add_hint(int code, char *why, size_t whylen)
{
    switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        append(why, whylen,
               "; reading GPU counters needs root or CAP_SYS_ADMIN (or"
               " CAP_PERFMON), or the driver loaded with"
               " NVreg_RestrictProfilingToAdminUsers=0; see"
               " https://developer.nvidia.com/ERR_NVGPUCTRPERM");
        break;
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        append(why, whylen,
               "; another profiler (ncu, nsys, DCGM profiling) is using the"
               " GPU counters");
        break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        append(why, whylen, "; counters cannot be read on a MIG instance");
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        append(why, whylen,
               "; this GPU, driver or configuration does not support the"
               " CUPTI range profiler");
        break;
    default:
        break;
    }
}

/* Status for a failed CUPTI call whose reason CHECK_CUPTI has written.
 * While opening, every CUPTI failure means "no counters here" (nothing has
 * been measured yet); once open, only environment errors do. */
static mp_counters_status failed(const mp_collector *c, int code,
                                 char *why, size_t whylen)
{
    if (environment_error(code)) {
        add_hint(code, why, whylen);
        return MP_COUNTERS_UNAVAILABLE;
    }
    return c->opening ? MP_COUNTERS_UNAVAILABLE : MP_COUNTERS_ERROR;
}

/* Runs a CUPTI call through CHECK_CUPTI; on failure sets `st` from the code
 * and jumps to `fail`. Used where the enclosing function has c, st, why,
 * whylen and a fail label. */
#define CUPTI_OR_FAIL(call)                                        \
    do {                                                           \
        int rc_ = CHECK_CUPTI(call, why, whylen);                  \
        if (rc_) {                                                 \
            st = failed(c, rc_, why, whylen);                      \
            goto fail;                                             \
        }                                                          \
    } while (0)

/* ------------------------------------------------------------------------
 * Batches.
 * ---------------------------------------------------------------------- */

/* Gives the profiler a fresh, empty counter data image and the config:
 * the state the first group starts from, and any group the image has no
 * room for. */
static mp_counters_status prepare_image(mp_collector *c, char *why, size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_OK;

    memset(c->image, 0, c->image_size);

    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ini = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->rp,
        .counterDataSize = c->image_size,
        .pCounterData = c->image,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerCounterDataImageInitialize(&ini));

    /* Auto range needs exactly one nesting level; passes start at 0. */
    CUpti_RangeProfiler_SetConfig_Params set = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->rp,
        .configSize = c->config_size,
        .pConfig = c->config,
        .counterDataImageSize = c->image_size,
        .pCounterDataImage = c->image,
        .range = CUPTI_AutoRange,
        .replayMode = c->user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay,
        .maxRangesPerPass = c->max_ranges,
        .numNestingLevels = 1,
        .minNestingLevel = 1,
        .passIndex = 0,
        .targetNestingLevel = 1,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerSetConfig(&set));
    c->used = 0;
    return MP_COUNTERS_OK;

fail:
    return st;
}

/* ------------------------------------------------------------------------
 * Open.
 * ---------------------------------------------------------------------- */

/* Counter availability image of the context (size query, then fill).
 * Must run before cuptiRangeProfilerEnable: it fails while a session is
 * active on the device. */
static mp_counters_status get_availability(mp_collector *c, char *why, size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;

    CUpti_Profiler_GetCounterAvailability_Params av = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
        .ctx = c->ctx,
        .pCounterAvailabilityImage = NULL,
    };
    CUPTI_OR_FAIL(cuptiProfilerGetCounterAvailability(&av));
    c->avail_size = av.counterAvailabilityImageSize;
    c->avail = calloc(1, c->avail_size ? c->avail_size : 1);
    if (!c->avail) {
        mp_reason(why, whylen, "out of memory for the counter availability image");
        return MP_COUNTERS_ERROR;
    }
    av.pCounterAvailabilityImage = c->avail;
    CUPTI_OR_FAIL(cuptiProfilerGetCounterAvailability(&av));
    return MP_COUNTERS_OK;

fail:
    return st;
}

/* Host object for the real chip and availability, and the config image. */
static mp_counters_status build_config(mp_collector *c, char *why, size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    char err[256] = "";

    CUpti_Profiler_Host_Initialize_Params hi = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = c->chip,
        .pCounterAvailabilityImage = c->avail,
    };
    CUPTI_OR_FAIL(cuptiProfilerHostInitialize(&hi));
    c->host = hi.pHostObject;

    /* Name the metric that does not exist here (e.g. on another GPU
     * generation): the machine cannot give these counters. */
    for (size_t i = 0; i < c->nk; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params mp = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
            .pHostObject = c->host,
            .pMetricName = c->kept[i],
        };
        if (CHECK_CUPTI(cuptiProfilerHostGetMetricProperties(&mp), err, sizeof err)) {
            mp_reason(why, whylen, "metric '%s' is not available on %s: %s",
                c->kept[i], c->chip, err);
            return MP_COUNTERS_UNAVAILABLE;
        }
    }

    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = c->host,
        .ppMetricNames = c->kept,
        .numMetrics = c->nk,
    };
    CUPTI_OR_FAIL(cuptiProfilerHostConfigAddMetrics(&add));

    CUpti_Profiler_Host_GetConfigImageSize_Params gs = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = c->host,
    };
    CUPTI_OR_FAIL(cuptiProfilerHostGetConfigImageSize(&gs));
    c->config_size = gs.configImageSize;
    c->config = calloc(1, c->config_size ? c->config_size : 1);
    if (!c->config) {
        mp_reason(why, whylen, "out of memory for the config image");
        return MP_COUNTERS_ERROR;
    }

    CUpti_Profiler_Host_GetConfigImage_Params gi = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = c->host,
        .configImageSize = c->config_size,
        .pConfigImage = c->config,
    };
    CUPTI_OR_FAIL(cuptiProfilerHostGetConfigImage(&gi));

    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = c->config_size,
        .pConfigImage = c->config,
    };
    CUPTI_OR_FAIL(cuptiProfilerHostGetNumOfPasses(&np));
    c->passes = np.numOfPasses;
    return MP_COUNTERS_OK;

fail:
    return st;
}

/* Keeps the names the chip has (mp_metrics_filter, the CUPTI host API's
 * metric properties for the chip); UNAVAILABLE if the chip is unknown to
 * this CUPTI or lacks every name. */
static mp_counters_status filter_names(mp_collector *c, char *why, size_t whylen)
{
    int *keep = calloc(c->n, sizeof *keep);
    c->kept = calloc(c->n, sizeof *c->kept);
    c->index = calloc(c->n, sizeof *c->index);
    c->scratch = calloc(c->n, sizeof *c->scratch);
    if (!keep || !c->kept || !c->index || !c->scratch) {
        free(keep);
        mp_reason(why, whylen, "out of memory");
        return MP_COUNTERS_ERROR;
    }
    int missing = mp_metrics_filter(c->chip, (const char *const *)c->names,
                                    c->n, keep, c->unavailable,
                                    sizeof c->unavailable);
    if (missing < 0) {
        mp_reason(why, whylen, "%s", c->unavailable);
        c->unavailable[0] = '\0';
        free(keep);
        return MP_COUNTERS_UNAVAILABLE;
    }
    /* The test hook of collector.h: names treated as lacking on this chip,
     * so the H200 runs the path an older chip takes. */
    const char *drop = getenv(MP_DROP_METRICS_ENV);
    for (size_t i = 0; drop && *drop && i < c->n; i++) {
        const char *p = strstr(drop, c->names[i]);
        size_t k = strlen(c->names[i]);
        if (!keep[i] || !p || (p != drop && p[-1] != ',')
            || (p[k] && p[k] != ','))
            continue;
        keep[i] = 0;
        size_t len = strlen(c->unavailable);
        if (len == 0)
            snprintf(c->unavailable, sizeof c->unavailable, "%s%s: %s",
                     MP_COUNTERS_UNAVAILABLE_ON, c->chip, c->names[i]);
        else if (len + 1 < sizeof c->unavailable)
            snprintf(c->unavailable + len, sizeof c->unavailable - len,
                     ", %s", c->names[i]);
    }
    c->nk = 0;
    for (size_t i = 0; i < c->n; i++)
        if (keep[i]) {
            c->kept[c->nk] = c->names[i];
            c->index[c->nk++] = i;
        }
    free(keep);
    if (c->nk == 0) {
        mp_reason(why, whylen, "no metric of the set exists on %s (%s)",
                  c->chip, c->unavailable);
        return MP_COUNTERS_UNAVAILABLE;
    }
    return MP_COUNTERS_OK;
}

/* The current CUDA context, through the runtime's driver entry-point
 * lookup so that memprobe does not link libcuda. */
static mp_counters_status current_context(mp_collector *c, char *why, size_t whylen)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    mp_ctx_get_current_fn get_current;
    CUresult cr;

    CHECK_CUDA(cudaGetDevice(&c->device));
    CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn,
                                                MP_CUDA_ENTRY_VERSION,
                                                cudaEnableDefault, &found));
    if (!fn || found != cudaDriverEntryPointSuccess) {
        mp_reason(why, whylen, "the CUDA driver does not export cuCtxGetCurrent");
        return MP_COUNTERS_UNAVAILABLE;
    }
    /* ISO C has no object-to-function pointer cast; copy the bits (POSIX
     * guarantees they are the same size, as dlsym relies on). */
    memcpy(&get_current, &fn, sizeof get_current);
    cr = get_current(&c->ctx);
    if (cr != CUDA_SUCCESS || !c->ctx) {
        mp_reason(why, whylen,
            "no current CUDA context (cuCtxGetCurrent returned %d): call"
            " cudaSetDevice() and cudaFree(0) before mp_collector_open()",
            (int)cr);
        return MP_COUNTERS_ERROR;
    }
    return MP_COUNTERS_OK;
}

/* mp_collector_open's arguments: OK, or ERROR with why. Clears why and
 * *out first. */
static mp_counters_status check_open_args(mp_collector **out,
                                          const char *const *names, size_t n,
                                          size_t max_ranges, char *why,
                                          size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!out) {
        mp_reason(why, whylen, "mp_collector_open: no place for the result");
        return MP_COUNTERS_ERROR;
    }
    *out = NULL;
    if (!names || n == 0) {
        mp_reason(why, whylen, "mp_collector_open: empty metric list");
        return MP_COUNTERS_ERROR;
    }
    if (max_ranges == 0 || max_ranges > UINT32_MAX) {
        mp_reason(why, whylen, "mp_collector_open: max_ranges %zu out of range", max_ranges);
        return MP_COUNTERS_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !*names[i]) {
            mp_reason(why, whylen, "mp_collector_open: metric #%zu has no name", i);
            return MP_COUNTERS_ERROR;
        }
    }
    return MP_COUNTERS_OK;
}

/* ncu and nsys load themselves through this variable and own CUPTI's
 * profiler; a second range profiler in the same process would fail or
 * crash. Checked before touching CUPTI at all: OK, or UNAVAILABLE. */
static mp_counters_status check_no_injected_tool(char *why, size_t whylen)
{
    const char *inject = getenv("CUDA_INJECTION64_PATH");
    if (inject && *inject) {
        mp_reason(why, whylen,
            "another CUDA tool is injected (CUDA_INJECTION64_PATH=%s, e.g."
            " running under ncu or nsys) and owns the counters; run without"
            " it, or let that tool collect the metrics", inject);
        return MP_COUNTERS_UNAVAILABLE;
    }
    return MP_COUNTERS_OK;
}

/* A new collector, opening, with its own copies of the names; NULL (why
 * says so) when out of memory. */
static mp_collector *new_collector(const char *const *names, size_t n,
                                   size_t max_ranges, char *why,
                                   size_t whylen)
{
    mp_collector *c = calloc(1, sizeof *c);
    if (!c || !(c->names = calloc(n, sizeof *c->names))) {
        mp_reason(why, whylen, "out of memory");
        mp_collector_close(c);
        return NULL;
    }
    c->opening = 1;
    c->n = n;
    c->max_ranges = max_ranges;
    for (size_t i = 0; i < n; i++) {
        if (!(c->names[i] = strdup(names[i]))) {
            mp_reason(why, whylen, "out of memory");
            mp_collector_close(c);
            return NULL;
        }
    }
    return c;
}

/* cuptiProfilerInitialize. Without a driver this returns
 * CUPTI_ERROR_UNKNOWN, and the later target calls (chip name,
 * availability) would then crash inside CUPTI: any failure is
 * UNAVAILABLE, and the caller stops there. */
static mp_counters_status init_profiler(mp_collector *c, char *why,
                                        size_t whylen)
{
    CUpti_Profiler_Initialize_Params pi = {
        .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE,
    };
    int rc = CHECK_CUPTI(cuptiProfilerInitialize(&pi), why, whylen);
    if (rc) {
        if (environment_error(rc)) add_hint(rc, why, whylen);
        else append(why, whylen, "; no CUDA driver or no usable GPU?");
        return MP_COUNTERS_UNAVAILABLE;
    }
    c->profiler_initialized = 1;
    return MP_COUNTERS_OK;
}

/* The chip's name (e.g. "GH100") into c->chip. */
static mp_counters_status read_chip_name(mp_collector *c, char *why,
                                         size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    CUpti_Device_GetChipName_Params cn = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = (size_t)c->device,
    };
    CUPTI_OR_FAIL(cuptiDeviceGetChipName(&cn));
    snprintf(c->chip, sizeof c->chip, "%s", cn.pChipName ? cn.pChipName : "");
    return MP_COUNTERS_OK;

fail:
    return st;
}

/* cuptiRangeProfilerEnable (insufficient privileges show up here), then
 * the counter data image, which holds exactly max_ranges ranges: CUPTI
 * drops any range beyond that without an error, which end() catches by
 * counting. */
static mp_counters_status enable_range_profiler(mp_collector *c, char *why,
                                                size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    CUpti_RangeProfiler_Enable_Params en = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = c->ctx,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerEnable(&en));
    c->rp = en.pRangeProfilerObject;

    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->rp,
        .pMetricNames = c->kept,
        .numMetrics = c->nk,
        .maxNumOfRanges = c->max_ranges,
        .maxNumRangeTreeNodes = (uint32_t)c->max_ranges,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerGetCounterDataSize(&ds));
    c->image_size = ds.counterDataSize;
    c->image = calloc(1, c->image_size ? c->image_size : 1);
    if (!c->image) {
        mp_reason(why, whylen,
            "cannot allocate a %zu-byte counter data image for %zu ranges;"
            " profile in smaller batches", c->image_size, c->max_ranges);
        return MP_COUNTERS_ERROR;
    }
    return MP_COUNTERS_OK;

fail:
    return st;
}

/* User replay unless MP_REPLAY_ENV says "kernel"; a CUPTI that refuses
 * user replay with auto range gets kernel replay. Prepares the first
 * image. */
static mp_counters_status choose_replay(mp_collector *c, char *why,
                                        size_t whylen)
{
    mp_counters_status st;
    const char *mode = getenv(MP_REPLAY_ENV);
    if (mode && *mode && strcmp(mode, "user") && strcmp(mode, "kernel")) {
        mp_reason(why, whylen, "%s=%s: say user or kernel", MP_REPLAY_ENV, mode);
        return MP_COUNTERS_ERROR;
    }
    c->user_replay = !(mode && strcmp(mode, "kernel") == 0);
    if ((st = prepare_image(c, why, whylen)) != MP_COUNTERS_OK) {
        if (!c->user_replay)
            return st;
        c->user_replay = 0;
        st = prepare_image(c, why, whylen);
    }
    return st;
}

mp_counters_status mp_collector_open(mp_collector **out,
                                     const char *const *names, size_t n,
                                     size_t max_ranges,
                                     char *why, size_t whylen)
{
    mp_collector *c = NULL;
    mp_counters_status st;

    if ((st = check_open_args(out, names, n, max_ranges, why, whylen))
        != MP_COUNTERS_OK)
        return st;
    if ((st = check_no_injected_tool(why, whylen)) != MP_COUNTERS_OK)
        return st;
    if (!(c = new_collector(names, n, max_ranges, why, whylen)))
        return MP_COUNTERS_ERROR;

    if ((st = init_profiler(c, why, whylen)) != MP_COUNTERS_OK) goto fail;
    if ((st = current_context(c, why, whylen)) != MP_COUNTERS_OK) goto fail;
    if ((st = read_chip_name(c, why, whylen)) != MP_COUNTERS_OK) goto fail;
    /* Names this chip lacks (another generation's counters) are dropped,
     * not fatal: the rest of the set is still measured. */
    if ((st = filter_names(c, why, whylen)) != MP_COUNTERS_OK) goto fail;
    if ((st = get_availability(c, why, whylen)) != MP_COUNTERS_OK) goto fail;
    if ((st = build_config(c, why, whylen)) != MP_COUNTERS_OK) goto fail;
    if ((st = enable_range_profiler(c, why, whylen)) != MP_COUNTERS_OK)
        goto fail;
    if ((st = choose_replay(c, why, whylen)) != MP_COUNTERS_OK) goto fail;

    c->opening = 0;
    *out = c;
    return MP_COUNTERS_OK;

fail:
    mp_collector_close(c);
    return st;
}

/* ------------------------------------------------------------------------
 * Begin / end.
 * ---------------------------------------------------------------------- */

/* Stop of the current pass; *all = 1 when CUPTI has every pass. */
static mp_counters_status stop_pass(mp_collector *c, int *all, char *why,
                                    size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    double t0 = mp_cost_now();
    CHECK_CUDA(cudaDeviceSynchronize());
    mp_cost_add(MP_COST_END_SYNC, 0, t0);

    t0 = mp_cost_now();
    CUpti_RangeProfiler_Stop_Params sp = {
        .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->rp,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerStop(&sp));
    mp_cost_add(MP_COST_END_STOP, 0, t0);
    *all = sp.isAllPassSubmitted != 0;
    c->pass++;
    return MP_COUNTERS_OK;

fail:
    c->active = 0;
    c->broken = 1;
    return st;
}

/* Synchronize, then cuptiRangeProfilerStart. */
static mp_counters_status start_pass(mp_collector *c, char *why, size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    /* Nothing launched before may still be running when ranges start. */
    double t0 = mp_cost_now();
    CHECK_CUDA(cudaDeviceSynchronize());
    CUpti_RangeProfiler_Start_Params sp = {
        .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->rp,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerStart(&sp));
    mp_cost_add(MP_COST_BEGIN_START, 0, t0);
    return MP_COUNTERS_OK;

fail:
    c->active = 0;
    c->broken = 1;
    return st;
}

mp_counters_status mp_collector_begin(mp_collector *c, size_t launches,
                                      char *why, size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;

    if (why && whylen) why[0] = '\0';
    if (!c) {
        mp_reason(why, whylen, "mp_collector_begin: no collector");
        return MP_COUNTERS_ERROR;
    }
    if (c->broken) {
        mp_reason(why, whylen, "mp_collector_begin: collector unusable after an earlier CUPTI error");
        return MP_COUNTERS_ERROR;
    }
    if (c->active) {
        mp_reason(why, whylen, "mp_collector_begin: a group is already open");
        return MP_COUNTERS_ERROR;
    }
    if (launches == 0 || launches > c->max_ranges) {
        mp_reason(why, whylen, "mp_collector_begin: %zu launches in a group; "
                  "the collector holds 1 to %zu", launches, c->max_ranges);
        return MP_COUNTERS_ERROR;
    }

    /* The test hook of collector.h: counters lost mid-sweep. */
    const char *lose = getenv(MP_LOSE_COUNTERS_ENV);
    if (lose && *lose && c->groups >= (size_t)atoi(lose)) {
        c->broken = 1;
        mp_reason(why, whylen, "counters lost after %zu group(s) of launches "
                  "(test hook %s=%s)", c->groups, MP_LOSE_COUNTERS_ENV, lose);
        return MP_COUNTERS_ERROR;
    }
    double t0 = mp_cost_now();
    if (c->groups > 0 && (c->fresh_images || c->used + launches > c->max_ranges)
        && (st = prepare_image(c, why, whylen)) != MP_COUNTERS_OK) {
        c->broken = 1;
        return st;
    }
    mp_cost_add(MP_COST_BEGIN_CONFIG, 0, t0);

    if ((st = start_pass(c, why, whylen)) != MP_COUNTERS_OK)
        return st;
    c->active = 1;
    c->stopped = 0;
    c->retry = 0;
    c->pass = 0;
    c->groups++;
    return MP_COUNTERS_OK;
}

mp_counters_status mp_collector_pass(mp_collector *c, int *again, char *why,
                                     size_t whylen)
{
    mp_counters_status st;
    int all = 0;

    if (why && whylen) why[0] = '\0';
    if (again)
        *again = 0;
    if (!c || !again) {
        mp_reason(why, whylen, "mp_collector_pass: no collector");
        return MP_COUNTERS_ERROR;
    }
    if (!c->active || c->stopped) {
        mp_reason(why, whylen, "mp_collector_pass: no pass is open");
        return MP_COUNTERS_ERROR;
    }
    if ((st = stop_pass(c, &all, why, whylen)) != MP_COUNTERS_OK)
        return st;
    if (all) {
        c->stopped = 1;
        return MP_COUNTERS_OK;
    }
    if (!c->user_replay || c->pass >= c->passes) {
        /* Kernel replay has every pass in the launch; user replay never
         * needs more passes than the config schedules. */
        mp_reason(why, whylen, "CUPTI still wants replay passes after %zu "
                  "of %zu (%s replay)", c->pass, c->passes,
                  c->user_replay ? "user" : "kernel");
        c->active = 0;
        c->broken = 1;
        return MP_COUNTERS_ERROR;
    }
    if ((st = start_pass(c, why, whylen)) != MP_COUNTERS_OK)
        return st;
    *again = 1;
    return MP_COUNTERS_OK;
}

/* Stops the open group's last pass unless mp_collector_pass did; an
 * ERROR (the session broken) when CUPTI still wants passes the caller did
 * not run. The group is closed either way. */
static mp_counters_status stop_group(mp_collector *c, char *why,
                                     size_t whylen)
{
    mp_counters_status st;
    if (!c->stopped) {
        int all = 0;
        if ((st = stop_pass(c, &all, why, whylen)) != MP_COUNTERS_OK)
            return st;
        if (!all) {
            /* User replay wanted another pass that the caller did not run
             * (mp_collector_pass): the ranges are incomplete. */
            mp_reason(why, whylen, "CUPTI still wants replay passes after %zu "
                      "of %zu: launch the group once per pass "
                      "(mp_collector_pass)", c->pass, c->passes);
            c->active = 0;
            c->broken = 1;
            return MP_COUNTERS_ERROR;
        }
    }
    c->active = 0;
    c->stopped = 0;
    return MP_COUNTERS_OK;
}

/* DecodeData, then GetCounterDataInfo: the image's ranges in *total and
 * those CUPTI dropped in *dropped. A CUPTI failure breaks the session. */
static mp_counters_status decode_group(mp_collector *c, size_t *total,
                                       size_t *dropped, char *why,
                                       size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    double t0 = mp_cost_now();
    CUpti_RangeProfiler_DecodeData_Params dd = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
        .pRangeProfilerObject = c->rp,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerDecodeData(&dd));

    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
        .pCounterDataImage = c->image,
        .counterDataImageSize = c->image_size,
    };
    CUPTI_OR_FAIL(cuptiRangeProfilerGetCounterDataInfo(&info));
    mp_cost_add(MP_COST_END_DECODE, 0, t0);
    *total = info.numTotalRanges;
    *dropped = dd.numOfRangeDropped;
    return MP_COUNTERS_OK;

fail:
    c->broken = 1;
    return st;
}

/* Whether the decoded image holds exactly the group's ranges, the newest:
 * appended after the `used` ones of earlier groups, or alone in the
 * image. OK (c->used = total) or ERROR with why. */
static mp_counters_status check_ranges(mp_collector *c, size_t launches,
                                       size_t total, size_t dropped,
                                       char *why, size_t whylen)
{
    if (launches > c->max_ranges) {
        mp_reason(why, whylen,
            "%zu kernel launches in one group, but the collector holds %zu"
            " ranges: CUPTI dropped the rest", launches, c->max_ranges);
        return MP_COUNTERS_ERROR;
    }
    if (dropped != 0
        || (total != c->used + launches && total != launches)) {
        mp_reason(why, whylen,
            "CUPTI returned %zu ranges (%zu reported dropped, %zu held before)"
            " for %zu kernel launches: another kernel ran between begin and"
            " end, or ranges were lost", total, dropped,
            c->used, launches);
        /* Once, with appended ranges: fresh images from now on, and the
         * caller may profile the group again (mp_collector_retry). */
        if (c->used > 0 && !c->fresh_images) {
            c->fresh_images = 1;
            c->retry = 1;
        }
        c->used = c->max_ranges;   /* the next begin() prepares a new image */
        return MP_COUNTERS_ERROR;
    }
    c->used = total;
    return MP_COUNTERS_OK;
}

/* EvaluateToGpuValues for the group's ranges (the newest `launches` of
 * `total`): one row of c->n values each, NaN for the names the chip
 * lacks. A non-finite value is an ERROR; a CUPTI failure breaks the
 * session. */
static mp_counters_status evaluate_ranges(mp_collector *c, size_t launches,
                                          size_t total, double *values,
                                          char *why, size_t whylen)
{
    mp_counters_status st = MP_COUNTERS_ERROR;
    double t0 = mp_cost_now();
    for (size_t r = 0; r < launches; r++) {
        double *row = values + r * c->n;

        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
            .pHostObject = c->host,
            .pCounterDataImage = c->image,
            .counterDataImageSize = c->image_size,
            .rangeIndex = total - launches + r,
            .ppMetricNames = c->kept,
            .numMetrics = c->nk,
            .pMetricValues = c->scratch,
        };
        CUPTI_OR_FAIL(cuptiProfilerHostEvaluateToGpuValues(&ev));
        for (size_t m = 0; m < c->n; m++)
            row[m] = NAN;   /* the names the chip lacks */
        for (size_t k = 0; k < c->nk; k++) {
            if (!isfinite(c->scratch[k])) {
                mp_reason(why, whylen, "metric '%s' is %g in range %zu of %zu",
                    c->kept[k], c->scratch[k], r, launches);
                return MP_COUNTERS_ERROR;
            }
            row[c->index[k]] = c->scratch[k];
        }
    }
    mp_cost_add(MP_COST_END_EVALUATE, 0, t0);
    return MP_COUNTERS_OK;

fail:
    c->broken = 1;
    return st;
}

mp_counters_status mp_collector_end(mp_collector *c, size_t launches,
                                    double *values, char *why, size_t whylen)
{
    mp_counters_status st;
    size_t total = 0, dropped = 0;

    if (why && whylen) why[0] = '\0';
    if (!c) {
        mp_reason(why, whylen, "mp_collector_end: no collector");
        return MP_COUNTERS_ERROR;
    }
    if (!c->active) {
        mp_reason(why, whylen, "mp_collector_end: no group is open (begin() missing or failed)");
        return MP_COUNTERS_ERROR;
    }
    if (launches > 0 && !values) {
        mp_reason(why, whylen, "mp_collector_end: no place for the values");
        /* Still stop the group below so the session stays usable. */
    }
    if ((st = stop_group(c, why, whylen)) != MP_COUNTERS_OK)
        return st;
    if ((st = decode_group(c, &total, &dropped, why, whylen))
        != MP_COUNTERS_OK)
        return st;
    /* The group is decoded; from here on, errors are about this group and
     * the next begin() starts clean. */
    if (launches > 0 && !values) return MP_COUNTERS_ERROR;
    if ((st = check_ranges(c, launches, total, dropped, why, whylen))
        != MP_COUNTERS_OK)
        return st;
    return evaluate_ranges(c, launches, total, values, why, whylen);
}

int mp_collector_retry(mp_collector *c)
{
    if (!c || c->broken || !c->retry)
        return 0;
    c->retry = 0;
    return 1;
}

const char *mp_collector_replay(const mp_collector *c)
{
    return !c ? "" : c->user_replay ? "user" : "kernel";
}

/* ------------------------------------------------------------------------
 * Close and accessors.
 * ---------------------------------------------------------------------- */

void mp_collector_close(mp_collector *c)
{
    if (!c) return;

    /* Teardown errors cannot be acted on; CHECK_CUPTI with no buffer. */
    if (c->active && !c->stopped && c->rp) {
        CUpti_RangeProfiler_Stop_Params sp = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->rp,
        };
        (void)CHECK_CUPTI(cuptiRangeProfilerStop(&sp), NULL, 0);
        c->active = 0;
    }
    if (c->rp) {
        CUpti_RangeProfiler_Disable_Params dp = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
            .pRangeProfilerObject = c->rp,
        };
        (void)CHECK_CUPTI(cuptiRangeProfilerDisable(&dp), NULL, 0);
        c->rp = NULL;
    }
    if (c->host) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {
            .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
            .pHostObject = c->host,
        };
        (void)CHECK_CUPTI(cuptiProfilerHostDeinitialize(&hd), NULL, 0);
        c->host = NULL;
    }
    if (c->profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params di = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
        };
        (void)CHECK_CUPTI(cuptiProfilerDeInitialize(&di), NULL, 0);
        c->profiler_initialized = 0;
    }

    if (c->names) {
        for (size_t i = 0; i < c->n; i++) free(c->names[i]);
        free(c->names);
    }
    free(c->kept);
    free(c->index);
    free(c->scratch);
    free(c->avail);
    free(c->config);
    free(c->image);
    free(c);
}

size_t mp_collector_max_ranges(const mp_collector *c)
{
    return c ? c->max_ranges : 0;
}

size_t mp_collector_passes(const mp_collector *c)
{
    return c ? c->passes : 0;
}

size_t mp_collector_image_bytes(const mp_collector *c)
{
    return c ? c->image_size : 0;
}

const char *mp_collector_chip(const mp_collector *c)
{
    return c ? c->chip : "";
}

const char *mp_collector_unavailable(const mp_collector *c)
{
    return c ? c->unavailable : "";
}

size_t mp_collector_kept(const mp_collector *c)
{
    return c ? c->nk : 0;
}
