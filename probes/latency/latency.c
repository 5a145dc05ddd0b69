/*
 * latency.c - the latency probe: parameters, checks, prediction, the
 * chain's device image, verification and derived columns. Kernels are in
 * latency.cu, the level model and the chain builder in
 * model/latency_model.c.
 *
 * One thread follows a chain of `footprint / stride` elements, `stride`
 * bytes apart, in sequential or random order (one cycle through every
 * element, Sattolo's algorithm with a fixed seed). Each launch continues
 * where the previous one stopped and makes untimed loads first, then
 * `loads` timed ones:
 *   - the first launch after setup walks the whole chain (twice when its
 *     lines fit in 1.5 x the L2 and it is longer than `loads`), so that
 *     the caches hold what a chase in its steady state finds there and
 *     nothing of the host's upload, however few loads a launch times;
 *   - every later launch makes warm = min(elements, loads) untimed loads,
 *     which refill the L1 (it is not kept across launches).
 * cycles_per_load is the median over the launches after the first of
 * clock64 cycles / loads.
 *
 * Verification: the kernel leaves its element and the loads it made in
 * device memory; after the launches so far the chain must stand their
 * loads' steps from element 0, which the CPU reads off the chain's order.
 *
 * Counters (the latency set) count the profiled launch, a later launch
 * made after the timed ones without an L2 flush (keeps_cache_state): the
 * same steady state that was timed; its warm and timed loads are the
 * `requests` column. Rates are per sector or per load of that launch,
 * and counter_level reads them as: L1 when at least 40% of the sectors hit
 * L1, else L2 when at least 40% of the L2 read sectors hit L2, else DRAM.
 * The model (model/latency_model.c) predicts that level, or a pair of
 * levels where the footprint is within 10% of a capacity.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "latency.h"
#include "latency_model.h"
#include "launch.h"
#include "probe.h"
#include "stats.h"

/* The family's metric set (latency_metrics.c). */
extern const mp_metric_set_def mp_set_latency;
#define MP_SET_LATENCY (&mp_set_latency)

enum { P_FOOTPRINT, P_STRIDE, P_ORDER, P_CACHE, P_SPACE, P_LOADS, P_COUNT };

/* Chains of more elements would need gigabytes of host memory to build. */
#define MAX_ELEMENTS (1LL << 25)

static const char *const order_names[] = {"seq", "random", NULL};
static const char *const cache_names[] = {"default", "cg", NULL};
static const char *const space_names[] = {"global", "shared", "constant",
                                          NULL};

static const mp_param_def latency_params[P_COUNT] = {
    [P_FOOTPRINT] = MP_INT_PARAM("footprint", 65536, 1, 1LL << 34,
        "bytes of the chased array (ranges: a..b:x2 doubles)"),
    [P_STRIDE] = MP_INT_PARAM("stride", 128, 4, 1LL << 30,
        "bytes between chased elements, a multiple of the element (8 "
        "global, 4 shared/constant)"),
    [P_ORDER] = MP_CHOICE_PARAM("order", 1, order_names,
        "seq (element i -> i + 1) or random (one random cycle)"),
    [P_CACHE] = MP_CHOICE_PARAM("cache", 0, cache_names,
        "global loads: default (ld.ca, through L1) or cg (L2 only)"),
    [P_SPACE] = MP_CHOICE_PARAM("space", 0, space_names,
        "where the chain lives: global, shared or constant"),
    [P_LOADS] = MP_INT_PARAM("loads", 4096, 64, 1 << 24,
        "timed dependent loads per launch, a multiple of 8"),
};

static long long elements_of(const long long *v)
{
    return mp_lat_elements(v[P_FOOTPRINT], v[P_STRIDE]);
}

static long long warm_of(const long long *v)
{
    long long n = elements_of(v);
    return n < v[P_LOADS] ? n : v[P_LOADS];
}

/* Untimed loads of the first launch after setup, for global chases: the
 * whole chain, so that nothing the host's upload left in the L2 is still
 * there when timing starts (each later load finds its element as a full
 * cycle of the chain left it: the fully warm number); twice when its
 * lines fit in 1.5 x the L2 and it is longer than the timed loads, so
 * that the L2 holds all it can of it. Shared and constant chases: warm_of.
 * (Walking only warm_of loads past the L2 left up to a third of a 128 MiB
 * chain's lines in the L2 from the upload: 534 cycles where the fully
 * walked chain takes 655-665, docs/latency.md.) */
static long long first_warm_of(const long long *v, const mp_lat_caps *caps)
{
    long long n = elements_of(v);
    if (v[P_SPACE] != MP_LAT_SPACE_GLOBAL)
        return warm_of(v);
    if (n > v[P_LOADS]
        && mp_lat_cached_bytes(v[P_FOOTPRINT], v[P_STRIDE])
               <= caps->l2_bytes / 2 * 3)
        return 2 * n;
    return n;
}

static int latency_check(const long long *v, size_t smem_limit, char *err,
                         size_t errlen)
{
    mp_lat_space space = (mp_lat_space)v[P_SPACE];
    int elem = mp_lat_element_bytes(space);
    if (v[P_STRIDE] % elem) {
        snprintf(err, errlen, "--stride: %lld bytes is not a multiple of the "
                 "%d-byte element of a %s chase", v[P_STRIDE], elem,
                 space_names[space]);
        return -1;
    }
    if (v[P_FOOTPRINT] < v[P_STRIDE]) {
        snprintf(err, errlen, "--footprint: %lld bytes hold no element "
                 "%lld bytes apart (at least one --stride)", v[P_FOOTPRINT],
                 v[P_STRIDE]);
        return -1;
    }
    if (elements_of(v) > MAX_ELEMENTS) {
        snprintf(err, errlen, "--footprint: %lld bytes / --stride %lld is "
                 "%lld elements, at most %lld", v[P_FOOTPRINT], v[P_STRIDE],
                 elements_of(v), MAX_ELEMENTS);
        return -1;
    }
    if (mp_param_check_multiple("loads", v[P_LOADS], 8, err, errlen))
        return -1;
    if (v[P_CACHE] != 0 && space != MP_LAT_SPACE_GLOBAL) {
        snprintf(err, errlen, "--cache: cg applies to global chases, not "
                 "--space %s", space_names[space]);
        return -1;
    }
    if (space == MP_LAT_SPACE_SHARED && v[P_FOOTPRINT] > (long long)smem_limit) {
        snprintf(err, errlen, "--footprint: %lld bytes of shared memory, a "
                 "block may have %zu", v[P_FOOTPRINT], smem_limit);
        return -1;
    }
    if (space == MP_LAT_SPACE_CONSTANT
        && v[P_FOOTPRINT] > MP_LAT_CONST_BYTES) {
        snprintf(err, errlen, "--footprint: %lld bytes of constant memory, "
                 "the array has %d", v[P_FOOTPRINT], MP_LAT_CONST_BYTES);
        return -1;
    }
    return 0;
}

static void latency_label(const long long *v, char *buf, size_t len)
{
    snprintf(buf, len, "latency/%s/%s/%s/f%lld/s%lld",
             space_names[v[P_SPACE]], cache_names[v[P_CACHE]],
             order_names[v[P_ORDER]], v[P_FOOTPRINT], v[P_STRIDE]);
}

static mp_lat_expect expected_with(const long long *v, const mp_lat_caps *caps)
{
    return mp_lat_expected(caps, (mp_lat_space)v[P_SPACE], v[P_CACHE] == 1,
                           v[P_ORDER] == 1, v[P_FOOTPRINT], v[P_STRIDE]);
}

static void latency_predict(const long long *v, mp_prediction *out)
{
    mp_lat_caps caps;
    mp_lat_caps_h200(&caps);
    mp_lat_expect e = expected_with(v, &caps);
    mp_prediction_clear(out);
    mp_prediction_put(out, "model_level", e.level);
    out->text[0] = mp_lat_expect_name(e);   /* a constant string */
    mp_prediction_put(out, "elements", (double)elements_of(v));
    mp_prediction_put(out, "cached_bytes",
                      (double)mp_lat_cached_bytes(v[P_FOOTPRINT], v[P_STRIDE]));
    mp_prediction_put(out, "warm_loads", (double)warm_of(v));
    mp_prediction_put(out, "first_warm_loads",
                      (double)first_warm_of(v, &caps));
    mp_prediction_put(out, "l1_bytes", (double)caps.l1_bytes);
    mp_prediction_put(out, "l2_reach_bytes", (double)caps.l2_reach_bytes);
    mp_prediction_put(out, "beyond_tlb_reach",
                      v[P_SPACE] == MP_LAT_SPACE_GLOBAL
                      && v[P_FOOTPRINT] > caps.tlb_reach_bytes);
}

/* Parameters that are result columns as they are. */
static const mp_param_column plain_columns[] = {
    {P_FOOTPRINT, MP_COL_FOOTPRINT}, {P_FOOTPRINT, MP_COL_ARRAY_BYTES},
    {P_STRIDE, MP_COL_STRIDE_BYTES}, {P_ORDER, MP_COL_ORDER},
    {P_CACHE, MP_COL_CACHE}, {P_SPACE, MP_COL_SPACE},
    {P_LOADS, MP_COL_LOADS},
};

static void latency_describe(const long long *v, mp_row *row)
{
    mp_lat_caps caps;
    mp_lat_caps_h200(&caps);
    mp_row_set(row, MP_COL_PROBE, "latency");
    mp_row_set(row, MP_COL_OP, "ld");
    mp_row_set(row, MP_COL_WIDTH, "%d",
               mp_lat_element_bytes((mp_lat_space)v[P_SPACE]));
    mp_row_set_params(row, latency_params, v, plain_columns,
                      (int)(sizeof plain_columns / sizeof plain_columns[0]));
    mp_row_set(row, MP_COL_WARM_LOADS, "%lld", warm_of(v));
    char level[32];
    mp_lat_expect_text(expected_with(v, &caps), level, sizeof level);
    mp_row_set(row, MP_COL_MODEL_LEVEL, "%s", level);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    long long n;                 /* elements */
    uint32_t *order;             /* order[k]: element k steps after 0 */
    void *array;                 /* device: global chain */
    unsigned *image;             /* device: shared chain image */
    mp_lat_launch l;
    int warm, first_warm;        /* untimed loads: later, first launch */
    unsigned launches;           /* launches since setup */
    unsigned long long steps;    /* loads made since setup */
    long long last_loads;        /* loads of the last launch (the profiled
                                    one, when counters are on) */
    long long host_ring[MP_LAT_RING];
    double cycles;               /* median cycles of the timed loads */
} latency_state;

/* The chain's host image, one element every stride bytes: device
 * addresses (global, base added) or byte offsets (shared, constant). */
static void *chain_image(const latency_state *s, const uint32_t *next,
                         unsigned long long base)
{
    size_t bytes = (size_t)s->v[P_FOOTPRINT];
    unsigned char *img = mp_xcalloc(1, bytes);
    size_t stride = (size_t)s->v[P_STRIDE];
    for (long long e = 0; e < s->n; e++) {
        unsigned long long to = (unsigned long long)next[e] * stride;
        if (s->l.space == MP_LAT_SPACE_GLOBAL) {
            unsigned long long addr = base + to;
            memcpy(img + (size_t)e * stride, &addr, sizeof addr);
        } else {
            uint32_t off = (uint32_t)to;
            memcpy(img + (size_t)e * stride, &off, sizeof off);
        }
    }
    return img;
}

/* Copies the chain to the device array: the whole image, or for arrays
 * beyond 1 GiB (sparse chains of page-sized strides) only the elements,
 * one 2D copy with the stride as the destination pitch; also for strides
 * of 64 KiB and more, where the image would be mostly holes. */
static void copy_chain(latency_state *s, const uint32_t *next,
                       unsigned long long base)
{
    size_t bytes = (size_t)s->v[P_FOOTPRINT];
    size_t stride = (size_t)s->v[P_STRIDE];
    if (bytes <= (1u << 30) && stride < 65536) {
        void *img = chain_image(s, next, base);
        CHECK_CUDA(cudaMemcpy(s->array, img, bytes, cudaMemcpyHostToDevice));
        free(img);
        return;
    }
    unsigned long long *packed = mp_xmalloc((size_t)s->n * sizeof *packed);
    for (long long e = 0; e < s->n; e++)
        packed[e] = base + (unsigned long long)next[e] * stride;
    CHECK_CUDA(cudaMemcpy2D(s->array, stride, packed, sizeof *packed,
                            sizeof *packed, (size_t)s->n,
                            cudaMemcpyHostToDevice));
    free(packed);
}

static int latency_setup(const long long *v, const mp_device *dev, void **out)
{
    mp_lat_caps caps;
    mp_lat_caps_of(dev->cc_major, dev->cc_minor, (long long)dev->smem_per_sm,
                   (long long)dev->l2_bytes, &caps);
    latency_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    s->n = elements_of(v);
    s->l.space = (int)v[P_SPACE];
    s->l.cg = v[P_CACHE] == 1;
    s->l.footprint = (unsigned long long)v[P_FOOTPRINT];
    s->warm = (int)warm_of(v);
    s->first_warm = (int)first_warm_of(v, &caps);
    s->l.loads = (int)v[P_LOADS];

    uint32_t *next = mp_xmalloc((size_t)s->n * sizeof *next);
    s->order = mp_xmalloc((size_t)s->n * sizeof *s->order);
    if (mp_lat_build_chain(next, s->order, s->n, v[P_ORDER] == 1,
                           MP_LAT_SEED)) {
        fprintf(stderr, "memprobe: latency: cannot build a chain of %lld "
                "elements\n", s->n);
        exit(MP_EXIT_FAIL);
    }
    unsigned long long start = 0;
    size_t bytes = (size_t)v[P_FOOTPRINT];
    if (s->l.space == MP_LAT_SPACE_GLOBAL) {
        CHECK_CUDA(cudaMalloc(&s->array, bytes));
        start = (unsigned long long)(uintptr_t)s->array;
        copy_chain(s, next, start);
    } else {
        void *img = chain_image(s, next, 0);
        if (s->l.space == MP_LAT_SPACE_SHARED) {
            CHECK_CUDA(cudaMalloc((void **)&s->image, bytes));
            CHECK_CUDA(cudaMemcpy(s->image, img, bytes,
                                  cudaMemcpyHostToDevice));
            s->l.image = s->image;
        } else {
            CHECK_CUDA(mp_lat_const_fill(img, bytes));
        }
        free(img);
    }
    free(next);

    /* cursor[0]: where the chase stands; cursor[1]: loads made. */
    unsigned long long cursor[2] = {start, 0};
    CHECK_CUDA(cudaMalloc((void **)&s->l.cursor, sizeof cursor));
    CHECK_CUDA(cudaMemcpy(s->l.cursor, cursor, sizeof cursor,
                          cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMalloc((void **)&s->l.cycles,
                          MP_LAT_RING * sizeof(long long)));
    CHECK_CUDA(mp_lat_prepare(&s->l));
    *out = s;
    return 0;
}

static void latency_launch(void *state)
{
    latency_state *s = state;
    s->l.warm = s->launches == 0 ? s->first_warm : s->warm;
    s->l.launch_index = s->launches++;
    s->last_loads = (long long)s->l.warm + s->l.loads;
    s->steps += (unsigned long long)s->last_loads;
    CHECK_CUDA(mp_lat_launch_kernel(&s->l));
}

static int latency_verify(void *state, char *err, size_t errlen)
{
    latency_state *s = state;
    unsigned long long cursor[2];
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(cursor, s->l.cursor, sizeof cursor,
                          cudaMemcpyDeviceToHost));
    unsigned long long steps = s->steps;
    if (cursor[1] != steps) {
        snprintf(err, errlen, "the chase made %llu loads in %u launches, "
                 "the CPU expects %llu", cursor[1], s->launches, steps);
        return -1;
    }
    uint32_t want = s->order[steps % (unsigned long long)s->n];
    unsigned long long base = s->l.space == MP_LAT_SPACE_GLOBAL
                                  ? (unsigned long long)(uintptr_t)s->array
                                  : 0;
    unsigned long long off = cursor[0] - base;
    unsigned long long stride = (unsigned long long)s->v[P_STRIDE];
    if (cursor[0] < base || off % stride
        || off / stride != (unsigned long long)want) {
        snprintf(err, errlen, "the chase stopped at byte %lld of the array, "
                 "the CPU's walk at element %u (byte %llu)",
                 (long long)off, want, (unsigned long long)want * stride);
        return -1;
    }
    return 0;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The median clock64 count of the launches after the first (the ring's
 * last MP_LAT_RING at most). */
static void latency_clock64(void *state, long long *span, double *median)
{
    latency_state *s = state;
    CHECK_CUDA(cudaMemcpy(s->host_ring, s->l.cycles, sizeof s->host_ring,
                          cudaMemcpyDeviceToHost));
    long long kept[MP_LAT_RING];
    int n = 0;
    for (unsigned k = 1; k < s->launches; k++)
        if (s->launches - k <= MP_LAT_RING)
            kept[n++] = s->host_ring[k % MP_LAT_RING];
    if (n == 0 && s->launches > 0)
        kept[n++] = s->host_ring[(s->launches - 1) % MP_LAT_RING];
    if (n == 0) {
        *span = -1;
        *median = 0;
        return;
    }
    qsort(kept, (size_t)n, sizeof kept[0], cmp_ll);
    double m = n % 2 ? (double)kept[n / 2]
                     : 0.5 * ((double)kept[n / 2 - 1] + (double)kept[n / 2]);
    s->cycles = m;
    *span = (long long)llround(m);
    *median = m;
}

static void latency_release(void *state)
{
    latency_state *s = state;
    MP_FREE_DEVICE(&s->array, &s->image, &s->l.cursor, &s->l.cycles);
    s->l.image = NULL;
}

static void latency_derive(void *state, const mp_device *dev,
                           const mp_measurement *m, mp_row *row)
{
    latency_state *s = state;
    mp_lat_caps caps;
    mp_lat_caps_of(dev->cc_major, dev->cc_minor, (long long)dev->smem_per_sm,
                   (long long)dev->l2_bytes, &caps);
    mp_lat_expect e = expected_with(s->v, &caps);
    char level[32];
    mp_lat_expect_text(e, level, sizeof level);
    mp_row_set(row, MP_COL_MODEL_LEVEL, "%s", level);
    int shared = s->l.space == MP_LAT_SPACE_SHARED;
    mp_row_set_launch(row, shared ? MP_LAT_COPY_THREADS : 1, 1,
                      shared ? s->v[P_FOOTPRINT] : 0);
    /* The loads of the last launch: the profiled one when counters are
     * on (a later launch, after the timed ones, in their steady state). */
    mp_row_set(row, MP_COL_REQUESTS, "%lld", s->last_loads);
    if (m->clock64_span > 0) {
        double cycles = m->clock64_block_median / s->l.loads;
        mp_row_set(row, MP_COL_CYCLES_PER_LOAD, "%.2f", cycles);
        if (dev->sm_clock_khz > 0)
            mp_row_set(row, MP_COL_NS_PER_LOAD, "%.2f",
                       cycles / (dev->sm_clock_khz / 1e6));
    }
    if (!m->counters || s->l.space != MP_LAT_SPACE_GLOBAL)
        return;
    double sectors = mp_counter(m, MP_SET_LATENCY,
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    double l1_hit = mp_counter(m, MP_SET_LATENCY,
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum");
    double l2 = mp_counter(m, MP_SET_LATENCY,
        "lts__t_sectors_srcunit_tex_op_read.sum");
    double l2_hit = mp_counter(m, MP_SET_LATENCY,
        "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
    double dram = mp_counter(m, MP_SET_LATENCY, "dram__bytes_read.sum");
    double loads = (double)s->last_loads;
    if (sectors <= 0 || l1_hit < 0 || l2 < 0 || l2_hit < 0)
        return;
    double l1_rate = l1_hit / sectors;
    mp_row_set(row, MP_COL_L1_HIT_RATE, "%.4f", l1_rate);
    if (l2 > 0)
        mp_row_set(row, MP_COL_L2_HIT_RATE, "%.4f", l2_hit / l2);
    mp_row_set(row, MP_COL_L2_SECTORS_PER_LOAD, "%.4f", l2 / loads);
    if (dram >= 0)   /* < 0: the chip lacks the DRAM counter (GB202) */
        mp_row_set(row, MP_COL_DRAM_BYTES_PER_LOAD, "%.3f", dram / loads);
    mp_level lv = MP_LEVEL_DRAM;
    if (l1_rate >= 0.4)
        lv = MP_LEVEL_L1;
    else if (l2 > 0 && l2_hit / l2 >= 0.4)
        lv = MP_LEVEL_L2;
    mp_row_set(row, MP_COL_COUNTER_LEVEL, "%s", mp_level_name(lv));
    mp_row_set_match(row, mp_lat_expect_matches(e, lv));
}

static void latency_free_host(void *state)
{
    latency_state *s = state;
    free(s->order);
}

/* The console table (runtime/console.h): cycles and ns per dependent load,
 * the level the model predicts beside the one the counters read, and the
 * hit rates behind it. */
static const mp_console_col console[] = {
    {"cyc/load", MP_COL_CYCLES_PER_LOAD, 8},
    {"ns/load", MP_COL_NS_PER_LOAD, 8},
    {"model", MP_COL_MODEL_LEVEL, 8},
    {"counters", MP_COL_COUNTER_LEVEL, 8},
    {"L1 hit", MP_COL_L1_HIT_RATE, 6},
    {"L2 hit", MP_COL_L2_HIT_RATE, 6},
};

const mp_probe mp_probe_latency = {
    MP_PROBE_BASE(latency, latency),
    .metrics = MP_SET_LATENCY,
    .profile_alone = 1,   /* the __constant__ array */
    .keeps_cache_state = 1,   /* it walks its chain before timing */
    .clock64 = latency_clock64,
    .free_host = latency_free_host,
};
