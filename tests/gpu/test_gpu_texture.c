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

enum { LARGE, SMALL, NSWEEPS };
static mp_ncu_table sweeps[NSWEEPS];

typedef struct {
    const mp_ncu_table *t;
    int row;
} row_ref;

static int is_tex(const mp_ncu_table *t, int i)
{
    const char *s = gpu_cell(t, i, "source");
    return !strcmp(s, "tex1d") || !strcmp(s, "tex2d");
}

static void test_row(void **state)
{
    const row_ref *r = *state;
    const mp_ncu_table *t = r->t;
    int i = r->row;
    const char *config = gpu_cell(t, i, "config");
    assert_string_equal(gpu_cell(t, i, "verified"), "yes");
    assert_string_equal(gpu_cell(t, i, "counters_status"), "ok");
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
    if (fabs(measured - model) > 1e-3)
        fail_msg("%s: measured %.4f sectors per request, model %.4f", config,
                 measured, model);
    assert_string_equal(gpu_cell(t, i, "model_match"), "yes");
}

static int find(const mp_ncu_table *t, const char *config)
{
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(gpu_cell(t, i, "config"), config))
            return i;
    fail_msg("no row %s", config);
    return -1;
}

/* Seed claim (004): texture memory is designed for access patterns with
 * much 2D spatial locality and cuts memory requests. Evidence per access
 * and source at 4096 x 4096: kernel time, time per request on one SM,
 * sectors per request at L1TEX, L1 hit rate, L2 sectors per request. */
static void test_claim_spatial_locality(void **state)
{
    (void)state;
    const mp_ncu_table *t = &sweeps[LARGE];
    static const char *const access[] = {"stencil", "column", "row"};
    static const char *const sources[] = {"tex1d", "tex2d", "global", "ldg"};
    printf("# claim: texture memory suits 2D spatial locality (seed 004), "
           "4096 x 4096 floats\n");
    printf("# %-8s %-7s %10s %9s %8s %8s %8s %9s\n", "access", "source",
           "time_us", "cyc/req", "sec/req", "model", "hit%", "L2sec/req");
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 4; s++) {
            char name[96];
            snprintf(name, sizeof name, "texture/%s/%s/n4096", sources[s],
                     access[a]);
            int i = find(t, name);
            int tex = s < 2;
            double sectors = gpu_number(
                t, i, tex ? "l1tex__t_sectors_pipe_tex_mem_texture.sum"
                          : "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
            double hits = gpu_number(
                t, i,
                tex ? "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum"
                    : "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum");
            double l2 = gpu_number(t, i,
                                   "lts__t_sectors_srcunit_tex_op_read.sum");
            const char *model = gpu_cell(t, i, "model_sectors_per_request");
            printf("# %-8s %-7s %10.1f %9.3f %8.4f %8s %8.2f %9.4f\n",
                   access[a], sources[s],
                   gpu_number(t, i, "time_ns_median") / 1e3,
                   gpu_number(t, i, "cycles_per_request_per_sm"),
                   gpu_number(t, i, "sectors_per_request"),
                   model[0] ? model : "-",
                   sectors > 0 ? 100.0 * hits / sectors : NAN,
                   l2 / gpu_number(t, i, "requests"));
        }
}

int main(void)
{
    static const char *const names[NSWEEPS] = {"texture-4096",
                                               "texture-small"};
    static const char *const args[NSWEEPS] = {
        "--source tex1d,tex2d,global,ldg --access stencil,column,row "
        "--size 4096 --warmup 2 --runs 10",
        "--source tex1d,tex2d,global,ldg --access stencil,column,row "
        "--size 32,96 --warmup 1 --runs 2",
    };
    for (int s = 0; s < NSWEEPS; s++)
        gpu_run_sweep("texture", names[s], args[s], &sweeps[s]);

    int n = 0;
    for (int s = 0; s < NSWEEPS; s++)
        n += sweeps[s].nrows;
    struct CMUnitTest *tests = calloc((size_t)n + 1, sizeof *tests);
    row_ref *refs = calloc((size_t)n + 1, sizeof *refs);
    char (*labels)[128] = calloc((size_t)n + 1, sizeof *labels);
    if (!tests || !refs || !labels)
        return 1;
    int k = 0;
    for (int s = 0; s < NSWEEPS; s++) {
        int c = mp_ncu_column(&sweeps[s], "config");
        for (int i = 0; i < sweeps[s].nrows; i++, k++) {
            refs[k].t = &sweeps[s];
            refs[k].row = i;
            snprintf(labels[k], sizeof labels[k], "%s",
                     c >= 0 ? sweeps[s].cells[i][c] : "?");
            tests[k].name = labels[k];
            tests[k].test_func = test_row;
            tests[k].initial_state = &refs[k];
        }
    }
    tests[k].name = "claim_texture_spatial_locality";
    tests[k++].test_func = test_claim_spatial_locality;
    int failed = _cmocka_run_group_tests("gpu_texture", tests, (size_t)k,
                                         NULL, NULL);
    for (int s = 0; s < NSWEEPS; s++)
        mp_ncu_free(&sweeps[s]);
    free(tests);
    free(refs);
    free(labels);
    return failed;
}
