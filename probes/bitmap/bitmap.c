/*
 * bitmap.c - the seeds' bitmap kernel as a probe (kernels in bitmap.cu):
 * parameters, checks, the model's prediction, the CPU reference image and
 * the derived columns.
 *
 * One configuration is a layout (seed, yx, pad; see bitmap.h) and the op
 * whose counters the row reports: st (the write into the shared buffer)
 * or ld (the mirrored read). Both ops run the same kernel; the raw counters
 * of both are in every row with counters. The model takes the addresses a
 * 16 x 16 block's warps produce (model/pattern.h, mp_block2d) and predicts
 * them like the bank probe's 2D blocks (mp_bank_predict_block).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "bitmap.h"
#include "check.h"
#include "launch.h"
#include "pattern.h"
#include "probe.h"
#include "metric_sets.h"

enum { P_LAYOUT, P_OP, P_DIM, P_COUNT };

static const char *const layout_names[] = {"seed", "yx", "pad", NULL};
static const char *const op_names[] = {"ld", "st", NULL};

static const mp_param_def bitmap_params[P_COUNT] = {
    [P_LAYOUT] = MP_CHOICE_PARAM("layout", 0, layout_names,
        "seed: shared[tx][ty]; yx: shared[ty][tx]; pad: rows of 16+1"),
    [P_OP] = MP_CHOICE_PARAM("op", 1, op_names,
        "which counters the row reports: ld (mirrored read) or st (write)"),
    [P_DIM] = MP_INT_PARAM("dim", 1024, 16, 8192,
        "image side in pixels, a multiple of 16 (seed: 1024)"),
};

/* The 2D index form the layout's op uses. */
static mp_block2d access_of(const long long *v)
{
    int st = v[P_OP] == 1;
    mp_block2d b = {0, MP_BITMAP_TILE, MP_BITMAP_TILE, 0};
    if (v[P_LAYOUT] == MP_BITMAP_YX)
        b.form = st ? MP_INDEX_YX : MP_INDEX_YX_MIRROR;
    else
        b.form = st ? MP_INDEX_XY : MP_INDEX_XY_MIRROR;
    b.pad = v[P_LAYOUT] == MP_BITMAP_PAD;
    return b;
}

static int bitmap_check(const long long *v, size_t smem_limit, char *err,
                        size_t errlen)
{
    (void)smem_limit;
    if (mp_param_check_multiple("dim", v[P_DIM], MP_BITMAP_TILE, err,
                                errlen))
        return -1;
    return 0;
}

static void bitmap_label(const long long *v, char *buf, size_t len)
{
    snprintf(buf, len, "bitmap/%s/%s/d%lld", layout_names[v[P_LAYOUT]],
             op_names[v[P_OP]], v[P_DIM]);
}

static void bitmap_predict(const long long *v, mp_prediction *out)
{
    mp_block2d b = access_of(v);
    long long off[MP_BITMAP_TILE * MP_BITMAP_TILE];
    for (int t = 0; t < MP_BITMAP_TILE * MP_BITMAP_TILE; t++)
        off[t] = mp_block2d_element(&b, t) * 4;
    mp_bank_block_prediction p;
    mp_bank_predict_block(off, MP_BITMAP_TILE * MP_BITMAP_TILE, 4,
                          (int)v[P_OP], &p);
    mp_prediction_clear(out);
    mp_prediction_put(out, "wavefronts_per_request", p.wavefronts);
    mp_prediction_put(out, "ideal_wavefronts_per_request", p.ideal);
    mp_prediction_put(out, "conflict_ways", p.conflict_ways);
}

static void bitmap_describe(const long long *v, mp_row *row)
{
    mp_prediction p;
    bitmap_predict(v, &p);
    mp_block2d b = access_of(v);
    static const char *const forms[] = {"", "[x][y]", "[y][x]",
                                        "[15-x][15-y]", "[15-y][15-x]"};
    static const mp_param_column cols[] = {
        {P_OP, MP_COL_OP}, {P_LAYOUT, MP_COL_LAYOUT},
    };
    mp_row_set(row, MP_COL_PROBE, "bitmap");
    mp_row_set_params(row, bitmap_params, v, cols, sizeof cols / sizeof *cols);
    mp_row_set(row, MP_COL_ACCESS, "%s", forms[b.form]);
    mp_row_set(row, MP_COL_WIDTH, "4");
    mp_row_set(row, MP_COL_PAD, "%lld", b.pad);
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%lld", v[P_DIM] * v[P_DIM]);
    mp_row_set_wavefront_model(row, &p);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_bitmap_launch l;
    int blocks;
    mp_launch_shape shape;   /* out: the image, one byte a pixel */
    unsigned char *want;       /* the CPU's image */
    long long off_by_one;      /* pixels one grey level from the CPU's */
} bitmap_state;

/* The CPU reference: pixel (x, y) holds the value of its block's mirrored
 * thread, converted to unsigned char as the seed's store converts it. */
static void reference_image(int dim, unsigned char *img)
{
    const int T = MP_BITMAP_TILE;
    for (int y = 0; y < dim; y++)
        for (int x = 0; x < dim; x++) {
            int mx = x / T * T + (T - 1 - x % T);
            int my = y / T * T + (T - 1 - y % T);
            img[(size_t)y * dim + x] = (unsigned char)mp_bitmap_value(mx, my);
        }
}

static int bitmap_setup(const long long *v, const mp_device *dev, void **out)
{
    (void)dev;
    bitmap_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    s->l.layout = (int)v[P_LAYOUT];
    s->l.dim = (int)v[P_DIM];
    int side = s->l.dim / MP_BITMAP_TILE;
    s->blocks = side * side;
    size_t pixels = (size_t)s->l.dim * (size_t)s->l.dim;
    mp_launch_alloc(&s->shape, s->blocks, (void **)&s->l.image, pixels,
                    NULL);
    s->want = mp_xmalloc(pixels);
    reference_image(s->l.dim, s->want);
    *out = s;
    return 0;
}

static void bitmap_launch(void *state)
{
    bitmap_state *s = state;
    CHECK_CUDA(mp_bitmap_launch_kernel(&s->l));
}

/* The GPU's sinf and the CPU's may differ in the last bits, which moves a
 * value sitting on a grey level to the next one down: one level apart is
 * counted (off_by_one), more is a wrong image. */
static int bitmap_verify(void *state, char *err, size_t errlen)
{
    bitmap_state *s = state;
    size_t pixels = (size_t)s->l.dim * (size_t)s->l.dim;
    CHECK_CUDA(cudaDeviceSynchronize());
    mp_launch_fetch(&s->shape);
    unsigned char *got = s->shape.host_out;
    s->off_by_one = 0;
    for (size_t i = 0; i < pixels; i++) {
        int d = (int)got[i] - (int)s->want[i];
        if (d == 0)
            continue;
        if (d == 1 || d == -1) {
            s->off_by_one++;
            continue;
        }
        snprintf(err, errlen,
                 "pixel (%zu, %zu) is %u, the CPU reference says %u",
                 i % (size_t)s->l.dim, i / (size_t)s->l.dim,
                 got[i], s->want[i]);
        return -1;
    }
    /* Poison the image so the next launch must write it again. */
    mp_poison_copy(s->l.image, got, 0x5a, pixels);
    return 0;
}

static void bitmap_derive(void *state, const mp_device *dev,
                          const mp_measurement *m, mp_row *row)
{
    bitmap_state *s = state;
    /* One STS and one LDS per warp: a request is one of them. */
    double requests = (double)s->l.dim * s->l.dim / 32.0;
    mp_row_set_launch(row, MP_BITMAP_TILE * MP_BITMAP_TILE, s->blocks,
                      MP_BITMAP_TILE
                          * (MP_BITMAP_TILE + (s->l.layout == MP_BITMAP_PAD))
                          * 4);
    mp_row_set_per_request(row, dev, m, requests, s->blocks);
    if (!m->counters)
        return;
    double wavefronts, inst;
    mp_shared_op_counters(m, MP_SET_SHARED_MIXED, op_names[s->v[P_OP]],
                          &wavefronts, &inst);
    mp_prediction p;
    bitmap_predict(s->v, &p);
    mp_row_set_wavefronts(row, wavefronts, inst, requests, &p);
}

MP_LAUNCH_RELEASE(bitmap_release, bitmap_state)
MP_LAUNCH_FREE_HOST_AND(bitmap_free_host, bitmap_state, want)

/* The console table (runtime/console.h): wavefronts per request, model
 * beside counters, the conflict degree and the time per request. */
static const mp_console_col console[] = {
    {"model wf", MP_COL_MODEL_WAVEFRONTS, 8},
    {"wf/req", MP_COL_WAVEFRONTS_PER_REQUEST, 8},
    {"ways", MP_COL_MODEL_CONFLICT_WAYS, 5},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
};

const mp_probe mp_probe_bitmap = {
    MP_PROBE_BASE(bitmap, bitmap),
    .metrics = MP_SET_SHARED_MIXED,
    /* no clock64: the seed's kernel has no clock code */
    .free_host = bitmap_free_host,
};
