/*
 * texture.c - the texture probe: parameters, checks, prediction, the
 * texture objects, verification and derived columns. Kernels are in
 * texture.cu; the linear-layout sector model in model/const_model.c.
 *
 * An n x n float grid is read through one of four sources (tex1d = texture
 * object over linear memory + tex1Dfetch, tex2d = cudaArray + texture
 * object + tex2D, global = plain loads, ldg = __ldg) with one of three
 * access patterns (model/const_model.h): stencil (5-point, clamped
 * borders), column (each warp-level load reads 32 rows of one column: the
 * bad case for a row-major layout) and row (32 columns of one row). Every
 * output is compared with the CPU's sum of the same values in the same
 * order; the grid's values have at most 16 significant bits, so every sum
 * is exact in float and the comparison is bit for bit. The grid and the
 * reference are computed on CPU threads, the outputs copied back through
 * the pinned staging and compared on CPU threads (verify_par.h, launch.h).
 *
 * Counters: the texture set (texture_metrics.c): L1TEX requests, sectors
 * and sector hits of the TEX pipe (tex1d, tex2d) and of global loads
 * (global, ldg), L2 sectors read for L1TEX, kernel time. One request = one
 * warp-level load instruction of the probe.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "const_model.h"
#include "launch.h"
#include "probe.h"
#include "verify_par.h"
#include "texture.h"

/* The family's metric set (texture_metrics.c). */
extern const mp_metric_set_def mp_set_texture;
#define MP_SET_TEXTURE (&mp_set_texture)

enum { P_SOURCE, P_ACCESS, P_SIZE, P_COUNT };

static const char *const source_names[] = {"tex1d", "tex2d", "global", "ldg",
                                           NULL};
/* In mp_tex_access order. */
static const char *const access_names[] = {"stencil", "column", "row", NULL};

static const mp_param_def tex_params[P_COUNT] = {
    [P_SOURCE] = MP_CHOICE_PARAM("source", 1, source_names,
        "tex1d (tex1Dfetch), tex2d (cudaArray, tex2D), global, ldg (__ldg)"),
    [P_ACCESS] = MP_CHOICE_PARAM("access", 0, access_names,
        "stencil (5-point), column (a warp load = 32 rows), row (= 32 "
        "columns)"),
    [P_SIZE] = MP_INT_PARAM("size", 4096, 32, 8192,
        "the grid is size x size floats; a multiple of 32"),
};

static int tex_check(const long long *v, size_t smem_limit, char *err,
                     size_t errlen)
{
    (void)smem_limit;
    if (mp_param_check_multiple("size", v[P_SIZE], 32, err, errlen))
        return -1;
    return 0;
}

static void tex_label(const long long *v, char *buf, size_t len)
{
    snprintf(buf, len, "texture/%s/%s/n%lld", source_names[v[P_SOURCE]],
             access_names[v[P_ACCESS]], v[P_SIZE]);
}

/* The linear-layout sectors model applies to every source but tex2d. */
static int is_linear(const long long *v)
{
    return v[P_SOURCE] != MP_TEX_SOURCE_TEX2D;
}

static void tex_predict(const long long *v, mp_prediction *out)
{
    mp_tex_prediction t;
    mp_tex_predict_linear((mp_tex_access)v[P_ACCESS], v[P_SIZE], &t);
    mp_prediction_clear(out);
    mp_prediction_put(out, "requests", t.requests);
    /* For tex2d: what a row-major layout would cost, for comparison. */
    mp_prediction_put(out, "linear_sectors_per_request",
                      t.sectors / t.requests);
    mp_prediction_put(out, "ideal_sectors_per_request",
                      t.ideal_sectors / t.requests);
    mp_prediction_put(out, "array_bytes",
                      (double)v[P_SIZE] * (double)v[P_SIZE] * 4.0);
}

static void tex_describe(const long long *v, mp_row *row)
{
    mp_prediction p;
    tex_predict(v, &p);
    static const mp_param_column cols[] = {
        {P_SOURCE, MP_COL_SOURCE}, {P_ACCESS, MP_COL_ACCESS},
    };
    mp_row_set(row, MP_COL_PROBE, "texture");
    mp_row_set_params(row, tex_params, v, cols, sizeof cols / sizeof *cols);
    mp_row_set(row, MP_COL_OP, "ld");
    mp_row_set(row, MP_COL_WIDTH, "4");
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%.0f", p.value[3]);
    if (is_linear(v))
        mp_row_set(row, MP_COL_MODEL_SECTORS, "%.6g", p.value[1]);
    mp_row_set(row, MP_COL_MODEL_IDEAL_SECTORS, "%.6g", p.value[2]);
}

/* ---- the grid and its CPU reference ----------------------------------- */

/* Texel (x, y): a hash of the position, 16 significant bits, 0 .. 255.996
 * in steps of 1/256; sums of up to 256 of them are exact in float. */
static float grid_value(int x, int y)
{
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (float)(h & 0xffffu) / 256.0f;
}

static int clamp(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

typedef struct {
    int access, n;
    const float *in;
    float *out;
} ref_job;

/* The CPU reference of the outputs of outer rows [from, to) (stencil and
 * column: grid rows y; row: segments), in the kernels' order of
 * additions; each CPU thread writes only its own rows' outputs. */
static void reference_part(void *ctx, size_t from, size_t to)
{
    const ref_job *r = ctx;
    const int n = r->n, segs = n / MP_TEX_WALK;
    const float *in = r->in;
    float *out = r->out;
    const int lo = (int)from, hi = (int)to;
    switch (r->access) {
    case MP_TEX_STENCIL:
        for (int y = lo; y < hi; y++)
            for (int x = 0; x < n; x++) {
                float s = in[(size_t)y * n + x];
                s += in[(size_t)y * n + clamp(x - 1, n)];
                s += in[(size_t)y * n + clamp(x + 1, n)];
                s += in[(size_t)clamp(y - 1, n) * n + x];
                s += in[(size_t)clamp(y + 1, n) * n + x];
                out[(size_t)y * n + x] = s;
            }
        break;
    case MP_TEX_COLUMN:
        for (int y = lo; y < hi; y++)
            for (int seg = 0; seg < segs; seg++) {
                float s = 0.0f;
                for (int k = 0; k < MP_TEX_WALK; k++)
                    s += in[(size_t)y * n + seg * MP_TEX_WALK + k];
                out[(size_t)y * segs + seg] = s;
            }
        break;
    case MP_TEX_ROW:
        for (int seg = lo; seg < hi; seg++)
            for (int x = 0; x < n; x++) {
                float s = 0.0f;
                for (int k = 0; k < MP_TEX_WALK; k++)
                    s += in[(size_t)(seg * MP_TEX_WALK + k) * n + x];
                out[(size_t)seg * n + x] = s;
            }
        break;
    }
}

/* The CPU reference of every output, split across CPU threads by rows
 * (verify_par.h): the same sums in the same order on any thread. */
static void reference(int access, int n, const float *in, float *out)
{
    ref_job r = {access, n, in, out};
    size_t outer = access == MP_TEX_ROW ? (size_t)(n / MP_TEX_WALK)
                                        : (size_t)n;
    size_t work = (size_t)n * (size_t)n;
    int threads = mp_par_threads(work);
    mp_par_for(outer, (size_t)threads < outer ? threads : (int)outer,
               reference_part, &r);
}

/* Grid rows [from, to) of the texels. */
static void grid_part(void *ctx, size_t from, size_t to)
{
    const ref_job *r = ctx;
    for (int y = (int)from; y < (int)to; y++)
        for (int x = 0; x < r->n; x++)
            r->out[(size_t)y * r->n + x] = grid_value(x, y);
}

unsigned long long mp_tex_outputs(const mp_tex_launch *l)
{
    unsigned long long n = (unsigned long long)l->n;
    return l->access == MP_TEX_STENCIL ? n * n : n * n / MP_TEX_WALK;
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_tex_launch l;
    float *linear;                /* device grid (tex1d, global, ldg) */
    cudaArray_t array;            /* device grid (tex2d) */
    cudaTextureObject_t tex;      /* 0 when none */
    float *want;                  /* CPU reference of every output */
    mp_launch_shape shape;   /* out: the outputs, floats */
    unsigned long long outputs;
} tex_state;

/* Point sampling of the element itself, coordinates in texels. */
static struct cudaTextureDesc texture_desc(void)
{
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = cudaAddressModeClamp;
    td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    return td;
}

static int tex_setup(const long long *v, const mp_device *dev, void **out)
{
    (void)dev;
    tex_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    const int n = (int)v[P_SIZE];
    const size_t cells = (size_t)n * (size_t)n;
    s->l.source = (int)v[P_SOURCE];
    s->l.access = (int)v[P_ACCESS];
    s->l.n = n;
    s->outputs = mp_tex_outputs(&s->l);

    float *in = mp_xmalloc(cells * sizeof(float));
    ref_job g = {0, n, NULL, in};
    int threads = mp_par_threads(cells);
    mp_par_for((size_t)n, threads < n ? threads : n, grid_part, &g);
    s->want = mp_xmalloc(s->outputs * sizeof(float));
    reference(s->l.access, n, in, s->want);

    struct cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    struct cudaChannelFormatDesc fd =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    if (s->l.source == MP_TEX_SOURCE_TEX2D) {
        CHECK_CUDA(cudaMallocArray(&s->array, &fd, (size_t)n, (size_t)n, 0));
        CHECK_CUDA(cudaMemcpy2DToArray(s->array, 0, 0, in, (size_t)n * 4,
                                       (size_t)n * 4, (size_t)n,
                                       cudaMemcpyHostToDevice));
        rd.resType = cudaResourceTypeArray;
        rd.res.array.array = s->array;
    } else {
        CHECK_CUDA(cudaMalloc((void **)&s->linear, cells * sizeof(float)));
        CHECK_CUDA(cudaMemcpy(s->linear, in, cells * sizeof(float),
                              cudaMemcpyHostToDevice));
        rd.resType = cudaResourceTypeLinear;
        rd.res.linear.devPtr = s->linear;
        rd.res.linear.desc = fd;
        rd.res.linear.sizeInBytes = cells * sizeof(float);
    }
    free(in);
    if (s->l.source == MP_TEX_SOURCE_TEX1D
        || s->l.source == MP_TEX_SOURCE_TEX2D) {
        struct cudaTextureDesc td = texture_desc();
        CHECK_CUDA(cudaCreateTextureObject(&s->tex, &rd, &td, NULL));
    }
    s->l.in = s->linear;
    s->l.tex = s->tex;
    mp_launch_alloc(&s->shape, 0, (void **)&s->l.out,
                    s->outputs * sizeof(float), NULL);
    *out = s;
    return 0;
}

static void tex_launch(void *state)
{
    tex_state *s = state;
    CHECK_CUDA(mp_tex_launch_kernel(&s->l));
}

/* The first staged output of [from, to) whose bits differ from the
 * reference (st->user), or to. */
static size_t outputs_part(void *ctx, size_t from, size_t to)
{
    const mp_staged *st = ctx;
    const unsigned *want = (const unsigned *)st->user + st->first;
    return from + mp_first_diff(st->c + from, want + from, to - from, 1);
}

static int tex_verify(void *state, char *err, size_t errlen)
{
    tex_state *s = state;
    CHECK_CUDA(cudaDeviceSynchronize());
    /* Bit for bit: the sums are exact (see the top of the file), and the
     * poison below is a NaN that equals nothing. Copied back through the
     * pinned staging and compared on CPU threads (mp_fetch_first). */
    mp_staged st;
    size_t n = (size_t)s->outputs;
    size_t i = mp_fetch_first(*s->shape.out, n, outputs_part, s->want, &st);
    if (i < n) {
        float got;
        memcpy(&got, &st.c[i - st.first], sizeof got);
        snprintf(err, errlen, "output %zu (of %llu) is %.9g, the CPU "
                 "reference says %.9g", i, s->outputs, (double)got,
                 (double)s->want[i]);
        return -1;
    }
    mp_launch_poison(&s->shape);
    return 0;
}

static void tex_derive(void *state, const mp_device *dev,
                       const mp_measurement *m, mp_row *row)
{
    tex_state *s = state;
    mp_prediction p;
    tex_predict(s->v, &p);
    double requests = p.value[0];
    int bx, by;
    mp_tex_grid(&s->l, &bx, &by);
    double blocks = (double)bx * by;

    mp_row_set_launch(row, MP_TEX_THREADS, blocks, 0);
    mp_row_set(row, MP_COL_ITERATIONS, "%d",
               s->l.access == MP_TEX_STENCIL ? 5 : MP_TEX_WALK);
    mp_row_set_per_request(row, dev, m, requests, blocks);
    if (m->time_ns.n > 0) {
        mp_row_set_bandwidth(row, requests * 32.0 * 4.0 / m->time_ns.median,
                             -1);
    }
    if (!m->counters)
        return;

    int tex = s->l.source == MP_TEX_SOURCE_TEX1D
              || s->l.source == MP_TEX_SOURCE_TEX2D;
    double req = mp_counter(m, MP_SET_TEXTURE, tex ? "l1tex__t_requests_pipe_tex_mem_texture.sum"
                                : "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    double sectors = mp_counter(m, MP_SET_TEXTURE, tex ? "l1tex__t_sectors_pipe_tex_mem_texture.sum"
                                    : "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    if (req <= 0 || sectors < 0)
        return;
    double per_request = sectors / req;
    mp_row_set(row, MP_COL_SECTORS_PER_REQUEST, "%.4f", per_request);
    /* The model is claimed for the LSU loads only: one request per
     * warp-level load and the row-major sector count. How the TEX pipe
     * counts requests and sectors is for the GPU run to show. */
    if (!tex) {
        int match = req == requests
                    && fabs(per_request - p.value[1]) <= MP_TEX_SECTOR_NOISE;
        mp_row_set_match(row, match);
    }
}

static void tex_release(void *state)
{
    tex_state *s = state;
    if (s->tex)
        CHECK_CUDA(cudaDestroyTextureObject(s->tex));
    if (s->array)
        CHECK_CUDA(cudaFreeArray(s->array));
    MP_FREE_DEVICE(&s->linear);
    mp_launch_release(&s->shape);
    s->tex = 0;
    s->array = NULL;
    s->l.in = NULL;
    s->l.tex = 0;
}

MP_LAUNCH_FREE_HOST_AND(tex_free_host, tex_state, want)

/* The console table (runtime/console.h): sectors per request, model beside
 * counters, and what the sources are compared by: the time per request in
 * cycles and ns, and the bandwidth. */
static const mp_console_col console[] = {
    {"model sec", MP_COL_MODEL_SECTORS, 9},
    {"sec/req", MP_COL_SECTORS_PER_REQUEST, 8},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
    {"ns/req", MP_COL_NS_PER_REQUEST, 9},
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
};

const mp_probe mp_probe_texture = {
    MP_PROBE_BASE(texture, tex),
    .metrics = MP_SET_TEXTURE,
    .free_host = tex_free_host,
};
