/*
 * probe.c - the engine's side of the probe interface (probe.h): the table
 * of probes the layer above registers, the teardown they all share, and
 * the helpers every probe's derive and setup use (counters by name,
 * per-request columns, launch and bandwidth columns, clock64 stamps).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hold.h"
#include "probe.h"
#include "stats.h"

double mp_counter(const mp_measurement *m, mp_metric_set set,
                  const char *name)
{
    size_t n;
    const mp_metric *metrics = mp_metric_set_get(set, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(metrics[i].name, name) == 0)
            /* NaN: the chip lacks it (the collector left it out) */
            return isfinite(m->counters[i]) ? m->counters[i] : -1;
    return -1;
}

void mp_probe_teardown(const mp_probe *p, void *state)
{
    if (!state)
        return;
    p->release(state);
    if (p->free_host)
        p->free_host(state);
    free(state);
}

double mp_active_sms(const mp_device *dev, double blocks)
{
    return blocks < dev->sm_count ? blocks : dev->sm_count;
}

void mp_row_set_per_request(mp_row *row, const mp_device *dev,
                            const mp_measurement *m, double requests,
                            double blocks)
{
    double sms = mp_active_sms(dev, blocks);
    double ghz = dev->sm_clock_khz / 1e6;
    mp_row_set(row, MP_COL_REQUESTS, "%.0f", requests);
    if (requests <= 0)
        return;
    if (m->time_ns.n > 0) {
        double ns = m->time_ns.median * sms / requests;
        mp_row_set(row, MP_COL_NS_PER_REQUEST, "%.4f", ns);
        mp_row_set(row, MP_COL_CYCLES_PER_REQUEST, "%.4f", ns * ghz);
    }
    if (m->clock64_span > 0) {
        mp_row_set(row, MP_COL_CLOCK64_CYCLES_PER_REQUEST, "%.4f",
                   (double)m->clock64_span * sms / requests);
        mp_row_set(row, MP_COL_CLOCK64_BLOCK_CYCLES_PER_REQUEST, "%.4f",
                   m->clock64_block_median * sms / requests);
    }
}

void mp_row_set_params(mp_row *row, const mp_param_def *params,
                       const long long *v, const mp_param_column *cols,
                       int n)
{
    for (int i = 0; i < n; i++) {
        const mp_param_def *d = &params[cols[i].param];
        long long x = v[cols[i].param];
        if (d->kind == MP_PARAM_CHOICE)
            mp_row_set(row, cols[i].col, "%s", d->choices[x]);
        else
            mp_row_set(row, cols[i].col, "%lld", x);
    }
}

void mp_row_set_launch(mp_row *row, int threads, double blocks,
                       long long shared_bytes)
{
    mp_row_set(row, MP_COL_THREADS, "%d", threads);
    mp_row_set(row, MP_COL_BLOCKS, "%.0f", blocks);
    if (shared_bytes >= 0)
        mp_row_set(row, MP_COL_SHARED_BYTES, "%lld", shared_bytes);
}

void mp_row_set_bandwidth(mp_row *row, double gbs, double ceiling_gbs)
{
    mp_row_set(row, MP_COL_BANDWIDTH_GBS, "%.1f", gbs);
    if (ceiling_gbs < 0)
        return;
    mp_row_set(row, MP_COL_CEILING_GBS, "%.1f", ceiling_gbs);
    mp_row_set(row, MP_COL_BANDWIDTH_FRACTION, "%.4f", gbs / ceiling_gbs);
}

void mp_row_set_match(mp_row *row, int match)
{
    mp_row_set(row, MP_COL_MODEL_MATCH, "%s", match ? "yes" : "no");
}

int mp_full_wave(const mp_device *dev, int per_sm)
{
    return dev->sm_count * (per_sm > 0 ? per_sm : 1);
}

void mp_clock64_alloc(int blocks, long long **dev, long long **host)
{
    size_t bytes = 2 * (size_t)blocks * sizeof(long long);
    CHECK_CUDA(cudaMalloc((void **)dev, bytes));
    *host = mp_xmalloc(bytes);
}

void mp_clock64_read(const long long *dev, long long *host, int blocks,
                     long long *span, double *block_median)
{
    CHECK_CUDA(cudaMemcpy(host, dev, 2 * (size_t)blocks * sizeof(long long),
                          cudaMemcpyDeviceToHost));
    mp_clock64_summary(host, blocks, span, block_median);
}

/* The stream hold of every timed sample (runtime/hold.h), opened at the
 * first sample, closed by mp_time_close; how many holds gave up. */
static mp_hold hold;
static long hold_gave_up;

/* How long a hold waits for the host to queue its sample: far beyond the
 * ~3 us a launch call takes (a sample is at most 1000 launches), short
 * enough that a launch that synchronizes costs little. */
#define HOLD_LIMIT_NS 20000000ULL

void mp_time_samples(void (*before)(void *), void (*launch)(void *),
                     void *ctx, int k, int n, int held, double *ns)
{
    if (before || k < 1)
        k = 1;
    if (held && !hold.flag)
        mp_hold_open(&hold);
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    for (int i = 0; i < n; i++) {
        float ms = 0;
        if (before)
            before(ctx);
        if (held)   /* after before(ctx), which may wait for the GPU */
            mp_hold_launch(&hold, HOLD_LIMIT_NS);
        CHECK_CUDA(cudaEventRecord(start, 0));
        for (int j = 0; j < k; j++)
            launch(ctx);
        CHECK_CUDA(cudaEventRecord(stop, 0));
        if (held)
            mp_hold_release(&hold);
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        ns[i] = ms * 1e6 / k;
        if (held)
            hold_gave_up += mp_hold_gave_up(&hold);
    }
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
}

long mp_time_close(void)
{
    long n = hold_gave_up;
    if (hold.flag)
        mp_hold_close(&hold);
    hold_gave_up = 0;
    return n;
}

unsigned mp_launch_traits(const mp_probe *p, const void *state)
{
    if (p->launch_traits)
        return p->launch_traits(state);
    return p->before_launch ? MP_LAUNCH_PREPARED : 0;
}

void mp_prepare_launch(const mp_probe *p, void *state)
{
    if (p->before_launch && (mp_launch_traits(p, state) & MP_LAUNCH_PREPARED))
        p->before_launch(state);
}

void mp_launch_untimed(void (*before)(void *), void (*launch)(void *),
                       void *ctx, int n)
{
    for (int i = 0; i < n; i++) {
        if (before)
            before(ctx);
        launch(ctx);
    }
}

void mp_time_events(void (*before)(void *), void (*launch)(void *),
                    void *ctx, int warmup, int runs, double *ns)
{
    mp_launch_untimed(before, launch, ctx, warmup);
    mp_time_samples(before, launch, ctx, 1, runs, 1, ns);
}
