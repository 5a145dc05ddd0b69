/*
 * constant.c - the constant-memory probe: parameters, checks, prediction,
 * verification and derived columns. Kernels are in constant.cu, the model
 * in model/const_model.c.
 *
 * Every warp-level load reads `spread` distinct 4-byte words, `spacing`
 * bytes apart: lane l reads address number (l % period) / group (the bank
 * probe's mapping, model/pattern.h), at byte k * spacing of the 64 KB
 * __constant__ array, which setup fills with cudaMemcpyToSymbol. group and
 * period default to the blocked mapping (group = 32 / spread lanes per
 * address); giving them explicitly (group 1, period = spread: lane l reads
 * address l % spread) tests the seeds' half-warp rule. The same words are
 * read from a global copy with plain loads or with __ldg, to compare time.
 *
 * Counters: the constant set (const_metrics.c) for every source. One
 * request = one warp-level load of the probe; replays_per_request =
 * sm__idc_divergent_instruction_replays / requests, against the model's
 * distinct - 1. The global and __ldg sources issue no probe LDC, so their
 * IDC counters read (close to) zero and only the time compares.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "const_model.h"
#include "constant.h"
#include "launch.h"
#include "common_params.h"
#include "probe.h"

/* The family's metric set (const_metrics.c). */
extern const mp_metric_set_def mp_set_constant;
#define MP_SET_CONSTANT (&mp_set_constant)

enum { P_SOURCE, P_SPREAD, P_SPACING, P_GROUP, P_PERIOD, P_THREADS,
       P_BLOCKS, P_ITERATIONS, P_COUNT };

static const char *const source_names[] = {"constant", "global", "ldg",
                                           NULL};

static const mp_param_def const_params[P_COUNT] = {
    [P_SOURCE] = MP_CHOICE_PARAM("source", 0, source_names,
        "constant (LDC), global (ld.global) or ldg (__ldg)"),
    [P_SPREAD] = MP_INT_PARAM("spread", 1, 1, 32,
        "distinct addresses per warp-level load (1 = broadcast)"),
    [P_SPACING] = MP_INT_PARAM("spacing", 4, 4, 65536,
        "bytes between the distinct addresses, a multiple of 4"),
    [P_GROUP] = MP_INT_PARAM("group", 0, 0, 32,
        "consecutive lanes sharing an address; 0 = 32 / spread"),
    [P_PERIOD] = MP_INT_PARAM("period", 0, 0, 32,
        "lanes after which addresses repeat; 0 = spread x group"),
    [P_THREADS] = MP_PARAM_THREADS,
    [P_BLOCKS] = MP_PARAM_BLOCKS(1048576),
    [P_ITERATIONS] = MP_INT_PARAM("iterations", 4096, 8, 1048576,
        "loads per thread per launch, a multiple of 8"),
};

/* The resolved lane mapping and the lanes' byte offsets; the return value
 * is mp_const_lanes' (0, -1 or -2). */
static int lanes_of(const long long *v, int *g, int *p,
                    long long offsets[MP_WARP_SIZE], long long *footprint)
{
    int rc = mp_const_lanes((int)v[P_SPREAD], (int)v[P_GROUP],
                            (int)v[P_PERIOD], g, p);
    if (rc == 0)
        *footprint = mp_const_offsets(v[P_SPACING], *g, *p, offsets);
    return rc;
}

static int const_check(const long long *v, size_t smem_limit, char *err,
                       size_t errlen)
{
    (void)smem_limit;
    int g, p;
    long long offsets[MP_WARP_SIZE], footprint = 0;
    if (mp_param_check_multiple("threads", v[P_THREADS], 32, err, errlen))
        return -1;
    if (mp_param_check_multiple("iterations", v[P_ITERATIONS],
                                MP_CONST_SLOTS, err, errlen))
        return -1;
    if (v[P_SPACING] % 4) {
        snprintf(err, errlen, "--spacing: %lld bytes is not a multiple of 4 "
                 "(the probe reads 4-byte words)", v[P_SPACING]);
        return -1;
    }
    int rc = lanes_of(v, &g, &p, offsets, &footprint);
    if (rc == -1) {
        /* Only a given group can overflow: period is at most 32. */
        snprintf(err, errlen, "--group: %lld lanes per address x --spread "
                 "%lld addresses need %lld lanes, a warp has 32",
                 v[P_GROUP], v[P_SPREAD], v[P_GROUP] * v[P_SPREAD]);
        return -1;
    }
    if (rc == -2) {
        snprintf(err, errlen, "--group/--period: lanes (l %% %d) / %d read "
                 "%d distinct addresses, not --spread %lld", p, g,
                 (p + g - 1) / g, v[P_SPREAD]);
        return -1;
    }
    if (footprint > MP_CONST_BANK_BYTES) {
        snprintf(err, errlen, "--spacing: %lld addresses %lld bytes apart "
                 "(+ %d bytes of slots) read %lld bytes, past the %d-byte "
                 "constant bank", v[P_SPREAD], v[P_SPACING],
                 (MP_CONST_SLOTS - 1) * MP_CONST_SLOT_BYTES, footprint,
                 MP_CONST_BANK_BYTES);
        return -1;
    }
    return 0;
}

/* The resolved mapping of a configuration that passed const_check. */
static void resolved(const long long *v, int *g, int *p,
                     long long offsets[MP_WARP_SIZE])
{
    long long footprint;
    if (lanes_of(v, g, p, offsets, &footprint)) {
        /* Unreachable after const_check; keep the output defined. */
        *g = 1;
        *p = 1;
        memset(offsets, 0, MP_WARP_SIZE * sizeof *offsets);
    }
}

static void const_label(const long long *v, char *buf, size_t len)
{
    int g, p;
    long long offsets[MP_WARP_SIZE];
    resolved(v, &g, &p, offsets);
    snprintf(buf, len, "const/%s/s%lld/sp%lld/g%d/p%d",
             source_names[v[P_SOURCE]], v[P_SPREAD], v[P_SPACING], g, p);
}

static void const_predict(const long long *v, mp_prediction *out)
{
    int g, p;
    long long offsets[MP_WARP_SIZE], footprint;
    if (lanes_of(v, &g, &p, offsets, &footprint)) {
        g = p = 0;
        footprint = 0;
        memset(offsets, 0, sizeof offsets);
    }
    mp_const_prediction c;
    mp_const_predict(offsets, &c);
    mp_prediction_clear(out);
    mp_prediction_put(out, "distinct_addresses", c.distinct_addresses);
    /* Only LDC goes through the IDC: global and __ldg loads replay
     * nothing there. */
    mp_prediction_put(out, "replays_per_request",
                      v[P_SOURCE] == MP_CONST_SOURCE_CONSTANT ? c.replays : 0);
    mp_prediction_put(out, "distinct_64b_lines", c.distinct_lines);
    mp_prediction_put(out, "seed_halfwarp_reads", c.halfwarp_reads);
    mp_prediction_put(out, "lanes_per_address", g);
    mp_prediction_put(out, "lanes_period", p);
    mp_prediction_put(out, "footprint_bytes", (double)footprint);
}

static void const_describe(const long long *v, mp_row *row)
{
    int g, p;
    long long offsets[MP_WARP_SIZE];
    mp_prediction pr;
    resolved(v, &g, &p, offsets);
    const_predict(v, &pr);
    static const mp_param_column cols[] = {
        {P_SOURCE, MP_COL_SOURCE}, {P_SPREAD, MP_COL_SPREAD},
        {P_SPACING, MP_COL_SPACING}, {P_ITERATIONS, MP_COL_ITERATIONS},
    };
    mp_row_set(row, MP_COL_PROBE, "const");
    mp_row_set(row, MP_COL_OP, "ld");
    mp_row_set(row, MP_COL_WIDTH, "4");
    mp_row_set_params(row, const_params, v, cols, sizeof cols / sizeof *cols);
    mp_row_set(row, MP_COL_GROUP, "%d", g);
    mp_row_set(row, MP_COL_PERIOD, "%d", p);
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%d", MP_CONST_BANK_BYTES);
    mp_row_set(row, MP_COL_MODEL_DISTINCT, "%g", pr.value[0]);
    mp_row_set(row, MP_COL_MODEL_REPLAYS, "%g", pr.value[1]);
}

/* ---- GPU side --------------------------------------------------------- */

typedef struct {
    long long v[P_COUNT];
    mp_const_launch l;
    unsigned word[MP_WARP_SIZE];  /* each lane's first word */
    unsigned *lane_words;         /* device copy of word[] */
    unsigned *global;             /* device copy of the bank */
    mp_launch_shape shape;        /* out (one word per thread), clock64 */
} const_state;

static int const_setup(const long long *v, const mp_device *dev, void **out)
{
    const_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    int g, p;
    long long offsets[MP_WARP_SIZE];
    resolved(v, &g, &p, offsets);
    for (int l = 0; l < MP_WARP_SIZE; l++)
        s->word[l] = (unsigned)(offsets[l] / 4);

    /* The bank and its global copy hold the same words. */
    unsigned *host_bank = mp_xmalloc(MP_CONST_BANK_BYTES);
    for (unsigned w = 0; w < MP_CONST_WORDS; w++)
        host_bank[w] = mp_const_word_value(w);
    CHECK_CUDA(mp_const_fill(host_bank, MP_CONST_BANK_BYTES));
    if (v[P_SOURCE] != MP_CONST_SOURCE_CONSTANT) {
        CHECK_CUDA(cudaMalloc((void **)&s->global, MP_CONST_BANK_BYTES));
        CHECK_CUDA(cudaMemcpy(s->global, host_bank, MP_CONST_BANK_BYTES,
                              cudaMemcpyHostToDevice));
    }
    free(host_bank);
    CHECK_CUDA(cudaMalloc((void **)&s->lane_words, sizeof s->word));
    CHECK_CUDA(cudaMemcpy(s->lane_words, s->word, sizeof s->word,
                          cudaMemcpyHostToDevice));

    s->l.source = (int)v[P_SOURCE];
    s->l.lane_words = s->lane_words;
    s->l.global = s->global;
    s->l.rot_mask = 0;   /* opaque to the compiler: see constant.cu */
    s->l.threads = (int)v[P_THREADS];
    s->l.iterations = (int)v[P_ITERATIONS];
    MP_LAUNCH_BLOCKS(s->l.blocks, v[P_BLOCKS], dev, mp_const_occupancy,
                     &s->l);
    size_t nthreads = (size_t)s->l.blocks * (size_t)s->l.threads;
    mp_launch_alloc(&s->shape, s->l.blocks, (void **)&s->l.out,
                    nthreads * sizeof(unsigned), &s->l.clocks);
    *out = s;
    return 0;
}

static void const_launch(void *state)
{
    const_state *s = state;
    CHECK_CUDA(mp_const_launch_kernel(&s->l));
}

/* What lane `lane` must leave in out[]: the iterations go in groups of
 * MP_CONST_SLOTS, each reading the lane's word at every slot once (rot
 * stays 0), so the sum of the slots' values times the number of groups. */
static unsigned expected_word(const const_state *s, int lane)
{
    unsigned slots = 0;
    for (int j = 0; j < MP_CONST_SLOTS; j++)
        slots += mp_const_word_value(s->word[lane]
                                     + j * (MP_CONST_SLOT_BYTES / 4));
    return slots * (unsigned)(s->l.iterations / MP_CONST_SLOTS);
}

static int const_verify(void *state, char *err, size_t errlen)
{
    const_state *s = state;
    unsigned want[MP_WARP_SIZE];
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        want[lane] = expected_word(s, lane);
    return mp_launch_verify_words(&s->shape, s->l.threads, want, MP_WARP_SIZE,
                                  err, errlen);
}

/* The seeds' span and the median block duration (as in bank.c). */
MP_LAUNCH_CLOCK64(const_clock64, const_state)

/* LDC instructions a warp may execute besides the probe's loads: the
 * compiler reads some kernel parameters and the stack pointer with
 * warp-uniform LDCs (no replays): 5 to 7 per warp at the start and the
 * end in the SASS of nvcc 13.0 for sm_90. In the global and __ldg kernels
 * ptxas also re-reads the data pointer parameter once per unrolled loop
 * trip (LDC.64 c[0x0][0x218] every 32 loads); allowed: one per group of
 * MP_CONST_SLOTS loads. */
#define MAX_EXTRA_LDC_PER_WARP 16

/* Largest number of LDCs that are not the probe's own loads. */
static double max_extra_ldc(int source, double warps, double requests)
{
    double extra = MAX_EXTRA_LDC_PER_WARP * warps;
    if (source != MP_CONST_SOURCE_CONSTANT)
        extra += requests / MP_CONST_SLOTS;
    return extra;
}

static void const_derive(void *state, const mp_device *dev,
                         const mp_measurement *m, mp_row *row)
{
    const_state *s = state;
    double warps = (double)s->l.blocks * s->l.threads / 32.0;
    double requests = warps * s->l.iterations;
    mp_row_set_launch(row, s->l.threads, s->l.blocks, 0);
    mp_row_set_per_request(row, dev, m, requests, s->l.blocks);
    if (m->time_ns.n > 0) {
        /* Bytes the lanes asked for; there is no documented ceiling for
         * constant-cache broadcasts, so ceiling_gbs stays empty. */
        mp_row_set_bandwidth(row, requests * 32.0 * 4.0 / m->time_ns.median,
                             -1);
    }
    if (!m->counters)
        return;

    double ldc = mp_counter(m, MP_SET_CONSTANT, "smsp__inst_executed_op_ldc.sum");
    double replays = mp_counter(m, MP_SET_CONSTANT, "sm__idc_divergent_instruction_replays.sum");
    if (ldc < 0 || replays < 0)
        return;
    mp_prediction p;
    const_predict(s->v, &p);
    double per_request = replays / requests;
    mp_row_set(row, MP_COL_REPLAYS_PER_REQUEST, "%.4f", per_request);
    /* The probe's own LDCs: one per warp and iteration for the constant
     * source, none otherwise; anything beyond the compiler's uniform LDCs
     * means the kernel is not what it claims. */
    double own = s->l.source == MP_CONST_SOURCE_CONSTANT ? requests : 0;
    double extra = ldc - own;
    int shape_ok = extra >= 0
                   && extra <= max_extra_ldc(s->l.source, warps, requests);
    int match = shape_ok && fabs(per_request - p.value[1]) <= 1e-3;
    mp_row_set_match(row, match);
}

static void const_release(void *state)
{
    const_state *s = state;
    mp_launch_release(&s->shape);
    MP_FREE_DEVICE(&s->lane_words, &s->global);
    s->l.lane_words = NULL;
    s->l.global = NULL;
}

MP_LAUNCH_FREE_HOST(const_free_host, const_state)

/* The console table (runtime/console.h): constant-cache replays per
 * request, model beside counters, the distinct addresses behind them, the
 * time per request and the bandwidth. */
static const mp_console_col console[] = {
    {"model rep", MP_COL_MODEL_REPLAYS, 9},
    {"rep/req", MP_COL_REPLAYS_PER_REQUEST, 8},
    {"distinct", MP_COL_MODEL_DISTINCT, 8},
    {"cyc/req", MP_COL_CYCLES_PER_REQUEST, 9},
    {"GB/s", MP_COL_BANDWIDTH_GBS, 8},
};

const mp_probe mp_probe_const = {
    MP_PROBE_BASE(const, const),
    .metrics = MP_SET_CONSTANT,
    .profile_alone = 1,   /* the __constant__ array */
    .clock64 = const_clock64,
    .free_host = const_free_host,
};
