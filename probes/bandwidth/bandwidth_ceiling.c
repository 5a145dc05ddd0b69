/*
 * bandwidth_ceiling.c - the device's read bandwidth as a reference for
 * other families (probes/ceiling.h; the reduce family's fraction of it),
 * measured with this family's read kernel.
 */
#include <cuda_runtime_api.h>
#include <string.h>

#include "bandwidth.h"
#include "ceiling.h"
#include "check.h"
#include "probe.h"
#include "stats.h"

#define CEILING_BYTES (1LL << 30)   /* read-bandwidth reference array */
#define CEILING_WARMUP 2
#define CEILING_RUNS 5

/* One launch of the read kernel (mp_time_events' launch). */
static void launch_read(void *b)
{
    CHECK_CUDA(mp_bw_launch_kernel(b));
}

/* The device's read bandwidth, measured once per process with the
 * bandwidth probe's read kernel (16-byte loads, 4 in flight, one full
 * wave) over a 1 GiB array, 17x the H200's L2: GB/s of the median of
 * CEILING_RUNS timed launches. Outside any profiled batch (after_timing),
 * so the cudaMemset that initialises the array is allowed. */
double mp_read_ceiling_gbs(int sm_count)
{
    static double measured;
    if (measured > 0)
        return measured;
    mp_bw_launch b;
    memset(&b, 0, sizeof b);
    b.kernel = MP_BW_READ;
    b.width = 16;
    b.cache = MP_BW_CACHE_DEFAULT;
    b.inflight = 4;
    b.stride = 1;
    b.threads = 256;
    b.elements = (unsigned long long)CEILING_BYTES / 16;
    int per_sm = 0;
    CHECK_CUDA(mp_bw_occupancy(&b, &per_sm));
    b.blocks = sm_count * (per_sm > 0 ? per_sm : 1);
    void *src, *out;
    CHECK_CUDA(cudaMalloc(&src, (size_t)CEILING_BYTES));
    CHECK_CUDA(cudaMemset(src, 0, (size_t)CEILING_BYTES));
    CHECK_CUDA(cudaMalloc(&out, (size_t)b.blocks * b.threads * 8));
    b.src = src;
    b.out = out;
    double ns[CEILING_RUNS];
    mp_time_events(NULL, launch_read, &b, CEILING_WARMUP, CEILING_RUNS, ns);
    CHECK_CUDA(cudaFree(src));
    CHECK_CUDA(cudaFree(out));
    mp_stats st;
    mp_stats_compute(ns, CEILING_RUNS, &st);
    measured = (double)CEILING_BYTES / st.median;   /* B/ns = GB/s */
    return measured;
}
