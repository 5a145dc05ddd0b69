/*
 * coalesce.c - the global-memory coalescing probe: parameters, checks,
 * prediction, verification and derived columns. Kernels are in
 * coalesce.cu, the sector model in model/sector_model.c.
 *
 * --layout pattern (the default): lane `lane` of every warp accesses
 *     offset + width * stride * ((lane % period) / group)
 * bytes into a 256-byte-aligned window of a large array, once per
 * iteration, with one ld.global[.cg] or st.global of `width` bytes; every
 * iteration of every warp has its own window (see coalesce.cu), so each
 * access is a fresh request. The array holds each window once, up to
 * 512 MiB (beyond that the windows wrap around): with the default shape
 * (the GPU filled, 64 iterations) at least 138 MB, beyond the 60 MB L2,
 * so times measure DRAM. Small grids (the GPU test's) fit in L2: their
 * sector counts are the same, their times are L2 times.
 *
 * --layout soa|aos12|aos16|aos12-staged: the seeds' x*x + y*y + z*z over
 * three float arrays, the 12-byte struct, the __align__(16) struct, and the
 * 12-byte struct staged through shared memory. Only --threads, --blocks and
 * --iterations apply to them: any other parameter given a non-default
 * value is refused (exit 2), so a row never claims a width or offset that
 * the kernel did not use.
 *
 * Counters (metric set "global") divide L1TEX sectors by L1TEX requests of
 * the probed op. model_match compares TOTALS per launch, which does not
 * depend on how requests are defined: measured requests must equal
 * instructions x the model's requests per instruction, and measured
 * sectors must equal instructions x the model's sectors per instruction,
 * where instructions = warps x iterations x (global instructions of the
 * op per warp and iteration: 1 for a pattern, the layout's list in
 * model/sector_model.c). Layouts check their loads and their result
 * store. Both counts are integers of a deterministic kernel: exact.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coalesce.h"
#include "launch.h"
#include "pattern.h"
#include "common_params.h"
#include "probe.h"
#include "sector_model.h"
#include "metric_sets.h"

enum { P_LAYOUT, P_OP, P_WIDTH, P_OFFSET, P_STRIDE, P_GROUP, P_PERIOD,
       P_CACHE, P_THREADS, P_BLOCKS, P_ITERATIONS, P_COUNT };

/* The largest array a configuration allocates (bytes): windows wrap
 * around inside it, layouts reuse element slots. */
#define MAX_ARRAY_BYTES (512ull << 20)

static const char *const op_names[] = {"ld", "st", NULL};
static const char *const cache_names[] = {"default", "cg", NULL};
static const long long widths[] = {4, 8, 16};

static const mp_param_def coalesce_params[P_COUNT] = {
    [P_LAYOUT] = MP_CHOICE_PARAM("layout", MP_LAYOUT_PATTERN, mp_layout_names,
        "pattern, or a seeds' layout (the others: only threads, blocks, "
        "iterations apply)"),
    [P_OP] = MP_CHOICE_PARAM("op", 0, op_names, "ld (LDG) or st (STG)"),
    [P_WIDTH] = MP_PARAM_LANE_WIDTH(widths),
    [P_OFFSET] = MP_INT_PARAM("offset", 0, 0, 4096,
        "bytes from a 256-byte-aligned base; a multiple of width"),
    [P_STRIDE] = MP_INT_PARAM("stride", 1, 0, 1024,
        "elements between address groups (0 = one address)"),
    [P_GROUP] = MP_PARAM_GROUP,
    [P_PERIOD] = MP_PARAM_PERIOD,
    [P_CACHE] = MP_CHOICE_PARAM("cache", 0, cache_names,
        "loads: default (ld.global, L1) or cg (ld.global.cg, L2)"),
    [P_THREADS] = MP_PARAM_THREADS,
    [P_BLOCKS] = MP_PARAM_BLOCKS(16384),
    [P_ITERATIONS] = MP_INT_PARAM("iterations", 64, 1, 4096,
        "accesses (elements) per thread per launch"),
};

/* Parameters only --layout pattern takes. */
static const int pattern_only[] = {P_OP, P_WIDTH, P_OFFSET, P_STRIDE,
                                   P_GROUP, P_PERIOD, P_CACHE};

static int is_pattern(const long long *v)
{
    return v[P_LAYOUT] == MP_LAYOUT_PATTERN;
}

static mp_pattern pattern_of(const long long *v)
{
    mp_pattern p = {0, v[P_STRIDE], v[P_GROUP], v[P_PERIOD], 0};
    return p;
}

/* Byte offset of each lane in its window (the offset included); returns
 * the window size: the warp's footprint rounded up to 256. */
static unsigned lane_offsets(const long long *v, unsigned out[32])
{
    mp_pattern p = pattern_of(v);
    long long off[MP_WARP_SIZE];
    long long end = mp_pattern_offsets(&p, (int)v[P_WIDTH], off) + v[P_OFFSET];
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        out[lane] = (unsigned)(off[lane] + v[P_OFFSET]);
    return (unsigned)((end + MP_COALESCE_WINDOW_ALIGN - 1)
                      / MP_COALESCE_WINDOW_ALIGN * MP_COALESCE_WINDOW_ALIGN);
}

static int coalesce_check(const long long *v, size_t smem_limit, char *err,
                          size_t errlen)
{
    (void)smem_limit;   /* staging takes 12 x threads <= 12 KiB */
    if (mp_param_check_multiple("threads", v[P_THREADS], 32, err, errlen))
        return -1;
    if (!is_pattern(v)) {
        for (size_t i = 0; i < sizeof pattern_only / sizeof pattern_only[0];
             i++) {
            const mp_param_def *d = &coalesce_params[pattern_only[i]];
            if (v[pattern_only[i]] == d->def)
                continue;
            char text[32];
            mp_param_format(d, v[pattern_only[i]], text, sizeof text);
            snprintf(err, errlen,
                     "--%s: %s applies to --layout pattern only, not to "
                     "--layout %s (a layout takes threads, blocks and "
                     "iterations)", d->name, text,
                     mp_layout_names[v[P_LAYOUT]]);
            return -1;
        }
        return 0;
    }
    if (v[P_OFFSET] % v[P_WIDTH]) {
        snprintf(err, errlen,
                 "--offset: %lld is not a multiple of --width %lld (every "
                 "lane's address must be aligned to its access)",
                 v[P_OFFSET], v[P_WIDTH]);
        return -1;
    }
    if (v[P_OP] == 1 && v[P_CACHE] == 1) {
        snprintf(err, errlen,
                 "--cache: cg is ld.global.cg, for loads only; --op st "
                 "takes --cache default");
        return -1;
    }
    return 0;
}

static void coalesce_label(const long long *v, char *buf, size_t len)
{
    if (!is_pattern(v)) {
        snprintf(buf, len, "coalesce/%s", mp_layout_names[v[P_LAYOUT]]);
        return;
    }
    snprintf(buf, len, "coalesce/pattern/%s/w%lld/o%lld/s%lld/g%lld/p%lld/%s",
             op_names[v[P_OP]], v[P_WIDTH], v[P_OFFSET], v[P_STRIDE],
             v[P_GROUP], v[P_PERIOD], cache_names[v[P_CACHE]]);
}

/* Prediction slots (the same names for patterns and layouts, so a sweep
 * over both prints one header). */
enum { R_SECTORS_PER_REQUEST, R_IDEAL, R_REQUESTS_PER_INST,
       R_SECTORS_PER_INST, R_LINES_PER_INST, R_DISTINCT, R_INSTRUCTIONS,
       R_SECTORS_PER_ITERATION, R_COUNT };

static void coalesce_predict(const long long *v, mp_prediction *out)
{
    static const char *const names[R_COUNT] = {
        [R_SECTORS_PER_REQUEST] = "sectors_per_request",
        [R_IDEAL] = "ideal_sectors_per_request",
        [R_REQUESTS_PER_INST] = "requests_per_instruction",
        [R_SECTORS_PER_INST] = "sectors_per_instruction",
        [R_LINES_PER_INST] = "lines_per_instruction",
        [R_DISTINCT] = "distinct_addresses",
        [R_INSTRUCTIONS] = "instructions_per_iteration",
        [R_SECTORS_PER_ITERATION] = "sectors_per_iteration",
    };
    double *r = out->value;
    out->n = R_COUNT;
    for (int i = 0; i < R_COUNT; i++)
        out->name[i] = names[i];
    if (is_pattern(v)) {
        mp_pattern p = pattern_of(v);
        mp_sector_prediction s;
        mp_sector_predict_pattern(&p, v[P_OFFSET], (int)v[P_WIDTH],
                                  (int)v[P_OP], &s);
        r[R_SECTORS_PER_REQUEST] = s.sectors_per_request;
        r[R_IDEAL] = (double)s.ideal_sectors / s.requests;
        r[R_REQUESTS_PER_INST] = s.requests;
        r[R_SECTORS_PER_INST] = s.sectors;
        r[R_LINES_PER_INST] = s.lines;
        r[R_DISTINCT] = s.distinct_addresses;
        r[R_INSTRUCTIONS] = 1;
        r[R_SECTORS_PER_ITERATION] = s.sectors;
        return;
    }
    /* A layout: its loads, per warp and element. */
    mp_layout_prediction lp;
    mp_layout_predict((mp_layout)v[P_LAYOUT], &lp);
    double n = lp.ld_instructions;
    r[R_SECTORS_PER_REQUEST] = (double)lp.ld_sectors / lp.ld_requests;
    r[R_IDEAL] = (double)lp.ld_ideal_sectors / lp.ld_requests;
    r[R_REQUESTS_PER_INST] = lp.ld_requests / n;
    r[R_SECTORS_PER_INST] = lp.ld_sectors / n;
    r[R_LINES_PER_INST] = lp.ld_lines / n;
    r[R_DISTINCT] = MP_WARP_SIZE;
    r[R_INSTRUCTIONS] = n;
    r[R_SECTORS_PER_ITERATION] = lp.ld_sectors;
}

static void coalesce_describe(const long long *v, mp_row *row)
{
    mp_prediction p;
    coalesce_predict(v, &p);
    static const mp_param_column common[] = {
        {P_LAYOUT, MP_COL_LAYOUT}, {P_ITERATIONS, MP_COL_ITERATIONS},
    };
    static const mp_param_column pattern[] = {
        {P_OP, MP_COL_OP}, {P_WIDTH, MP_COL_WIDTH},
        {P_OFFSET, MP_COL_OFFSET}, {P_STRIDE, MP_COL_STRIDE},
        {P_GROUP, MP_COL_GROUP}, {P_PERIOD, MP_COL_PERIOD},
        {P_CACHE, MP_COL_CACHE},
    };
    mp_row_set(row, MP_COL_PROBE, "coalesce");
    mp_row_set_params(row, coalesce_params, v, common,
                      sizeof common / sizeof *common);
    mp_row_set(row, MP_COL_MODEL_SECTORS, "%g",
               p.value[R_SECTORS_PER_REQUEST]);
    mp_row_set(row, MP_COL_MODEL_IDEAL_SECTORS, "%g", p.value[R_IDEAL]);
    if (!is_pattern(v)) {
        /* The layout's measured columns are about its loads. */
        mp_row_set(row, MP_COL_OP, "ld");
        return;
    }
    mp_row_set_params(row, coalesce_params, v, pattern,
                      sizeof pattern / sizeof *pattern);
    mp_row_set(row, MP_COL_MODEL_DISTINCT, "%g", p.value[R_DISTINCT]);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_coalesce_launch l;
    size_t array_bytes;      /* pattern: the array; layouts: the input */
    size_t elements;         /* layouts: slots x threads in the grid */
    mp_launch_shape shape;   /* pattern loads: out, one word per thread */
    void *input;             /* layouts: the one input allocation */
} coalesce_state;

/* The array's contents before a launch: word w holds
 * mp_coalesce_word_value(w), the same for every configuration, so it is
 * computed once per process and grown when a configuration needs more
 * (freed at exit). */
static unsigned *image;
static size_t image_words;

static void free_image(void)
{
    free(image);
    image = NULL;
    image_words = 0;
}

static const unsigned *initial_image(size_t words)
{
    if (words > image_words) {
        if (!image)
            atexit(free_image);
        unsigned *grown = realloc(image, words * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "memprobe: out of memory\n");
            exit(MP_EXIT_FAIL);
        }
        for (size_t w = image_words; w < words; w++)
            grown[w] = mp_coalesce_word_value((unsigned)w);
        image = grown;
        image_words = words;
    }
    return image;
}

/* The initial image, generated by CPU threads straight into the pinned
 * staging buffers (mp_upload_words). */
static void gen_image(void *user, unsigned *out, size_t first, size_t count)
{
    (void)user;
    for (size_t j = 0; j < count; j++)
        out[j] = mp_coalesce_word_value((unsigned)(first + j));
}

static void upload_image(coalesce_state *s)
{
    mp_upload_words(s->l.array, s->array_bytes / 4, gen_image, NULL);
}

/* NaN everywhere (0xff bytes), as after a verification. */
static void poison_result(coalesce_state *s)
{
    mp_device_fill_words(s->l.result, 0xffffffffu, s->elements * sizeof(float));
}

static void setup_pattern(coalesce_state *s)
{
    mp_coalesce_launch *l = &s->l;
    unsigned long long warps = (unsigned long long)l->blocks * l->threads / 32;
    unsigned long long uses = warps * (unsigned long long)l->iterations;
    unsigned long long fit = MAX_ARRAY_BYTES / l->window_bytes;
    l->nwindows = (unsigned)(uses < fit ? uses : fit);
    l->window_step = (unsigned)(warps % l->nwindows);
    s->array_bytes = (size_t)l->nwindows * l->window_bytes;
    CHECK_CUDA(cudaMalloc((void **)&l->array, s->array_bytes));
    upload_image(s);
    if (!l->is_store) {
        size_t n = (size_t)l->blocks * l->threads;
        mp_launch_alloc(&s->shape, l->blocks, (void **)&l->out,
                        n * sizeof(unsigned), NULL);
    }
}

/* Bytes of one element in the layout's input. */
static size_t element_bytes(int layout)
{
    return layout == MP_LAYOUT_AOS16 ? 16 : 12;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Word i of a layout's input allocation: SoA holds x, y, z in three
 * parts of part_words words (zero after the n elements of each), the
 * AoS layouts x y z (and aos16's zero padding) per element. */
typedef struct {
    int layout;
    size_t n, part_words;
} layout_input;

static float input_word(const layout_input *in, size_t i)
{
    if (in->layout == MP_LAYOUT_SOA) {
        size_t a = i / in->part_words, e = i % in->part_words;
        return e < in->n ? mp_coalesce_input((unsigned)(3 * e + a)) : 0.0f;
    }
    size_t per = element_bytes(in->layout) / sizeof(float);
    size_t e = i / per, c = i % per;
    return c < 3 ? mp_coalesce_input((unsigned)(3 * e + c)) : 0.0f;
}

static void gen_layout_input(void *user, unsigned *out, size_t first,
                             size_t count)
{
    for (size_t j = 0; j < count; j++) {
        float f = input_word(user, first + j);
        memcpy(&out[j], &f, sizeof f);
    }
}

static void setup_layout(coalesce_state *s)
{
    mp_coalesce_launch *l = &s->l;
    size_t threads = (size_t)l->blocks * l->threads;
    size_t per_slot = threads * (element_bytes(l->layout) + sizeof(float));
    size_t fit = MAX_ARRAY_BYTES / per_slot;
    l->slots = (unsigned)((size_t)l->iterations < fit ? (size_t)l->iterations
                                                      : fit);
    if (l->slots == 0)
        l->slots = 1;
    size_t n = (size_t)l->slots * threads;
    s->elements = n;

    /* The input, element e = (input(3e), input(3e+1), input(3e+2)),
     * generated by CPU threads into the pinned staging buffers. */
    layout_input in = {l->layout, n, 0};
    if (l->layout == MP_LAYOUT_SOA) {
        size_t part = round_up(n * sizeof(float), MP_COALESCE_WINDOW_ALIGN);
        in.part_words = part / 4;
        s->array_bytes = 3 * part;
        CHECK_CUDA(cudaMalloc(&s->input, s->array_bytes));
        l->x = s->input;
        l->y = (float *)s->input + part / 4;
        l->z = (float *)s->input + 2 * part / 4;
    } else {
        s->array_bytes = n * element_bytes(l->layout);
        CHECK_CUDA(cudaMalloc(&s->input, s->array_bytes));
        l->data = s->input;
    }
    mp_upload_words(s->input, s->array_bytes / 4, gen_layout_input, &in);
    CHECK_CUDA(cudaMalloc((void **)&l->result, n * sizeof(float)));
    poison_result(s);
}

static int coalesce_setup(const long long *v, const mp_device *dev,
                          void **out)
{
    coalesce_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    mp_coalesce_launch *l = &s->l;
    l->layout = (int)v[P_LAYOUT];
    l->threads = (int)v[P_THREADS];
    l->iterations = (int)v[P_ITERATIONS];
    if (is_pattern(v)) {
        l->width = (int)v[P_WIDTH];
        l->is_store = (int)v[P_OP];
        l->cg = (int)v[P_CACHE];
        l->window_bytes = lane_offsets(v, l->lane_offset);
    } else if (l->layout == MP_LAYOUT_AOS12_STAGED) {
        l->shared_bytes = 3u * (unsigned)l->threads * sizeof(float);
    }
    MP_LAUNCH_BLOCKS(l->blocks, v[P_BLOCKS], dev, mp_coalesce_occupancy, l);
    if (is_pattern(v))
        setup_pattern(s);
    else
        setup_layout(s);
    *out = s;
    return 0;
}

static void coalesce_launch(void *state)
{
    coalesce_state *s = state;
    CHECK_CUDA(mp_coalesce_launch_kernel(&s->l));
}

/* Loads: each thread's sum of every word it read, from the initial image
 * and the same window sequence as the kernel. */
static int verify_loads(coalesce_state *s, char *err, size_t errlen)
{
    const mp_coalesce_launch *l = &s->l;
    size_t n = (size_t)l->blocks * l->threads, warps = n / 32;
    const unsigned *img = initial_image(s->array_bytes / 4);
    size_t window_words = l->window_bytes / 4;
    mp_launch_fetch(&s->shape);
    const unsigned *got = s->shape.host_out;
    for (size_t w = 0; w < warps; w++) {
        unsigned acc[MP_WARP_SIZE] = {0};
        size_t window = w % l->nwindows;
        for (int i = 0; i < l->iterations; i++) {
            const unsigned *win = img + window * window_words;
            for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
                const unsigned *p = win + l->lane_offset[lane] / 4;
                for (int j = 0; j < l->width / 4; j++)
                    acc[lane] += p[j];
            }
            window += l->window_step;
            if (window >= l->nwindows)
                window -= l->nwindows;
        }
        for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
            size_t t = w * 32 + (size_t)lane;
            if (got[t] != acc[lane]) {
                snprintf(err, errlen,
                         "thread %zu (block %zu) left %u, the CPU reference "
                         "says %u", t, t / (size_t)l->threads,
                         got[t], acc[lane]);
                return -1;
            }
        }
    }
    mp_launch_poison(&s->shape);
    return 0;
}

/* What the stores' verification compares the array with. */
typedef struct {
    size_t window_words;
    const unsigned char *used;      /* per window: some warp stored to it */
    const unsigned char *written;   /* per window word: a lane stores it */
} stores_job;

/* The word w must hold after the launch. */
static unsigned stored_want(const stores_job *j, size_t win, size_t k,
                            size_t w)
{
    return j->used[win] && j->written[k]
               ? mp_coalesce_store_value((unsigned)w)
               : mp_coalesce_word_value((unsigned)w);
}

/* The first wrong staged word of [from, to) (chunk-relative), or to:
 * window by window (one division per part), a branch-free OR of the
 * differences first, word by word only where it is non-zero. */
static size_t stores_part(void *ctx, size_t from, size_t to)
{
    const mp_staged *st = ctx;
    const stores_job *j = st->user;
    size_t ww = j->window_words, w = st->first + from, end = st->first + to;
    size_t win = w / ww, k = w % ww;
    while (w < end) {
        size_t len = ww - k < end - w ? ww - k : end - w;
        const unsigned *have = st->c + (w - st->first);
        unsigned d = 0;
        if (j->used[win])
            for (size_t i = 0; i < len; i++)
                d |= have[i] ^ (j->written[k + i]
                                    ? mp_coalesce_store_value((unsigned)(w + i))
                                    : mp_coalesce_word_value((unsigned)(w + i)));
        else
            for (size_t i = 0; i < len; i++)
                d |= have[i] ^ mp_coalesce_word_value((unsigned)(w + i));
        if (d)
            for (size_t i = 0; i < len; i++)
                if (have[i] != stored_want(j, win, k + i, w + i))
                    return w + i - st->first;
        w += len;
        win++;
        k = 0;
    }
    return to;
}

/* Stores: every word the pattern writes holds its store value, every other
 * word its initial value (all of the array, copied back through the
 * pinned staging buffers and compared by CPU threads: mp_fetch_first). */
static int verify_stores(coalesce_state *s, char *err, size_t errlen)
{
    const mp_coalesce_launch *l = &s->l;
    size_t warps = (size_t)l->blocks * l->threads / 32;
    size_t window_words = l->window_bytes / 4;
    unsigned char *used = mp_xcalloc(l->nwindows, 1);
    unsigned char *written = mp_xcalloc(window_words, 1);
    for (size_t w = 0; w < warps; w++) {
        size_t window = w % l->nwindows;
        for (int i = 0; i < l->iterations; i++) {
            used[window] = 1;
            window += l->window_step;
            if (window >= l->nwindows)
                window -= l->nwindows;
        }
    }
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        for (int j = 0; j < l->width / 4; j++)
            written[l->lane_offset[lane] / 4 + (unsigned)j] = 1;

    stores_job job = {window_words, used, written};
    mp_staged st;
    size_t words = s->array_bytes / 4;
    size_t bad = mp_fetch_first(l->array, words, stores_part, &job, &st);
    int rc = 0;
    if (bad < words) {
        size_t win = bad / window_words, k = bad % window_words;
        int wrote = used[win] && written[k];
        snprintf(err, errlen,
                 "array word %zu (window %zu, byte %zu) holds 0x%08x, the CPU "
                 "reference says 0x%08x (%s)", bad, win, 4 * k,
                 st.c[bad - st.first], stored_want(&job, win, k, bad),
                 wrote ? "a stored word" : "a word no lane stores to");
        rc = -1;
    }
    free(used);
    free(written);
    if (rc)
        return rc;
    /* The next launch must store again: the initial contents back now
     * (not in before_launch, which runs after the runner's L2 flush). */
    upload_image(s);
    return 0;
}

/* The seeds' x*x + y*y + z*z in float, one rounding per operation like
 * the kernel's __fmul_rn/__fadd_rn (C11 mode: no FMA contraction). */
static float norm2(float x, float y, float z)
{
    float xx = x * x, yy = y * y, zz = z * z;
    float sum = xx + yy;
    return sum + zz;
}

/* The CPU reference of result element e, as bits. */
static unsigned norm2_bits(size_t e)
{
    float want = norm2(mp_coalesce_input((unsigned)(3 * e)),
                       mp_coalesce_input((unsigned)(3 * e + 1)),
                       mp_coalesce_input((unsigned)(3 * e + 2)));
    unsigned bits;
    memcpy(&bits, &want, sizeof bits);
    return bits;
}

/* Bitwise (the same operations in the same order are exact): the first
 * wrong staged element of [from, to), or to. */
static size_t layout_part(void *ctx, size_t from, size_t to)
{
    const mp_staged *st = ctx;
    for (size_t a = from; a < to; a += 4096) {
        size_t b = to - a < 4096 ? to : a + 4096;
        unsigned d = 0;
        for (size_t i = a; i < b; i++)
            d |= st->c[i] ^ norm2_bits(st->first + i);
        if (d)
            for (size_t i = a; i < b; i++)
                if (st->c[i] != norm2_bits(st->first + i))
                    return i;
    }
    return to;
}

static int verify_layout(coalesce_state *s, char *err, size_t errlen)
{
    const mp_coalesce_launch *l = &s->l;
    size_t n = s->elements;
    mp_staged st;
    size_t e = mp_fetch_first(l->result, n, layout_part, NULL, &st);
    if (e < n) {
        float got, want;
        unsigned wb = norm2_bits(e);
        memcpy(&got, &st.c[e - st.first], sizeof got);
        memcpy(&want, &wb, sizeof want);
        snprintf(err, errlen,
                 "element %zu: the kernel left %.9g, the CPU reference "
                 "says %.9g", e, got, want);
        return -1;
    }
    poison_result(s);   /* NaN again: the next launch must write it */
    return 0;
}

static int coalesce_verify(void *state, char *err, size_t errlen)
{
    coalesce_state *s = state;
    CHECK_CUDA(cudaDeviceSynchronize());
    if (!is_pattern(s->v))
        return verify_layout(s, err, errlen);
    return s->l.is_store ? verify_stores(s, err, errlen)
                         : verify_loads(s, err, errlen);
}

static double l1_counter(const mp_measurement *m, const char *what,
                         const char *op)
{
    char name[96];
    snprintf(name, sizeof name, "l1tex__t_%s_pipe_lsu_mem_global_op_%s.sum",
             what, op);
    return mp_counter(m, MP_SET_GLOBAL, name);
}

static void coalesce_derive(void *state, const mp_device *dev,
                            const mp_measurement *m, mp_row *row)
{
    coalesce_state *s = state;
    const mp_coalesce_launch *l = &s->l;
    double warps = (double)l->blocks * l->threads / 32.0;
    double warp_iterations = warps * l->iterations;
    mp_prediction p;
    coalesce_predict(s->v, &p);

    /* Instructions of the probed op per launch, and the bytes the lanes
     * ask for: a pattern's 32 x width per instruction; a layout's 12
     * input bytes and 4 result bytes per element, whatever instructions
     * move them (aos16's padding is not useful data). */
    double inst = warp_iterations * p.value[R_INSTRUCTIONS];
    double bytes = is_pattern(s->v)
                       ? inst * 32.0 * l->width
                       : warp_iterations * 32.0 * (12.0 + 4.0);

    mp_row_set_launch(row, l->threads, l->blocks, l->shared_bytes);
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%zu", s->array_bytes);
    mp_row_set_per_request(row, dev, m, inst, l->blocks);
    if (m->time_ns.n > 0) {
        mp_row_set_bandwidth(row, bytes / m->time_ns.median,
                             mp_device_dram_peak_gbs(dev));
    }
    if (!m->counters)
        return;

    const char *op = is_pattern(s->v) && l->is_store ? "st" : "ld";
    double requests = l1_counter(m, "requests", op);
    double sectors = l1_counter(m, "sectors", op);
    if (requests > 0)
        mp_row_set(row, MP_COL_SECTORS_PER_REQUEST, "%.4f",
                   sectors / requests);
    /* Totals per launch against warps x iterations x the model's integer
     * counts per warp and iteration (see the top of the file). */
    int match;
    if (is_pattern(s->v)) {
        mp_pattern pat = pattern_of(s->v);
        mp_sector_prediction sp;
        mp_sector_predict_pattern(&pat, s->v[P_OFFSET], l->width,
                                  l->is_store, &sp);
        match = requests == warp_iterations * sp.requests
                && sectors == warp_iterations * sp.sectors;
    } else {
        mp_layout_prediction lp;
        mp_layout_predict((mp_layout)l->layout, &lp);
        match = requests == warp_iterations * lp.ld_requests
                && sectors == warp_iterations * lp.ld_sectors
                && l1_counter(m, "requests", "st")
                       == warp_iterations * lp.st_requests
                && l1_counter(m, "sectors", "st")
                       == warp_iterations * lp.st_sectors;
    }
    mp_row_set_match(row, match);
}

static void coalesce_release(void *state)
{
    coalesce_state *s = state;
    MP_FREE_DEVICE(&s->l.array);
    mp_launch_release(&s->shape);
    MP_FREE_DEVICE(&s->input, &s->l.result);
    s->l.x = s->l.y = s->l.z = NULL;
    s->l.data = NULL;
    s->l.result = NULL;
}

MP_LAUNCH_FREE_HOST(coalesce_free_host, coalesce_state)

/* The console table (runtime/console.h): sectors per request, model beside
 * counters, the contiguous ideal, the time per request and the bandwidth. */
static const mp_console_col console[] = {
    {"model sec", MP_COL_MODEL_SECTORS, 9},
    {"sec/req", MP_COL_SECTORS_PER_REQUEST, 8},
    {"ideal", MP_COL_MODEL_IDEAL_SECTORS, 5},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
};

const mp_probe mp_probe_coalesce = {
    MP_PROBE_BASE(coalesce, coalesce),
    .metrics = MP_SET_GLOBAL,
    .free_host = coalesce_free_host,
};
