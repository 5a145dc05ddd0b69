/*
 * reduce.c - the block-reduction probe: parameters, checks, prediction,
 * inputs and exact reference, verification, the host part of each
 * variant, the measured read-bandwidth ceiling and the derived columns.
 * Kernels are in reduce.cu, the model in probes/reduce/reduce_model.c;
 * docs/reduce.md explains the design.
 *
 * Workloads (the seeds'): cubes = sum of x^3 over random ints x in 0..9
 * (exact, 32-bit), dot = sum of a[i] * b[i] over random floats in [0, 1)
 * (checked against the exact sum with the float rounding bound of the
 * variant's summation tree). Inputs are generated on the host from a
 * fixed-seed hash of the element index, by CPU threads for large sizes
 * (verify_par.h), into the two shared pinned staging buffers (launch.h),
 * and uploaded chunk by chunk, each chunk's copy running while the next
 * is generated and its exact reference summed; the state keeps only the
 * reference.
 *
 * Each launch leaves the variant's partial results (every thread's, every
 * block's, or the atomic total); verify copies them back and adds them up
 * on the host as the seeds do, and after_timing times that host part
 * (copy + CPU sum) with a host clock, since the runner times kernels only.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ceiling.h"
#include "check.h"
#include "launch.h"
#include "probe.h"
#include "reduce.h"
#include "reduce_model.h"
#include "verify_par.h"
#include "metric_sets.h"

enum { P_VARIANT, P_WORKLOAD, P_SIZE, P_THREADS, P_BLOCKS, P_COUNT };

#define SIZE_MAX_ELEMENTS (1LL << 30)
#define CUBES_SEED_SIZE 1048576LL   /* seed 000: DATA_SIZE */
#define DOT_SEED_SIZE 33792LL       /* seeds 003/004: N = 33 * 1024 */
#define CHUNK_ELEMENTS ((size_t)1 << 22)
#define HOST_RUNS 10                /* host-part timings, median kept */
/* What the wavefront counter may carry above the model, per request:
 * L1 arbitration with the kernel's other traffic. Loads: measured below
 * 0.11 per request with one LDS per warp (docs/notes.md). Stores: exact
 * in the bank probe, where every warp only stores, and with a warp alone
 * on its SM; where several warps on one SM interleave LDS and STS (the
 * trees), the H200 counted up to 0.40 extra wavefronts per STS, and the
 * conflict counter the same amount (results/h200/reduce/reduce-*.csv,
 * docs/reduce.md). Instruction counts are exact. */
#define LOAD_ARBITRATION_PER_REQUEST 0.125
#define STORE_ARBITRATION_PER_REQUEST 0.5
#define COUNTER_NOISE_PER_REQUEST 1e-3
/* Poison left in the output after a verification: a NaN for floats, an
 * unlikely sum for ints, so a launch that does not rewrite it fails. */
#define POISON_WORD 0x7fc0dead

static const mp_param_def red_params[P_COUNT] = {
    [P_VARIANT] = MP_CHOICE_PARAM("variant", MP_RED_TREE_SEQUENTIAL,
        mp_red_variant_names,
        "how the partial sums are combined (docs/reduce.md)"),
    [P_WORKLOAD] = MP_CHOICE_PARAM("workload", MP_RED_CUBES,
        mp_red_workload_names,
        "cubes: sum of x^3, x in 0..9 (int); dot: float a.b"),
    /* The default 0 is not a value one can give: it stands for the seed's
     * size of the workload. */
    [P_SIZE] = MP_INT_PARAM("size", 0, 1, SIZE_MAX_ELEMENTS,
        "elements; default (0): the seeds' 1048576 for cubes, 33792 for dot"),
    [P_THREADS] = MP_INT_PARAM("threads", 256, 32, 1024,
        "threads per block, a multiple of 32 (a power of two for the tree "
        "variants)"),
    [P_BLOCKS] = MP_INT_PARAM("blocks", 0, 0, 65535,
        "blocks; 0 = fill the GPU (SMs x resident blocks); the seeds use 32"),
};

/* Elements of the configuration (the seeds' size by default). */
static long long size_of(const long long *v)
{
    if (v[P_SIZE] > 0)
        return v[P_SIZE];
    return v[P_WORKLOAD] == MP_RED_CUBES ? CUBES_SEED_SIZE : DOT_SEED_SIZE;
}

/* Input bytes one launch reads: one int array or two float arrays. */
static double input_bytes(const long long *v)
{
    return (double)size_of(v) * (v[P_WORKLOAD] == MP_RED_DOT ? 8.0 : 4.0);
}

/* ---- inputs and the exact reference ----------------------------------- */

/* splitmix64's finalizer: element i's random bits, whatever the chunk. */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define CUBES_SEED 0x5eed0000c0be5ULL
#define DOT_SEED 0x5eed00000d07ULL

int mp_red_cube_input(unsigned long long i)
{
    return (int)(mix(CUBES_SEED + i) % 10);
}

uint32_t mp_red_dot_mantissa(unsigned long long i, int which)
{
    return (uint32_t)(mix(DOT_SEED + 2 * i + (unsigned)which) >> 40);
}

/* mp_red_fill on one thread. */
static void fill_serial(int workload, unsigned long long first, size_t count,
                        void *x, void *y, mp_red_sum *sum)
{
    if (workload == MP_RED_CUBES) {
        int *xi = x;
        uint64_t s = 0;
        for (size_t k = 0; k < count; k++) {
            int c = mp_red_cube_input(first + k);
            xi[k] = c;
            s += (uint64_t)(c * c * c);
        }
        sum->cubes += s;
        return;
    }
    float *a = x, *b = y;
    unsigned __int128 s = 0;
    for (size_t k = 0; k < count; k++) {
        uint32_t ma = mp_red_dot_mantissa(first + k, 0);
        uint32_t mb = mp_red_dot_mantissa(first + k, 1);
        /* Exact: ma < 2^24, and a power of two only moves the exponent
         * (the same float as ldexpf(ma, -24), without the call). */
        a[k] = (float)ma * 0x1p-24f;
        b[k] = (float)mb * 0x1p-24f;
        s += (uint64_t)ma * mb;
    }
    sum->dot += s;
}

typedef struct {
    int workload;
    unsigned long long first;
    char *x, *y;
    mp_red_sum sum;
    pthread_mutex_t lock;
} fill_job;

static void fill_part(void *ctx, size_t from, size_t to)
{
    fill_job *f = ctx;
    mp_red_sum part = {0, 0};
    fill_serial(f->workload, f->first + from, to - from, f->x + 4 * from,
                f->y ? f->y + 4 * from : NULL, &part);
    pthread_mutex_lock(&f->lock);
    f->sum.cubes += part.cubes;   /* exact integer sums: any order */
    f->sum.dot += part.dot;
    pthread_mutex_unlock(&f->lock);
}

/* Split across CPU threads for large counts (verify_par.h); the inputs and
 * the exact sums are the same whatever the split. */
void mp_red_fill(int workload, unsigned long long first, size_t count,
                 void *x, void *y, mp_red_sum *sum)
{
    int threads = mp_par_threads(count);
    if (threads <= 1) {
        fill_serial(workload, first, count, x, y, sum);
        return;
    }
    fill_job f = {workload, first, x, workload == MP_RED_DOT ? y : NULL,
                  {0, 0}, PTHREAD_MUTEX_INITIALIZER};
    mp_par_for(count, threads, fill_part, &f);
    pthread_mutex_destroy(&f.lock);
    sum->cubes += f.sum.cubes;
    sum->dot += f.sum.dot;
}

double mp_red_dot_value(const mp_red_sum *sum)
{
    return ldexp((double)sum->dot, -48);
}

/* ---- parameters, label, prediction ------------------------------------ */

/* Relative float bound of a dot configuration with a known grid. */
static double relative_bound(const long long *v, long long blocks)
{
    int variant = (int)v[P_VARIANT], threads = (int)v[P_THREADS];
    return mp_red_float_tolerance(
        1.0, mp_red_float_depth(variant, size_of(v), threads, blocks),
        mp_red_host_values(variant, threads, blocks));
}

static int red_check(const long long *v, size_t smem_limit, char *err,
                     size_t errlen)
{
    const char *variant = mp_red_variant_names[v[P_VARIANT]];
    if (mp_param_check_multiple("threads", v[P_THREADS], 32, err, errlen))
        return -1;
    if (mp_red_is_tree((int)v[P_VARIANT])
        && (v[P_THREADS] & (v[P_THREADS] - 1))) {
        snprintf(err, errlen, "--threads: %lld is not a power of two, which "
                 "--variant %s needs (each step halves the active threads)",
                 v[P_THREADS], variant);
        return -1;
    }
    if (mp_red_shared_bytes((int)v[P_VARIANT], (int)v[P_THREADS])
        > smem_limit) {
        snprintf(err, errlen, "--threads: %lld threads need more shared "
                 "memory than the %zu a block may use", v[P_THREADS],
                 smem_limit);
        return -1;
    }
    if (v[P_WORKLOAD] == MP_RED_DOT && v[P_BLOCKS] > 0) {
        double bound = relative_bound(v, v[P_BLOCKS]);
        if (!(bound <= MP_RED_MAX_RELATIVE_BOUND)) {
            snprintf(err, errlen, "--size: %lld float products over %lld x "
                     "%lld threads (--variant %s) allow a rounding error of "
                     "%.3g of the sum (%lld roundings on a term's way), "
                     "above %g: the check would prove nothing (give more "
                     "--blocks or --threads)", size_of(v), v[P_BLOCKS],
                     v[P_THREADS], variant, bound,
                     mp_red_float_depth((int)v[P_VARIANT], size_of(v),
                                        (int)v[P_THREADS], v[P_BLOCKS]),
                     MP_RED_MAX_RELATIVE_BOUND);
            return -1;
        }
    }
    return 0;
}

static void red_label(const long long *v, char *buf, size_t len)
{
    snprintf(buf, len, "reduce/%s/%s/n%lld/t%lld/b%lld",
             mp_red_variant_names[v[P_VARIANT]],
             mp_red_workload_names[v[P_WORKLOAD]], size_of(v), v[P_THREADS],
             v[P_BLOCKS]);
}

static void red_predict(const long long *v, mp_prediction *out)
{
    mp_red_block_traffic m;
    mp_red_block_model((int)v[P_VARIANT], (int)v[P_THREADS], &m);
    double ldr = m.ld.requests, str = m.st.requests;
    mp_prediction_clear(out);
    mp_prediction_put(out, "elements", (double)size_of(v));
    mp_prediction_put(out, "bytes_read", input_bytes(v));
    mp_prediction_put(out, "ld_requests_per_block", ldr);
    mp_prediction_put(out, "wavefronts_per_request",
                      ldr > 0 ? m.ld.wavefronts / ldr : 0);
    mp_prediction_put(out, "ideal_wavefronts_per_request",
                      ldr > 0 ? m.ld.ideal / ldr : 0);
    mp_prediction_put(out, "conflict_ways",
                      m.ld.ideal > 0 ? m.ld.wavefronts / m.ld.ideal : 0);
    mp_prediction_put(out, "st_requests_per_block", str);
    mp_prediction_put(out, "st_wavefronts_per_request",
                      str > 0 ? m.st.wavefronts / str : 0);
}

static void red_describe(const long long *v, mp_row *row)
{
    mp_red_block_traffic m;
    mp_red_block_model((int)v[P_VARIANT], (int)v[P_THREADS], &m);
    mp_row_set(row, MP_COL_PROBE, "reduce");
    mp_row_set(row, MP_COL_VARIANT, "%s", mp_red_variant_names[v[P_VARIANT]]);
    mp_row_set(row, MP_COL_WORKLOAD, "%s",
               mp_red_workload_names[v[P_WORKLOAD]]);
    mp_row_set(row, MP_COL_ELEMENTS, "%lld", size_of(v));
    mp_row_set(row, MP_COL_WIDTH, "4");
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%lld", size_of(v) * 4);
    mp_row_set(row, MP_COL_THREADS, "%lld", v[P_THREADS]);
    mp_row_set(row, MP_COL_SHARED_BYTES, "%u",
               mp_red_shared_bytes((int)v[P_VARIANT], (int)v[P_THREADS]));
    if (m.ld.requests > 0) {
        mp_row_set(row, MP_COL_MODEL_WAVEFRONTS, "%.6g",
                   m.ld.wavefronts / m.ld.requests);
        mp_row_set(row, MP_COL_MODEL_IDEAL, "%.6g",
                   m.ld.ideal / m.ld.requests);
        mp_row_set(row, MP_COL_MODEL_CONFLICT_WAYS, "%.4g",
                   m.ld.wavefronts / m.ld.ideal);
    }
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_red_launch l;
    long long n;
    int sm_count;
    void *x, *y;              /* device inputs */
    size_t out_count;         /* values the host reads back */
    mp_red_sum ref;           /* exact sums */
    double tolerance;         /* dot: the bound; < 0: too loose to check */
    mp_launch_shape shape;    /* out and clock64 (all freed in release) */
    int launches;             /* since setup */
    double host_ns;           /* median copy + CPU sum; 0 = not measured */
    double ceiling_gbs;       /* measured read bandwidth; 0 = none */
} red_state;

/* Writes the poison into `count` device words at dev (host->device
 * copies from pinned poison words: no kernel, no cudaMemset, so it may
 * run inside a profiled batch). */
static void poison(void *dev, size_t count)
{
    mp_device_fill_words(dev, POISON_WORD, count * 4);
}

static int red_setup(const long long *v, const mp_device *dev, void **out)
{
    red_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    s->n = size_of(v);
    s->sm_count = dev->sm_count;
    s->l.variant = (int)v[P_VARIANT];
    s->l.workload = (int)v[P_WORKLOAD];
    s->l.threads = (int)v[P_THREADS];
    s->l.n = (unsigned)s->n;
    MP_LAUNCH_BLOCKS(s->l.blocks, v[P_BLOCKS], dev, mp_red_occupancy, &s->l);
    int dot = s->l.workload == MP_RED_DOT;
    size_t bytes = (size_t)s->n * 4;
    CHECK_CUDA(cudaMalloc(&s->x, bytes));
    if (dot)
        CHECK_CUDA(cudaMalloc(&s->y, bytes));
    s->l.x = s->x;
    s->l.y = s->y;

    /* Inputs and the exact reference, a chunk at a time: x (and y) of a
     * chunk in one pinned staging buffer, generated while the other
     * buffer's chunk is copied. */
    size_t chunk = (size_t)s->n < CHUNK_ELEMENTS ? (size_t)s->n
                                                 : CHUNK_ELEMENTS;
    size_t staged = chunk * 4 * (dot ? 2 : 1);
    char *buf[2] = {mp_pinned(MP_PIN_STAGE_A, staged),
                    mp_pinned(MP_PIN_STAGE_B, staged)};
    int k = 0;
    for (long long first = 0; first < s->n; first += (long long)chunk) {
        size_t count = (size_t)(s->n - first) < chunk
                           ? (size_t)(s->n - first) : chunk;
        char *hx = buf[k], *hy = dot ? buf[k] + chunk * 4 : NULL;
        /* buf[k]'s copies (two chunks back) were waited for below. */
        mp_red_fill(s->l.workload, (unsigned long long)first, count, hx, hy,
                    &s->ref);
        CHECK_CUDA(cudaStreamSynchronize(0));   /* the previous chunk's */
        CHECK_CUDA(cudaMemcpyAsync((char *)s->x + first * 4, hx, count * 4,
                                   cudaMemcpyHostToDevice, 0));
        if (dot)
            CHECK_CUDA(cudaMemcpyAsync((char *)s->y + first * 4, hy,
                                       count * 4, cudaMemcpyHostToDevice, 0));
        k ^= 1;
    }
    CHECK_CUDA(cudaStreamSynchronize(0));

    if (dot) {
        double rel = relative_bound(v, s->l.blocks);
        s->tolerance = rel <= MP_RED_MAX_RELATIVE_BOUND
                           ? mp_red_float_tolerance(
                                 mp_red_dot_value(&s->ref),
                                 mp_red_float_depth(s->l.variant, s->n,
                                                    s->l.threads, s->l.blocks),
                                 mp_red_host_values(s->l.variant,
                                                    s->l.threads,
                                                    s->l.blocks))
                           : -1;
    }

    /* Outputs: every thread's partial, every block's, or the atomic
     * variant's two slots (both zero: the first launch adds into slot 0
     * and zeroes slot 1 for the next). */
    size_t grid = (size_t)s->l.blocks * (size_t)s->l.threads;
    size_t slots = s->l.variant == MP_RED_HOST_PARTIALS ? grid
                   : s->l.variant == MP_RED_ATOMIC      ? 2
                                                        : (size_t)s->l.blocks;
    s->out_count = s->l.variant == MP_RED_ATOMIC ? 1 : slots;
    mp_launch_alloc(&s->shape, s->l.blocks, (void **)&s->l.out, slots * 4,
                    &s->l.clocks);
    if (s->l.variant == MP_RED_ATOMIC) {
        memset(s->shape.host_out, 0, slots * 4);
        CHECK_CUDA(cudaMemcpy(s->l.out, s->shape.host_out, slots * 4,
                              cudaMemcpyHostToDevice));
    } else {
        poison(s->l.out, slots);
    }
    *out = s;
    return 0;
}

static void red_launch(void *state)
{
    red_state *s = state;
    s->l.parity = s->launches % 2;
    CHECK_CUDA(mp_red_launch_kernel(&s->l));
    s->launches++;
}

/* Device address of what the last launch left for the host. */
static void *last_output(const red_state *s)
{
    if (s->l.variant != MP_RED_ATOMIC)
        return s->l.out;
    return (char *)s->l.out + 4 * ((s->launches - 1) % 2);
}

/* The host part of the variant: copy the partial results back and add
 * them up, as the seeds do (the atomic total is one value). Cubes in
 * 32-bit unsigned arithmetic, floats in double (seed 004's `double
 * sums`). Returns the sum as a double; *int_sum gets the 32-bit sum. */
static double host_sum(red_state *s, uint32_t *int_sum)
{
    const uint32_t *host = s->shape.host_out;
    CHECK_CUDA(cudaMemcpy(s->shape.host_out, last_output(s), s->out_count * 4,
                          cudaMemcpyDeviceToHost));
    if (s->l.workload == MP_RED_CUBES) {
        uint32_t sum = 0;
        for (size_t i = 0; i < s->out_count; i++)
            sum += host[i];
        *int_sum = sum;
        return sum;
    }
    double sum = 0;
    const float *f = (const float *)s->shape.host_out;
    for (size_t i = 0; i < s->out_count; i++)
        sum += f[i];
    *int_sum = 0;
    return sum;
}

static int red_verify(void *state, char *err, size_t errlen)
{
    red_state *s = state;
    CHECK_CUDA(cudaDeviceSynchronize());
    uint32_t isum;
    double sum = host_sum(s, &isum);
    int rc;
    if (s->l.workload == MP_RED_CUBES) {
        rc = mp_red_check_int(isum, s->ref.cubes, err, errlen);
    } else if (s->tolerance < 0) {
        snprintf(err, errlen, "%lld float products over %d x %d threads "
                 "have a rounding bound above %g of the sum: not checked "
                 "(give more --blocks or --threads)", s->n, s->l.blocks,
                 s->l.threads, MP_RED_MAX_RELATIVE_BOUND);
        rc = -1;
    } else {
        rc = mp_red_check_float(sum, mp_red_dot_value(&s->ref), s->tolerance,
                                err, errlen);
    }
    /* The next launch must write its output again. The atomic variant's
     * slot is zeroed by the next launch before use, and poisoned here so
     * that a launch that skipped the zeroing would be caught. */
    poison(last_output(s), s->out_count);
    return rc;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}


/* After the timed launches: the host part of the variant (copy + CPU
 * sum, HOST_RUNS times, median) and the read-bandwidth ceiling. Nothing
 * when the probe itself was not timed (--warmup 0 --runs 0, as in
 * ncu-check, which must see the probe's launches only). */
static void red_after_timing(void *state)
{
    red_state *s = state;
    if (s->launches <= 1)
        return;
    double ns[HOST_RUNS];
    volatile double sink = 0;
    for (int i = 0; i < HOST_RUNS; i++) {
        uint32_t isum;
        double t0 = now_ns();
        double sum = host_sum(s, &isum);
        ns[i] = now_ns() - t0;
        sink += sum + isum;
    }
    (void)sink;
    mp_stats st;
    mp_stats_compute(ns, HOST_RUNS, &st);
    s->host_ns = st.median;
    s->ceiling_gbs = mp_read_ceiling_gbs(s->sm_count);
}

/* The seeds' span and the median block duration (runtime/stats.c). */
MP_LAUNCH_CLOCK64(red_clock64, red_state)

/* Measured count of op (ld/st) against the model: instructions exactly,
 * wavefronts at least the model's and at most `slack` per request above
 * it (plus the counter noise). -1 when the chip lacks either counter. */
static int op_matches(const mp_measurement *m, const char *op,
                      const mp_red_traffic *t, double blocks, double slack)
{
    double wf, inst;
    mp_shared_op_counters(m, MP_SET_SHARED_MIXED, op, &wf, &inst);
    if (wf < 0 || inst < 0)   /* the chip lacks it: no verdict */
        return -1;
    double req = t->requests * blocks, want = t->wavefronts * blocks;
    double noise = COUNTER_NOISE_PER_REQUEST * req;
    return inst == req && wf >= want - noise
           && wf <= want + (slack + COUNTER_NOISE_PER_REQUEST) * req;
}

static void red_derive(void *state, const mp_device *dev,
                       const mp_measurement *m, mp_row *row)
{
    red_state *s = state;
    (void)dev;
    mp_red_block_traffic model;
    mp_red_block_model(s->l.variant, s->l.threads, &model);
    double blocks = s->l.blocks;
    mp_row_set_launch(row, s->l.threads, blocks, -1);
    mp_row_set(row, MP_COL_REQUESTS, "%.0f", model.ld.requests * blocks);
    if (m->time_ns.n > 0 && m->time_ns.median > 0) {
        /* The ceiling: the read bandwidth measured in after_timing. */
        mp_row_set_bandwidth(row, input_bytes(s->v) / m->time_ns.median,
                             s->ceiling_gbs > 0 ? s->ceiling_gbs : -1);
    }
    if (s->host_ns > 0)
        mp_row_set(row, MP_COL_HOST_NS_MEDIAN, "%.0f", s->host_ns);
    if (!m->counters)
        return;
    double ld_inst = mp_counter(m, MP_SET_SHARED_MIXED,
                                "smsp__sass_inst_executed_op_shared_ld.sum");
    double ld_wf = mp_counter(
        m, MP_SET_SHARED_MIXED, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    if (ld_inst > 0 && ld_wf >= 0) {
        double per = ld_wf / ld_inst;
        mp_row_set(row, MP_COL_WAVEFRONTS_PER_REQUEST, "%.4f", per);
        if (model.ld.requests > 0)
            mp_row_set(row, MP_COL_EXCESS_WAVEFRONTS, "%.4f",
                       per - model.ld.ideal / model.ld.requests);
    }
    int ld = op_matches(m, "ld", &model.ld, blocks,
                        LOAD_ARBITRATION_PER_REQUEST);
    int st = op_matches(m, "st", &model.st, blocks,
                        STORE_ARBITRATION_PER_REQUEST);
    if (ld < 0 || st < 0)
        return;
    int match = ld && st;
    mp_row_set_match(row, match);
}

/* Frees the device memory and the large host buffers: derive needs
 * neither. */
static void red_release(void *state)
{
    red_state *s = state;
    MP_FREE_DEVICE(&s->x, &s->y);
    mp_launch_free(&s->shape);
    s->l.x = s->l.y = NULL;
}

/* The console table (runtime/console.h): the bandwidth against the DRAM
 * ceiling, the host's time after the kernel, and shared-memory wavefronts per
 * request, model beside counters, with the conflict degree. */
static const mp_console_col console[] = {
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
    {"of ceil", MP_COL_BANDWIDTH_FRACTION, 7},
    {"host ns", MP_COL_HOST_NS_MEDIAN, 9},
    {"model wf", MP_COL_MODEL_WAVEFRONTS, 8},
    {"wf/req", MP_COL_WAVEFRONTS_PER_REQUEST, 8},
    {"ways", MP_COL_MODEL_CONFLICT_WAYS, 5},
};

const mp_probe mp_probe_reduce = {
    MP_PROBE_BASE(reduce, red),
    .metrics = MP_SET_SHARED_MIXED,
    /* Profiled in a group with the others, the 32-block reductions of 1M
     * cubes ran 50 us under the collector where ncu says 25 (H200, with and
     * without the L2 flush); profiled alone, they agreed. */
    .profile_alone = 1,
    .after_timing = red_after_timing,
    .clock64 = red_clock64,
};
