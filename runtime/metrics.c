/*
 * metrics.c - the one table of hardware counters per probe family, and a
 * GPU-free validator built on the CUPTI Profiler Host API.
 *
 * The names are Nsight Compute's (checked against CUPTI 13.0 for GH100
 * with cuptiProfilerHostGetMetricProperties); see docs/collector.md. To add
 * a metric, add a row to the set's table below: tests/test_metrics.c checks
 * that every row validates for GH100 and prints the pass count.
 */
#include "metrics.h"
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Needs shim/string ahead of the CUDA include dir: see shim/string. */
#include <cupti_profiler_host.h>

/* ------------------------------------------------------------------------
 * The tables. Every set ends with gpu__time_duration.sum.
 * ---------------------------------------------------------------------- */

/* Tolerances (memprobe vs ncu, and run to run), from measurements on the
 * H200 (docs/notes.md, results/h200):
 * - Instruction and request counts of a deterministic kernel agree
 *   exactly.
 * - Shared-memory wavefronts and conflicts of loads differ by up to 2.6e-4
 *   events per request (collector vs ncu, 256 iterations; 4.6e-6 run to
 *   run with 4096): arbitration; allowed 1e-3 per request. L1 sectors of
 *   global loads, the same bound.
 * - Stores' wavefronts and conflicts are exact when a warp only stores
 *   (bank probe), but where warps interleave LDS and STS (the reduction
 *   trees; now the shared-mixed set below, whose bounds were widened by
 *   later runs) they carry an arbitration excess that varies from run to run:
 *   collector vs ncu differed by 6 events on 1000 LDS requests (32
 *   blocks); allowed 1e-2 per request, plus 4 events: the atomic variant,
 *   32 LDS in all, counted 256 store wavefronts in one run and 257 in the
 *   next.
 * - L2 sectors and DRAM bytes depend on what the caches held before the
 *   launch, which differs between two processes: up to 25 MB of DRAM
 *   writes apart for a 1 GiB read. Allowed 10% of the value plus one L2
 *   (64 MiB, the H200 has 60 MiB), in bytes or 32-byte sectors.
 * - Kernel time differed by up to 3.8% for 100-us kernels and by up to
 *   7.0 us for 45-us ones (the first configurations of a profiled batch
 *   run slower under the collector); allowed 10% plus 8 us. */
#define EXACT 0.0, MP_TOL_REQUEST, 0
#define ARBITRATION 1e-3, MP_TOL_REQUEST, 0
#define STORE_ARBITRATION 1e-2, MP_TOL_REQUEST, 4
#define TRAFFIC 1e-3, MP_TOL_REQUEST, 0
#define L2_BYTES (64.0 * 1024 * 1024)
#define CACHED_BYTES 0.10, MP_TOL_VALUE, L2_BYTES
#define CACHED_SECTORS 0.10, MP_TOL_VALUE, (L2_BYTES / 32)
#define TIMING 0.10, MP_TOL_VALUE, 8000
/* Constant-cache hits and misses: 10% plus a few misses per SM. */
#define CACHED_IDC 0.10, MP_TOL_VALUE, 512

#define TIME_ROW { MP_METRIC_TIME, "ns", \
    "GPU duration of the kernel, as measured by the profiler", TIMING }

/* The shared-memory counters, with tolerance LD for the load side's
 * arbitration counters and ST for the store side's (the shared and
 * shared-mixed sets differ only there). */
#define SHARED_ROWS(LD, ST) \
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "conflicts", \
      "shared-memory bank conflicts counted by L1TEX for loads (LDS, LDSM)", LD }, \
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "conflicts", \
      "shared-memory bank conflicts counted by L1TEX for stores (STS, STSM)", ST }, \
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts", \
      "shared-memory wavefronts processed by the L1TEX data stage for loads", LD }, \
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts", \
      "shared-memory wavefronts processed by the L1TEX data stage for stores", ST }, \
    { "smsp__sass_inst_executed_op_shared_ld.sum", "instructions", \
      "warp-level shared-memory load instructions executed (LDS, LD)", EXACT }, \
    { "smsp__sass_inst_executed_op_shared_st.sum", "instructions", \
      "warp-level shared-memory store instructions executed (STS, ST)", EXACT }, \
    { "smsp__sass_inst_executed_op_ldsm.sum", "instructions", \
      "warp-level LDSM (ldmatrix) instructions executed", EXACT }, \
    { "smsp__sass_inst_executed_op_shared_stsm.sum", "instructions", \
      "warp-level STSM (stmatrix) instructions executed", EXACT }, \
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", "wavefronts", \
      "shared-memory wavefronts of LDSM instructions", LD }, \
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum", "wavefronts", \
      "shared-memory wavefronts of STSM instructions", ST }

static const mp_metric shared_set[] = {
    SHARED_ROWS(ARBITRATION, STORE_ARBITRATION),
    TIME_ROW
};

/* The shared set's counters, for kernels in which some warps load while
 * others store (the reduction trees, the bitmap kernel's write then
 * mirrored read): there the load counters too vary from run to run, by
 * more than the shared set's 1e-3 per request. Measured on the H200:
 * - loads: ncu-check of bitmap, memprobe vs ncu, 164 load wavefronts (and
 *   conflicts) apart on 32768 LDS (5.0e-3 per request; seed layout, ld
 *   side; 62 on the st side, 56 for pad); the study re-run vs the
 *   committed study, 124 apart for reduce/tree-strided/dot/n33792 on
 *   26400 requests (4.7e-3), 2 apart on 1056 for reduce/atomic/cubes and
 *   warp-shuffle/dot (1.9e-3). Allowed 1e-2 per request plus 4 events
 *   (twice the largest measured rate).
 * - stores: the study re-run vs the committed study, 27 store wavefronts
 *   (and conflicts) apart for reduce/atomic/dot/n67108864 on 1056 requests
 *   (2.6e-2 per request: beyond the shared set's 1e-2 + 4); bitmap's
 *   stores were exact. Allowed 3e-2 per request plus 4 events (1.2 times
 *   the measured rate: one more H200 run may widen it).
 * Issue 24 (tolerances from repeat spread): ncu itself, five runs of the
 * bitmap standard set on the H200, counted the seed layout's load
 * wavefronts and conflicts up to 299 apart on 32768 LDS (9.1e-3 per
 * request; memprobe vs ncu 347 apart in one of the five cross-checks):
 * 3 x that spread needs (3 x 299 - 4) / 32768 = 2.73e-2 per request.
 * Allowed 3e-2 per request plus 4 events (results/h200/issue24/call2/
 * ncurepeat/spread-bitmap.txt).
 * Instruction counts stay exact. */
#define MIXED_LOADS 3e-2, MP_TOL_REQUEST, 4
/* Session 4 (the profiling groups) widened the stores: reduce/
 * warp-shuffle/dot/n67108864 57 store wavefronts apart from the committed
 * study on ~1060 requests (5.3e-2), reduce/tree-strided/cubes/b32 38
 * apart from ncu on ~800 (4.8e-2). Allowed 8e-2 per request plus 4. */
#define MIXED_STORES 8e-2, MP_TOL_REQUEST, 4

static const mp_metric shared_mixed_set[] = {
    SHARED_ROWS(MIXED_LOADS, MIXED_STORES),
    TIME_ROW
};

static const mp_metric global_set[] = {
    { "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests",
      "global-load requests sent to the L1TEX tag stage", EXACT },
    { "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests",
      "global-store requests sent to the L1TEX tag stage", EXACT },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
      "32-byte sectors requested by global loads at L1TEX", TRAFFIC },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sectors",
      "32-byte sectors requested by global stores at L1TEX", TRAFFIC },
    { "lts__t_sectors_srcunit_tex_op_read.sum", "sectors",
      "L2 sectors read on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "lts__t_sectors_srcunit_tex_op_write.sum", "sectors",
      "L2 sectors written on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "dram__bytes_read.sum", "bytes",
      "bytes read from device memory (HBM)", CACHED_BYTES },
    { "dram__bytes_write.sum", "bytes",
      "bytes written to device memory (HBM)", CACHED_BYTES },
    { "smsp__sass_inst_executed_op_global_ld.sum", "instructions",
      "warp-level global load instructions executed (LDG)", EXACT },
    { "smsp__sass_inst_executed_op_global_st.sum", "instructions",
      "warp-level global store instructions executed (STG)", EXACT },
    TIME_ROW
};

static const mp_metric constant_set[] = {
    { "smsp__inst_executed_op_ldc.sum", "instructions",
      "warp-level LDC (load from constant bank) instructions executed", EXACT },
    { "idc__requests.sum", "requests",
      "requests to the immediate constant cache (IDC)", EXACT },
    { "sm__idc_divergent_instructions.sum", "instructions",
      "instructions sent to the IDC whose addresses diverged within the warp", EXACT },
    { "sm__idc_divergent_instruction_replays.sum", "replays",
      "IDC instruction replays caused by address divergence", EXACT },
    { "idc__requests_lookup_hit.sum", "requests",
      "IDC requests that hit in the constant cache", CACHED_IDC },
    { "idc__requests_lookup_miss.sum", "requests",
      "IDC requests that missed in the constant cache", CACHED_IDC },
    TIME_ROW
};

/* The texture probe reads through the TEX pipe (tex1Dfetch, tex2D) or the
 * LSU pipe (global loads, __ldg); both sides are in the set, so every
 * source is profiled with the same metrics (4 passes on GH100). Hits (and
 * with them the L2 sectors of the misses) depend on which warps share L1
 * at the time: memprobe and ncu differed by up to 0.051 L2 sectors per
 * request (tex1d column walk, H200); runs of session 4 (L2 flushed before
 * each profiled launch) against the committed study by 0.131 L2 sectors
 * and 0.219 L1 texture hits per request (same walk). Allowed 0.3. */
#define CACHE_STATE 0.30, MP_TOL_REQUEST, 0
/* Global-load sectors of the texture probe's global and __ldg column
 * walks (n4096, 32 iterations, 524288 requests) differed between two H200
 * study runs by 5861 sectors (1.12e-2 per request, global) and 2295
 * (4.4e-3, ldg), beyond the global set's 1e-3; in session 4 by 12845
 * (2.45e-2, global), and one run read 31.9788 per request for the
 * model's 32. Allowed 4e-2 per request (1.6 times the largest). */
#define TEX_GLOBAL_SECTORS 4e-2, MP_TOL_REQUEST, 0

static const mp_metric texture_set[] = {
    { "l1tex__t_requests_pipe_tex_mem_texture.sum", "requests",
      "texture requests (TEX, TLD: tex2D, tex1Dfetch) sent to the L1TEX tag stage", EXACT },
    { "l1tex__t_sectors_pipe_tex_mem_texture.sum", "sectors",
      "32-byte sectors requested by texture fetches at L1TEX", TRAFFIC },
    { "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum", "sectors",
      "texture-fetch sectors that hit in L1TEX", CACHE_STATE },
    { "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests",
      "global-load requests sent to the L1TEX tag stage", EXACT },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
      "32-byte sectors requested by global loads at L1TEX", TEX_GLOBAL_SECTORS },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "sectors",
      "global-load sectors that hit in L1TEX", CACHE_STATE },
    { "smsp__inst_executed_op_texture.sum", "instructions",
      "warp-level texture instructions executed", EXACT },
    { "lts__t_sectors_srcunit_tex_op_read.sum", "sectors",
      "L2 sectors read on behalf of L1TEX (SM) traffic", CACHE_STATE },
    TIME_ROW
};

/* The latency probe's chase: one thread, one load at a time. Which level
 * served the loads: L1 hits of the global-load sectors, L2 hits of the
 * sectors L1 sent on, DRAM bytes read. Hits depend on what the caches
 * held before the launch (the profiled launch follows a fresh setup):
 * 10% plus one L2 for L2 and DRAM traffic, as for the global set. */
static const mp_metric latency_set[] = {
    { "smsp__sass_inst_executed_op_global_ld.sum", "instructions",
      "warp-level global load instructions executed (LDG)", EXACT },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
      "32-byte sectors requested by global loads at L1TEX", TRAFFIC },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "sectors",
      "global-load sectors that hit in L1TEX", CACHED_SECTORS },
    { "lts__t_sectors_srcunit_tex_op_read.sum", "sectors",
      "L2 sectors read on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "sectors",
      "L2 sectors read on behalf of L1TEX that hit in L2", CACHED_SECTORS },
    { "dram__bytes_read.sum", "bytes",
      "bytes read from device memory (HBM)", CACHED_BYTES },
    TIME_ROW
};

/* Async copies into shared memory (probes/async/async.c): the copy
 * instructions of each method, the shared-store wavefronts of STS and
 * LDGSTS (the LSU side; validated names: no l1tex__ LDGSTS wavefront
 * counter exists for GH100, the sass-level one does), the bytes the TMA
 * unit received (bulk and tensor copies), and the traffic behind them.
 * Instruction counts are exact. Shared-store wavefronts, measured on the
 * H200 (ncu-check --probe async, memprobe vs ncu): STS wavefronts of
 * async/staged/w16/ca (the staged copy: loads and stores interleave
 * across warps) differed by 2866 on 131072 requests (2.19e-2 per request,
 * beyond the shared set's 1e-2 + 4); LDGSTS conflicts of async/cpasync by
 * 1060 (8.1e-3), LDGSTS wavefronts by 0. Allowed 3e-2 per request plus 4
 * events for all three (1.4 times the largest measured rate). Issue 24:
 * five ncu runs of the async standard set counted the staged copy's STS
 * wavefronts up to 3435 apart on 131072 requests (2.62e-2 per request);
 * 3 x that spread needs 7.86e-2. Allowed 8e-2 per request plus 4
 * (results/h200/issue24/call2/ncurepeat/spread-async.txt). Traffic as for the
 * global set. */
#define ASYNC_STORES 8e-2, MP_TOL_REQUEST, 4
/* LDGSTS conflicts of async/cpasync/w16 under the profiling groups of
 * session 4 (memprobe vs ncu, 131072 requests): +6828 on a warm L2
 * (5.2e-2 per request), -4016 after an L2 flush (3.1e-2); ncu's own two
 * runs 86348 and 87223. Allowed 8e-2 per request plus 4. */
#define LDGSTS_CONFLICTS 8e-2, MP_TOL_REQUEST, 4
static const mp_metric async_set[] = {
    { "smsp__inst_executed_op_ldgsts.sum", "instructions",
      "warp-level LDGSTS (cp.async) instructions executed", EXACT },
    { "smsp__sass_inst_executed_op_shared_st.sum", "instructions",
      "warp-level shared-memory store instructions executed (STS)", EXACT },
    { "smsp__sass_inst_executed_op_shared_ld.sum", "instructions",
      "warp-level shared-memory load instructions executed (LDS)", EXACT },
    { "smsp__inst_executed_pipe_tma.sum", "instructions",
      "warp-level instructions executed by the TMA pipe (UBLKCP, UTMALDG)", EXACT },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts",
      "shared-memory wavefronts of stores (STS)", ASYNC_STORES },
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", "wavefronts",
      "shared-memory wavefronts of LDGSTS (the cp.async shared stores)", ASYNC_STORES },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum", "conflicts",
      "shared-memory bank conflicts of LDGSTS", LDGSTS_CONFLICTS },
    { "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum", "bytes",
      "bytes returned from L2 to L1TEX for the TMA (bulk and tensor copies)", CACHED_BYTES },
    { "lts__t_sectors_srcunit_tex_op_read.sum", "sectors",
      "L2 sectors read on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "dram__bytes_read.sum", "bytes",
      "bytes read from device memory (HBM)", CACHED_BYTES },
    TIME_ROW
};

/* Distributed shared memory (probes/cluster/cluster.c): loads and stores to
 * another block's shared memory are generic LD/ST in the SASS and reach
 * L1TEX as "dshared" requests; local ones are LDS/STS. Tolerances as for
 * the shared set: the H200's ncu-check --probe cluster (176 values) stayed
 * within them, the largest gaps 721 store wavefronts on about 2.16e6
 * requests (3.3e-4 per request, remote st) and 83 load wavefronts
 * (3.8e-5, local ld). */
static const mp_metric cluster_set[] = {
    { "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum", "requests",
      "distributed-shared-memory load requests (another block's shared memory)", EXACT },
    { "l1tex__t_requests_pipe_lsu_mem_dshared_op_st.sum", "requests",
      "distributed-shared-memory store requests", EXACT },
    { "l1tex__t_bytes_pipe_lsu_mem_dshared_op_ld.sum", "bytes",
      "bytes loaded from distributed shared memory", TRAFFIC },
    { "l1tex__t_bytes_pipe_lsu_mem_dshared_op_st.sum", "bytes",
      "bytes stored to distributed shared memory", TRAFFIC },
    { "smsp__inst_executed_op_generic_ld.sum", "instructions",
      "warp-level generic loads executed (LD: remote shared memory in the SASS)", EXACT },
    { "smsp__inst_executed_op_generic_st.sum", "instructions",
      "warp-level generic stores executed (ST)", EXACT },
    { "smsp__sass_inst_executed_op_shared_ld.sum", "instructions",
      "warp-level shared-memory load instructions executed (LDS, LD)", EXACT },
    { "smsp__sass_inst_executed_op_shared_st.sum", "instructions",
      "warp-level shared-memory store instructions executed (STS, ST)", EXACT },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
      "shared-memory wavefronts processed by the L1TEX data stage for loads", ARBITRATION },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts",
      "shared-memory wavefronts processed by the L1TEX data stage for stores", STORE_ARBITRATION },
    TIME_ROW
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    const char *name;
    const mp_metric *table;
    size_t count;
    /* 1: no counter of the set depends on what the caches hold before the
     * launch (the bank probe: shared memory only, exact counts), so the
     * runner does not flush the L2 before its profiled launches. */
    int cache_independent;
} sets[MP_SET_COUNT] = {
    [MP_SET_SHARED]   = { "shared",   shared_set,   COUNT_OF(shared_set), 1 },
    /* No cache counters either; profiled after an L2 flush, the 32-block
     * reductions of ncu-check ran 50 us where ncu says 25 (H200, session
     * 4), and their arbitration counts stay within tolerance without it. */
    [MP_SET_SHARED_MIXED] = { "shared-mixed", shared_mixed_set,
                              COUNT_OF(shared_mixed_set), 1 },
    [MP_SET_GLOBAL]   = { "global",   global_set,   COUNT_OF(global_set) },
    [MP_SET_CONSTANT] = { "constant", constant_set, COUNT_OF(constant_set) },
    [MP_SET_TEXTURE]  = { "tex",      texture_set,  COUNT_OF(texture_set) },
    [MP_SET_LATENCY]  = { "latency",  latency_set,  COUNT_OF(latency_set) },
    [MP_SET_ASYNC]    = { "async",    async_set,    COUNT_OF(async_set) },
    [MP_SET_CLUSTER]  = { "cluster",  cluster_set,  COUNT_OF(cluster_set) },
};

double mp_metric_allowed(const mp_metric *m, double value, double requests)
{
    double scale = m->tolerance_per == MP_TOL_VALUE ? fabs(value) : requests;
    return m->tolerance * scale + m->tolerance_floor;
}

const mp_metric *mp_metric_set_get(mp_metric_set set, size_t *count)
{
    if ((unsigned)set >= MP_SET_COUNT) {
        if (count) *count = 0;
        return NULL;
    }
    if (count) *count = sets[set].count;
    return sets[set].table;
}

int mp_metric_set_cache_independent(mp_metric_set set)
{
    return (unsigned)set < MP_SET_COUNT ? sets[set].cache_independent : 0;
}

const char *mp_metric_set_name(mp_metric_set set)
{
    return (unsigned)set < MP_SET_COUNT ? sets[set].name : NULL;
}

int mp_metric_set_from_name(const char *name, mp_metric_set *out)
{
    if (!name) return -1;
    for (int i = 0; i < MP_SET_COUNT; i++) {
        if (strcmp(name, sets[i].name) == 0) {
            if (out) *out = (mp_metric_set)i;
            return 0;
        }
    }
    return -1;
}

size_t mp_metric_set_names(mp_metric_set set, const char **names, size_t max)
{
    size_t count = 0;
    const mp_metric *t = mp_metric_set_get(set, &count);
    size_t i;

    for (i = 0; t && i < count && i < max; i++) names[i] = t[i].name;
    return i;
}

/* ------------------------------------------------------------------------
 * Validator (host API only; no GPU, no driver).
 * ---------------------------------------------------------------------- */


/* CHECK_CUPTI writes "<call>: <error name> (<code>)"; for messages about a
 * metric the call text is noise, so keep what follows the first ": ". */
static const char *error_part(const char *reason)
{
    const char *p = strstr(reason, ": ");
    return p ? p + 2 : reason;
}

/* mp_metrics_validate's arguments: a chip, and n names, each given once.
 * 0, or -1 with why. Clears why first. */
static int check_validate_args(const char *chip, const char *const *names,
                               size_t n, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!chip || !*chip) {
        mp_reason(why, whylen, "no chip name given");
        return -1;
    }
    if (!names || n == 0) {
        mp_reason(why, whylen, "empty metric list");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !*names[i]) {
            mp_reason(why, whylen, "metric #%zu has no name", i);
            return -1;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(names[i], names[j]) == 0) {
                mp_reason(why, whylen, "metric '%s' is listed twice", names[i]);
                return -1;
            }
        }
    }
    return 0;
}

/* A host object for the chip into *host: 0, or -1 with why when this
 * CUPTI does not support it. A NULL counter-availability image is
 * accepted for chips CUPTI knows; on a GPU machine the collector passes
 * the real one instead. */
static int host_for_chip(const char *chip, CUpti_Profiler_Host_Object **host,
                         char *why, size_t whylen)
{
    char err[256] = "";
    CUpti_Profiler_Host_Initialize_Params init = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = chip,
        .pCounterAvailabilityImage = NULL,
    };
    if (CHECK_CUPTI(cuptiProfilerHostInitialize(&init), err, sizeof err)) {
        mp_reason(why, whylen, "chip '%s' is not supported by this CUPTI: %s",
            chip, error_part(err));
        return -1;
    }
    *host = init.pHostObject;
    return 0;
}

/* Frees a host object of host_for_chip (NULL: nothing). A failure here
 * cannot change a verdict; CHECK_CUPTI with no buffer just reports the
 * code, which is ignored. */
static void host_free(CUpti_Profiler_Host_Object *host)
{
    if (!host)
        return;
    CUpti_Profiler_Host_Deinitialize_Params fini = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    (void)CHECK_CUPTI(cuptiProfilerHostDeinitialize(&fini), NULL, 0);
}

/* Each name known to the chip, one at a time so that the reason names the
 * bad metric: 0, or -1 with why. */
static int check_each_metric(CUpti_Profiler_Host_Object *host,
                             const char *chip, const char *const *names,
                             size_t n, char *why, size_t whylen)
{
    char err[256] = "";
    for (size_t i = 0; i < n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params prop = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
            .pHostObject = host,
            .pMetricName = names[i],
        };
        if (CHECK_CUPTI(cuptiProfilerHostGetMetricProperties(&prop),
                        err, sizeof err)) {
            mp_reason(why, whylen, "metric '%s' is not valid for %s: %s",
                names[i], chip, error_part(err));
            return -1;
        }
    }
    return 0;
}

/* The names scheduled together into a config image, and its replay pass
 * count into *passes (if not NULL): 0, or -1 with why. */
static int count_passes(CUpti_Profiler_Host_Object *host, const char *chip,
                        const char *const *names, size_t n, size_t *passes,
                        char *why, size_t whylen)
{
    char err[256] = "";
    uint8_t *image = NULL;
    int rc = -1;

    /* CUPTI takes a non-const list but does not write it. */
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = host,
        .ppMetricNames = (const char **)names,
        .numMetrics = n,
    };
    if (CHECK_CUPTI(cuptiProfilerHostConfigAddMetrics(&add), err, sizeof err)) {
        mp_reason(why, whylen, "metrics cannot be scheduled together on %s: %s",
            chip, err);
        goto out;
    }

    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    if (CHECK_CUPTI(cuptiProfilerHostGetConfigImageSize(&size), err, sizeof err)) {
        mp_reason(why, whylen, "config image for %s: %s", chip, err);
        goto out;
    }
    image = malloc(size.configImageSize ? size.configImageSize : 1);
    if (!image) {
        mp_reason(why, whylen, "out of memory for a %zu-byte config image",
            size.configImageSize);
        goto out;
    }

    CUpti_Profiler_Host_GetConfigImage_Params get = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = host,
        .configImageSize = size.configImageSize,
        .pConfigImage = image,
    };
    if (CHECK_CUPTI(cuptiProfilerHostGetConfigImage(&get), err, sizeof err)) {
        mp_reason(why, whylen, "config image for %s: %s", chip, err);
        goto out;
    }

    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = size.configImageSize,
        .pConfigImage = image,
    };
    if (CHECK_CUPTI(cuptiProfilerHostGetNumOfPasses(&np), err, sizeof err)) {
        mp_reason(why, whylen, "pass count for %s: %s", chip, err);
        goto out;
    }
    if (passes) *passes = np.numOfPasses;
    rc = 0;

out:
    free(image);
    return rc;
}

int mp_metrics_validate(const char *chip, const char *const *names, size_t n,
                        size_t *passes, char *why, size_t whylen)
{
    CUpti_Profiler_Host_Object *host = NULL;
    int rc;

    if (check_validate_args(chip, names, n, why, whylen))
        return -1;
    if (host_for_chip(chip, &host, why, whylen))
        return -1;
    rc = check_each_metric(host, chip, names, n, why, whylen);
    if (rc == 0)
        rc = count_passes(host, chip, names, n, passes, why, whylen);
    host_free(host);
    return rc;
}

const char *const *mp_metrics_supported_chips(size_t *n)
{
    CUpti_Profiler_Host_GetSupportedChips_Params p = {
        .structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE,
    };
    char err[256];
    *n = 0;
    if (CHECK_CUPTI(cuptiProfilerHostGetSupportedChips(&p), err, sizeof err))
        return NULL;
    *n = p.numChips;
    return p.ppChipNames;
}

int mp_metrics_missing(const char *chip, const char *const *names, size_t n,
                       int *missing, char *why, size_t whylen)
{
    char err[256] = "";
    CUpti_Profiler_Host_Object *host = NULL;
    if (host_for_chip(chip, &host, why, whylen))
        return -1;
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params prop = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
            .pHostObject = host,
            .pMetricName = names[i],
        };
        missing[i] = CHECK_CUPTI(cuptiProfilerHostGetMetricProperties(&prop),
                                 err, sizeof err) != 0;
        count += missing[i];
    }
    host_free(host);
    return count;
}

int mp_metrics_filter(const char *chip, const char *const *names, size_t n,
                      int *keep, char *note, size_t notelen)
{
    int *missing = calloc(n ? n : 1, sizeof *missing);
    if (note && notelen)
        note[0] = '\0';
    for (size_t i = 0; i < n; i++)
        keep[i] = 0;
    if (!missing) {
        mp_reason(note, notelen, "out of memory");
        return -1;
    }
    int m = mp_metrics_missing(chip, names, n, missing, note, notelen);
    if (m < 0) {
        free(missing);
        return -1;
    }
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        keep[i] = !missing[i];
        if (!missing[i] || !note || notelen == 0 || len + 1 >= notelen)
            continue;
        int w = len == 0 ? snprintf(note, notelen, "%s%s: %s",
                                    MP_COUNTERS_UNAVAILABLE_ON, chip, names[i])
                         : snprintf(note + len, notelen - len, ", %s",
                                    names[i]);
        len = w < 0 ? len : len + (size_t)w;
        if (len >= notelen)
            len = notelen - 1;
    }
    free(missing);
    return m;
}

void mp_counters_status_text(const char *note, char *out, size_t outlen)
{
    if (note && *note)
        snprintf(out, outlen, "%s; %s", MP_COUNTERS_STATUS_OK, note);
    else
        snprintf(out, outlen, "%s", MP_COUNTERS_STATUS_OK);
}

int mp_counters_status_ok(const char *status)
{
    size_t k = strlen(MP_COUNTERS_STATUS_OK);
    return status && strncmp(status, MP_COUNTERS_STATUS_OK, k) == 0
           && (status[k] == '\0' || status[k] == ';');
}

int mp_counters_status_lacks(const char *status, const char *name)
{
    if (!mp_counters_status_ok(status) || !name || !*name)
        return 0;
    const char *list = strstr(status, MP_COUNTERS_UNAVAILABLE_ON);
    if (!list || !(list = strchr(list, ':')))
        return 0;
    size_t k = strlen(name);
    for (const char *p = list + 1; (p = strstr(p, name)); p += k) {
        char before = p[-1], after = p[k];
        if ((before == ' ' || before == ',')
            && (after == '\0' || after == ',' || after == ' '))
            return 1;
    }
    return 0;
}
