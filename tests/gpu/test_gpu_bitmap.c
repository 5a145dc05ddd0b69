/*
 * test_gpu_bitmap.c - GPU tests of the seeds' 2D shared-memory kernel
 * (the bitmap probe) and of the bank probe's 2D blocks (run on the GPU
 * machine by `make test-gpu` or scripts/gpu-check.sh bank2d).
 *
 * Sweeps, with counters from memprobe's own collector:
 *   bitmap   the seed's kernel as written and its two fixes, each with the
 *            write's (st) and the mirrored read's (ld) counters: the image
 *            must equal the CPU's (memprobe's verify; a pixel one grey
 *            level off from the CPU's sinf is allowed and counted), one
 *            STS and one LDS per warp, stores' wavefronts per instruction
 *            equal to the model, the fixed versions' loads at or above
 *            it with a bounded measured excess (BITMAP_LOAD_EXCESS). The
 *            seed's load figure is printed beside the model, not
 *            asserted: the issue asks for it to be reported as measured.
 *   bank2d   the bank probe's loop over 2D block addresses: every index
 *            form, pads 0 and 1, blocks 8|16|32 x 8|16 and 48x2 (warps
 *            with different costs: 2, 1, 2 -> mean 5/3): one
 *            request per warp per iteration, wavefronts = the model's mean
 *            over the block's warps.
 * Expected run time on the H200: about 20 s.
 *
 * MEMPROBE names the binary (default ./memprobe); GPU_TEST_DIR where the
 * CSVs go (default results/gpu-test); GPU_TEST_SKIP_SWEEP=1 skips the
 * runs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_util.h"

/* The bitmap kernel's stores equal the model exactly on the H200 (seed 8,
 * yx 1, pad 2 wavefronts per STS: results/h200/bitmap/bitmap.csv), its
 * mirrored loads do not: they carry an excess over the addresses'
 * prediction, measured 8.1229 (seed, model 8), 1.0259 (yx, model 1) and
 * 2.0518 (pad, model 2) wavefronts per LDS, i.e. 0.026-0.12 per LDS; the
 * loads of the bitmap kernel run while other warps of the block still store.
 * The test asserts the loads of the fixed layouts at or above the model and
 * at most BITMAP_LOAD_EXCESS above it (about twice pad's 0.052; the seed's
 * 0.12 is printed, not asserted, as the issue asks for the seed as written).
 * The bank loop only loads or only stores: within BANK_NOISE
 * (probes/metric_sets.c, 1e-3 per request). */
#define BITMAP_LOAD_EXCESS 0.1
#define BANK_NOISE 0.001

enum { BITMAP, BANK2D, BANK2D_48X2, NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];

/* Half a unit in the last place the CSV printed `cell` with: the CSV
 * prints measured wavefronts per request with 4 decimals and the model
 * with 5, so 48x2/pad1's 1.3333 equals the model's 1.33333. */
static double printed_half_ulp(const char *cell)
{
    const char *dot = strchr(cell, '.');
    int decimals = dot ? (int)strspn(dot + 1, "0123456789") : 0;
    return 0.5 * pow(10.0, -decimals) + 1e-12;
}

static void check_row(const mp_csv_table *t, int i)
{
    const char *op = gpu_cell(t, i, "op");
    const char *probe = gpu_cell(t, i, "probe");
    gpu_assert_one_shared_inst(t, i);
    double measured = gpu_number(t, i, "wavefronts_per_request");
    double model = gpu_number(t, i, "model_wavefronts_per_request");
    double half_ulp = printed_half_ulp(gpu_cell(t, i, "wavefronts_per_request"));
    int bank = strcmp(probe, "bank") == 0;
    int store = strcmp(op, "st") == 0;
    int fixed = bank || strcmp(gpu_cell(t, i, "layout"), "seed") != 0;
    /* Bank rows: model up to BANK_NOISE above it. Bitmap stores: the
     * model (every layout). Bitmap loads: the model up to
     * BITMAP_LOAD_EXCESS above it (fixed layouts; the seed reported). */
    double above = bank ? BANK_NOISE : store ? 0 : BITMAP_LOAD_EXCESS;
    int checked = bank || store || fixed;
    printf("# %-36s measured %.4f model %.4f excess %+.4f%s\n",
           gpu_cell(t, i, "config"), measured, model, measured - model,
           checked ? "" : " (seed as written: reported)");
    if (checked && !(measured >= model - half_ulp
                     && measured - model <= above + half_ulp))
        fail_msg("%s: measured %.4f wavefronts per request, model %.4f "
                 "(allowed %.4f above it)", gpu_cell(t, i, "config"),
                 measured, model, above);
}

static const gpu_col bitmap_cols[] = {
    GPU_COL("configuration", "%-24s", "config"),
    GPU_COL("access", "%-14s", "access"),
    GPU_COL("wf/inst", "%8.4f", "wavefronts_per_request"),
    GPU_COL("model", "%6.3f", "model_wavefronts_per_request"),
    GPU_COL("conflicts", "%10.0f",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    GPU_COL("ld conflicts", "%12.0f",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    GPU_COL("us", "%8.2f", "time_ns_median"),
    GPU_COL_END,
};

/* The evidence as a table: wavefronts per instruction beside the model,
 * the raw conflict counters and the launch time (CUDA events: the seed's
 * kernel has no clock code, and memprobe adds none).
 * Times are printed, not asserted (project rule: performance is read from
 * a measured table). */
static void test_bitmap_table(void **state)
{
    (void)state;
    gpu_print_table(bitmap_cols, &sweeps[BITMAP]);
}

int main(void)
{
    static const char *const probe[NSWEEPS] = {"bitmap", "bank", "bank"};
    static const gpu_sweep defs[NSWEEPS] = {
        [BITMAP] = {"bitmap", "--layout seed,yx,pad --op st,ld"},
        [BANK2D] = {"bank2d",
                    "--index xy,yx,xy-mirror,yx-mirror --pad 0,1 --op ld,st "
                    "--block-x 8,16,32 --block-y 8,16 --iterations 1024 "
                    "--runs 3"},
        [BANK2D_48X2] = {"bank2d-48x2",
                         "--index xy,yx,xy-mirror,yx-mirror --pad 0,1 "
                         "--op ld,st --block-x 48 --block-y 2 "
                         "--iterations 1024 --runs 3"},
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("bitmap_table", test_bitmap_table),
    };
    if (getenv("GPU_TEST_SKIP_SWEEP") == NULL)
        for (int i = 0; i < NSWEEPS; i++)
            gpu_run_sweep(probe[i], defs[i].name, defs[i].args, &sweeps[i]);
    return gpu_run_row_tests("gpu_bitmap", sweeps, NSWEEPS, check_row, NULL,
                             0, after, sizeof after / sizeof after[0]);
}
