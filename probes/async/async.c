/*
 * async.c - the async-copy probe: global -> shared copies by the seeds'
 * register staging, cp.async, cp.async.bulk and the tensor copy (TMA) with
 * each swizzle mode. Parameters, checks, prediction, verification and
 * derived columns; kernels in async.cu, the model in probes/async/async_model.c.
 *
 * One launch copies a `bytes`-byte array `passes` times, one `tile`-byte
 * tile per block at a time (see async.cu). bytes above the L2 (the
 * default, 256 MiB) measure DRAM -> shared; a small array with many passes
 * (16 MiB x 32) keeps it L2-resident. bandwidth_gbs = bytes copied / median
 * launch time, against the DRAM peak from the device description.
 *
 * Verification: the source word k holds mp_async_word(k). Each thread
 * leaves the sum of the words it read back from the shared tiles; the
 * host checks each block's total against the tiles it copied, and checks
 * the raw dump of each block's last tile word by word against where the
 * model says every element lands (mp_async_swizzle for the tensor copy).
 *
 * Counters: the async set (async_metrics.c). One request is one
 * warp-level copy instruction: STS (staged), LDGSTS (cpasync), UBLKCP
 * (bulk, one per tile) or UTMALDG (tensor, one per box).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "async.h"
#include "async_lanes.h"
#include "async_model.h"
#include "check.h"
#include "common_params.h"
#include "lane_offsets.h"
#include "launch.h"
#include "probe.h"

/* The family's metric set (async_metrics.c). */
extern const mp_metric_set_def mp_set_async;
#define MP_SET_ASYNC (&mp_set_async)

enum { P_METHOD, P_WIDTH, P_CACHE, P_SWIZZLE, P_TILE, P_BYTES, P_PASSES,
       P_THREADS, P_BLOCKS, P_OFFSETS, P_SRC_OFFSETS, P_SRC_STEP,
       P_ITERATIONS, P_COUNT };

static const char *const method_names[] = {"staged", "cpasync", "bulk",
                                           "tensor", NULL};
static const char *const cache_names[] = {"ca", "cg", NULL};
static const char *const swizzle_names[] = {"none", "32", "64", "128", NULL};
static const int swizzle_bytes[] = {0, 32, 64, 128};
static const long long widths[] = {4, 8, 16};
static const long long tiles[] = {1024, 2048, 4096, 8192, 16384, 32768,
                                  65536, 131072};

/* What each method's instructions need (probes/arch.h): the runner
 * refuses a method the GPU lacks before any launch. */
static const int method_cc[] = {0, MP_CC_CP_ASYNC, MP_CC_TMA, MP_CC_TMA};

static int dst_check(const char *text, char *err, size_t errlen)
{
    long long off[32];
    return mp_lane_offsets_parse(text, MP_LANES_ALLOW_OFF, off, err, errlen);
}

static int src_check(const char *text, char *err, size_t errlen)
{
    long long off[32];
    return mp_lane_offsets_parse(text,
                                 MP_LANES_ALLOW_OFF | MP_LANES_ALLOW_ZERO,
                                 off, err, errlen);
}

static const mp_param_def async_params[P_COUNT] = {
    [P_METHOD] = {.name = "method", .kind = MP_PARAM_CHOICE, .def = 0,
                  .choices = method_names,
                  .help = "staged (LDG + STS), cpasync (LDGSTS, sm_80), "
                          "bulk (cp.async.bulk, sm_90) or tensor (TMA, "
                          "sm_90)",
                  .choice_cc = method_cc},
    [P_WIDTH] = {.name = "width", .kind = MP_PARAM_INT, .def = 16, .min = 4,
                 .max = 16, .allowed = widths, .nallowed = 3,
                 .help = "bytes per thread copy (staged, cpasync); 16 for "
                         "bulk, tensor"},
    [P_CACHE] = MP_CHOICE_PARAM("cache", 0, cache_names,
        "ca or cg (cp.async.cg needs width 16; staged: __ldcg)"),
    [P_SWIZZLE] = MP_CHOICE_PARAM("swizzle", 0, swizzle_names,
        "tensor map swizzle: none, 32, 64, 128 bytes (tensor only)"),
    [P_TILE] = {.name = "tile", .kind = MP_PARAM_INT, .def = 16384,
                .min = 1024, .max = 131072, .allowed = tiles, .nallowed = 8,
                .help = "bytes of the shared tile one block copies at a time"},
    [P_BYTES] = MP_INT_PARAM("bytes", 268435456, 65536, 17179869184LL,
        "bytes of the source array, a multiple of the tile"),
    [P_PASSES] = MP_INT_PARAM("passes", 1, 1, 65536,
        "copies of the whole array per launch (small array, many passes: "
        "L2-resident)"),
    [P_THREADS] = MP_PARAM_THREADS,
    [P_BLOCKS] = MP_PARAM_BLOCKS(1048576),
    [P_OFFSETS] = {.name = "offsets", .kind = MP_PARAM_TEXT, .def = 0,
                   .help = "cpasync: replay one copy instead of tiles: "
                           "each lane's shared destination in bytes, '-' "
                           "for a lane that copies nothing",
                   .text_form = "d0;d1;...;d31",
                   .text_check = dst_check},
    [P_SRC_OFFSETS] = {.name = "src-offsets", .kind = MP_PARAM_TEXT,
                       .def = 0,
                       .help = "with --offsets: each lane's global source "
                               "in bytes, 'z' for one that reads nothing "
                               "(zero fill), '-' where --offsets has '-' "
                               "(default: the destination's offset)",
                       .text_form = "s0;s1;...;s31",
                       .text_check = src_check},
    [P_SRC_STEP] = MP_INT_PARAM("src-step", 0, 0, 1048576,
        "with --offsets: bytes the sources move each iteration (0: the "
        "same bytes again)"),
    [P_ITERATIONS] = MP_INT_PARAM("iterations", 1024, 1, 1048576,
        "with --offsets: copies each warp issues per launch"),
};

static int is_replay(const long long *v)
{
    return v[P_OFFSETS] != 0;
}

/* The replayed copy's lanes; 0, or -1 with why. */
static int lanes_of(const long long *v, mp_async_lanes *l, char *err,
                    size_t errlen)
{
    return mp_async_lanes_read(mp_param_text(v[P_OFFSETS]),
                               v[P_SRC_OFFSETS]
                                   ? mp_param_text(v[P_SRC_OFFSETS])
                                   : NULL,
                               (int)v[P_WIDTH], v[P_SRC_STEP],
                               v[P_ITERATIONS], l, err, errlen);
}

static int swizzle_of(const long long *v)
{
    return swizzle_bytes[v[P_SWIZZLE]];
}

/* The replay's own checks: its options only with --offsets, the tile
 * copy's only without, the lanes, and the shared memory of the block. */
static int replay_check(const long long *v, size_t smem_limit, char *err,
                        size_t errlen)
{
    static const int tile_only[] = {P_TILE, P_BYTES, P_PASSES};
    static const int replay_only[] = {P_SRC_OFFSETS, P_SRC_STEP,
                                      P_ITERATIONS};
    if (!is_replay(v)) {
        for (int i = 0; i < 3; i++)
            if (v[replay_only[i]] != async_params[replay_only[i]].def) {
                snprintf(err, errlen, "--%s: applies to the replay of one "
                         "copy (--offsets) only",
                         async_params[replay_only[i]].name);
                return -1;
            }
        return 0;
    }
    if (v[P_METHOD] != MP_ASYNC_CPASYNC) {
        snprintf(err, errlen, "--offsets: replays one cp.async; give "
                 "--method cpasync, not %s", method_names[v[P_METHOD]]);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (v[tile_only[i]] != async_params[tile_only[i]].def) {
            snprintf(err, errlen, "--%s: applies to tile copies, not to the "
                     "replay of one copy (--offsets)",
                     async_params[tile_only[i]].name);
            return -1;
        }
    mp_async_lanes l;
    if (lanes_of(v, &l, err, errlen))
        return -1;
    long long bytes = mp_async_lanes_tile_bytes(&l) * (v[P_THREADS] / 32)
                      + 1024;
    if (bytes > (long long)smem_limit) {
        snprintf(err, errlen, "--offsets: %lld bytes a warp for %lld warps "
                 "and 1024 for alignment exceed the %zu bytes of shared "
                 "memory a block may use", mp_async_lanes_tile_bytes(&l),
                 v[P_THREADS] / 32, smem_limit);
        return -1;
    }
    return 0;
}

static int async_check(const long long *v, size_t smem_limit, char *err,
                       size_t errlen)
{
    int m = (int)v[P_METHOD];
    const char *name = method_names[m];
    if (mp_param_check_multiple("threads", v[P_THREADS], 32, err, errlen))
        return -1;
    if ((m == MP_ASYNC_BULK || m == MP_ASYNC_TENSOR) && v[P_WIDTH] != 16) {
        snprintf(err, errlen, "--width: %s copies move whole tiles; width "
                 "%lld applies to staged and cpasync only (give 16)", name,
                 v[P_WIDTH]);
        return -1;
    }
    if (v[P_CACHE] == 1 && m != MP_ASYNC_STAGED
        && !(m == MP_ASYNC_CPASYNC && v[P_WIDTH] == 16)) {
        snprintf(err, errlen, "--cache: cg applies to staged copies and to "
                 "cpasync of 16 bytes (cp.async.cg), not to %s width %lld",
                 name, v[P_WIDTH]);
        return -1;
    }
    if (v[P_SWIZZLE] != 0 && m != MP_ASYNC_TENSOR) {
        snprintf(err, errlen, "--swizzle: %s applies to the tensor copy "
                 "only, not to %s", swizzle_names[v[P_SWIZZLE]], name);
        return -1;
    }
    if (replay_check(v, smem_limit, err, errlen))
        return -1;
    if (is_replay(v))
        return 0;
    if (v[P_BYTES] % v[P_TILE]) {
        snprintf(err, errlen, "--bytes: %lld is not a multiple of the "
                 "%lld-byte tile", v[P_BYTES], v[P_TILE]);
        return -1;
    }
    if (v[P_TILE] % (v[P_THREADS] * 16)) {
        snprintf(err, errlen, "--tile: %lld bytes do not split into 16 "
                 "bytes for each of %lld threads (tile must be a multiple "
                 "of %lld)", v[P_TILE], v[P_THREADS], v[P_THREADS] * 16);
        return -1;
    }
    if (v[P_TILE] + 1024 > (long long)smem_limit) {
        snprintf(err, errlen, "--tile: %lld bytes + 1024 for alignment "
                 "exceed the %zu bytes of shared memory a block may use",
                 v[P_TILE], smem_limit);
        return -1;
    }
    return 0;
}

static void async_label(const long long *v, char *buf, size_t len)
{
    if (is_replay(v)) {
        unsigned src = v[P_SRC_OFFSETS]
            ? mp_lane_offsets_hash(mp_param_text(v[P_SRC_OFFSETS])) : 0;
        snprintf(buf, len, "async/cpasync/w%lld/%s/o%08x/s%08x/st%lld/"
                 "i%lld/n%lld", v[P_WIDTH], cache_names[v[P_CACHE]],
                 mp_lane_offsets_hash(mp_param_text(v[P_OFFSETS])), src,
                 v[P_SRC_STEP], v[P_ITERATIONS], v[P_THREADS]);
        return;
    }
    snprintf(buf, len, "async/%s/w%lld/%s/sw%s/t%lld/b%lld/x%lld/n%lld",
             method_names[v[P_METHOD]], v[P_WIDTH], cache_names[v[P_CACHE]],
             swizzle_names[v[P_SWIZZLE]], v[P_TILE], v[P_BYTES],
             v[P_PASSES], v[P_THREADS]);
}

static void model_of(const long long *v, mp_async_prediction *m)
{
    mp_async_predict((int)v[P_METHOD], (int)v[P_WIDTH], swizzle_of(v),
                     v[P_TILE], v[P_BYTES], v[P_PASSES], m);
}

/* The replayed copy's model (mp_bank_predict_copy): the wavefronts of one
 * warp's copy, the destinations' ideal and their count alone, and the
 * sectors and lines its sources read. */
static void replay_model(const long long *v, mp_copy_prediction *p)
{
    mp_async_lanes l;
    char err[512];
    if (lanes_of(v, &l, err, sizeof err))
        mp_usage_error("%s", err);
    mp_async_lanes_predict(&l, p);
}

static void async_predict(const long long *v, mp_prediction *out)
{
    if (is_replay(v)) {
        mp_copy_prediction p;
        replay_model(v, &p);
        mp_prediction_clear(out);
        mp_prediction_put(out, "copies_per_warp", (double)v[P_ITERATIONS]);
        mp_prediction_put(out, "wavefronts_per_request", p.wavefronts);
        mp_prediction_put(out, "ideal_wavefronts_per_request", p.ideal);
        mp_prediction_put(out, "destination_wavefronts", p.dst_wavefronts);
        mp_prediction_put(out, "source_sectors", p.src_sectors);
        mp_prediction_put(out, "source_lines", p.src_lines);
        return;
    }
    mp_async_prediction m;
    model_of(v, &m);
    mp_prediction_clear(out);
    mp_prediction_put(out, "bytes_moved", m.bytes_moved);
    mp_prediction_put(out, "tile_copies", m.tile_copies);
    mp_prediction_put(out, "requests", m.requests);
    mp_prediction_put(out, "wavefronts_per_request", m.wavefronts_per_request);
    mp_prediction_put(out, "ideal_wavefronts_per_request",
                      m.ideal_wavefronts_per_request);
    mp_prediction_put(out, "boxes_per_tile", m.boxes_per_tile);
}

/* A replay's row: the lanes as given, the model's count of one copy, the
 * destinations' ideal, their conflict ways alone (wavefronts / ideal by
 * the store rule) and the sectors the sources read. */
static void replay_describe(const long long *v, mp_row *row)
{
    mp_copy_prediction p;
    replay_model(v, &p);
    mp_row_set(row, MP_COL_ITERATIONS, "%lld", v[P_ITERATIONS]);
    mp_row_set(row, MP_COL_ACCESS, "offsets=%s/src=%s/step=%lld",
               mp_param_text(v[P_OFFSETS]),
               v[P_SRC_OFFSETS] ? mp_param_text(v[P_SRC_OFFSETS]) : "same",
               v[P_SRC_STEP]);
    mp_row_set(row, MP_COL_MODEL_WAVEFRONTS, "%d", p.wavefronts);
    mp_row_set(row, MP_COL_MODEL_IDEAL, "%d", p.ideal);
    mp_row_set(row, MP_COL_MODEL_CONFLICT_WAYS, "%g",
               p.ideal ? (double)p.dst_wavefronts / p.ideal : 0.0);
    mp_row_set(row, MP_COL_MODEL_SECTORS, "%d", p.src_sectors);
}

static void async_describe(const long long *v, mp_row *row)
{
    if (is_replay(v)) {
        mp_row_set(row, MP_COL_PROBE, "async");
        mp_row_set(row, MP_COL_METHOD, "cpasync");
        mp_row_set(row, MP_COL_OP, "copy");
        mp_row_set(row, MP_COL_WIDTH, "%lld", v[P_WIDTH]);
        mp_row_set(row, MP_COL_CACHE, "%s", cache_names[v[P_CACHE]]);
        replay_describe(v, row);
        return;
    }
    mp_async_prediction m;
    model_of(v, &m);
    mp_row_set(row, MP_COL_PROBE, "async");
    mp_row_set(row, MP_COL_METHOD, "%s", method_names[v[P_METHOD]]);
    mp_row_set(row, MP_COL_OP, "copy");
    mp_row_set(row, MP_COL_WIDTH, "%lld", v[P_WIDTH]);
    mp_row_set(row, MP_COL_CACHE, "%s", cache_names[v[P_CACHE]]);
    mp_row_set(row, MP_COL_SWIZZLE, "%s", swizzle_names[v[P_SWIZZLE]]);
    mp_row_set(row, MP_COL_TILE_BYTES, "%lld", v[P_TILE]);
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%lld", v[P_BYTES]);
    mp_row_set(row, MP_COL_PASSES, "%lld", v[P_PASSES]);
    mp_row_set(row, MP_COL_MODEL_WAVEFRONTS, "%g", m.wavefronts_per_request);
    mp_row_set(row, MP_COL_MODEL_IDEAL, "%g", m.ideal_wavefronts_per_request);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_async_launch l;
    unsigned *src;             /* device copy of the source words */
    unsigned *tile_sum;        /* host: sum of each tile's words */
    unsigned *host_sums;
    unsigned *host_dump;
    mp_launch_shape shape;     /* the clock64 stamps (l.clocks) only */
    mp_async_lanes lanes;      /* replay: the copy's lanes */
} async_state;

/* The replay's launch: its lanes, a source array of the words its lanes
 * read, one checksum word a thread, the grid. */
static int replay_setup(const long long *v, const mp_device *dev, void **out)
{
    async_state *s = mp_xcalloc(1, sizeof *s);
    char err[512];
    memcpy(s->v, v, sizeof s->v);
    if (lanes_of(v, &s->lanes, err, sizeof err))
        mp_usage_error("%s", err);
    s->l.replay = 1;
    s->l.method = MP_ASYNC_CPASYNC;
    s->l.width = (int)v[P_WIDTH];
    s->l.cg = (int)v[P_CACHE];
    s->l.threads = (int)v[P_THREADS];
    memcpy(s->l.lane_dst, s->lanes.dst, sizeof s->l.lane_dst);
    memcpy(s->l.lane_src, s->lanes.src, sizeof s->l.lane_src);
    s->l.step = s->lanes.step;
    s->l.iterations = s->lanes.iterations;
    s->l.region_bytes = (int)mp_async_lanes_tile_bytes(&s->lanes);
    size_t words = (size_t)(mp_async_lanes_src_bytes(&s->lanes) / 4);
    unsigned *host = mp_xmalloc(words * sizeof *host);
    for (size_t k = 0; k < words; k++)
        host[k] = mp_async_word(k);
    CHECK_CUDA(cudaMalloc((void **)&s->src, words * sizeof *host));
    CHECK_CUDA(cudaMemcpy(s->src, host, words * sizeof *host,
                          cudaMemcpyHostToDevice));
    free(host);
    s->l.src = s->src;
    MP_LAUNCH_BLOCKS(s->l.blocks, v[P_BLOCKS], dev, mp_async_occupancy,
                     &s->l);
    size_t nthreads = (size_t)s->l.blocks * (size_t)s->l.threads;
    CHECK_CUDA(cudaMalloc((void **)&s->l.sums, nthreads * sizeof(unsigned)));
    s->host_sums = mp_xmalloc(nthreads * sizeof(unsigned));
    mp_launch_alloc(&s->shape, s->l.blocks, NULL, 0, &s->l.clocks);
    *out = s;
    return 0;
}

static int async_setup(const long long *v, const mp_device *dev, void **out)
{
    if (is_replay(v))
        return replay_setup(v, dev, out);
    int m = (int)v[P_METHOD];
    async_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    size_t words = (size_t)(v[P_BYTES] / 4);
    size_t tile_words = (size_t)(v[P_TILE] / 4);
    s->l.method = m;
    s->l.width = (int)v[P_WIDTH];
    s->l.cg = (int)v[P_CACHE];
    s->l.swizzle = swizzle_of(v);
    s->l.tile_bytes = (int)v[P_TILE];
    s->l.tiles = v[P_BYTES] / v[P_TILE];
    s->l.visits = s->l.tiles * v[P_PASSES];
    s->l.threads = (int)v[P_THREADS];

    unsigned *host = mp_xmalloc(words * sizeof *host);
    s->tile_sum = mp_xcalloc((size_t)s->l.tiles, sizeof *s->tile_sum);
    for (size_t k = 0; k < words; k++) {
        host[k] = mp_async_word(k);
        s->tile_sum[k / tile_words] += host[k];
    }
    CHECK_CUDA(cudaMalloc((void **)&s->src, words * sizeof *host));
    CHECK_CUDA(cudaMemcpy(s->src, host, words * sizeof *host,
                          cudaMemcpyHostToDevice));
    free(host);
    s->l.src = s->src;
    if (m == MP_ASYNC_TENSOR) {
        char why[256];
        if (mp_async_encode_tensor_map(&s->l, v[P_BYTES], why, sizeof why)) {
            fprintf(stderr, "memprobe: %s\n", why);
            exit(MP_EXIT_CUDA);
        }
    }

    int per_sm = 0;
    CHECK_CUDA(mp_async_occupancy(&s->l, &per_sm));
    long long blocks = v[P_BLOCKS] > 0 ? v[P_BLOCKS]
                                        : mp_full_wave(dev, per_sm);
    if (blocks > s->l.visits)
        blocks = s->l.visits;
    s->l.blocks = (int)blocks;
    size_t nthreads = (size_t)s->l.blocks * (size_t)s->l.threads;
    CHECK_CUDA(cudaMalloc((void **)&s->l.sums, nthreads * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc((void **)&s->l.dump,
                          (size_t)s->l.blocks * tile_words * sizeof(unsigned)));
    s->host_sums = mp_xmalloc(nthreads * sizeof(unsigned));
    s->host_dump = mp_xmalloc((size_t)s->l.blocks * tile_words
                              * sizeof(unsigned));
    mp_launch_alloc(&s->shape, s->l.blocks, NULL, 0, &s->l.clocks);
    *out = s;
    return 0;
}

static void async_launch(void *state)
{
    async_state *s = state;
    CHECK_CUDA(mp_async_launch_kernel(&s->l));
}

/* Each thread read back what its lane's source held at the last
 * iteration (zero fill and lanes off: 0). */
static int replay_verify(async_state *s, char *err, size_t errlen)
{
    size_t nthreads = (size_t)s->l.blocks * (size_t)s->l.threads;
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(s->host_sums, s->l.sums,
                          nthreads * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    int rc = 0;
    for (size_t t = 0; t < nthreads && rc == 0; t++) {
        int lane = (int)(t % 32);
        unsigned want = mp_async_lanes_expected(&s->lanes, lane);
        if (s->host_sums[t] != want) {
            snprintf(err, errlen, "thread %zu (lane %d): its destination "
                     "holds words summing to %u, the CPU reference to %u",
                     t, lane, s->host_sums[t], want);
            rc = -1;
        }
    }
    mp_poison_copy(s->l.sums, s->host_sums, 0xff,
                   nthreads * sizeof(unsigned));
    return rc;
}

static int async_verify(void *state, char *err, size_t errlen)
{
    async_state *s = state;
    if (s->l.replay)
        return replay_verify(s, err, errlen);
    size_t nthreads = (size_t)s->l.blocks * (size_t)s->l.threads;
    size_t tile_words = (size_t)s->l.tile_bytes / 4;
    size_t dump_bytes = (size_t)s->l.blocks * tile_words * sizeof(unsigned);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(s->host_sums, s->l.sums,
                          nthreads * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(s->host_dump, s->l.dump, dump_bytes,
                          cudaMemcpyDeviceToHost));
    int rc = 0;
    long long g = s->l.blocks;
    for (long long b = 0; b < g && rc == 0; b++) {
        unsigned want = 0, got = 0;
        long long last = b;
        for (long long v = b; v < s->l.visits; v += g) {
            want += s->tile_sum[v % s->l.tiles];
            last = v;
        }
        for (int t = 0; t < s->l.threads; t++)
            got += s->host_sums[b * s->l.threads + t];
        if (got != want) {
            snprintf(err, errlen, "block %lld: the words it read back from "
                     "shared memory sum to %u, the CPU reference to %u", b,
                     got, want);
            rc = -1;
            break;
        }
        /* Its last tile, raw: element e must sit where the model puts it. */
        size_t first = (size_t)(last % s->l.tiles) * tile_words;
        const unsigned *d = s->host_dump + (size_t)b * tile_words;
        for (size_t e = 0; e < tile_words; e++) {
            size_t at = (size_t)mp_async_swizzle((long long)(4 * e),
                                                 s->l.swizzle) / 4;
            if (d[at] != mp_async_word(first + e)) {
                snprintf(err, errlen, "block %lld: word %zu of its last "
                         "tile (source word %zu) should be at shared word "
                         "%zu, which holds %u, not %u", b, e, first + e, at,
                         d[at], mp_async_word(first + e));
                rc = -1;
                break;
            }
        }
    }
    /* Poison the outputs so the next launch must write them again. */
    mp_poison_copy(s->l.sums, s->host_sums, 0xff,
                   nthreads * sizeof(unsigned));
    mp_poison_copy(s->l.dump, s->host_dump, 0xff, dump_bytes);
    return rc;
}

MP_LAUNCH_CLOCK64(async_clock64, async_state)

/* Counter-derived columns: the copies' own instructions against the
 * model's requests, shared-store wavefronts per request (STS and LDGSTS
 * through the LSU; the TMA writes outside it), and the bytes the TMA
 * received for bulk and tensor copies. */
static void async_counters(const async_state *s, const mp_measurement *m,
                           const mp_async_prediction *p, mp_row *row)
{
    double sts = mp_counter(m, MP_SET_ASYNC,
                            "smsp__sass_inst_executed_op_shared_st.sum");
    double ldgsts = mp_counter(m, MP_SET_ASYNC,
                               "smsp__inst_executed_op_ldgsts.sum");
    double st_wf = mp_counter(m, MP_SET_ASYNC,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum");
    double ldgsts_wf = mp_counter(m, MP_SET_ASYNC,
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum");
    double tma_bytes = mp_counter(m, MP_SET_ASYNC,
                                  "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum");
    if (sts < 0 || ldgsts < 0 || st_wf < 0 || ldgsts_wf < 0 || tma_bytes < 0)
        return;
    double wf = st_wf + ldgsts_wf;
    double own = s->l.method == MP_ASYNC_STAGED ? sts
               : s->l.method == MP_ASYNC_CPASYNC ? ldgsts : p->requests;
    int match;
    if (s->l.method == MP_ASYNC_STAGED || s->l.method == MP_ASYNC_CPASYNC) {
        double per = wf / p->requests;
        mp_row_set(row, MP_COL_WAVEFRONTS_PER_REQUEST, "%.4f", per);
        mp_row_set(row, MP_COL_EXCESS_WAVEFRONTS, "%.4f",
                   per - p->ideal_wavefronts_per_request);
        /* Stores next to other warps' LDS carry arbitration excess (the
         * reduction trees: up to 0.40 per STS); allowed 0.5. */
        match = own == p->requests
                && fabs(per - p->wavefronts_per_request) <= 0.5;
    } else {
        /* No LSU stores but the final dump's none; the TMA got every
         * byte (1% for the caches' state). */
        mp_row_set(row, MP_COL_WAVEFRONTS_PER_REQUEST, "%.4f",
                   wf / p->requests);
        match = fabs(tma_bytes - p->bytes_moved) <= 0.01 * p->bytes_moved
                && ldgsts == 0 && sts == 0;
    }
    mp_row_set_match(row, match);
}

/* A replay's counters: its LDGSTS instructions against the copies issued,
 * their shared wavefronts per copy against the model's count, and the L2
 * sectors read per copy (none once the sources sit in L1). */
static void replay_derive(async_state *s, const mp_device *dev,
                          const mp_measurement *m, mp_row *row)
{
    mp_copy_prediction p;
    mp_async_lanes_predict(&s->lanes, &p);
    double requests = (double)s->l.blocks * (s->l.threads / 32)
                      * (double)s->lanes.iterations;
    mp_row_set(row, MP_COL_THREADS, "%d", s->l.threads);
    mp_row_set(row, MP_COL_BLOCKS, "%d", s->l.blocks);
    mp_row_set(row, MP_COL_SHARED_BYTES, "%d", mp_async_shared_bytes(&s->l));
    mp_row_set_per_request(row, dev, m, requests, s->l.blocks);
    if (!m->counters)
        return;
    double ldgsts = mp_counter(m, MP_SET_ASYNC,
                               "smsp__inst_executed_op_ldgsts.sum");
    double wf = mp_counter(m, MP_SET_ASYNC,
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum");
    double l2 = mp_counter(m, MP_SET_ASYNC,
                           "lts__t_sectors_srcunit_tex_op_read.sum");
    if (ldgsts < 0 || wf < 0)
        return;
    double per = wf / requests;
    mp_row_set(row, MP_COL_WAVEFRONTS_PER_REQUEST, "%.4f", per);
    mp_row_set(row, MP_COL_EXCESS_WAVEFRONTS, "%.4f", per - p.ideal);
    if (l2 >= 0)
        mp_row_set(row, MP_COL_SECTORS_PER_REQUEST, "%.4f", l2 / requests);
    /* one instruction, nothing else in the loop: exact but for 1% */
    mp_row_set_match(row, ldgsts == requests
                              && fabs(per - p.wavefronts) <= 0.01 * p.wavefronts);
}

static void async_derive(void *state, const mp_device *dev,
                         const mp_measurement *m, mp_row *row)
{
    async_state *s = state;
    if (s->l.replay) {
        replay_derive(s, dev, m, row);
        return;
    }
    mp_async_prediction p;
    model_of(s->v, &p);
    mp_row_set(row, MP_COL_THREADS, "%d", s->l.threads);
    mp_row_set(row, MP_COL_BLOCKS, "%d", s->l.blocks);
    mp_row_set(row, MP_COL_SHARED_BYTES, "%d", mp_async_shared_bytes(&s->l));
    mp_row_set_per_request(row, dev, m, p.requests, s->l.blocks);
    if (m->time_ns.n > 0) {
        double gbs = p.bytes_moved / m->time_ns.median;
        double peak = mp_device_dram_peak_gbs(dev);
        mp_row_set(row, MP_COL_BANDWIDTH_GBS, "%.1f", gbs);
        if (peak > 0) {
            mp_row_set(row, MP_COL_CEILING_GBS, "%.1f", peak);
            mp_row_set(row, MP_COL_BANDWIDTH_FRACTION, "%.4f", gbs / peak);
        }
    }
    if (m->counters)
        async_counters(s, m, &p, row);
}

static void async_release(void *state)
{
    async_state *s = state;
    MP_FREE_DEVICE(&s->src, &s->l.sums, &s->l.dump);
    mp_launch_release(&s->shape);
    s->l.src = NULL;
}

static void async_free_host(void *state)
{
    async_state *s = state;
    MP_FREE_HOST(&s->tile_sum, &s->host_sums, &s->host_dump);
    mp_launch_free(&s->shape);
}

/* The console table (runtime/console.h): the bandwidth against the DRAM
 * ceiling, shared-memory wavefronts per request, model beside counters, and
 * the time per request. */
static const mp_console_col console[] = {
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
    {"of ceil", MP_COL_BANDWIDTH_FRACTION, 7},
    {"model wf", MP_COL_MODEL_WAVEFRONTS, 8},
    {"wf/req", MP_COL_WAVEFRONTS_PER_REQUEST, 8},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
};

const mp_probe mp_probe_async = {
    MP_PROBE_BASE(async, async),
    .metrics = MP_SET_ASYNC,
    .clock64 = async_clock64,
    .free_host = async_free_host,
};
