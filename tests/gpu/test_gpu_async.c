/*
 * test_gpu_async.c - GPU tests of the async-copy probe (run on an sm_90
 * GPU by `make test-gpu` or scripts/gpu-check.sh async).
 *
 * Runs three sweeps with memprobe's collector: DRAM -> shared (256 MiB,
 * every method at 16 bytes), L2-resident (16 MiB x 32 passes, staged and
 * cpasync at 4, 8, 16 bytes) and the tensor copy with each swizzle. Every row must be
 * verified (each block's data and its last tile's layout, the swizzles
 * included, checked on the CPU), have its counters, and:
 *   - staged / cpasync: the copy instructions (STS / LDGSTS) equal the
 *     model's requests exactly; shared-store wavefronts per request within
 *     0.5 of the model (32 x width / 128; stores next to other warps'
 *     LDS carry arbitration excess, see docs/findings.md);
 *   - bulk / tensor: no STS or LDGSTS, and the TMA received the bytes the
 *     model says (1%).
 * Then a table of GB/s per method ("# " lines) and a claim test: the
 * async copies reach at least the seeds' staged copy's bandwidth within
 * 10% (the study's question; the numbers are printed either way).
 *
 * Total GPU time: about 15-25 s.
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

enum { DRAM, L2, SWIZZLE, NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];

static void check_row(const mp_csv_table *t, int i)
{
    const char *config = gpu_cell(t, i, "config");
    const char *method = gpu_cell(t, i, "method");
    double requests = gpu_number(t, i, "requests");
    double sts = gpu_number(t, i, "smsp__sass_inst_executed_op_shared_st.sum");
    double ldgsts = gpu_number(t, i, "smsp__inst_executed_op_ldgsts.sum");
    if (!strcmp(method, "staged") || !strcmp(method, "cpasync")) {
        double own = !strcmp(method, "staged") ? sts : ldgsts;
        if (own != requests)
            fail_msg("%s: %.0f copy instructions, the model %.0f", config,
                     own, requests);
        double per = gpu_number(t, i, "wavefronts_per_request");
        double model = gpu_number(t, i, "model_wavefronts_per_request");
        if (fabs(per - model) > 0.5)
            fail_msg("%s: %.4f shared-store wavefronts per request, model "
                     "%.0f", config, per, model);
    } else {
        double bytes = gpu_number(t, i, "array_bytes")
                       * gpu_number(t, i, "passes");
        double tma = gpu_number(t, i,
                                "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum");
        if (sts != 0 || ldgsts != 0)
            fail_msg("%s: %.0f STS and %.0f LDGSTS in a TMA copy", config,
                     sts, ldgsts);
        if (fabs(tma - bytes) > 0.01 * bytes)
            fail_msg("%s: the TMA received %.0f bytes, the launch copies "
                     "%.0f", config, tma, bytes);
    }
    assert_string_equal(gpu_cell(t, i, "model_match"), "yes");
}

static const gpu_col cols[] = {
    GPU_COL("config", "%-52s", "config"),
    GPU_COL("GB/s", "%8.1f", "bandwidth_gbs"),
    GPU_COL("of DRAM", "%8.4f", "bandwidth_fraction"),
    GPU_COL("wf/req", "%7.3f", "wavefronts_per_request"),
    GPU_COL("model", "%6s", "model_wavefronts_per_request"),
    GPU_COL_FLAGS("TMA B/req", "%10.1f",
                  "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum",
                  GPU_COL_PER_REQUEST),
    GPU_COL_FLAGS("LDGSTS conf", "%11.0f",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
                  GPU_COL_OPTIONAL),
    GPU_COL_END,
};

/* Study question: the seeds stage through registers; are cp.async and the
 * TMA faster? Printed for both sweeps; asserted only that no async
 * method falls more than 10% below the best staged copy in DRAM. */
static void test_claim_async_not_slower(void **state)
{
    (void)state;
    for (int s = 0; s < NSWEEPS; s++) {
        printf("# %s\n", s == DRAM ? "DRAM -> shared" : s == L2
               ? "L2 -> shared" : "tensor copies, each swizzle (L2)");
        gpu_print_table(cols, &sweeps[s]);
    }
    const mp_csv_table *t = &sweeps[DRAM];
    double staged = 0, best_async = 0;
    for (int i = 0; i < t->nrows; i++) {
        double gbs = gpu_number(t, i, "bandwidth_gbs");
        if (!strcmp(gpu_cell(t, i, "method"), "staged"))
            staged = gbs > staged ? gbs : staged;
        else
            best_async = gbs > best_async ? gbs : best_async;
    }
    printf("# best staged %.1f GB/s, best async %.1f GB/s\n", staged,
           best_async);
    assert_true(staged > 0);
    assert_true(best_async >= 0.9 * staged);
}

int main(void)
{
    static const gpu_sweep defs[NSWEEPS] = {
        [DRAM] = {"async-dram",
                  "--method staged,cpasync,bulk,tensor --width 16 "
                  "--swizzle none --warmup 1 --runs 5"},
        [L2] = {"async-l2",
                "--method staged,cpasync --width 4,8,16 --bytes 16777216 "
                "--passes 32 --warmup 1 --runs 5"},
        [SWIZZLE] = {"async-swizzle",
                     "--method tensor --swizzle none,32,64,128 "
                     "--tile 4096,16384 --bytes 16777216 --passes 8 "
                     "--warmup 1 --runs 5"},
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("claim_async_copies_not_slower", test_claim_async_not_slower),
    };
    gpu_run_sweeps("async", defs, NSWEEPS, sweeps, NULL);
    return gpu_run_row_tests("gpu_async", sweeps, NSWEEPS, check_row, NULL, 0,
                             after, sizeof after / sizeof after[0]);
}
