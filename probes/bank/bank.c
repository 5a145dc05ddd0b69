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
 *
 * --op ldsm|stsm runs ldmatrix / stmatrix .m8n8 .x1/.x2/.x4 (--matrices,
 * --trans): lane i gives the address of row i % 8 of matrix i / 8, from
 * --pitch, --rows plain|mma and --swizzle (model/pattern.h,
 * mp_matrix_rows). --offsets 'o0;...;o31' replaces the pattern of any op
 * with the lanes' byte offsets as given. The matrix model is a hypothesis
 * the H200's LDSM/STSM counters decide (model/bank_model.c).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bank.h"
#include "bank_model.h"
#include "check.h"
#include "lane_offsets.h"
#include "launch.h"
#include "metric_sets.h"
#include "pattern.h"
#include "common_params.h"
#include "probe.h"

/* The family's metric set (bank_metrics.c). */
extern const mp_metric_set_def mp_set_shared;
#define MP_SET_SHARED (&mp_set_shared)

enum { P_OP, P_WIDTH, P_STRIDE, P_BASE, P_GROUP, P_PERIOD, P_PAD, P_THREADS,
       P_BLOCKS, P_ITERATIONS, P_INDEX, P_BLOCK_X, P_BLOCK_Y, P_MATRICES,
       P_TRANS, P_PITCH, P_ROWS, P_SWIZZLE, P_OFFSETS, P_COUNT };

enum { OP_LD, OP_ST, OP_LDSM, OP_STSM };

static const char *const op_names[] = {"ld", "st", "ldsm", "stsm", NULL};
/* ldmatrix needs sm_75, stmatrix sm_90 (probes/arch.h). */
static const int op_cc[] = {0, 0, MP_CC_LDMATRIX, MP_CC_STMATRIX};
static const long long matrix_counts[] = {1, 2, 4};
static const char *const rows_names[] = {"plain", "mma", NULL};
static const char *const swizzle_names[] = {"none", "32", "64", "128", NULL};

/* Reads --offsets' 32 byte offsets into off (probes/lane_offsets.h). */
static int parse_offsets(const char *text, long long off[32], char *err,
                         size_t errlen)
{
    return mp_lane_offsets_parse(text, 0, off, err, errlen);
}

static int offsets_check(const char *text, char *err, size_t errlen)
{
    long long off[32];
    return parse_offsets(text, off, err, errlen);
}
static const long long widths[] = {4, 8, 16};
static const char *const index_names[] = {"lane", "xy", "yx", "xy-mirror",
                                          "yx-mirror", NULL};

static const mp_param_def bank_params[P_COUNT] = {
    [P_OP] = {.name = "op", .kind = MP_PARAM_CHOICE, .def = 0,
              .choices = op_names,
              .help = "ld (LDS), st (STS), ldsm (ldmatrix) or stsm (stmatrix)",
              .choice_cc = op_cc},
    [P_WIDTH] = MP_PARAM_LANE_WIDTH(widths),
    [P_STRIDE] = MP_INT_PARAM("stride", 1, 0, 4096,
        "elements between address groups (seeds: data[base+k*tid])"),
    [P_BASE] = MP_INT_PARAM("base", 0, 0, 65535, "first element index"),
    [P_GROUP] = MP_PARAM_GROUP,
    [P_PERIOD] = MP_PARAM_PERIOD,
    [P_PAD] = MP_INT_PARAM("pad", 0, 0, 1024,
        "elements padding each tile row of `stride` (16+1 = 17)"),
    [P_THREADS] = MP_PARAM_THREADS,
    [P_BLOCKS] = MP_PARAM_BLOCKS(1048576),
    [P_ITERATIONS] = MP_INT_PARAM("iterations", 16384, 1, 1048576,
        "accesses per thread per launch"),
    [P_INDEX] = MP_CHOICE_PARAM("index", 0, index_names,
        "lane pattern, or a 2D block's shared[x][y], [y][x], mirrored "
        "[bx-1-x][by-1-y], [by-1-y][bx-1-x]"),
    [P_BLOCK_X] = MP_INT_PARAM("block-x", 16, 1, 1024,
        "2D block: threads along x (with --index)"),
    [P_BLOCK_Y] = MP_INT_PARAM("block-y", 16, 1, 1024,
        "2D block: threads along y (with --index)"),
    [P_MATRICES] = {.name = "matrices", .kind = MP_PARAM_INT, .def = 4,
                    .min = 1, .max = 4, .allowed = matrix_counts,
                    .nallowed = 3,
                    .help = "ldsm/stsm: 8x8 matrices per instruction (.xN)"},
    [P_TRANS] = MP_INT_PARAM("trans", 0, 0, 1, "ldsm/stsm: 1 = .trans"),
    [P_PITCH] = MP_INT_PARAM("pitch", 16, 0, 65536,
        "ldsm/stsm: bytes between tile rows, a multiple of 16"),
    [P_ROWS] = MP_CHOICE_PARAM("rows", 0, rows_names,
        "ldsm/stsm: lane i -> tile row i (plain), or the quadrants of a "
        "16x16 MMA tile (mma)"),
    [P_SWIZZLE] = MP_CHOICE_PARAM("swizzle", 0, swizzle_names,
        "ldsm/stsm: TMA swizzle (Swizzle<1|2|3,4,3>)"),
    [P_OFFSETS] = {.name = "offsets", .kind = MP_PARAM_TEXT, .def = 0,
                   .help = "32 byte offsets, one per lane, replacing the "
                           "pattern (ldsm/stsm: lane i = row i%8 of matrix "
                           "i/8)",
                   .text_form = "o0;o1;...;o31",
                   .text_check = offsets_check},
};

static int is_matrix(const long long *v)
{
    return v[P_OP] == OP_LDSM || v[P_OP] == OP_STSM;
}

static int is_store(const long long *v)
{
    return v[P_OP] == OP_ST || v[P_OP] == OP_STSM;
}

/* Bytes one lane moves: the width, or a 16-byte matrix row. */
static int lane_bytes(const long long *v)
{
    return is_matrix(v) ? 16 : (int)v[P_WIDTH];
}

/* Lanes whose addresses the instruction uses. */
static int used_lanes(const long long *v)
{
    return is_matrix(v) ? 8 * (int)v[P_MATRICES] : 32;
}

static mp_matrix_rows matrix_rows_of(const long long *v)
{
    mp_matrix_rows m = {(int)v[P_MATRICES], v[P_PITCH], (int)v[P_ROWS],
                        (int)v[P_SWIZZLE]};
    return m;
}

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

/* Each lane's byte offset (lane pattern, matrix rows or --offsets; lanes
 * a matrix op does not use get 0); returns the end of the last byte used. */
static long long lane_offsets(const long long *v, long long offsets[32])
{
    long long end = 0;
    if (v[P_OFFSETS]) {
        char err[256];
        if (parse_offsets(mp_param_text(v[P_OFFSETS]), offsets, err,
                          sizeof err))
            mp_usage_error("--offsets: %s", err);
    } else if (is_matrix(v)) {
        mp_matrix_rows m = matrix_rows_of(v);
        for (int lane = 0; lane < 32; lane++)
            offsets[lane] = mp_matrix_row_offset(&m, lane);
    } else {
        mp_pattern p = pattern_of(v);
        return mp_pattern_offsets(&p, (int)v[P_WIDTH], offsets);
    }
    for (int lane = 0; lane < used_lanes(v); lane++)
        if (offsets[lane] + lane_bytes(v) > end)
            end = offsets[lane] + lane_bytes(v);
    for (int lane = used_lanes(v); lane < 32; lane++)
        offsets[lane] = 0;
    return end;
}

/* Bytes of shared tile the configuration touches, rounded up to 16. */
static long long footprint(const long long *v, long long offsets[32])
{
    long long end = lane_offsets(v, offsets);
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
        if (is_matrix(v) || v[P_OFFSETS]) {
            snprintf(err, errlen, "--index: a 2D block takes --op ld|st and "
                     "no --offsets");
            return -1;
        }
    } else if (mp_param_check_multiple("threads", v[P_THREADS], 32, err,
                                       errlen)) {
        return -1;
    }
    if (v[P_PAD] > 0 && v[P_STRIDE] == 0) {
        snprintf(err, errlen,
                 "--pad: %lld needs a tile row, but --stride is 0", v[P_PAD]);
        return -1;
    }
    if (is_matrix(v) && v[P_PITCH] % 16) {
        snprintf(err, errlen, "--pitch: %lld is not a multiple of 16 (matrix "
                 "rows are 16-byte aligned)", v[P_PITCH]);
        return -1;
    }
    if (is_matrix(v) && !v[P_OFFSETS] && v[P_ROWS] == MP_ROWS_MMA
        && v[P_MATRICES] == 4 && v[P_PITCH] < 32) {
        snprintf(err, errlen, "--pitch: %lld is less than the 32 bytes of "
                 "a 16x16 b16 tile row (--rows mma --matrices 4)",
                 v[P_PITCH]);
        return -1;
    }
    if (v[P_OFFSETS]) {
        char why[256];
        if (parse_offsets(mp_param_text(v[P_OFFSETS]), offsets, why,
                          sizeof why)) {
            snprintf(err, errlen, "--offsets: %s", why);
            return -1;
        }
        int align = lane_bytes(v);
        for (int lane = 0; lane < used_lanes(v); lane++)
            if (offsets[lane] % align) {
                snprintf(err, errlen, "--offsets: lane %d's offset %lld is "
                         "not a multiple of %d (%s)", lane, offsets[lane],
                         align, is_matrix(v) ? "matrix rows are 16-byte "
                         "aligned" : "the access width");
                return -1;
            }
    }
    if (v[P_OP] == OP_STSM) {
        lane_offsets(v, offsets);
        for (int a = 0; a < used_lanes(v); a++)
            for (int b = a + 1; b < used_lanes(v); b++)
                if (offsets[a] == offsets[b]) {
                    snprintf(err, errlen, "--offsets/--pitch: stmatrix rows "
                             "of lanes %d and %d are both at byte %lld; the "
                             "stored tile would depend on the order", a, b,
                             offsets[a]);
                    return -1;
                }
    }
    long long bytes = footprint(v, offsets);
    if (bytes > (long long)smem_limit) {
        const char *what = v[P_OFFSETS]   ? "--offsets"
                           : is_matrix(v) ? "--pitch/--matrices/--rows"
                           : is_2d(v)     ? "--block-x/--block-y/--pad"
                                          : "--stride/--base/--pad";
        snprintf(err, errlen,
                 "%s: the warp's addresses need %lld bytes "
                 "of shared memory, more than the %zu a block may use",
                 what, bytes, smem_limit);
        return -1;
    }
    return 0;
}

static void bank_label(const long long *v, char *buf, size_t len)
{
    char lanes[64];
    if (is_matrix(v))
        snprintf(lanes, sizeof lanes, "p%lld/%s/sw%s", v[P_PITCH],
                 rows_names[v[P_ROWS]], swizzle_names[v[P_SWIZZLE]]);
    if (v[P_OFFSETS])
        snprintf(lanes, sizeof lanes, "o%08x",
                 mp_lane_offsets_hash(mp_param_text(v[P_OFFSETS])));
    if (is_matrix(v)) {
        snprintf(buf, len, "bank/%s/x%lld/t%lld/%s", op_names[v[P_OP]],
                 v[P_MATRICES], v[P_TRANS], lanes);
        return;
    }
    if (v[P_OFFSETS]) {
        snprintf(buf, len, "bank/%s/w%lld/%s", op_names[v[P_OP]],
                 v[P_WIDTH], lanes);
        return;
    }
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

/* The five model columns, the same names for the lane pattern and the 2D
 * block (per-warp means there), so one sweep may mix them. */
static void put_bank_model(mp_prediction *out, double wavefronts,
                           double ideal, double ways, double distinct,
                           double max_per_bank)
{
    mp_prediction_clear(out);
    mp_prediction_put(out, "wavefronts_per_request", wavefronts);
    mp_prediction_put(out, "ideal_wavefronts_per_request", ideal);
    mp_prediction_put(out, "conflict_ways", ways);
    mp_prediction_put(out, "distinct_words", distinct);
    mp_prediction_put(out, "max_words_per_bank", max_per_bank);
}

static void bank_predict(const long long *v, mp_prediction *out)
{
    if (is_2d(v)) {
        long long off[1024];
        mp_bank_block_prediction b;
        block_offsets(v, off);
        mp_bank_predict_block(off, (int)threads_of(v), (int)v[P_WIDTH],
                              is_store(v), &b);
        /* Per-warp means, and the worst bank of any warp. */
        put_bank_model(out, b.wavefronts, b.ideal, b.conflict_ways,
                       b.distinct_words, b.max_words_per_bank);
        return;
    }
    mp_bank_prediction b;
    if (is_matrix(v) || v[P_OFFSETS]) {
        long long off[32];
        lane_offsets(v, off);
        if (is_matrix(v)) {
            mp_bank_predict_matrix(off, (int)v[P_MATRICES], &b);
        } else {
            mp_warp_access a = {(int)v[P_WIDTH], is_store(v), 0xffffffffu,
                                {0}};
            memcpy(a.offset, off, sizeof off);
            mp_bank_predict(&a, &b);
        }
    } else {
        mp_pattern p = pattern_of(v);
        mp_bank_predict_pattern(&p, (int)v[P_WIDTH], is_store(v), &b);
    }
    put_bank_model(out, b.wavefronts, b.ideal, b.conflict_ways,
                   b.distinct_words, b.max_words_per_bank);
}

static void bank_describe(const long long *v, mp_row *row)
{
    mp_prediction p;
    bank_predict(v, &p);
    static const mp_param_column cols[] = {
        {P_OP, MP_COL_OP}, {P_STRIDE, MP_COL_STRIDE}, {P_BASE, MP_COL_BASE},
        {P_GROUP, MP_COL_GROUP}, {P_PERIOD, MP_COL_PERIOD},
        {P_PAD, MP_COL_PAD}, {P_ITERATIONS, MP_COL_ITERATIONS},
    };
    mp_row_set(row, MP_COL_PROBE, "bank");
    mp_row_set_params(row, bank_params, v, cols, sizeof cols / sizeof *cols);
    mp_row_set(row, MP_COL_WIDTH, "%d", lane_bytes(v));
    if (is_2d(v))
        mp_row_set(row, MP_COL_ACCESS, "%s/%lldx%lld", index_names[v[P_INDEX]],
                   v[P_BLOCK_X], v[P_BLOCK_Y]);
    if (is_matrix(v))
        mp_row_set(row, MP_COL_ACCESS, "x%lld/trans%lld/%s/pitch%lld/"
                   "swizzle-%s", v[P_MATRICES], v[P_TRANS],
                   rows_names[v[P_ROWS]], v[P_PITCH],
                   swizzle_names[v[P_SWIZZLE]]);
    if (v[P_OFFSETS] && is_matrix(v))
        mp_row_set(row, MP_COL_ACCESS, "x%lld/trans%lld/offsets=%s",
                   v[P_MATRICES], v[P_TRANS], mp_param_text(v[P_OFFSETS]));
    else if (v[P_OFFSETS])
        mp_row_set(row, MP_COL_ACCESS, "offsets=%s",
                   mp_param_text(v[P_OFFSETS]));
    mp_row_set_wavefront_model(row, &p);
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
    s->l.width = lane_bytes(v);
    s->l.is_store = is_store(v);
    s->l.matrices = is_matrix(v) ? (int)v[P_MATRICES] : 0;
    s->l.trans = (int)v[P_TRANS];
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

/* Halfword at byte b of the loaded tile (word values, little endian). */
static unsigned tile_half(unsigned b)
{
    return mp_bank_word_value(b / 4) >> (16 * ((b / 2) % 2)) & 0xffffu;
}

/* ldmatrix: register j of lane i. Without .trans it is the 4-byte word at
 * column pair i % 4 of row i / 4 of matrix j; with .trans the two halves
 * come from rows 2 (i % 4) and 2 (i % 4) + 1, column i / 4. */
static unsigned ldsm_register(const bank_state *s, int i, int j)
{
    const unsigned *row = s->l.offset + 8 * j;
    if (!s->l.trans)
        return mp_bank_word_value((row[i / 4] + 4u * (unsigned)(i % 4)) / 4);
    unsigned col = 2u * (unsigned)(i / 4);
    return tile_half(row[2 * (i % 4)] + col)
           | tile_half(row[2 * (i % 4) + 1] + col) << 16;
}

/* stmatrix: the tile after the stores (the same per block): lane i's
 * register j goes where ldmatrix would have read it from. */
static void stsm_tile(const bank_state *s, unsigned char *tile)
{
    memset(tile, 0, s->l.tile_bytes);
    for (int j = 0; j < s->l.matrices; j++) {
        const unsigned *row = s->l.offset + 8 * j;
        for (int i = 0; i < 32; i++) {
            unsigned v = mp_bank_stsm_value(i, j);
            if (!s->l.trans) {
                memcpy(tile + row[i / 4] + 4 * (i % 4), &v, 4);
                continue;
            }
            unsigned col = 2u * (unsigned)(i / 4);
            unsigned short lo = (unsigned short)(v & 0xffffu);
            unsigned short hi = (unsigned short)(v >> 16);
            memcpy(tile + row[2 * (i % 4)] + col, &lo, 2);
            memcpy(tile + row[2 * (i % 4) + 1] + col, &hi, 2);
        }
    }
}

/* What each thread of a block must leave in out[] for a matrix op. */
static void matrix_expected(const bank_state *s, unsigned *want)
{
    int threads = s->l.threads;
    if (!s->l.is_store) {
        for (int t = 0; t < threads; t++) {
            unsigned sum = 0;
            for (int j = 0; j < s->l.matrices; j++)
                sum += ldsm_register(s, t % 32, j);
            want[t] = sum * (unsigned)s->l.iterations;
        }
        return;
    }
    unsigned char *tile = mp_xmalloc(s->l.tile_bytes);
    stsm_tile(s, tile);
    for (int t = 0; t < threads; t++)
        want[t] = 0;
    for (unsigned w = 0; w < s->l.tile_bytes / 4; w++) {
        unsigned x;
        memcpy(&x, tile + 4 * w, 4);
        want[w % (unsigned)threads] += x;
    }
    free(tile);
}

static int bank_verify(void *state, char *err, size_t errlen)
{
    bank_state *s = state;
    size_t per_block = (size_t)s->l.threads;
    unsigned *want = mp_xmalloc(per_block * sizeof(unsigned));
    if (s->l.matrices)
        matrix_expected(s, want);
    else
        for (size_t t = 0; t < per_block; t++)
            want[t] = expected_word(s, (int)t);
    int rc = mp_launch_verify_words(&s->shape, s->l.threads, want, per_block,
                                    err, errlen);
    free(want);
    return rc;
}

/* The seeds' span and the median block duration (runtime/stats.c). */
MP_LAUNCH_CLOCK64(bank_clock64, bank_state)

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
        double bytes = s->l.matrices ? requests * 128.0 * s->l.matrices
                                     : requests * 32.0 * s->l.width;
        mp_row_set_bandwidth(row, bytes / m->time_ns.median,
                             128.0 * sms * ghz);
    }
    if (!m->counters)
        return;

    double wavefronts, inst;
    /* LDSM and STSM have instruction and wavefront counters of their own
     * (CUPTI's GH100 list; the shared ld/st instruction counters do not
     * count them). */
    if (s->l.matrices) {
        char wname[96], iname[96];
        snprintf(wname, sizeof wname, "smsp__sass_l1tex_data_pipe_lsu_"
                 "wavefronts_mem_shared_op_%s.sum",
                 s->l.is_store ? "stsm" : "ldsm");
        snprintf(iname, sizeof iname, "smsp__sass_inst_executed_op_%s.sum",
                 s->l.is_store ? "shared_stsm" : "ldsm");
        wavefronts = mp_counter(m, MP_SET_SHARED, wname);
        inst = mp_counter(m, MP_SET_SHARED, iname);
    } else {
        mp_shared_op_counters(m, MP_SET_SHARED, s->l.is_store ? "st" : "ld",
                              &wavefronts, &inst);
    }
    mp_prediction p;
    bank_predict(s->v, &p);
    /* The kernel issues exactly one request per warp per iteration. */
    mp_row_set_wavefronts(row, wavefronts, inst, requests, &p);
}

static void bank_release(void *state)
{
    bank_state *s = state;
    mp_launch_release(&s->shape);
    MP_FREE_DEVICE(&s->l.thread_offset);
}

MP_LAUNCH_FREE_HOST_AND(bank_free_host, bank_state, host_offset)

/* The console table (runtime/console.h): wavefronts per request, model
 * beside counters, the conflict degree, the time per request and the
 * bandwidth against the shared-memory ceiling. */
static const mp_console_col console[] = {
    {"model wf", MP_COL_MODEL_WAVEFRONTS, 8},
    {"wf/req", MP_COL_WAVEFRONTS_PER_REQUEST, 8},
    {"ways", MP_COL_MODEL_CONFLICT_WAYS, 5},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
    {"ns/req", MP_COL_NS_PER_REQUEST, 9},
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
    {"of ceil", MP_COL_BANDWIDTH_FRACTION, 7},
};

const mp_probe mp_probe_bank = {
    MP_PROBE_BASE(bank, bank),
    .metrics = MP_SET_SHARED,
    .clock64 = bank_clock64,
    .free_host = bank_free_host,
};
