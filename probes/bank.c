/*
 * bank.c - the shared-memory bank probe: parameters, checks, prediction,
 * verification and derived columns. Kernels are in bank.cu.
 *
 * Lane `lane` of every warp touches element
 *     base + stride * ((lane % period) / group)
 * of a shared tile (with the seeds' row padding when pad > 0; see
 * model/pattern.h), once per iteration, with a load or a store of `width`
 * bytes. Counters divide the op's wavefronts by its instructions, so one
 * request = one warp-level LDS or STS.
 *
 * With --index xy|yx|xy-mirror|yx-mirror the lane pattern is replaced by a
 * 2D block of --block-x x --block-y threads indexing a 2D array the way
 * the seeds' bitmap kernel does (model/pattern.h, mp_block2d): each warp
 * of the block gets the addresses its 32 linear thread ids produce, the
 * threads per block are block-x x block-y, and the model averages its
 * per-warp predictions.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "bank_model.h"
#include "check.h"
#include "launch.h"
#include "pattern.h"
#include "probe.h"

enum { P_OP, P_WIDTH, P_STRIDE, P_BASE, P_GROUP, P_PERIOD, P_PAD, P_THREADS,
       P_BLOCKS, P_ITERATIONS, P_INDEX, P_BLOCK_X, P_BLOCK_Y, P_COUNT };

static const char *const op_names[] = {"ld", "st", NULL};
static const long long widths[] = {4, 8, 16};
static const char *const index_names[] = {"lane", "xy", "yx", "xy-mirror",
                                          "yx-mirror", NULL};

static const mp_param_def bank_params[P_COUNT] = {
    [P_OP] = {"op", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, op_names,
              "ld (LDS) or st (STS)"},
    [P_WIDTH] = {"width", MP_PARAM_INT, 4, 4, 16, widths, 3, NULL,
                 "bytes per lane: 4 (int), 8 (int2/double), 16 (int4)"},
    [P_STRIDE] = {"stride", MP_PARAM_INT, 1, 0, 4096, NULL, 0, NULL,
                  "elements between address groups (seeds: data[base+k*tid])"},
    [P_BASE] = {"base", MP_PARAM_INT, 0, 0, 65535, NULL, 0, NULL,
                "first element index"},
    [P_GROUP] = {"group", MP_PARAM_INT, 1, 1, 32, NULL, 0, NULL,
                 "consecutive lanes sharing one address (32 = broadcast)"},
    [P_PERIOD] = {"period", MP_PARAM_INT, 32, 1, 32, NULL, 0, NULL,
                  "lanes after which the addresses repeat"},
    [P_PAD] = {"pad", MP_PARAM_INT, 0, 0, 1024, NULL, 0, NULL,
               "elements padding each tile row of `stride` (16+1 = 17)"},
    [P_THREADS] = {"threads", MP_PARAM_INT, 256, 32, 1024, NULL, 0, NULL,
                   "threads per block, a multiple of 32"},
    [P_BLOCKS] = {"blocks", MP_PARAM_INT, 0, 0, 1048576, NULL, 0, NULL,
                  "blocks; 0 = fill the GPU (SMs x resident blocks)"},
    [P_ITERATIONS] = {"iterations", MP_PARAM_INT, 16384, 1, 1048576, NULL, 0,
                      NULL, "accesses per thread per launch"},
    [P_INDEX] = {"index", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, index_names,
                 "lane pattern, or a 2D block's shared[x][y], [y][x], "
                 "mirrored [bx-1-x][by-1-y], [by-1-y][bx-1-x]"},
    [P_BLOCK_X] = {"block-x", MP_PARAM_INT, 16, 1, 1024, NULL, 0, NULL,
                   "2D block: threads along x (with --index)"},
    [P_BLOCK_Y] = {"block-y", MP_PARAM_INT, 16, 1, 1024, NULL, 0, NULL,
                   "2D block: threads along y (with --index)"},
};

static int is_2d(const long long *v)
{
    return v[P_INDEX] != MP_INDEX_LANE;
}

static mp_block2d block_of(const long long *v)
{
    mp_block2d b = {(int)v[P_INDEX], v[P_BLOCK_X], v[P_BLOCK_Y], v[P_PAD]};
    return b;
}

/* Threads per block: --threads, or the 2D block's. */
static long long threads_of(const long long *v)
{
    return is_2d(v) ? v[P_BLOCK_X] * v[P_BLOCK_Y] : v[P_THREADS];
}

/* Byte offset of every thread of a 2D block (threads_of(v) of them);
 * returns the array's bytes. */
static long long block_offsets(const long long *v, long long *off)
{
    mp_block2d b = block_of(v);
    long long n = threads_of(v);
    for (long long t = 0; t < n; t++)
        off[t] = mp_block2d_element(&b, t) * v[P_WIDTH];
    return mp_block2d_elements(&b) * v[P_WIDTH];
}

static mp_pattern pattern_of(const long long *v)
{
    mp_pattern p = {v[P_BASE], v[P_STRIDE], v[P_GROUP], v[P_PERIOD],
                    v[P_PAD]};
    return p;
}

/* Bytes of shared tile the configuration touches, rounded up to 16. */
static long long footprint(const long long *v, long long offsets[32])
{
    mp_pattern p = pattern_of(v);
    long long end = mp_pattern_offsets(&p, (int)v[P_WIDTH], offsets);
    if (is_2d(v)) {
        mp_block2d b = block_of(v);
        end = mp_block2d_elements(&b) * v[P_WIDTH];
    }
    return (end + 15) / 16 * 16;
}

static int bank_check(const long long *v, size_t smem_limit, char *err,
                      size_t errlen)
{
    long long offsets[32];
    if (is_2d(v)) {
        long long n = v[P_BLOCK_X] * v[P_BLOCK_Y];
        if (n > 1024 || n % 32) {
            snprintf(err, errlen,
                     "--block-x/--block-y: %lld x %lld = %lld threads; a 2D "
                     "block needs a multiple of 32, at most 1024",
                     v[P_BLOCK_X], v[P_BLOCK_Y], n);
            return -1;
        }
    } else if (v[P_THREADS] % 32) {
        snprintf(err, errlen, "--threads: %lld is not a multiple of 32",
                 v[P_THREADS]);
        return -1;
    }
    if (v[P_PAD] > 0 && v[P_STRIDE] == 0) {
        snprintf(err, errlen,
                 "--pad: %lld needs a tile row, but --stride is 0", v[P_PAD]);
        return -1;
    }
    long long bytes = footprint(v, offsets);
    if (bytes > (long long)smem_limit) {
        snprintf(err, errlen,
                 "--stride/--base/--pad: the warp's addresses need %lld bytes "
                 "of shared memory, more than the %zu a block may use",
                 bytes, smem_limit);
        return -1;
    }
    return 0;
}

static void bank_label(const long long *v, char *buf, size_t len)
{
    if (is_2d(v)) {
        snprintf(buf, len, "bank/%s/w%lld/%s/%lldx%lld%s%.0lld",
                 op_names[v[P_OP]], v[P_WIDTH], index_names[v[P_INDEX]],
                 v[P_BLOCK_X], v[P_BLOCK_Y], v[P_PAD] ? "/pad" : "",
                 v[P_PAD] ? v[P_PAD] : 0);
        return;
    }
    snprintf(buf, len, "bank/%s/w%lld/s%lld/b%lld/g%lld/p%lld%s%.0lld",
             op_names[v[P_OP]], v[P_WIDTH], v[P_STRIDE], v[P_BASE],
             v[P_GROUP], v[P_PERIOD], v[P_PAD] ? "/pad" : "",
             v[P_PAD] ? v[P_PAD] : 0);
}

static void bank_predict(const long long *v, mp_prediction *out)
{
    if (is_2d(v)) {
        long long off[1024];
        mp_bank_block_prediction b;
        block_offsets(v, off);
        mp_bank_predict_block(off, (int)threads_of(v), (int)v[P_WIDTH],
                              (int)v[P_OP], &b);
        /* The same names as the lane pattern's, so one sweep may mix
         * them: per-warp means, and the worst bank of any warp. */
        out->n = 5;
        out->name[0] = "wavefronts_per_request";
        out->value[0] = b.wavefronts;
        out->name[1] = "ideal_wavefronts_per_request";
        out->value[1] = b.ideal;
        out->name[2] = "conflict_ways";
        out->value[2] = b.conflict_ways;
        out->name[3] = "distinct_words";
        out->value[3] = b.distinct_words;
        out->name[4] = "max_words_per_bank";
        out->value[4] = b.max_words_per_bank;
        return;
    }
    mp_pattern p = pattern_of(v);
    mp_bank_prediction b;
    mp_bank_predict_pattern(&p, (int)v[P_WIDTH], (int)v[P_OP], &b);
    out->n = 5;
    out->name[0] = "wavefronts_per_request";
    out->value[0] = b.wavefronts;
    out->name[1] = "ideal_wavefronts_per_request";
    out->value[1] = b.ideal;
    out->name[2] = "conflict_ways";
    out->value[2] = b.conflict_ways;
    out->name[3] = "distinct_words";
    out->value[3] = b.distinct_words;
    out->name[4] = "max_words_per_bank";
    out->value[4] = b.max_words_per_bank;
}

static void bank_describe(const long long *v, mp_row *row)
{
    mp_prediction p;
    bank_predict(v, &p);
    static const mp_param_column cols[] = {
        {P_OP, MP_COL_OP}, {P_WIDTH, MP_COL_WIDTH},
        {P_STRIDE, MP_COL_STRIDE}, {P_BASE, MP_COL_BASE},
        {P_GROUP, MP_COL_GROUP}, {P_PERIOD, MP_COL_PERIOD},
        {P_PAD, MP_COL_PAD}, {P_ITERATIONS, MP_COL_ITERATIONS},
    };
    mp_row_set(row, MP_COL_PROBE, "bank");
    mp_row_set_params(row, bank_params, v, cols, sizeof cols / sizeof *cols);
    if (is_2d(v))
        mp_row_set(row, MP_COL_ACCESS, "%s/%lldx%lld", index_names[v[P_INDEX]],
                   v[P_BLOCK_X], v[P_BLOCK_Y]);
    mp_row_set(row, MP_COL_MODEL_WAVEFRONTS, "%g", p.value[0]);
    mp_row_set(row, MP_COL_MODEL_IDEAL, "%g", p.value[1]);
    mp_row_set(row, MP_COL_MODEL_CONFLICT_WAYS, "%.4g", p.value[2]);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_bank_launch l;
    unsigned *host_offset;     /* 2D: each thread's byte offset, or NULL */
    mp_launch_shape shape;     /* out (one word per thread), clock64 */
} bank_state;

static int bank_setup(const long long *v, const mp_device *dev, void **out)
{
    bank_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    long long offsets[32];
    s->l.width = (int)v[P_WIDTH];
    s->l.is_store = (int)v[P_OP];
    s->l.tile_bytes = (unsigned)footprint(v, offsets);
    for (int i = 0; i < 32; i++)
        s->l.offset[i] = (unsigned)offsets[i];
    s->l.threads = (int)threads_of(v);
    if (is_2d(v)) {
        long long off[1024];
        block_offsets(v, off);
        s->host_offset = mp_xmalloc((size_t)s->l.threads * sizeof(unsigned));
        for (int t = 0; t < s->l.threads; t++)
            s->host_offset[t] = (unsigned)off[t];
        size_t bytes = (size_t)s->l.threads * sizeof(unsigned);
        CHECK_CUDA(cudaMalloc((void **)&s->l.thread_offset, bytes));
        CHECK_CUDA(cudaMemcpy(s->l.thread_offset, s->host_offset, bytes,
                              cudaMemcpyHostToDevice));
    }
    s->l.iterations = (int)v[P_ITERATIONS];
    CHECK_CUDA(mp_bank_configure(&s->l, (int)dev->smem_per_block_optin));
    MP_LAUNCH_BLOCKS(s->l.blocks, v[P_BLOCKS], dev, mp_bank_occupancy,
                     &s->l);
    size_t nthreads = (size_t)s->l.blocks * (size_t)s->l.threads;
    mp_launch_alloc(&s->shape, s->l.blocks, (void **)&s->l.out,
                    nthreads * sizeof(unsigned), &s->l.clocks);
    *out = s;
    return 0;
}

static void bank_launch(void *state)
{
    bank_state *s = state;
    CHECK_CUDA(mp_bank_launch_kernel(&s->l));
}

/* What thread `t` of a block must leave in out[]: the sum of its words'
 * values, times the iterations for loads (each iteration adds them
 * again). */
static unsigned expected_word(const bank_state *s, int t)
{
    unsigned off = s->host_offset ? s->host_offset[t] : s->l.offset[t % 32];
    unsigned first = off / 4, sum = 0;
    for (int j = 0; j < s->l.width / 4; j++)
        sum += mp_bank_word_value(first + j);
    return s->l.is_store ? sum : sum * (unsigned)s->l.iterations;
}

static int bank_verify(void *state, char *err, size_t errlen)
{
    bank_state *s = state;
    size_t per_block = (size_t)s->l.threads;
    unsigned *want = mp_xmalloc(per_block * sizeof(unsigned));
    for (size_t t = 0; t < per_block; t++)
        want[t] = expected_word(s, (int)t);
    int rc = mp_launch_verify_words(&s->shape, s->l.threads, want, per_block,
                                    err, errlen);
    free(want);
    return rc;
}

/* The seeds' span and the median block duration (runtime/stats.c). */
static void bank_clock64(void *state, long long *span, double *block_median)
{
    bank_state *s = state;
    mp_launch_clock64(&s->shape, span, block_median);
}

static void bank_derive(void *state, const mp_device *dev,
                        const mp_measurement *m, mp_row *row)
{
    bank_state *s = state;
    double warps = (double)s->l.blocks * s->l.threads / 32.0;
    double requests = warps * s->l.iterations;
    double sms = mp_active_sms(dev, s->l.blocks);
    double ghz = dev->sm_clock_khz / 1e6;

    mp_row_set_launch(row, s->l.threads, s->l.blocks, s->l.tile_bytes);
    mp_row_set_per_request(row, dev, m, requests, s->l.blocks);
    if (m->time_ns.n > 0) {
        double bytes = requests * 32.0 * s->l.width;
        mp_row_set_bandwidth(row, bytes / m->time_ns.median,
                             128.0 * sms * ghz);
    }
    if (!m->counters)
        return;

    const char *op = s->l.is_store ? "st" : "ld";
    char wname[96], iname[96];
    snprintf(wname, sizeof wname,
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum", op);
    snprintf(iname, sizeof iname, "smsp__sass_inst_executed_op_shared_%s.sum",
             op);
    double wavefronts = mp_counter(m, MP_SET_SHARED, wname), inst = mp_counter(m, MP_SET_SHARED, iname);
    mp_prediction p;
    bank_predict(s->v, &p);
    if (inst <= 0)
        return;
    double per_request = wavefronts / inst;
    mp_row_set(row, MP_COL_WAVEFRONTS_PER_REQUEST, "%.4f", per_request);
    mp_row_set(row, MP_COL_EXCESS_WAVEFRONTS, "%.4f", per_request - p.value[1]);
    /* The kernel issues exactly one request per warp per iteration; any
     * other instruction count means the probe is not what it claims. The
     * wavefront counter carries a small positive excess from L1
     * arbitration with the kernel's other traffic (docs/notes.md), so the
     * measured value matches when it rounds to the prediction. */
    int match = inst == requests && fabs(per_request - p.value[0]) < 0.5;
    mp_row_set(row, MP_COL_MODEL_MATCH, "%s", match ? "yes" : "no");
}

static void bank_release(void *state)
{
    bank_state *s = state;
    mp_launch_release(&s->shape);
    CHECK_CUDA(cudaFree(s->l.thread_offset));
    s->l.thread_offset = NULL;
}

static void bank_teardown(void *state)
{
    bank_state *s = state;
    if (!s)
        return;
    bank_release(s);
    mp_launch_free(&s->shape);
    free(s->host_offset);
    free(s);
}

const mp_probe mp_probe_bank = {
    .name = "bank",
    .summary = "shared-memory bank conflicts: stride, width, broadcast, "
               "padding",
    .params = bank_params,
    .nparams = P_COUNT,
    .metrics = MP_SET_SHARED,
    .ncu_check_args = "--op ld,st --width 4,8,16 "
                      "--stride 0,1,2,3,4,8,16,17,32,33 --group 1,2 "
                      "--iterations 256",
    .check = bank_check,
    .label = bank_label,
    .predict = bank_predict,
    .describe = bank_describe,
    .setup = bank_setup,
    .launch = bank_launch,
    .verify = bank_verify,
    .after_timing = NULL,
    .clock64 = bank_clock64,
    .release = bank_release,
    .derive = bank_derive,
    .teardown = bank_teardown,
};
