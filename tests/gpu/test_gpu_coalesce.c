/*
 * test_gpu_coalesce.c - GPU tests of the coalesce probe (run on the GPU
 * machine by `make test-gpu`).
 *
 * Runs the sweep (each width x offsets 0..128 (4 B: 0..64) x strides
 * 1,2,3,4,8,32, loads and stores), the cg loads, the group/period patterns
 * and the four layouts with counters from memprobe's own collector, then
 * checks every row: output verified, counters read, one L1TEX request per
 * warp-level instruction, measured sectors per request equal to the model
 * and model_match "yes" (totals: requests and sectors per launch equal
 * instructions x the model's counts per instruction, exactly). One cmocka
 * test per configuration, named after it. The layouts' counters and times
 * are printed as a table. Finally the collector against ncu (memprobe
 * ncu-check --probe coalesce).
 *
 * The pattern sweeps use a small grid (132 blocks x 4 iterations): sector
 * counts do not depend on the launch shape, and it keeps the whole test
 * near 30 s. The layouts run at the default shape (fill the GPU, 64
 * iterations: arrays of about 280 MB, beyond the 60 MB L2), so their times
 * mean something.
 *
 * MEMPROBE names the binary (default ./memprobe); GPU_TEST_DIR where the
 * CSVs go (default results/gpu-test).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../mp_skip.h"

#include "gpu_util.h"
#include "subprocess.h"

/* The L1TEX counter `what` (requests, sectors) of the row's op. */
static double l1(const mp_csv_table *t, int i, const char *what,
                 const char *op)
{
    char name[96];
    snprintf(name, sizeof name, "l1tex__t_%s_pipe_lsu_mem_global_op_%s.sum",
             what, op);
    return gpu_number(t, i, name);
}

/* One configuration: the checks every row must pass (besides verified
 * and counters ok, which gpu_run_row_tests checks). */
static void check_row(const mp_csv_table *t, int i)
{
    const char *config = gpu_cell(t, i, "config");
    const char *op = gpu_cell(t, i, "op");
    double instructions = gpu_number(t, i, "requests");
    double requests = l1(t, i, "requests", op);
    double sectors = l1(t, i, "sectors", op);
    /* One L1TEX request per warp-level LDG/STG of the probed op. If wide
     * accesses are split on this GPU, this says by how much. */
    if (requests != instructions)
        fail_msg("%s: %.0f L1TEX requests for %.0f instructions (%.4f per "
                 "instruction); sectors per instruction %.4f", config,
                 requests, instructions, requests / instructions,
                 sectors / instructions);
    double measured = gpu_number(t, i, "sectors_per_request");
    double model = gpu_number(t, i, "model_sectors_per_request");
    if (fabs(measured - model) > 1e-9)
        fail_msg("%s: measured %.4f sectors per request, model %g", config,
                 measured, model);
    assert_string_equal(gpu_cell(t, i, "model_match"), "yes");
}

enum { SWEEP_W4, SWEEP_W8, SWEEP_W16, SWEEP_CG, SWEEP_GROUPS, SWEEP_LAYOUTS,
       NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];

/* The layouts side by side: times, sectors, L2 and DRAM traffic. */
static const gpu_col layout_cols[] = {
    GPU_COL("layout", "%-24s", "config"),
    GPU_COL("time ns", "%10.0f", "time_ns_median"),
    GPU_COL("ld sec/r", "%8.3f", "sectors_per_request"),
    GPU_COL("model", "%8g", "model_sectors_per_request"),
    GPU_COL("ld sectors", "%10.0f",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    GPU_COL("L2 rd sect", "%12.0f", "lts__t_sectors_srcunit_tex_op_read.sum"),
    GPU_COL("DRAM rd B", "%12.0f", "dram__bytes_read.sum"),
    GPU_COL("GB/s", "%9.1f", "bandwidth_gbs"),
    GPU_COL_END,
};

static void test_layout_table(void **state)
{
    (void)state;
    const mp_csv_table *t = &sweeps[SWEEP_LAYOUTS];
    if (t->nrows == 0)
        MP_SKIP("GPU_TEST_SKIP_SWEEP is set: no sweep to check");
    assert_int_equal(t->nrows, 4);
    gpu_print_header(layout_cols);
    for (int i = 0; i < t->nrows; i++) {
        assert_string_equal(gpu_cell(t, i, "verified"), "yes");
        gpu_print_row(layout_cols, t, i);
    }
}

/* The collector against ncu on 24 of the standard set's 54
 * configurations (offsets 0 and 16, strides 1 and 32; both ops, every
 * width), every metric of the set: the whole set took 22 s of a suite
 * that must stay under 300 s; `scripts/gpu-check.sh regress` checks the
 * whole set. */
static void test_ncu_check(void **state)
{
    (void)state;
    char dir[1024], log[1024];
    snprintf(dir, sizeof dir, "%s/ncu-check-coalesce", gpu_test_dir());
    snprintf(log, sizeof log, "%s/ncu-check-coalesce.txt", gpu_test_dir());
    char *argv[] = {(char *)gpu_memprobe(), "ncu-check", "--probe",
                    "coalesce", "--dir", dir, "--args",
                    "--op ld,st --width 4,8,16 --offset 0,16 --stride 1,32 "
                    "--blocks 132 --iterations 64",
                    NULL};
    int rc = mp_spawn_wait(argv, log);
    printf("# memprobe ncu-check --probe coalesce -> exit %d (%s)\n", rc,
           log);
    assert_int_equal(rc, 0);
}

#define SMALL "--blocks 132 --iterations 4 --warmup 1 --runs 3"

int main(void)
{
    static const gpu_sweep defs[NSWEEPS] = {
        /* 4-byte offsets to 64 only: a warp's sectors repeat every 32
         * bytes of offset, so 0..64 holds two periods (0..128 ran 192
         * more configurations, beyond the GPU gate's 300 s). */
        [SWEEP_W4] = {"coalesce-w4", "--op ld,st --width 4 --offset 0..64:4 "
                                     "--stride 1,2,3,4,8,32 " SMALL},
        [SWEEP_W8] = {"coalesce-w8", "--op ld,st --width 8 --offset 0..128:8 "
                                     "--stride 1,2,3,4,8,32 " SMALL},
        [SWEEP_W16] = {"coalesce-w16",
                       "--op ld,st --width 16 --offset 0..128:16 "
                       "--stride 1,2,3,4,8,32 " SMALL},
        [SWEEP_CG] = {"coalesce-cg",
                      "--op ld --cache cg --width 4,8,16 --offset 0,16 "
                      "--stride 0,1,2,32 " SMALL},
        [SWEEP_GROUPS] = {"coalesce-groups",
                          "--op ld,st --width 4,16 --stride 0,1,3 "
                          "--group 1,2,32 --period 32,8 " SMALL},
        [SWEEP_LAYOUTS] = {"coalesce-layouts",
                           "--layout soa,aos12,aos16,aos12-staged"},
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("layout_table", test_layout_table),
        GPU_TEST("ncu_check_coalesce", test_ncu_check),
    };
    if (getenv("GPU_TEST_SKIP_SWEEP") == NULL)
        gpu_run_sweeps("coalesce", defs, NSWEEPS, sweeps, NULL);
    return gpu_run_row_tests("gpu_coalesce", sweeps, NSWEEPS, check_row, NULL,
                             0, after, sizeof after / sizeof after[0]);
}
