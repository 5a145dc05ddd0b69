/*
 * bandwidth.c - the DRAM bandwidth probe: parameters, checks, setup,
 * verification, the cudaMemcpy reference and the derived columns. The
 * traffic model is in bandwidth_model.c, kernels in bandwidth.cu;
 * docs/bandwidth.md explains the design and how bytes are counted.
 *
 * One launch is one full pass of the read, write or copy kernel over
 * arrays of `bytes` bytes that start `offset` bytes after a cudaMalloc'd
 * (256-byte-aligned) base. Bytes counted: read = bytes read, write = bytes
 * written, copy = read + written, whatever the stride (every element is
 * touched exactly once). bandwidth_gbs = bytes counted / median launch
 * time; ceiling_gbs = the DRAM peak from memory clock and bus width.
 *
 * Host memory: the arrays are filled and read back through the two
 * pinned staging chunks of at most 32 MiB that every probe shares
 * (launch.h: the copy of one chunk overlaps the generation or compare of
 * the other, which is split across CPU threads: verify_par.h), and
 * poisoned by copies from a pinned buffer of poison words; a
 * configuration holds no host copy of its arrays. The read kernel's
 * per-thread output and its reference are freed in release, because the
 * runner keeps a whole batch of states until their rows are written.
 *
 * A passing verification poisons the outputs again at once, not in
 * before_launch: the runner flushes the L2 before each profiled launch and
 * then calls before_launch, so a poison there would leave up to an L2 of
 * the destination cached for the profiled kernel.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bandwidth.h"
#include "bandwidth_model.h"
#include "bw_shape.h"
#include "check.h"
#include "launch.h"
#include "common_params.h"
#include "probe.h"
#include "verify_par.h"
#include "version.h"
#include "metric_sets.h"

enum { P_KERNEL, P_WIDTH, P_OFFSET, P_STRIDE, P_BYTES, P_INFLIGHT, P_CACHE,
       P_THREADS, P_BLOCKS, P_REPEAT, P_GRID, P_TILE, P_COUNT };

/* copy-bulk: copy by cp.async.bulk through shared memory (sm_90: the
 * TMA's plain bulk copy; MP_BW_METHOD_BULK) instead of loads and stores;
 * its rows are copies (kernel_of). A kernel of its own, not an option of
 * copy, so that it can be asked for alone. */
static const char *const kernel_names[] = {"read", "write", "copy",
                                           "copy-bulk", NULL};
static const int kernel_cc[] = {0, 0, 0, MP_CC_TMA};
#define KERNEL_BULK 3
static const char *const cache_names[] = {"default", "cs", "na", "pf256",
                                          "auto", NULL};
/* Automatic shape (bw_shape.h): cache "auto", and inflight or threads 0,
 * which only `memprobe bandwidth` without those options sets (the
 * parameter ranges refuse 0). */
#define CACHE_AUTO 4
/* pf256's L2::256B prefetch hint needs sm_80 (bandwidth.cu). */
static const int cache_cc[] = {0, 0, 0, MP_CC_L2_PREFETCH, 0};
/* The grid (bandwidth.h): persistent, one full wave walking the arrays
 * (the default); oneshot, one unrolled step per thread and pass. */
static const char *const grid_names[] = {"persistent", "oneshot", NULL};
static const long long tiles[] = {1024, 2048, 4096, 8192, 16384, 32768};
#define TILE_DEFAULT 4096
static const long long widths[] = {4, 8, 16};
static const long long inflights[] = {1, 2, 4, 8};

#define MIB (1024LL * 1024LL)
#define GIB (1024LL * MIB)
/* 4 KiB: small arrays read repeatedly (--repeat) show the L1 and L2. */
#define BYTES_MIN 4096
/* --repeat 0: enough walks to move this many bytes per array. */
#define REPEAT_AUTO_BYTES (256 * MIB)
#define REPEAT_MAX (1 << 20)
/* The H200's L2 (60 MiB): arrays beyond it come from DRAM every walk. */
#define L2_BYTES (60 * MIB)
#define BYTES_MAX (16 * GIB)
#define BYTES_MULTIPLE 16     /* the widest element: one size for every width */
#define GUARD_BYTES 256       /* poisoned bytes after a written array */
#define MEMCPY_WARMUP 2
#define MEMCPY_RUNS 10

static const mp_param_def bw_params[P_COUNT] = {
    [P_KERNEL] = {.name = "kernel", .kind = MP_PARAM_CHOICE, .def = 0,
                  .choices = kernel_names,
                  .help = "read (XOR-reduce), write (pattern), copy (dst = "
                          "src) or copy-bulk (copy by cp.async.bulk via "
                          "shared memory; --inflight stages per warp, "
                          "--tile bytes each)",
                  .choice_cc = kernel_cc},
    [P_WIDTH] = {.name = "width", .kind = MP_PARAM_INT, .def = 16, .min = 4,
                 .max = 16, .allowed = widths, .nallowed = 3,
                 .help = "bytes per lane access: 4 (u32), 8 (v2.u32), 16 "
                         "(v4.u32)"},
    [P_OFFSET] = MP_INT_PARAM("offset", 0, 0, 4096,
        "bytes from the aligned base to element 0; a multiple of --width"),
    [P_STRIDE] = MP_INT_PARAM("stride", 1, 1, 64,
        "elements between neighbouring threads (stride passes)"),
    [P_BYTES] = MP_INT_PARAM("bytes", GIB, BYTES_MIN, BYTES_MAX,
        "bytes per array, a multiple of 16 (1 GiB = 17x L2)"),
    [P_INFLIGHT] = {.name = "inflight", .kind = MP_PARAM_INT, .def = 4,
                    .min = 1, .max = 8, .allowed = inflights,
                    .nallowed = 4,
                    .help = "independent accesses each thread issues per "
                            "step"},
    [P_CACHE] = {.name = "cache", .kind = MP_PARAM_CHOICE, .def = 0,
                 .choices = cache_names,
                 .help = "PTX cache operator: default, cs (streaming), na "
                         "(L1 no-allocate), pf256 (na + L2 256-byte "
                         "prefetch), auto (the fastest, searched)",
                 .choice_cc = cache_cc},
    [P_THREADS] = MP_PARAM_THREADS,
    [P_BLOCKS] = MP_INT_PARAM("blocks", 0, 0, 65536,
        "blocks; 0 = fill the GPU once (SMs x resident blocks)"),
    [P_REPEAT] = MP_INT_PARAM("repeat", 1, 0, REPEAT_MAX,
        "walks of the array per launch (cache default); 0 = enough to move "
        "256 MiB (small arrays: L1, L2)"),
    [P_GRID] = MP_CHOICE_PARAM("grid", 0, grid_names,
        "persistent (one full wave, grid-stride loop) or oneshot (one step "
        "of --inflight accesses per thread, many waves; width 16)"),
    [P_TILE] = {.name = "tile", .kind = MP_PARAM_INT, .def = TILE_DEFAULT,
                .min = 1024, .max = 32768, .allowed = tiles, .nallowed = 6,
                .help = "copy-bulk: bytes per shared-memory stage"},
};

/* The kernel a configuration runs (MP_BW_READ, _WRITE, _COPY: copy-bulk
 * is a copy), and whether it copies by cp.async.bulk. */
static int kernel_of(const long long *v)
{
    return v[P_KERNEL] == KERNEL_BULK ? MP_BW_COPY : (int)v[P_KERNEL];
}

static int is_bulk(const long long *v)
{
    return v[P_KERNEL] == KERNEL_BULK;
}

/* Walks per launch: --repeat, or for 0 enough to move REPEAT_AUTO_BYTES
 * (at least 1, at most REPEAT_MAX). */
static long long repeat_of(const long long *v)
{
    if (v[P_REPEAT] > 0)
        return v[P_REPEAT];
    long long r = REPEAT_AUTO_BYTES / v[P_BYTES];
    return r < 1 ? 1 : r > REPEAT_MAX ? REPEAT_MAX : r;
}

/* ---- the traffic model ------------------------------------------------ */

/* One launch's traffic: every walk moves the bytes and issues the
 * requests again; DRAM sees an array that fits in L2 once (the model's
 * DRAM figures are for arrays >> L2 and for one walk otherwise). */
static void model_of(const long long *v, mp_bw_model *m)
{
    mp_bw_model_compute(kernel_of(v), (int)v[P_WIDTH], v[P_OFFSET],
                        (int)v[P_STRIDE], v[P_BYTES], m);
    /* Bulk copies issue no load or store instructions: no requests and
     * no L1 sectors; the DRAM bytes are the same. */
    if (is_bulk(v))
        m->requests = m->sectors = m->ideal_sectors = 0;
    double r = (double)repeat_of(v);
    m->bytes_counted *= r;
    m->requests *= r;
    m->sectors *= r;
    m->ideal_sectors *= r;
    if (v[P_BYTES] > L2_BYTES) {
        m->dram_read_bytes *= r;
        m->dram_write_bytes *= r;
    }
}

/* Global-memory ops per element: 1 (read, write) or 2 (copy). */
static int ops_of(const long long *v)
{
    return kernel_of(v) == MP_BW_COPY ? 2 : 1;
}

/* ---- parameters, label, prediction ------------------------------------ */

/* Per model value: the divisions by requests (0 for bulk) give 0. */
static double per_request(double x, double requests)
{
    return requests > 0 ? x / requests : 0;
}

/* The grid and the method against the rest (bw_check's second half). */
static int check_variant(const long long *v, size_t smem_limit, char *err,
                         size_t errlen)
{
    if (v[P_GRID] == MP_BW_GRID_ONESHOT) {
        const char *why = v[P_WIDTH] != 16 ? "has 16-byte kernels only"
                        : repeat_of(v) > 1 ? "walks once (no --repeat)"
                        : v[P_BLOCKS] ? "sets its own block count (--blocks 0)"
                        : NULL;
        if (why) {
            snprintf(err, errlen, "--grid: oneshot %s", why);
            return -1;
        }
    }
    if (!is_bulk(v)) {
        if (v[P_TILE] != TILE_DEFAULT) {
            snprintf(err, errlen, "--tile: only --kernel copy-bulk copies "
                     "through shared-memory tiles");
            return -1;
        }
        return 0;
    }
    /* --width 16 also makes --offset a multiple of 16 (bw_check), as
     * cp.async.bulk needs. */
    static const char *const names[] = {"--width", "--stride", "--grid",
                                        "--repeat", "--cache"};
    const char *why[] = {
        v[P_WIDTH] != 16 ? "moves 16-byte-aligned tiles (16)" : NULL,
        v[P_STRIDE] != 1 ? "copies contiguous bytes (1)" : NULL,
        v[P_GRID] != MP_BW_GRID_PERSISTENT ? "runs a persistent grid" : NULL,
        repeat_of(v) > 1 ? "walks once (1)" : NULL,
        v[P_CACHE] != MP_BW_CACHE_DEFAULT && v[P_CACHE] != CACHE_AUTO
            ? "takes no cache operator (default)" : NULL,
    };
    for (size_t i = 0; i < sizeof why / sizeof *why; i++)
        if (why[i]) {
            snprintf(err, errlen, "%s: --kernel copy-bulk %s", names[i],
                     why[i]);
            return -1;
        }
    /* Searched shapes (0) are checked by the search. */
    mp_bw_launch l = {.method = MP_BW_METHOD_BULK,
                      .threads = (int)v[P_THREADS],
                      .inflight = (int)v[P_INFLIGHT], .tile = (int)v[P_TILE]};
    size_t need = mp_bw_shared_bytes(&l);
    if (l.threads && l.inflight && need > smem_limit) {
        snprintf(err, errlen, "--tile: %d warps x %d stages x %d bytes need "
                 "%zu bytes of shared memory per block, the GPU allows %zu "
                 "(fewer --threads, --inflight or a smaller --tile)",
                 l.threads / 32, l.inflight, l.tile, need, smem_limit);
        return -1;
    }
    return 0;
}

static int bw_check(const long long *v, size_t smem_limit, char *err,
                    size_t errlen)
{
    if (mp_param_check_multiple("threads", v[P_THREADS], 32, err, errlen))
        return -1;
    if (v[P_OFFSET] % v[P_WIDTH]) {
        snprintf(err, errlen, "--offset: %lld is not a multiple of --width "
                 "%lld (a misaligned access would fault)", v[P_OFFSET],
                 v[P_WIDTH]);
        return -1;
    }
    if (mp_param_check_multiple("bytes", v[P_BYTES], BYTES_MULTIPLE, err,
                                errlen))
        return -1;
    if (repeat_of(v) > 1 && v[P_CACHE] != 0) {
        snprintf(err, errlen, "--repeat: repeated walks use --cache default "
                 "only, not %s", cache_names[v[P_CACHE]]);
        return -1;
    }
    return check_variant(v, smem_limit, err, errlen);
}

/* "/oneshot", "/tileN" for the variants that are not the
 * default, appended at n (label and shape-cache key): the defaults add
 * nothing, so the names of every earlier configuration stay. */
static void variant_suffix(const long long *v, char *buf, size_t len, int n)
{
    if (v[P_GRID] != bw_params[P_GRID].def && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/%s", grid_names[v[P_GRID]]);
    if (v[P_TILE] != bw_params[P_TILE].def && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "/tile%lld", v[P_TILE]);
}

static void bw_label(const long long *v, char *buf, size_t len)
{
    /* Non-default launch shape and cache operator are appended, so every
     * configuration of a sweep has its own name. */
    int n = snprintf(buf, len, "bandwidth/%s/w%lld/o%lld/s%lld/b%lld",
                     kernel_names[v[P_KERNEL]], v[P_WIDTH], v[P_OFFSET],
                     v[P_STRIDE], v[P_BYTES]);
    /* Automatic choices: one "/auto" (the row's columns say what was
     * chosen), given values as usual. */
    int any_auto = v[P_INFLIGHT] == 0 || v[P_THREADS] == 0
                   || v[P_CACHE] == CACHE_AUTO;
    if (v[P_INFLIGHT] != bw_params[P_INFLIGHT].def && v[P_INFLIGHT] != 0
        && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/i%lld", v[P_INFLIGHT]);
    if (v[P_CACHE] != bw_params[P_CACHE].def && v[P_CACHE] != CACHE_AUTO
        && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/%s", cache_names[v[P_CACHE]]);
    if (v[P_THREADS] != bw_params[P_THREADS].def && v[P_THREADS] != 0
        && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/t%lld", v[P_THREADS]);
    if (any_auto && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/auto");
    if (v[P_BLOCKS] != bw_params[P_BLOCKS].def && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/g%lld", v[P_BLOCKS]);
    if (v[P_REPEAT] != bw_params[P_REPEAT].def && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "/r%lld", v[P_REPEAT]);
    variant_suffix(v, buf, len, n);
}

static void bw_predict(const long long *v, mp_prediction *out)
{
    mp_bw_model m;
    model_of(v, &m);
    int ops = ops_of(v);
    mp_prediction_clear(out);
    mp_prediction_put(out, "bytes_counted", m.bytes_counted);
    mp_prediction_put(out, "requests", m.requests * ops);
    mp_prediction_put(out, "sectors_per_request",
                      per_request(m.sectors, m.requests));
    mp_prediction_put(out, "ideal_sectors_per_request",
                      per_request(m.ideal_sectors, m.requests));
    mp_prediction_put(out, "dram_bytes_read", m.dram_read_bytes);
    mp_prediction_put(out, "dram_bytes_write", m.dram_write_bytes);
}

static void bw_describe(const long long *v, mp_row *row)
{
    mp_bw_model m;
    model_of(v, &m);
    static const mp_param_column cols[] = {
        {P_KERNEL, MP_COL_KERNEL}, {P_WIDTH, MP_COL_WIDTH},
        {P_OFFSET, MP_COL_OFFSET}, {P_STRIDE, MP_COL_STRIDE},
        {P_BYTES, MP_COL_ARRAY_BYTES}, {P_CACHE, MP_COL_CACHE},
        {P_GRID, MP_COL_GRID},
    };
    mp_row_set(row, MP_COL_PROBE, "bandwidth");
    mp_row_set_params(row, bw_params, v, cols, sizeof cols / sizeof *cols);
    mp_row_set(row, MP_COL_REQUESTS, "%.0f", m.requests * ops_of(v));
    mp_row_set(row, MP_COL_MODEL_SECTORS, "%.6g",
               per_request(m.sectors, m.requests));
    mp_row_set(row, MP_COL_MODEL_IDEAL_SECTORS, "%.6g",
               per_request(m.ideal_sectors, m.requests));
    if (is_bulk(v))
        mp_row_set(row, MP_COL_TILE_BYTES, "%lld", v[P_TILE]);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_bw_launch l;
    long long offset, bytes;
    char *src_base, *dst_base;   /* device allocations (NULL if unused) */
    size_t src_alloc, dst_alloc; /* their sizes */
    mp_launch_shape shape;       /* read: out, 2 words per thread */
    unsigned *ref_out;           /* read: the CPU reference of out */
    size_t nout;                 /* read: entries of out (out_entries) */
    int launches;                /* since setup */
    double memcpy_ns, memcpy_cov;  /* median cudaMemcpy D2D; 0 = none */
    int auto_shape;              /* inflight, threads or cache searched */
    char shape_from[16];         /* "search" or "cache" */
} bw_state;

static void *xmalloc(size_t n)
{
    void *p = mp_xmalloc(n ? n : 1);
    return p;
}

/* Writes MP_BW_POISON over `bytes` device bytes at dev (host->device
 * copies from pinned poison words: no kernel, no cudaMemset). */
static void poison_device(char *dev, size_t bytes)
{
    mp_device_fill_words(dev, MP_BW_POISON, bytes);
}

/* The outputs the last verification passed, poisoned again, so that the
 * next launch must write them. */
static void poison_outputs(bw_state *s)
{
    if (s->dst_base)
        poison_device(s->dst_base, s->dst_alloc);
    if (s->l.out)
        poison_device((char *)s->l.out,
                      s->nout * 2 * sizeof(unsigned));
}

static void gen_source(void *user, unsigned *out, size_t first, size_t count)
{
    (void)user;
    for (size_t j = 0; j < count; j++)
        out[j] = mp_bw_src_word((unsigned)(first + j));
}

/* The launch's block count: --blocks, else one full wave (persistent),
 * or enough blocks for one unrolled step per thread in the longest pass
 * (oneshot). */
static void set_blocks(mp_bw_launch *l, long long given, const mp_device *dev)
{
    if (l->grid == MP_BW_GRID_ONESHOT) {
        unsigned long long cnt = (l->elements + (unsigned)l->stride - 1)
                                 / (unsigned)l->stride;
        unsigned long long per = (unsigned long long)l->inflight
                                 * (unsigned)l->threads;
        l->blocks = (int)((cnt + per - 1) / per);
        return;
    }
    MP_LAUNCH_BLOCKS(l->blocks, given, dev, mp_bw_occupancy, l);
}

/* Entries of the read kernel's output, 2 words each: one per thread, or
 * one per block (oneshot). */
static size_t out_entries(const mp_bw_launch *l)
{
    size_t b = (size_t)l->blocks;
    return l->grid == MP_BW_GRID_ONESHOT ? b : b * (size_t)l->threads;
}

/* Fills the source array (word k = mp_bw_src_word(k)): generated by CPU
 * threads into pinned staging chunks, one copied while the next is
 * generated (mp_upload_words). */
static void upload_source(bw_state *s)
{
    mp_upload_words(s->src_base + s->offset, (size_t)s->bytes / 4,
                    gen_source, NULL);
}

/* ---- the automatic shape -------------------------------------------- */

/* Shapes chosen in this process, by configuration key: the profiled setup
 * of a configuration finds its shape here and launches nothing. */
typedef struct memo {
    struct memo *next;
    char key[192];
    mp_bw_shape shape;
} memo;
static memo *memos;

static void config_key(const long long *v, char *buf, size_t len)
{
    int n = snprintf(buf, len,
                     "%s/w%lld/o%lld/s%lld/b%lld/g%lld/i%lld/t%lld/c%s",
                     kernel_names[v[P_KERNEL]], v[P_WIDTH], v[P_OFFSET],
                     v[P_STRIDE], v[P_BYTES], v[P_BLOCKS], v[P_INFLIGHT],
                     v[P_THREADS], cache_names[v[P_CACHE]]);
    variant_suffix(v, buf, len, n);
}

static void device_key(const mp_device *dev, char *buf, size_t len)
{
    int driver = 0;
    CHECK_CUDA(cudaDriverGetVersion(&driver));
    snprintf(buf, len, "%s;driver %d;memprobe %s built %s %s", dev->name,
             driver, MP_VERSION, __DATE__, __TIME__);
}

/* One launch of shape l (mp_time_events' launch). */
static void launch_shape(void *l)
{
    CHECK_CUDA(mp_bw_launch_kernel(l));
}

/* Median time (ns) of 3 launches of shape l after 1 warm-up. */
static double time_shape(const mp_bw_launch *l)
{
    double ns[3];
    mp_time_events(NULL, launch_shape, (void *)l, 1, 3, ns);
    return mp_median(ns, 3);
}

/* A candidate of the search: its launch and what it measured. */
typedef struct {
    mp_bw_launch l;
    double ns;
} candidate;

static int by_time(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    return (x->ns > y->ns) - (x->ns < y->ns);
}

/* The final round: the FINALISTS fastest of the first round timed again,
 * in turn, ROUNDS times, each keeping its best median. The first round
 * starts on a cold GPU (clocks and the memory still ramping, measured
 * 1965 against 1980 MHz on the H200) and times each shape once, in one
 * order: at 8 GiB it chose 1024 threads at 0.949 of the peak where 512
 * reached 0.974. */
#define FINALISTS 4
#define ROUNDS 3

/* Candidates of the searched options (a given one has only its value):
 * 1, 2, 4, 8 accesses in flight; 256, 512, 1024 threads; every cache
 * operator: 48 shapes, 4 launches each, then the final round (12 more
 * timings; about 0.5 s at 8 GiB). */
static void search_shape(bw_state *s, const long long *v,
                         const mp_device *dev, mp_bw_shape *best)
{
    static const int inf_c[] = {1, 2, 4, 8}, thr_c[] = {256, 512, 1024};
    /* Bulk: warps per block are pipelines, each of inflight x tile bytes
     * of shared memory, so smaller blocks. */
    static const int bulk_thr_c[] = {32, 128, 256};
    const int bulk = is_bulk(v);
    const int *thr = bulk ? bulk_thr_c : thr_c;
    int cache_c[4] = {MP_BW_CACHE_DEFAULT, MP_BW_CACHE_CS, MP_BW_CACHE_NA,
                      MP_BW_CACHE_PF256};
    int nc = 4, ni = v[P_INFLIGHT] ? 1 : 4, nt = v[P_THREADS] ? 1 : 3;
    /* pf256 only where the GPU has its instruction (probes/arch.h). */
    if (10 * dev->cc_major + dev->cc_minor < MP_CC_L2_PREFETCH)
        nc = 3;
    if (v[P_CACHE] != CACHE_AUTO || bulk)
        nc = 1, cache_c[0] = v[P_CACHE] == CACHE_AUTO ? 0 : (int)v[P_CACHE];
    /* Every candidate that fits, and the read kernel's per-thread output:
     * one buffer for the largest grid of them. */
    candidate cand[4 * 3 * 4];
    int n = 0;
    size_t most = 0;
    for (int t = 0; t < nt; t++)
        for (int i = 0; i < ni; i++)
            for (int c = 0; c < nc; c++) {
                mp_bw_launch l = s->l;
                l.threads = v[P_THREADS] ? (int)v[P_THREADS] : thr[t];
                l.inflight = v[P_INFLIGHT] ? (int)v[P_INFLIGHT] : inf_c[i];
                l.cache = cache_c[c];
                if (mp_bw_shared_bytes(&l) > dev->smem_per_block_optin)
                    continue;
                set_blocks(&l, v[P_BLOCKS], dev);
                size_t e = out_entries(&l);
                most = e > most ? e : most;
                cand[n++] = (candidate){l, 0};
            }
    unsigned *out = NULL;
    if (s->l.kernel == MP_BW_READ)
        CHECK_CUDA(cudaMalloc((void **)&out, most * 2 * sizeof *out));
    for (int k = 0; k < n; k++) {
        cand[k].l.out = out;
        cand[k].ns = time_shape(&cand[k].l);
    }
    qsort(cand, (size_t)n, sizeof *cand, by_time);
    int finalists = n < FINALISTS ? n : FINALISTS;
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < finalists; k++) {
            double ns = time_shape(&cand[k].l);
            if (r == 0 || ns < cand[k].ns)
                cand[k].ns = ns;
        }
    qsort(cand, (size_t)finalists, sizeof *cand, by_time);
    mp_bw_model model;
    model_of(v, &model);
    *best = (mp_bw_shape){cand[0].l.inflight, cand[0].l.threads,
                          cand[0].l.cache, model.bytes_counted / cand[0].ns};
    if (out)
        CHECK_CUDA(cudaFree(out));
}

/* Sets s->l's inflight, threads and cache for an automatic shape: from
 * this process's memo, the cache file, or a search (then both are
 * written). Runs only in the setup of the unprofiled pass when it
 * searches: the profiled setup of the same configuration finds the memo. */
static void resolve_shape(bw_state *s, const long long *v,
                          const mp_device *dev)
{
    char key[192], dkey[512], path[1024];
    config_key(v, key, sizeof key);
    memo *m = memos;
    while (m && strcmp(m->key, key))
        m = m->next;
    if (!m) {
        m = mp_xcalloc(1, sizeof *m);
        snprintf(m->key, sizeof m->key, "%s", key);
        device_key(dev, dkey, sizeof dkey);
        const char *file = mp_bw_shape_cache_path(path, sizeof path);
        if (mp_bw_shape_cache_lookup(file, dkey, key, &m->shape) == 0
            && m->shape.inflight <= 8 && m->shape.cache < CACHE_AUTO) {
            snprintf(s->shape_from, sizeof s->shape_from, "cache");
        } else {
            search_shape(s, v, dev, &m->shape);
            snprintf(s->shape_from, sizeof s->shape_from, "search");
            if (mp_bw_shape_cache_store(file, dkey, key, &m->shape))
                fprintf(stderr, "memprobe: bandwidth: could not write the "
                        "shape cache %s (the search runs again next time)\n",
                        file ? file : "(no $HOME)");
        }
        m->next = memos;
        memos = m;
    } else if (!s->shape_from[0]) {
        snprintf(s->shape_from, sizeof s->shape_from, "memo");
    }
    s->l.inflight = m->shape.inflight;
    s->l.threads = m->shape.threads;
    s->l.cache = m->shape.cache;
}

/* The automatic array size: the largest power of two up to AUTO_BYTES_MAX
 * that is at most 1/8 of the free device memory (a copy holds two arrays),
 * at least the parameter's default (1 GiB). On the H200, 8 GiB. */
#define AUTO_BYTES_MAX (8 * GIB)
static long long auto_bytes(const mp_device *dev)
{
    size_t free_b = dev->global_mem_bytes, total_b = 0;
    if (!dev->fake)   /* the fake device: its (H200's) whole memory */
        CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    long long b = AUTO_BYTES_MAX;
    while (b > GIB && (size_t)b > free_b / 8)
        b /= 2;
    return b;
}

/* `memprobe bandwidth` without shape options aims at the hardware's limit:
 * the shape options not given are searched; with neither --inflight nor
 * --threads given, the array size comes from free memory (auto_bytes)
 * unless --bytes is given, and a contiguous 16-byte walk runs the one-shot
 * grid unless --grid is given. On the H200 (commit 39787a8,
 * scripts/explore/bandwidth-study.sh, 8 GiB, DRAM bytes per array byte
 * 1.000): one-shot read 94.6-95.3%, write 93.9-96.5% of
 * the peak, copy 0.98x cudaMemcpy, beside 93.3-94.1%, 89.7-90.5% and
 * 0.90-0.92x for the persistent grid. */
static void bw_cli_defaults(long long *v, const int *given,
                            const mp_device *dev)
{
    int auto_launch = !given[P_INFLIGHT] && !given[P_THREADS];
    if (!given[P_INFLIGHT])
        v[P_INFLIGHT] = 0;
    if (!given[P_THREADS])
        v[P_THREADS] = 0;
    /* Repeated walks have kernels for the default operator only. */
    if (!given[P_CACHE] && v[P_REPEAT] == 1)
        v[P_CACHE] = CACHE_AUTO;
    if (!auto_launch)
        return;
    if (!given[P_BYTES])
        v[P_BYTES] = auto_bytes(dev);
    if (!given[P_GRID] && !is_bulk(v) && v[P_WIDTH] == 16
        && v[P_STRIDE] == 1 && v[P_OFFSET] == 0 && v[P_BLOCKS] == 0
        && repeat_of(v) == 1)
        v[P_GRID] = MP_BW_GRID_ONESHOT;
}

static int bw_setup(const long long *v, const mp_device *dev, void **out)
{
    bw_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    int kernel = kernel_of(v);
    s->offset = v[P_OFFSET];
    s->bytes = v[P_BYTES];
    s->l.kernel = kernel;
    s->l.width = (int)v[P_WIDTH];
    s->l.cache = (int)v[P_CACHE];
    s->l.inflight = (int)v[P_INFLIGHT];
    s->l.stride = (int)v[P_STRIDE];
    s->l.threads = (int)v[P_THREADS];
    s->l.elements = (unsigned long long)(s->bytes / s->l.width);
    s->l.repeat = (int)repeat_of(v);
    s->l.repeat_mask = 0;
    s->l.grid = (int)v[P_GRID];
    s->l.method = is_bulk(v) ? MP_BW_METHOD_BULK : MP_BW_METHOD_LDST;
    s->l.tile = (int)v[P_TILE];
    s->auto_shape = v[P_INFLIGHT] == 0 || v[P_THREADS] == 0
                    || v[P_CACHE] == CACHE_AUTO;
    if (s->auto_shape) {   /* a placeholder shape until the search */
        s->l.inflight = s->l.inflight ? s->l.inflight : 4;
        s->l.threads = s->l.threads ? s->l.threads
                       : s->l.method == MP_BW_METHOD_BULK ? 32 : 256;
        s->l.cache = s->l.cache == CACHE_AUTO ? MP_BW_CACHE_DEFAULT
                                              : s->l.cache;
    }
    /* Unless given, one full wave: every SM holds as many blocks as fit.
     * A grid-stride loop needs no more, and more waves only add a tail. */
    set_blocks(&s->l, v[P_BLOCKS], dev);
    s->nout = out_entries(&s->l);

    size_t need = (size_t)s->bytes * (size_t)ops_of(v);
    if (need > dev->global_mem_bytes)
        mp_usage_error("--bytes: %lld bytes per array need %zu bytes of "
                       "device memory, the GPU has %zu", s->bytes, need,
                       dev->global_mem_bytes);
    if (kernel != MP_BW_WRITE) {
        s->src_alloc = (size_t)(s->offset + s->bytes);
        CHECK_CUDA(cudaMalloc((void **)&s->src_base, s->src_alloc));
    }
    if (kernel != MP_BW_READ) {
        s->dst_alloc = (size_t)(s->offset + s->bytes) + GUARD_BYTES;
        CHECK_CUDA(cudaMalloc((void **)&s->dst_base, s->dst_alloc));
    }

    if (s->src_base)
        upload_source(s);
    /* Outputs start poisoned: memory freed by the previous setup of the
     * same configuration may still hold a right answer. */
    if (s->dst_base)
        poison_device(s->dst_base, s->dst_alloc);
    s->l.src = s->src_base ? s->src_base + s->offset : NULL;
    s->l.dst = s->dst_base ? s->dst_base + s->offset : NULL;
    if (s->auto_shape) {
        resolve_shape(s, v, dev);
        set_blocks(&s->l, v[P_BLOCKS], dev);
        s->nout = out_entries(&s->l);
        /* The search wrote the right answer: poison it again, so that
         * verification proves the measured launches wrote it. */
        if (s->dst_base && !strcmp(s->shape_from, "search"))
            poison_device(s->dst_base, s->dst_alloc);
    }
    if (kernel == MP_BW_READ) {
        size_t ob = s->nout * 2 * sizeof(unsigned);
        mp_launch_alloc(&s->shape, s->l.blocks, (void **)&s->l.out, ob, NULL);
        poison_device((char *)s->l.out, ob);
    }
    *out = s;
    return 0;
}

static void bw_launch(void *state)
{
    bw_state *s = state;
    CHECK_CUDA(mp_bw_launch_kernel(&s->l));
    s->launches++;
}

/* A CPU reference's job: the walk's constants (kernel threads T,
 * elements n, stride s in elements, words per element wpe), the threads
 * per entry of the grouped reference (1 for the per-thread one) and the
 * entries' output. */
typedef struct {
    unsigned long long T, n, s;
    unsigned wpe;
    size_t group;
    unsigned *ref;
} ref_job;

/* Runs part over the reference's `entries` entries, split across CPU
 * threads by the work (the source words). */
static void run_reference(int width, int stride, unsigned long long elements,
                          size_t threads, size_t group, unsigned *ref,
                          size_t entries, mp_par_fn part)
{
    ref_job r = {threads, elements, (unsigned)stride, (unsigned)width / 4,
                 group, ref};
    size_t words = (size_t)(elements * (unsigned)(width / 4));
    int cpu = mp_par_threads(words);
    mp_par_for(entries, (size_t)cpu < entries ? cpu : (int)entries, part,
               &r);
}

/* XOR of the words of `iters` elements whose first words are k, k + dk,
 * ... (mod 2^32), wpe words each; one loop per width, the words of an
 * element unrolled. Scalar: gcc's SSE2 vectors of these multiplies ran at
 * half the speed (1 GiB of 16-byte elements, one thread: 105 ms
 * vectorised, 50 ms scalar). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static unsigned xor_elements(unsigned k, unsigned dk, unsigned long long iters,
                             unsigned wpe)
{
    unsigned x = 0;
    if (wpe == 1)
        for (unsigned long long i = 0; i < iters; i++, k += dk)
            x ^= mp_bw_src_word(k);
    else if (wpe == 2)
        for (unsigned long long i = 0; i < iters; i++, k += dk)
            x ^= mp_bw_src_word(k) ^ mp_bw_src_word(k + 1);
    else
        for (unsigned long long i = 0; i < iters; i++, k += dk)
            x ^= mp_bw_src_word(k) ^ mp_bw_src_word(k + 1)
                 ^ mp_bw_src_word(k + 2) ^ mp_bw_src_word(k + 3);
    return x;
}

/* The reference of kernel threads [t0, t1): each CPU thread writes only
 * its own kernel threads' words, each computed in registers. In pass p
 * (elements p, p + s, ...: cnt of them) thread t has the pass's elements
 * t, t + T, ... below cnt, i.e. elements p + (t + i T) s. */
static void read_reference_part(void *ctx, size_t t0, size_t t1)
{
    const ref_job *r = ctx;
    const unsigned long long T = r->T, n = r->n, s = r->s;
    const unsigned wpe = r->wpe;
    for (size_t t = t0; t < t1; t++) {
        unsigned x = 0, count = 0;
        for (unsigned long long p = 0; p < s; p++) {
            unsigned long long cnt = (n - p + s - 1) / s;
            if (t >= cnt)
                continue;
            unsigned long long iters = (cnt - 1 - t) / T + 1;
            /* Word index of the first element, and the step, mod 2^32. */
            unsigned k = (unsigned)((p + t * s) * wpe);
            unsigned dk = (unsigned)(T * s * wpe);
            x ^= xor_elements(k, dk, iters, wpe);
            count += (unsigned)iters;
        }
        r->ref[2 * t] = x;
        r->ref[2 * t + 1] = count;
    }
}

void mp_bw_read_reference(int width, int stride, unsigned long long elements,
                          size_t threads, unsigned *ref)
{
    /* CPU threads split the kernel's threads. */
    run_reference(width, stride, elements, threads, 1, ref, threads,
                  read_reference_part);
}

/* Entries [g0, g1) of the grouped reference: entry g covers threads
 * [g group, (g + 1) group) = [a, b). In pass p their elements are the
 * pass indices [a + j T, b + j T) below cnt for j = 0, 1, ...: runs of
 * consecutive pass elements, whose array elements are s apart. */
static void grouped_part(void *ctx, size_t g0, size_t g1)
{
    const ref_job *r = ctx;
    const unsigned long long T = r->T, n = r->n, s = r->s;
    const unsigned wpe = r->wpe;
    for (size_t g = g0; g < g1; g++) {
        unsigned long long a = (unsigned long long)g * r->group;
        unsigned long long b = a + r->group < T ? a + r->group : T;
        unsigned x = 0, count = 0;
        for (unsigned long long p = 0; p < s; p++) {
            unsigned long long cnt = (n - p + s - 1) / s;
            for (unsigned long long i = a; i < cnt; i += T) {
                unsigned long long len = b - a < cnt - i ? b - a : cnt - i;
                x ^= xor_elements((unsigned)((p + i * s) * wpe),
                                  (unsigned)(s * wpe), len, wpe);
                count += (unsigned)len;
            }
        }
        r->ref[2 * g] = x;
        r->ref[2 * g + 1] = count;
    }
}

void mp_bw_read_reference_grouped(int width, int stride,
                                  unsigned long long elements, size_t threads,
                                  size_t group, unsigned *ref)
{
    size_t entries = (threads + group - 1) / group;
    run_reference(width, stride, elements, threads, group, ref, entries,
                  grouped_part);
}

void mp_bw_repeat_reference(unsigned *ref, size_t threads, int repeat)
{
    if (repeat <= 1)
        return;
    for (size_t t = 0; t < threads; t++) {
        unsigned x = ref[2 * t], acc = 0;
        for (int r = 0; r < repeat; r++) {
            acc ^= x;
            acc = (acc << 1) | (acc >> 31);
        }
        ref[2 * t] = acc;
        ref[2 * t + 1] *= (unsigned)repeat;
    }
}

static int verify_read(bw_state *s, char *err, size_t errlen)
{
    size_t ob = s->nout * 2 * sizeof(unsigned);
    mp_launch_fetch(&s->shape);
    if (!s->ref_out) {   /* the same for every launch: compute once */
        s->ref_out = xmalloc(ob);
        if (s->l.grid == MP_BW_GRID_ONESHOT)
            mp_bw_read_reference_grouped(
                s->l.width, s->l.stride, s->l.elements,
                (size_t)s->l.blocks * (size_t)s->l.threads,
                (size_t)s->l.threads, s->ref_out);
        else
            mp_bw_read_reference(s->l.width, s->l.stride, s->l.elements,
                                 s->nout, s->ref_out);
        mp_bw_repeat_reference(s->ref_out, s->nout, s->l.repeat);
    }
    size_t words = 2 * s->nout;
    size_t w = mp_first_diff(s->shape.host_out, s->ref_out, words,
                             mp_par_threads(words));
    if (w < words) {
        size_t t = w / 2;
        const unsigned *got = (const unsigned *)s->shape.host_out + 2 * t;
        const unsigned *want = s->ref_out + 2 * t;
        snprintf(err, errlen, "read: %s %zu left XOR 0x%08x over %u "
                 "elements, the CPU reference says 0x%08x over %u",
                 s->l.grid == MP_BW_GRID_ONESHOT ? "block" : "thread", t,
                 got[0], got[1], want[0], want[1]);
        return -1;
    }
    poison_outputs(s);
    return 0;
}

/* Word k of the array the write or copy kernel leaves. */
static unsigned written_word(int kernel, unsigned k)
{
    return kernel == MP_BW_WRITE ? mp_bw_write_word(k) : mp_bw_src_word(k);
}

/* Reports the first wrong word of dst words [from, to) (word index from
 * the start of the allocation) into err. */
static void report_wrong(const bw_state *s, const unsigned *chunk,
                         size_t chunk_first, size_t from, size_t to,
                         char *err, size_t errlen)
{
    const char *what = kernel_names[s->l.kernel];
    size_t lo = (size_t)s->offset / 4, hi = (size_t)(s->offset + s->bytes) / 4;
    for (size_t w = from; w < to; w++) {
        unsigned got = chunk[w - chunk_first];
        if (w < lo || w >= hi) {
            if (got == MP_BW_POISON)
                continue;
            snprintf(err, errlen, "%s: guard byte %zu %s the array was "
                     "overwritten (0x%08x)", what, 4 * w,
                     w < lo ? "before" : "after", got);
            return;
        }
        unsigned want = written_word(s->l.kernel, (unsigned)(w - lo));
        if (got == want)
            continue;
        snprintf(err, errlen, "%s: word %zu of the destination holds 0x%08x, "
                 "the CPU reference says 0x%08x%s", what, w - lo, got, want,
                 got == MP_BW_POISON ? " (never written)" : "");
        return;
    }
    snprintf(err, errlen, "%s: destination differs from the CPU reference",
             what);
}

/* Where the array lies in the destination allocation: words [lo, hi). */
typedef struct {
    size_t lo, hi;
    int kernel;
} written_job;

/* OR of the differences of staged words [a, b) (chunk-relative) from what
 * they must hold: branch-free loops over the guard words before the
 * array, the array words (one loop per kernel, so that each vectorises)
 * and the guard words after it. */
static unsigned written_diff(const mp_staged *st, size_t a, size_t b)
{
    const written_job *j = st->user;
    size_t f = st->first, wa = f + a, wb = f + b;   /* absolute words */
    size_t x = wa > j->lo ? wa : j->lo, y = wb < j->hi ? wb : j->hi;
    const unsigned *c = st->c;                      /* c[w - f]: word w */
    unsigned d = 0;
    if (x > wb)
        x = wb;
    for (size_t w = wa; w < x; w++)
        d |= c[w - f] ^ MP_BW_POISON;
    if (j->kernel == MP_BW_WRITE)
        for (size_t w = x; w < y; w++)
            d |= c[w - f] ^ mp_bw_write_word((unsigned)(w - j->lo));
    else
        for (size_t w = x; w < y; w++)
            d |= c[w - f] ^ mp_bw_src_word((unsigned)(w - j->lo));
    for (size_t w = y > wa ? y : wa; w < wb; w++)
        d |= c[w - f] ^ MP_BW_POISON;
    return d;
}

/* The first wrong staged word of [from, to), or to. */
static size_t written_part(void *ctx, size_t from, size_t to)
{
    for (size_t a = from; a < to; a += 4096) {
        size_t b = to - a < 4096 ? to : a + 4096;
        if (!written_diff(ctx, a, b))
            continue;
        for (size_t i = a; i < b; i++)
            if (written_diff(ctx, i, i + 1))
                return i;
    }
    return to;
}

size_t mp_bw_written_first(const unsigned *c, size_t first, size_t n,
                           size_t lo, size_t hi, int kernel, int threads)
{
    written_job j = {lo, hi, kernel};
    mp_staged st = {c, first, &j};
    return mp_par_first(n, threads, written_part, &st);
}

/* Checks ALL of the destination allocation: the array word by word against
 * the pattern, and the guard bytes before and after it for poison. The
 * allocation is copied back in chunks through the pinned staging buffers,
 * the next chunk's copy running while CPU threads compare this one
 * (mp_fetch_first; each part a branch-free OR of differences, searched
 * word by word only where that is non-zero); the first wrong word is
 * reported. */
static int verify_written(bw_state *s, char *err, size_t errlen)
{
    size_t lo = (size_t)s->offset / 4, hi = (size_t)(s->offset + s->bytes) / 4;
    size_t words = s->dst_alloc / 4;
    written_job j = {lo, hi, s->l.kernel};
    mp_staged st;
    size_t bad = mp_fetch_first(s->dst_base, words, written_part, &j, &st);
    if (bad < words) {
        report_wrong(s, st.c, st.first, bad, bad + 1, err, errlen);
        return -1;
    }
    poison_outputs(s);
    return 0;
}

static int bw_verify(void *state, char *err, size_t errlen)
{
    bw_state *s = state;
    CHECK_CUDA(cudaDeviceSynchronize());
    return s->l.kernel == MP_BW_READ ? verify_read(s, err, errlen)
                                     : verify_written(s, err, errlen);
}

/* One device-to-device cudaMemcpyAsync (mp_time_events' launch). */
typedef struct {
    void *to;
    const void *from;
    size_t n;
} memcpy_job;

static void memcpy_once(void *job_)
{
    memcpy_job *job = job_;
    CHECK_CUDA(cudaMemcpyAsync(job->to, job->from, job->n,
                               cudaMemcpyDeviceToDevice, 0));
}

/* cudaMemcpy device-to-device of `bytes` bytes, timed like the probe (CUDA
 * events on the default stream, warm-up, median), into a temporary buffer:
 * the probe's own output must stay as the kernel left it for verify. Not
 * measured when the probe itself was not timed (--warmup 0 --runs 0, as in
 * ncu-check): there is nothing to compare with. */
static void bw_after_timing(void *state)
{
    bw_state *s = state;
    if (s->launches <= 1)
        return;
    size_t n = (size_t)s->bytes;
    const char *from = s->src_base ? s->src_base : s->dst_base;
    memcpy_job job = {NULL, from, n};
    double ns[MEMCPY_RUNS];
    CHECK_CUDA(cudaMalloc(&job.to, n));
    mp_time_events(NULL, memcpy_once, &job, MEMCPY_WARMUP, MEMCPY_RUNS, ns);
    CHECK_CUDA(cudaFree(job.to));
    mp_stats st;
    mp_stats_compute(ns, MEMCPY_RUNS, &st);
    s->memcpy_ns = st.median;
    s->memcpy_cov = st.cov;
}

static void bw_derive(void *state, const mp_device *dev,
                      const mp_measurement *m, mp_row *row)
{
    bw_state *s = state;
    mp_bw_model model;
    model_of(s->v, &model);
    mp_row_set_launch(row, s->l.threads, s->l.blocks,
                      s->l.method == MP_BW_METHOD_BULK
                          ? (long long)mp_bw_shared_bytes(&s->l) : -1);
    mp_row_set(row, MP_COL_INFLIGHT, "%d", s->l.inflight);
    mp_row_set(row, MP_COL_CACHE, "%s", cache_names[s->l.cache]);
    if (s->auto_shape)
        mp_row_set(row, MP_COL_SHAPE, "auto (%s)", s->shape_from);
    double peak = mp_device_dram_peak_gbs(dev);
    if (m->time_ns.n > 0 && m->time_ns.median > 0) {
        double gbs = model.bytes_counted / m->time_ns.median; /* B/ns = GB/s */
        mp_row_set_bandwidth(row, gbs, peak);
        if (s->memcpy_ns > 0) {
            /* cudaMemcpy reads and writes `bytes`: both counted. */
            double mgbs = 2.0 * (double)s->bytes / s->memcpy_ns;
            mp_row_set(row, MP_COL_MEMCPY_GBS, "%.1f", mgbs);
            mp_row_set(row, MP_COL_MEMCPY_FRACTION, "%.4f", gbs / mgbs);
        }
    }
    if (!m->counters)
        return;
    /* The probed ops: loads for read, stores for write, both for copy
     * (the read kernel's one 8-byte store per thread is not probed). */
    int ld = s->l.kernel != MP_BW_WRITE, st = s->l.kernel != MP_BW_READ;
    double req = 0, sec = 0, inst = 0;
    const char *ops[2] = {ld ? "ld" : NULL, st ? "st" : NULL};
    for (int k = 0; k < 2; k++) {
        char name[96];
        if (!ops[k])
            continue;
        snprintf(name, sizeof name,
                 "l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum", ops[k]);
        req += mp_counter(m, MP_SET_GLOBAL, name);
        snprintf(name, sizeof name,
                 "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum", ops[k]);
        sec += mp_counter(m, MP_SET_GLOBAL, name);
        snprintf(name, sizeof name, "smsp__sass_inst_executed_op_global_%s.sum",
                 ops[k]);
        double x = mp_counter(m, MP_SET_GLOBAL, name);
        inst = inst < 0 || x < 0 ? -1 : inst + x;   /* -1: not in the set */
    }
    if (req <= 0)
        return;
    double want_req = model.requests * (ld + st);
    double want_sec = model.sectors * (ld + st);
    mp_row_set(row, MP_COL_SECTORS_PER_REQUEST, "%.4f", sec / req);
    /* The model counts warp-level instructions (one per group of 32
     * elements of a pass) and their sectors. Instructions must match
     * exactly (where the set counts them; else the L1 requests, one per
     * instruction), sectors up to the metric table's 1e-3 per request. */
    double issued = inst >= 0 ? inst : req;
    int match = issued == want_req && fabs(sec - want_sec) <= 1e-3 * want_req;
    mp_row_set_match(row, match);
}

/* Frees device memory and the large host buffers: derive needs neither. */
static void bw_release(void *state)
{
    bw_state *s = state;
    MP_FREE_DEVICE(&s->src_base, &s->dst_base);
    mp_launch_free(&s->shape);
    MP_FREE_HOST(&s->ref_out);
    s->l.src = NULL;
    s->l.dst = NULL;
}

/* The console table (runtime/console.h): the bandwidth against the DRAM
 * ceiling and against cudaMemcpy in the same run, and sectors per request,
 * model beside counters. */
static const mp_console_col console[] = {
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
    {"ceiling", MP_COL_CEILING_GBS, 8},
    {"of ceil", MP_COL_BANDWIDTH_FRACTION, 7},
    {"of memcpy", MP_COL_MEMCPY_FRACTION, 9},
    {"model sec", MP_COL_MODEL_SECTORS, 9},
    {"sec/req", MP_COL_SECTORS_PER_REQUEST, 8},
};

const mp_probe mp_probe_bandwidth = {
    MP_PROBE_BASE(bandwidth, bw),
    .metrics = MP_SET_GLOBAL,
    .cli_defaults = bw_cli_defaults,
    .after_timing = bw_after_timing,
};
