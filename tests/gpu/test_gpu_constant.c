/*
 * test_gpu_constant.c - GPU tests of the constant-memory probe (run on the
 * GPU machine by `make test-gpu`).
 *
 * Runs the constant sweep (spread 1..32 x spacing 4, 64, 128 bytes), the
 * source comparison (constant, global, __ldg) and the interleaved lane
 * mappings with hardware counters from memprobe's own collector, then
 * checks every row: output verified, counters read, the probe's LDCs
 * present (one per warp and iteration, plus the compiler's few uniform
 * ones), and measured replays per request equal to the model's distinct
 * addresses - 1. One cmocka test per configuration.
 *
 * Then one test per claim of the seeds (004: constant memory), each
 * printing a short table of the evidence ("# " lines) for results/h200/
 * suite/gpu-test-probes-summary.txt:
 *   - a read is broadcast to a half-warp, saving 15 reads;
 *   - there are 64 KB of constant memory, filled with cudaMemcpyToSymbol
 *     (checked in this process: 65536 bytes copy, 65537 do not);
 *   - constant data is cached: repeated reads of one address make no
 *     extra memory traffic.
 *
 * MEMPROBE names the binary (default ./memprobe); GPU_TEST_DIR where the
 * CSVs go (default results/gpu-test). Total GPU time: about 10-20 s.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "const_model.h"
#include "constant.h"
#include "device.h"
#include "gpu_util.h"

/* Uniform LDCs the compiler may add (parameters, stack): 16 per warp,
 * and for the global and __ldg kernels one per group of 8 loads (ptxas
 * re-reads the data pointer in the loop); as in probes/const/constant.c. */
#define MAX_EXTRA_LDC_PER_WARP 16

enum { SWEEP, SOURCES, INTERLEAVED2, INTERLEAVED16, NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];

/* One configuration: the checks every row must pass (besides verified
 * and counters ok, which gpu_run_row_tests checks). */
static void check_row(const mp_csv_table *t, int i)
{
    const char *config = gpu_cell(t, i, "config");
    double requests = gpu_number(t, i, "requests");
    double warps = gpu_number(t, i, "blocks")
                   * gpu_number(t, i, "threads_per_block") / 32;
    double ldc = gpu_number(t, i, "smsp__inst_executed_op_ldc.sum");
    int constant = !strcmp(gpu_cell(t, i, "source"), "constant");
    /* The probe issues one LDC per warp and iteration (constant) or none
     * (global, ldg); the compiler adds a few uniform ones per warp. */
    double extra = ldc - (constant ? requests : 0);
    double allowed = MAX_EXTRA_LDC_PER_WARP * warps
                     + (constant ? 0 : requests / MP_CONST_SLOTS);
    if (extra < 0 || extra > allowed)
        fail_msg("%s: %.0f LDC for %.0f requests (%.0f warps)", config, ldc,
                 requests, warps);
    double measured = gpu_number(t, i, "replays_per_request");
    double model = gpu_number(t, i, "model_replays_per_request");
    if (fabs(measured - model) > 1e-3)
        fail_msg("%s: measured %.4f replays per request, model %.0f "
                 "(distinct %s, 64-byte lines: see predict)", config,
                 measured, model, gpu_cell(t, i, "model_distinct_addresses"));
    assert_string_equal(gpu_cell(t, i, "model_match"), "yes");
}

/* The evidence tables: per request where the constant set may lack the
 * counter (nan then). */
#define PER_REQUEST(title, column) \
    GPU_COL_FLAGS(title, "%8.4f", column, \
                  GPU_COL_PER_REQUEST | GPU_COL_OPTIONAL)
static const gpu_col cols[] = {
    GPU_COL("config", "%-30s", "config"),
    GPU_COL("cyc/req", "%9.3f", "cycles_per_request_per_sm"),
    GPU_COL("ns/req", "%8.4f", "ns_per_request_per_sm"),
    PER_REQUEST("LDC/req", "smsp__inst_executed_op_ldc.sum"),
    PER_REQUEST("IDC/req", "idc__requests.sum"),
    GPU_COL("repl/req", "%8.4f", "replays_per_request"),
    GPU_COL("model", "%8s", "model_replays_per_request"),
    PER_REQUEST("hit/req", "idc__requests_lookup_hit.sum"),
    PER_REQUEST("L2sec/req", "lts__t_sectors_srcunit_gcc.sum"),
    GPU_COL_END,
};

/* Seed claim: "a single read is broadcast to the neighbouring threads
 * (a half-warp), saving 15 reads". Evidence: spread 1 (all 32 lanes, one
 * address) against spread 2..32, and the blocked lane mapping (each
 * half-warp reads half the addresses) against the interleaved one (each
 * half-warp reads all of them): the seeds' rule predicts twice the reads
 * for interleaved; the full-warp rule the same replays. */
static void test_claim_broadcast(void **state)
{
    (void)state;
    const mp_csv_table *t = &sweeps[SWEEP];
    static const int spreads[] = {1, 2, 4, 8, 16, 32};
    printf("# claim: a constant read is broadcast to a half-warp "
           "(seed 004)\n");
    gpu_print_header(cols);
    char name[96];
    for (int sp = 4; sp <= 128; sp += 124)
        for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; k++) {
            int s = spreads[k], g, p;
            assert_int_equal(mp_const_lanes(s, 0, 0, &g, &p), 0);
            snprintf(name, sizeof name, "const/constant/s%d/sp%d/g%d/p%d",
                     s, sp, g, p);
            gpu_print_row(cols, t, gpu_find_row(t, name));
        }
    printf("# blocked (g = 32/spread) vs interleaved (g1, p = spread):\n");
    gpu_print_header(cols);
    const mp_csv_table *i2 = &sweeps[INTERLEAVED2];
    const mp_csv_table *i16 = &sweeps[INTERLEAVED16];
    gpu_print_row(cols, t, gpu_find_row(t, "const/constant/s2/sp4/g16/p32"));
    gpu_print_row(cols, i2, gpu_find_row(i2, "const/constant/s2/sp4/g1/p2"));
    gpu_print_row(cols, t, gpu_find_row(t, "const/constant/s16/sp4/g2/p32"));
    gpu_print_row(cols, i16,
                  gpu_find_row(i16, "const/constant/s16/sp4/g1/p16"));
    /* Replays follow distinct addresses per WARP, whatever the halves. */
    assert_true(gpu_number(i2, 0, "replays_per_request")
                == gpu_number(t,
                              gpu_find_row(t, "const/constant/s2/sp4/g16/p32"),
                              "replays_per_request"));
}

/* Seed claim: "NVIDIA hardware provides 64 KB of constant memory", filled
 * with cudaMemcpyToSymbol. In this process: the device's totalConstMem,
 * the probe's __constant__ array (the whole 64 KB), and copies of 65536
 * and 65537 bytes into it. */
static void test_claim_64kb(void **state)
{
    (void)state;
    mp_device dev;
    char why[256];
    if (mp_device_open(0, &dev, why, sizeof why))
        fail_msg("%s", why);
    unsigned char *buf = calloc(MP_CONST_BANK_BYTES + 1, 1);
    assert_non_null(buf);
    int full = mp_const_fill(buf, MP_CONST_BANK_BYTES);
    int over = mp_const_fill(buf, MP_CONST_BANK_BYTES + 1);
    (void)cudaGetLastError();   /* clear the refused copy's error */
    free(buf);
    printf("# claim: 64 KB of constant memory (seed 004)\n");
    printf("# %-40s %s\n", "what", "result");
    printf("# %-40s %zu bytes (%s)\n", "device totalConstMem",
           dev.const_mem_bytes, dev.name);
    printf("# %-40s %lu bytes\n", "the probe's __constant__ array",
           mp_const_symbol_bytes());
    printf("# %-40s %s\n", "cudaMemcpyToSymbol of 65536 bytes",
           cudaGetErrorName((cudaError_t)full));
    printf("# %-40s %s\n", "cudaMemcpyToSymbol of 65537 bytes",
           cudaGetErrorName((cudaError_t)over));
    assert_int_equal(mp_const_symbol_bytes(), MP_CONST_BANK_BYTES);
    assert_int_equal(full, 0);
    assert_int_not_equal(over, 0);
}

/* Seed claim: "constant memory is cached, so repeated reads of the same
 * address cause no extra memory traffic". Evidence: every warp re-reads
 * the same 8 slots iterations / 8 times; IDC requests and (when the
 * constant set has them) IDC hits and L2 sectors per request, and the
 * time per request against global and __ldg loads of the same words. */
static void test_claim_caching(void **state)
{
    (void)state;
    const mp_csv_table *t = &sweeps[SOURCES];
    static const char *const sources[] = {"constant", "global", "ldg"};
    static const int spreads[] = {1, 2, 8, 32};
    printf("# claim: constant reads are cached (seed 004); source "
           "comparison\n");
    gpu_print_header(cols);
    char name[96];
    for (int sp = 4; sp <= 128; sp += 124)
        for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; k++)
            for (int s = 0; s < 3; s++) {
                int g, p;
                assert_int_equal(mp_const_lanes(spreads[k], 0, 0, &g, &p), 0);
                snprintf(name, sizeof name, "const/%s/s%d/sp%d/g%d/p%d",
                         sources[s], spreads[k], sp, g, p);
                gpu_print_row(cols, t, gpu_find_row(t, name));
            }
    if (mp_csv_column(t, "idc__requests_lookup_hit.sum") < 0)
        printf("# (the constant set has no idc__requests_lookup_hit/miss "
               "or lts__t_sectors_srcunit_gcc: hit/req and L2sec/req are "
               "nan)\n");
}

int main(void)
{
    static const gpu_sweep defs[NSWEEPS] = {
        [SWEEP] = {"const-sweep",
                   "--source constant --spread 1..32 --spacing 4,64,128 "
                   "--iterations 1024 --warmup 1 --runs 5"},
        [SOURCES] = {"const-sources",
                     "--source constant,global,ldg --spread 1,2,8,32 "
                     "--spacing 4,128 --iterations 1024 --warmup 1 --runs 5"},
        [INTERLEAVED2] = {"const-interleaved2",
                          "--spread 2 --group 1 --period 2 --iterations 1024 "
                          "--warmup 1 --runs 5"},
        [INTERLEAVED16] = {"const-interleaved16",
                           "--spread 16 --group 1 --period 16 "
                           "--iterations 1024 --warmup 1 --runs 5"},
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("claim_broadcast_half_warp", test_claim_broadcast),
        GPU_TEST("claim_64kb_constant_memory", test_claim_64kb),
        GPU_TEST("claim_cached_repeated_reads", test_claim_caching),
    };
    gpu_run_sweeps("const", defs, NSWEEPS, sweeps, NULL);
    return gpu_run_row_tests("gpu_constant", sweeps, NSWEEPS, check_row, NULL,
                             0, after, sizeof after / sizeof after[0]);
}
