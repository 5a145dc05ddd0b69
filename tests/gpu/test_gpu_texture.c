/*
 * test_gpu_texture.c - GPU tests of the texture probe (run on the GPU
 * machine by `make test-gpu`).
 *
 * Runs every source (tex1d, tex2d, global, ldg) with every access pattern
 * (stencil, column, row) on a 4096 x 4096 grid, and on 32 x 32 and 96 x 96
 * grids (borders everywhere, partial blocks), with hardware counters from
 * memprobe's own collector. Every row: each output was checked against the
 * CPU reference (verified = yes), counters read, and for the LSU sources
 * (global, ldg) one L1TEX request per warp-level load and the row-major
 * sector model (model_match). For the TEX sources the rows print what
 * the TEX pipe counted (requests, instructions, sectors): no model is
 * claimed for them. One cmocka test per configuration.
 *
 * Then the seed's claim "texture memory suits reads with 2D spatial
 * locality" as a table: time, sectors per request, L1 hit rate and L2
 * sectors per request for each access and source at 4096 x 4096.
 *
 * MEMPROBE names the binary (default ./memprobe); GPU_TEST_DIR where the
 * CSVs go (default results/gpu-test). Total GPU time: about 10 s.
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
#include "texture.h"

enum { LARGE, SMALL, NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];

static int is_tex(const mp_csv_table *t, int i)
{
    const char *s = gpu_cell(t, i, "source");
    return !strcmp(s, "tex1d") || !strcmp(s, "tex2d");
}

/* One configuration: the checks every row must pass (besides verified
 * and counters ok, which gpu_run_row_tests checks). */
static void check_row(const mp_csv_table *t, int i)
{
    const char *config = gpu_cell(t, i, "config");
    double requests = gpu_number(t, i, "requests");
    if (is_tex(t, i)) {
        /* What the TEX pipe counted, for the record. The probe's loads
         * are its only texture fetches: a non-zero count is required. */
        double req = gpu_number(t, i,
                                "l1tex__t_requests_pipe_tex_mem_texture.sum");
        double inst = gpu_number(t, i, "smsp__inst_executed_op_texture.sum");
        printf("# %s: %.0f loads, TEX requests %.0f (%.4f per load), "
               "texture instructions %.0f, sectors/request %s\n", config,
               requests, req, req / requests, inst,
               gpu_cell(t, i, "sectors_per_request"));
        assert_true(req > 0);
        assert_true(gpu_number(t, i,
                               "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
                    == 0);
        return;
    }
    /* LSU: one request per warp-level load, and no texture traffic. */
    double req = gpu_number(t, i,
                            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    if (req != requests)
        fail_msg("%s: %.0f global-load requests for %.0f warp-level loads",
                 config, req, requests);
    assert_true(gpu_number(t, i, "l1tex__t_requests_pipe_tex_mem_texture.sum")
                == 0);
    double measured = gpu_number(t, i, "sectors_per_request");
    double model = gpu_number(t, i, "model_sectors_per_request");
    if (fabs(measured - model) > MP_TEX_SECTOR_NOISE)
        fail_msg("%s: measured %.4f sectors per request, model %.4f", config,
                 measured, model);
    assert_string_equal(gpu_cell(t, i, "model_match"), "yes");
}

static double time_us(const mp_csv_table *t, int i)
{
    return gpu_number(t, i, "time_ns_median") / 1e3;
}

/* L1 hit rate in percent: of the TEX pipe's sectors for the texture
 * sources, of the global loads' for the others; nan without sectors. */
static double hit_percent(const mp_csv_table *t, int i)
{
    int tex = is_tex(t, i);
    double sectors = gpu_number(
        t, i, tex ? "l1tex__t_sectors_pipe_tex_mem_texture.sum"
                  : "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    double hits = gpu_number(
        t, i,
        tex ? "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum"
            : "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum");
    return sectors > 0 ? 100.0 * hits / sectors : NAN;
}

/* Seed claim (004): texture memory is designed for access patterns with
 * much 2D spatial locality and cuts memory requests. Evidence per access
 * and source at 4096 x 4096: kernel time, time per request on one SM,
 * sectors per request at L1TEX, L1 hit rate, L2 sectors per request. */
static void test_claim_spatial_locality(void **state)
{
    (void)state;
    const mp_csv_table *t = &sweeps[LARGE];
    static const char *const access[] = {"stencil", "column", "row"};
    static const char *const sources[] = {"tex1d", "tex2d", "global", "ldg"};
    static const gpu_col cols[] = {
        GPU_COL("access", "%-8s", "access"),
        GPU_COL("source", "%-7s", "source"),
        GPU_COL_VALUE("time_us", "%10.1f", time_us),
        GPU_COL("cyc/req", "%9.3f", "cycles_per_request_per_sm"),
        GPU_COL("sec/req", "%8.4f", "sectors_per_request"),
        GPU_COL("model", "%8s", "model_sectors_per_request"),
        GPU_COL_VALUE("hit%", "%8.2f", hit_percent),
        GPU_COL_FLAGS("L2sec/req", "%9.4f",
                      "lts__t_sectors_srcunit_tex_op_read.sum",
                      GPU_COL_PER_REQUEST),
        GPU_COL_END,
    };
    printf("# claim: texture memory suits 2D spatial locality (seed 004), "
           "4096 x 4096 floats\n");
    gpu_print_header(cols);
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 4; s++) {
            char name[96];
            snprintf(name, sizeof name, "texture/%s/%s/n4096", sources[s],
                     access[a]);
            gpu_print_row(cols, t, gpu_find_row(t, name));
        }
}

int main(void)
{
    static const gpu_sweep defs[NSWEEPS] = {
        [LARGE] = {"texture-4096",
                   "--source tex1d,tex2d,global,ldg "
                   "--access stencil,column,row --size 4096 --warmup 2 "
                   "--runs 10"},
        [SMALL] = {"texture-small",
                   "--source tex1d,tex2d,global,ldg "
                   "--access stencil,column,row --size 32,96 --warmup 1 "
                   "--runs 2"},
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("claim_texture_spatial_locality",
                 test_claim_spatial_locality),
    };
    gpu_run_sweeps("texture", defs, NSWEEPS, sweeps, NULL);
    return gpu_run_row_tests("gpu_texture", sweeps, NSWEEPS, check_row, NULL,
                             0, after, sizeof after / sizeof after[0]);
}
