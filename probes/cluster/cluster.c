/*
 * cluster.c - the distributed-shared-memory probe (sm_90 thread-block
 * clusters): latency and bandwidth of loads and stores to the next block's
 * shared memory in the cluster, against the block's own. Parameters,
 * checks, prediction, verification and derived columns; kernels in
 * cluster.cu.
 *
 *   --op chase  thread 0 of each block follows a chain of offsets `stride`
 *               bytes apart through the target buffer: latency_cycles =
 *               clock64 cycles per dependent load (median over blocks);
 *               one cluster by default;
 *   --op ld|st  every thread loads / stores `width` bytes per iteration,
 *               consecutive lanes on consecutive chunks (conflict-free):
 *               bandwidth_gbs = bytes / median launch time, against the
 *               shared-memory ceiling; the GPU filled with clusters.
 * --target local uses the block's own buffer (LDS/STS), remote the next
 * rank's (mapa + ld/st.shared::cluster); --cluster 1..16 blocks per
 * cluster (above 8 is non-portable; sizes the device cannot co-schedule are
 * refused with exit 2: cudaOccupancyMaxActiveClusters says 0).
 *
 * Verification against the CPU: the chase's final offset; each thread's
 * sum of what it loaded (which names the target rank's words); after
 * stores, every word of every buffer (the value names the storing rank,
 * thread and iteration: remote stores must come from the previous rank).
 *
 * Counters: the cluster set (cluster_metrics.c); one request = one
 * warp-level load or store of the probe (chase: one per hop).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "check.h"
#include "cluster.h"
#include "common_params.h"
#include "launch.h"
#include "probe.h"
#include "stats.h"

/* The family's metric set (cluster_metrics.c). */
extern const mp_metric_set_def mp_set_cluster;
#define MP_SET_CLUSTER (&mp_set_cluster)

enum { P_TARGET, P_OP, P_CLUSTER, P_WIDTH, P_TILE, P_STRIDE, P_THREADS,
       P_BLOCKS, P_ITERATIONS, P_COUNT };

static const char *const target_names[] = {"local", "remote", NULL};
static const char *const op_names[] = {"chase", "ld", "st", NULL};
static const long long widths[] = {4, 8, 16};

static const mp_param_def cluster_params[P_COUNT] = {
    [P_TARGET] = MP_CHOICE_PARAM("target", 1, target_names,
        "local (own shared memory) or remote (the next block of the "
        "cluster, distributed shared memory)"),
    [P_OP] = MP_CHOICE_PARAM("op", 0, op_names,
        "chase (latency, one thread), ld or st (bandwidth)"),
    [P_CLUSTER] = MP_INT_PARAM("cluster", 2, 1, 16,
        "blocks per cluster (above 8: non-portable)"),
    [P_WIDTH] = {.name = "width", .kind = MP_PARAM_INT, .def = 4, .min = 4,
                 .max = 16, .allowed = widths, .nallowed = 3,
                 .help = "bytes per lane access (ld, st); 4 for chase"},
    [P_TILE] = MP_INT_PARAM("tile", 16384, 1024, 232448,
        "bytes of shared memory per block"),
    [P_STRIDE] = MP_INT_PARAM("stride", 128, 4, 232448,
        "chase: bytes between hops, a multiple of 4 dividing the tile"),
    [P_THREADS] = MP_PARAM_THREADS,
    [P_BLOCKS] = MP_INT_PARAM("blocks", 0, 0, 1048576,
        "blocks, a multiple of the cluster; 0 = one cluster (chase) or the "
        "GPU full of clusters (ld, st)"),
    [P_ITERATIONS] = MP_INT_PARAM("iterations", 4096, 1, 1048576,
        "hops (chase) or accesses per thread"),
};

static int cluster_check(const long long *v, size_t smem_limit, char *err,
                         size_t errlen)
{
    int op = (int)v[P_OP];
    if (mp_param_check_multiple("threads", v[P_THREADS], 32, err, errlen))
        return -1;
    if (v[P_TARGET] == 1 && v[P_CLUSTER] < 2) {
        snprintf(err, errlen, "--cluster: remote needs another block in the "
                 "cluster (2..16), not %lld", v[P_CLUSTER]);
        return -1;
    }
    if (v[P_BLOCKS] % v[P_CLUSTER]) {
        snprintf(err, errlen, "--blocks: %lld is not a multiple of the "
                 "cluster size %lld", v[P_BLOCKS], v[P_CLUSTER]);
        return -1;
    }
    if (v[P_TILE] > (long long)smem_limit) {
        snprintf(err, errlen, "--tile: %lld bytes exceed the %zu bytes of "
                 "shared memory a block may use", v[P_TILE], smem_limit);
        return -1;
    }
    if (mp_param_check_multiple("tile", v[P_TILE], 16, err, errlen))
        return -1;
    if (op == MP_CLUSTER_CHASE) {
        if (v[P_WIDTH] != 4) {
            snprintf(err, errlen, "--width: the chase loads 4-byte offsets; "
                     "width %lld applies to ld and st", v[P_WIDTH]);
            return -1;
        }
        if (v[P_STRIDE] % 4 || v[P_TILE] % v[P_STRIDE]) {
            snprintf(err, errlen, "--stride: %lld must be a multiple of 4 "
                     "dividing the %lld-byte tile", v[P_STRIDE], v[P_TILE]);
            return -1;
        }
    } else if (v[P_TILE] % (2 * v[P_THREADS] * v[P_WIDTH])) {
        snprintf(err, errlen, "--tile: %lld bytes must hold at least two "
                 "%lld-byte slots per thread, a multiple of %lld (%lld "
                 "threads)", v[P_TILE], v[P_WIDTH],
                 2 * v[P_THREADS] * v[P_WIDTH], v[P_THREADS]);
        return -1;
    }
    return 0;
}

static void cluster_label(const long long *v, char *buf, size_t len)
{
    snprintf(buf, len, "cluster/%s/%s/c%lld/w%lld/t%lld/sp%lld/n%lld/i%lld",
             target_names[v[P_TARGET]], op_names[v[P_OP]], v[P_CLUSTER],
             v[P_WIDTH], v[P_TILE], v[P_STRIDE], v[P_THREADS],
             v[P_ITERATIONS]);
}

/* Warp-level requests one block issues. */
static double block_requests(const long long *v)
{
    if (v[P_OP] == MP_CLUSTER_CHASE)
        return (double)v[P_ITERATIONS];
    return (double)v[P_THREADS] / 32.0 * (double)v[P_ITERATIONS];
}

static double block_bytes(const long long *v)
{
    if (v[P_OP] == MP_CLUSTER_CHASE)
        return 4.0 * (double)v[P_ITERATIONS];
    return (double)v[P_THREADS] * (double)v[P_WIDTH]
           * (double)v[P_ITERATIONS];
}

static void cluster_predict(const long long *v, mp_prediction *out)
{
    int chase = v[P_OP] == MP_CLUSTER_CHASE;
    double wf = chase ? 1 : 32.0 * (double)v[P_WIDTH] / 128.0;
    mp_prediction_clear(out);
    mp_prediction_put(out, "requests_per_block", block_requests(v));
    mp_prediction_put(out, "bytes_per_block", block_bytes(v));
    mp_prediction_put(out, "remote_bytes_per_block",
                      v[P_TARGET] == 1 ? block_bytes(v) : 0);
    mp_prediction_put(out, "ideal_wavefronts_per_request", wf);
    /* The chase's last offset: hop i reads the word at i x stride. */
    double last = 0;
    if (chase)
        last = (double)(v[P_ITERATIONS] % (v[P_TILE] / v[P_STRIDE])
                        * v[P_STRIDE]);
    mp_prediction_put(out, "chase_final_offset", last);
}

static void cluster_describe(const long long *v, mp_row *row)
{
    mp_prediction p;
    cluster_predict(v, &p);
    mp_row_set(row, MP_COL_PROBE, "cluster");
    mp_row_set(row, MP_COL_METHOD, "%s", target_names[v[P_TARGET]]);
    mp_row_set(row, MP_COL_OP, "%s", op_names[v[P_OP]]);
    mp_row_set(row, MP_COL_CLUSTER_SIZE, "%lld", v[P_CLUSTER]);
    mp_row_set(row, MP_COL_WIDTH, "%lld", v[P_WIDTH]);
    mp_row_set(row, MP_COL_TILE_BYTES, "%lld", v[P_TILE]);
    if (v[P_OP] == MP_CLUSTER_CHASE)
        mp_row_set(row, MP_COL_SPACING, "%lld", v[P_STRIDE]);
    mp_row_set(row, MP_COL_ITERATIONS, "%lld", v[P_ITERATIONS]);
    mp_row_set(row, MP_COL_MODEL_IDEAL, "%g", p.value[3]);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_cluster_launch l;
    double latency;            /* chase: median cycles per hop, last launch */
    mp_launch_shape shape;     /* out: l.out; clocks: l.clocks */
} cluster_state;

static int cluster_setup(const long long *v, const mp_device *dev, void **out)
{
    cluster_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    s->l.op = (int)v[P_OP];
    s->l.remote = (int)v[P_TARGET];
    s->l.width = (int)v[P_WIDTH];
    s->l.cluster = (int)v[P_CLUSTER];
    s->l.tile_bytes = (int)v[P_TILE];
    s->l.stride = (int)v[P_STRIDE];
    s->l.iterations = (int)v[P_ITERATIONS];
    s->l.threads = (int)v[P_THREADS];
    int clusters = 0;
    CHECK_CUDA(mp_cluster_max_active(&s->l, &clusters));
    if (clusters < 1)
        mp_usage_error("--cluster: %d blocks of %d threads and %d bytes of "
                       "shared memory cannot be co-scheduled as one cluster "
                       "on device %d (%s): cudaOccupancyMaxActiveClusters "
                       "says 0", s->l.cluster, s->l.threads, s->l.tile_bytes,
                       dev->ordinal, dev->name);
    if (v[P_BLOCKS] > 0)
        s->l.blocks = (int)v[P_BLOCKS];
    else if (s->l.op == MP_CLUSTER_CHASE)
        s->l.blocks = s->l.cluster;
    else
        s->l.blocks = clusters * s->l.cluster;

    size_t blocks = (size_t)s->l.blocks;
    size_t out_words = s->l.op == MP_CLUSTER_CHASE ? 2 * blocks
                     : s->l.op == MP_CLUSTER_LD ? blocks * (size_t)s->l.threads
                     : blocks * (size_t)(s->l.tile_bytes / 4);
    mp_launch_alloc(&s->shape, s->l.blocks, (void **)&s->l.out,
                    out_words * sizeof(unsigned), &s->l.clocks);
    *out = s;
    return 0;
}

static void cluster_launch(void *state)
{
    cluster_state *s = state;
    CHECK_CUDA(mp_cluster_launch_kernel(&s->l));
}

/* Rank whose buffer a block of rank r works on, and the rank working on
 * the buffer of rank q. */
static unsigned target_of(const cluster_state *s, unsigned r)
{
    return s->l.remote ? (r + 1) % (unsigned)s->l.cluster : r;
}

static unsigned writer_of(const cluster_state *s, unsigned q)
{
    unsigned n = (unsigned)s->l.cluster;
    return s->l.remote ? (q + n - 1) % n : q;
}

/* What thread t leaves after loading from the buffer of rank q: slot
 * t + m x T in iteration i, m = i mod k, k = slots per thread. */
static unsigned expected_sum(const cluster_state *s, unsigned q, unsigned t)
{
    unsigned T = (unsigned)s->l.threads, w4 = (unsigned)s->l.width / 4;
    unsigned k = (unsigned)s->l.tile_bytes / ((unsigned)s->l.width * T);
    unsigned iters = (unsigned)s->l.iterations, sum = 0;
    for (unsigned m = 0; m < k && m < iters; m++) {
        unsigned times = (iters - m + k - 1) / k;
        unsigned slot = 0;
        for (unsigned c = 0; c < w4; c++)
            slot += mp_cluster_word(q, (t + m * T) * w4 + c);
        sum += slot * times;
    }
    return sum;
}

/* Word w of the buffer of rank q after the stores. */
static unsigned expected_stored(const cluster_state *s, unsigned q,
                                unsigned w)
{
    unsigned T = (unsigned)s->l.threads, w4 = (unsigned)s->l.width / 4;
    unsigned k = (unsigned)s->l.tile_bytes / ((unsigned)s->l.width * T);
    unsigned slot = w / w4, c = w % w4, t = slot % T, m = slot / T;
    unsigned iters = (unsigned)s->l.iterations;
    if (m >= k || m >= iters)
        return mp_cluster_word(q, w);
    unsigned last = m + k * ((iters - 1 - m) / k);
    return mp_cluster_stored(writer_of(s, q), t, last) + c;
}

static int cluster_verify(void *state, char *err, size_t errlen)
{
    cluster_state *s = state;
    CHECK_CUDA(cudaDeviceSynchronize());
    mp_launch_fetch(&s->shape);
    unsigned *host = s->shape.host_out;
    int rc = 0;
    unsigned n = (unsigned)s->l.cluster;
    if (s->l.op == MP_CLUSTER_CHASE) {
        mp_prediction p;
        cluster_predict(s->v, &p);
        double *cycles = mp_xmalloc((size_t)s->l.blocks * sizeof *cycles);
        for (int b = 0; b < s->l.blocks; b++)
            cycles[b] = (double)host[2 * b + 1] / s->l.iterations;
        mp_stats st;
        mp_stats_compute(cycles, (size_t)s->l.blocks, &st);
        s->latency = st.median;
        free(cycles);
        for (int b = 0; b < s->l.blocks && !rc; b++)
            if (host[2 * b] != (unsigned)p.value[4]) {
                snprintf(err, errlen, "block %d ended its chase at offset "
                         "%u, the CPU reference at %.0f", b,
                         host[2 * b], p.value[4]);
                rc = -1;
            }
    } else if (s->l.op == MP_CLUSTER_LD) {
        /* Expected sums depend only on the target rank and the thread. */
        unsigned *want = mp_xmalloc((size_t)n * s->l.threads * sizeof *want);
        for (unsigned q = 0; q < n; q++)
            for (int t = 0; t < s->l.threads; t++)
                want[q * s->l.threads + t] = expected_sum(s, q, (unsigned)t);
        for (int b = 0; b < s->l.blocks && !rc; b++) {
            unsigned q = target_of(s, (unsigned)b % n);
            for (int t = 0; t < s->l.threads; t++) {
                unsigned got = host[(size_t)b * s->l.threads + t];
                if (got != want[q * s->l.threads + t]) {
                    snprintf(err, errlen, "block %d thread %d loaded words "
                             "summing to %u from rank %u, the CPU reference "
                             "says %u", b, t, got, q,
                             want[q * s->l.threads + t]);
                    rc = -1;
                    break;
                }
            }
        }
        free(want);
    } else {
        size_t words = (size_t)s->l.tile_bytes / 4;
        for (int b = 0; b < s->l.blocks && !rc; b++) {
            unsigned q = (unsigned)b % n;
            for (size_t w = 0; w < words; w++) {
                unsigned got = host[(size_t)b * words + w];
                unsigned want = expected_stored(s, q, (unsigned)w);
                if (got != want) {
                    snprintf(err, errlen, "block %d (rank %u): shared word "
                             "%zu holds %u, the CPU reference %u (stored by "
                             "rank %u)", b, q, w, got, want, writer_of(s, q));
                    rc = -1;
                    break;
                }
            }
        }
    }
    mp_poison_copy(s->l.out, host, 0xff, s->shape.out_bytes);
    return rc;
}

/* The chase's cycles per hop (median over blocks) are read in derive
 * from the last verified launch: kept here. */
MP_LAUNCH_CLOCK64(cluster_clock64, cluster_state)

static void cluster_derive(void *state, const mp_device *dev,
                           const mp_measurement *m, mp_row *row)
{
    cluster_state *s = state;
    double blocks = s->l.blocks;
    double requests = block_requests(s->v) * blocks;
    mp_row_set(row, MP_COL_THREADS, "%d", s->l.threads);
    mp_row_set(row, MP_COL_BLOCKS, "%d", s->l.blocks);
    mp_row_set(row, MP_COL_SHARED_BYTES, "%d", s->l.tile_bytes);
    mp_row_set_per_request(row, dev, m, requests, blocks);
    if (s->l.op == MP_CLUSTER_CHASE) {
        /* In-kernel: the chasing thread's clock64 cycles / hops. */
        if (s->latency > 0)
            mp_row_set(row, MP_COL_LATENCY_CYCLES, "%.2f", s->latency);
    } else if (m->time_ns.n > 0) {
        double gbs = block_bytes(s->v) * blocks / m->time_ns.median;
        double ceiling = mp_device_shared_ceiling_gbs(dev);
        mp_row_set(row, MP_COL_BANDWIDTH_GBS, "%.1f", gbs);
        mp_row_set(row, MP_COL_CEILING_GBS, "%.1f", ceiling);
        mp_row_set(row, MP_COL_BANDWIDTH_FRACTION, "%.4f", gbs / ceiling);
    }
    if (!m->counters)
        return;
    int st = s->l.op == MP_CLUSTER_ST;
    double dsm = mp_counter(m, MP_SET_CLUSTER, st
        ? "l1tex__t_requests_pipe_lsu_mem_dshared_op_st.sum"
        : "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum");
    double shared = mp_counter(m, MP_SET_CLUSTER, st
        ? "smsp__sass_inst_executed_op_shared_st.sum"
        : "smsp__sass_inst_executed_op_shared_ld.sum");
    if (dsm < 0 || shared < 0)
        return;
    /* Remote: every probe access is a distributed-shared request; local:
     * none is, and the LDS/STS are the probe's (plus the fill and dump
     * of the buffer for stores). */
    int match = s->l.remote ? dsm == requests
                            : dsm == 0 && shared >= requests;
    mp_row_set_match(row, match);
}

MP_LAUNCH_RELEASE(cluster_release, cluster_state)

MP_LAUNCH_FREE_HOST(cluster_free_host, cluster_state)

/* The console table (runtime/console.h): chase: cycles per dependent load;
 * ld and st: the bandwidth against the shared-memory ceiling; the model's
 * wavefronts per request and the time per request. */
static const mp_console_col console[] = {
    {"cyc/load", MP_COL_LATENCY_CYCLES, 8},
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
    {"of ceil", MP_COL_BANDWIDTH_FRACTION, 7},
    {"ideal wf", MP_COL_MODEL_IDEAL, 8},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
};

const mp_probe mp_probe_cluster = {
    MP_PROBE_BASE(cluster, cluster),
    .metrics = MP_SET_CLUSTER,
    .cc = MP_CC_CLUSTER,
    .clock64 = cluster_clock64,
    .free_host = cluster_free_host,
};
