/*
 * test_gpu_reduce.c - GPU tests of the reduction probe (run on the GPU
 * machine by `make test-gpu`).
 *
 * Four sweeps with counters from memprobe's own collector:
 *   sizes   every variant x workload at sizes 1, 255, 256, 257, 33792,
 *           1000003 (a prime) and 1048576, 128 threads, blocks filling
 *           the GPU (256 threads are in the seeds and large sweeps)
 *   shapes  every variant x workload at 257 and 1000003 elements with 32
 *           and 1024 threads and 1 and 7 blocks
 *   seeds   the ladder at the seeds' sizes (1M cubes, 33 x 1024 dot), with
 *           the seeds' 32 blocks and with the GPU filled
 *   large   the ladder for a dot product of 2^26 elements (512 MiB, 8.5x
 *           the H200's L2)
 * Every row is one cmocka test: the result verified (memprobe's verify:
 * ints exactly, floats within the rounding bound), counters read, exactly
 * the model's LDS and STS instructions, load and store wavefronts as the
 * model says (model_match), the bandwidth columns and the seeds' clock64
 * span present. Then: tree-strided's bank conflicts against
 * tree-sequential's, and the ladder tables (time, GB/s, fraction of the
 * measured read bandwidth, wavefronts per request, conflicts, clock64 span
 * against the event time) as "# " lines. Performance targets are NOT
 * asserted (project rule: they are read from a measured table).
 *
 * Expected run time on the H200: under 60 s (about 270 configurations,
 * two setups each; the 2^26 dot inputs take ~0.5 s to generate).
 *
 * MEMPROBE names the binary (default ./memprobe); GPU_TEST_DIR where the
 * CSVs go (default results/gpu-test); GPU_TEST_SKIP_SWEEP=1 skips the
 * runs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_util.h"

#define ALL_VARIANTS                                                       \
    "host-partials,thread0-serial,tree-interleaved,tree-strided,"          \
    "tree-sequential,warp-shuffle,atomic"

enum { SIZES, SHAPES, SEEDS, LARGE, NSWEEPS };

static const gpu_sweep sweep_def[NSWEEPS] = {
    [SIZES] = {"reduce-sizes",
               "--variant " ALL_VARIANTS " --workload cubes,dot "
               "--size 1,255,256,257,33792,1000003,1048576 --threads 128 "
               "--warmup 1 --runs 3"},
    [SHAPES] = {"reduce-shapes",
                "--variant " ALL_VARIANTS " --workload cubes,dot "
                "--size 257,1000003 --threads 32,1024 --blocks 1,7 "
                "--warmup 1 --runs 3"},
    [SEEDS] = {"reduce-seeds",
               "--variant " ALL_VARIANTS " --workload cubes,dot "
               "--blocks 32,0 --runs 20"},
    [LARGE] = {"reduce-large",
               "--variant " ALL_VARIANTS " --workload dot --size 67108864 "
               "--runs 20"},
};

static mp_csv_table sweeps[NSWEEPS];
static int sweep_rc[NSWEEPS];

#define LD_INST "smsp__sass_inst_executed_op_shared_ld.sum"
#define ST_INST "smsp__sass_inst_executed_op_shared_st.sum"
#define LD_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define ST_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"

/* The variant in a configuration name "reduce/VARIANT/WORKLOAD/...". */
static int is_variant(const mp_csv_table *t, int i, const char *variant)
{
    char want[64];
    snprintf(want, sizeof want, "reduce/%s/", variant);
    return strncmp(gpu_cell(t, i, "config"), want, strlen(want)) == 0;
}

/* One configuration: the checks every row must pass (besides verified
 * and counters ok, which gpu_run_row_tests checks). */
static void check_row(const mp_csv_table *t, int i)
{
    const char *config = gpu_cell(t, i, "config");
    /* The LDS count is the model's: "requests" is the model's loads per
     * launch (one per warp with a lane in each access). */
    double requests = gpu_number(t, i, "requests");
    double ld = gpu_number(t, i, LD_INST);
    if (ld != requests)
        fail_msg("%s: %.0f LDS instructions, the model counts %.0f", config,
                 ld, requests);
    if (requests > 0) {
        double measured = gpu_number(t, i, "wavefronts_per_request");
        double model = gpu_number(t, i, "model_wavefronts_per_request");
        print_message("# %s: %.4f wavefronts per load (model %.4g), %.0f "
                      "STS\n", config, measured, model,
                      gpu_number(t, i, ST_INST));
    } else {
        /* host-partials: no shared memory at all. */
        assert_true(gpu_number(t, i, ST_INST) == 0);
    }
    if (strcmp(gpu_cell(t, i, "model_match"), "yes"))
        fail_msg("%s: the shared-memory counters differ from the model "
                 "(STS count or wavefronts; see the CSV)", config);
    /* Timing and the derived columns. */
    assert_true(gpu_number(t, i, "time_ns_median") > 0);
    /* Bandwidth = bytes read / median time, printed to 0.1 GB/s (a
     * one-element launch rounds to 0.0). */
    double bytes = gpu_number(t, i, "elements")
                   * (strstr(config, "/dot/") ? 8.0 : 4.0);
    double gbs = gpu_number(t, i, "bandwidth_gbs");
    if (fabs(gbs - bytes / gpu_number(t, i, "time_ns_median"))
        > 0.051 + 1e-3 * gbs)
        fail_msg("%s: %.1f GB/s, but %.0f bytes in %.0f ns", config, gbs,
                 bytes, gpu_number(t, i, "time_ns_median"));
    double ceiling = gpu_number(t, i, "ceiling_gbs");
    assert_true(ceiling > 0);
    assert_true(fabs(gpu_number(t, i, "bandwidth_fraction")
                     - gpu_number(t, i, "bandwidth_gbs") / ceiling) < 1e-3);
    assert_true(gpu_number(t, i, "clock64_span_cycles") > 0);
}

static void test_sweep_exit(void **state)
{
    int s = (int)(intptr_t)*state;
    if (sweep_rc[s] != 0)
        fail_msg("memprobe reduce %s exited %d (see %s/%s.log)",
                 sweep_def[s].args, sweep_rc[s], gpu_test_dir(),
                 sweep_def[s].name);
}

/* Every configuration of a sweep has a row (a wrong output is reported
 * without numbers and would be missing its test otherwise). */
static void test_row_counts(void **state)
{
    (void)state;
    static const int want[NSWEEPS] = {
        [SIZES] = 7 * 2 * 7, [SHAPES] = 7 * 2 * 2 * 2 * 2,
        [SEEDS] = 7 * 2 * 2, [LARGE] = 7};
    for (int s = 0; s < NSWEEPS; s++)
        if (sweeps[s].nrows != want[s])
            fail_msg("%s: %d rows, want %d", sweep_def[s].name,
                     sweeps[s].nrows, want[s]);
}

/* The strided tree has the bank conflicts the model predicts; the
 * sequential one (same requests) has none beyond arbitration noise. */
static void test_conflicts(void **state)
{
    (void)state;
    const mp_csv_table *t = &sweeps[SEEDS];
    int checked = 0;
    for (int i = 0; i < t->nrows; i++) {
        double req = gpu_number(t, i, "requests");
        if (req <= 0)
            continue;
        double conflicts = gpu_number(t, i, LD_CONFLICTS);
        double model = gpu_number(t, i, "model_wavefronts_per_request")
                       - gpu_number(t, i, "model_ideal_wavefronts_per_request");
        printf("# %-48s load conflicts %.4f per request (model %.4f), "
               "store conflicts %.0f\n", gpu_cell(t, i, "config"),
               conflicts / req, model, gpu_number(t, i, ST_CONFLICTS));
        if (is_variant(t, i, "tree-strided")) {
            assert_true(conflicts / req >= model - 1e-3);
            checked++;
        }
        if (is_variant(t, i, "tree-sequential")) {
            assert_true(conflicts / req < 0.125);
            checked++;
        }
    }
    assert_int_equal(checked, 8);
}

/* Event time in SM cycles at the reported clock. */
static double event_cycles(const mp_csv_table *t, int i)
{
    return gpu_number(t, i, "time_ns_median")
           * gpu_number(t, i, "sm_clock_mhz") / 1000.0;
}

/* The seeds' clock64 span over the event time (both in cycles). */
static double span_ratio(const mp_csv_table *t, int i)
{
    return gpu_number(t, i, "clock64_span_cycles") / event_cycles(t, i);
}

static double block_ratio(const mp_csv_table *t, int i)
{
    return gpu_number(t, i, "clock64_block_cycles_median")
           / event_cycles(t, i);
}

static double time_us(const mp_csv_table *t, int i)
{
    return gpu_number(t, i, "time_ns_median") / 1000.0;
}

static const gpu_col ladder_cols[] = {
    GPU_COL("configuration", "%-48s", "config"),
    GPU_COL_VALUE("us", "%9.2f", time_us),
    GPU_COL("GB/s", "%8.1f", "bandwidth_gbs"),
    GPU_COL_SCALED("%read", "%7.1f", "bandwidth_fraction", 100),
    GPU_COL_FLAGS("wf/ld", "%6.3f", "wavefronts_per_request",
                  GPU_COL_OPTIONAL),
    GPU_COL_FLAGS("model", "%6.3f", "model_wavefronts_per_request",
                  GPU_COL_OPTIONAL),
    GPU_COL("LDS", "%8.0f", LD_INST),
    GPU_COL("conflicts", "%9.0f", LD_CONFLICTS),
    GPU_COL("clk64 span", "%10.0f", "clock64_span_cycles"),
    GPU_COL_VALUE("event cyc", "%10.0f", event_cycles),
    GPU_COL_VALUE("span/ev", "%7.2f", span_ratio),
    GPU_COL_VALUE("blk/ev", "%7.2f", block_ratio),
    GPU_COL_FLAGS("host ns", "%9.0f", "host_ns_median", GPU_COL_OPTIONAL),
    GPU_COL_END,
};

static void test_ladder_tables(void **state)
{
    (void)state;
    printf("# The ladder at the seeds' sizes (b32 = the seeds' 32 blocks, "
           "b0 = blocks filling the GPU):\n");
    gpu_print_table(ladder_cols, &sweeps[SEEDS]);
    printf("# The ladder for a dot product of 2^26 elements:\n");
    gpu_print_table(ladder_cols, &sweeps[LARGE]);
    printf("# read-bandwidth ceiling (bandwidth probe's 16-byte read of "
           "1 GiB): %.1f GB/s\n", gpu_number(&sweeps[LARGE], 0,
                                              "ceiling_gbs"));
    assert_int_equal(sweeps[SEEDS].nrows, 28);
    assert_int_equal(sweeps[LARGE].nrows, 7);
}

/* clock64 against CUDA events where one block runs on one SM (blocks 1)
 * and where 7 blocks run on 7 SMs: printed, so users see where they
 * agree (the ladder tables show the full GPU). */
static void test_clock64_vs_events(void **state)
{
    (void)state;
    static const gpu_col cols[] = {
        GPU_COL("configuration", "%-48s", "config"),
        GPU_COL_VALUE("us", "%9.2f", time_us),
        GPU_COL("clk64 span", "%10.0f", "clock64_span_cycles"),
        GPU_COL_VALUE("event cyc", "%10.0f", event_cycles),
        GPU_COL_VALUE("span/ev", "%7.2f", span_ratio),
        GPU_COL_END,
    };
    const mp_csv_table *t = &sweeps[SHAPES];
    gpu_print_header(cols);
    int printed = 0;
    for (int i = 0; i < t->nrows; i++)
        if (strstr(gpu_cell(t, i, "config"), "/n1000003/")) {
            gpu_print_row(cols, t, i);
            printed++;
        }
    assert_int_equal(printed, 7 * 2 * 2 * 2);
}

int main(void)
{
    static const struct CMUnitTest before[] = {
        {"sizes: exit status", test_sweep_exit, NULL, NULL,
         (void *)(intptr_t)SIZES},
        {"shapes: exit status", test_sweep_exit, NULL, NULL,
         (void *)(intptr_t)SHAPES},
        {"seeds: exit status", test_sweep_exit, NULL, NULL,
         (void *)(intptr_t)SEEDS},
        {"large: exit status", test_sweep_exit, NULL, NULL,
         (void *)(intptr_t)LARGE},
        GPU_TEST("row_counts", test_row_counts),
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("conflicts", test_conflicts),
        GPU_TEST("ladder_tables", test_ladder_tables),
        GPU_TEST("clock64_vs_events", test_clock64_vs_events),
    };
    if (getenv("GPU_TEST_SKIP_SWEEP") == NULL)
        gpu_run_sweeps("reduce", sweep_def, NSWEEPS, sweeps, sweep_rc);
    return gpu_run_row_tests("gpu_reduce", sweeps, NSWEEPS, check_row, before,
                             sizeof before / sizeof before[0], after,
                             sizeof after / sizeof after[0]);
}
