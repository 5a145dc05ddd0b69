/*
 * async_study.c - the study's section on the async and cluster probes: do
 * cp.async and the TMA fill shared memory faster than the seeds' register
 * staging, and do their shared stores avoid conflicts; and what a load or
 * store to another block's shared memory (a cluster's distributed shared
 * memory) costs against the block's own. Computed from
 * results_dir/async/async.csv and results_dir/cluster/cluster.csv when they
 * are committed; otherwise it says so.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "async_study.h"

#define L2_RESIDENT_BYTES (48.0 * 1024 * 1024)

static int verified_probe(const mp_rep_data *d, const mp_rep_row *r,
                          const char *probe)
{
    return r->device == 0 && !strcmp(mp_rep_text(d, r, MP_F_PROBE), probe)
           && !strcmp(mp_rep_text(d, r, MP_F_VERIFIED), "yes");
}

/* The fastest verified async row of `method` in the DRAM (l2 = 0) or
 * L2-resident (l2 = 1) group; NULL if none. */
static const mp_rep_row *best(const mp_rep_data *d, const char *method,
                              int l2)
{
    const mp_rep_row *top = NULL;
    double top_gbs = -1;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double b, g;
        if (!verified_probe(d, r, "async")
            || strcmp(mp_rep_text(d, r, MP_F_METHOD), method)
            || mp_rep_num(d, r, MP_F_ARRAY_BYTES, &b)
            || (b < L2_RESIDENT_BYTES) != l2
            || mp_rep_num(d, r, MP_F_BANDWIDTH, &g))
            continue;
        if (g > top_gbs) {
            top_gbs = g;
            top = r;
        }
    }
    return top;
}

static void async_part(const mp_rep_data *d, const char *dir, FILE *out)
{
    static const char *const methods[] = {"staged", "cpasync", "bulk",
                                          "tensor"};
    int any = 0;
    for (int l2 = 0; l2 < 2; l2++)
        for (int m = 0; m < 4; m++)
            any |= best(d, methods[m], l2) != NULL;
    fprintf(out, "The seeds fill shared memory through registers (a global "
            "load, then a shared store). Since sm_80 `cp.async` copies "
            "global to shared memory without registers, and sm_90's TMA "
            "copies whole tiles (`cp.async.bulk`, and "
            "`cp.async.bulk.tensor` with a swizzled layout). Is either "
            "faster, and do their shared stores avoid bank conflicts? "
            "(`memprobe async`, docs/async.md)\n\n");
    if (!any) {
        fprintf(out, "No H200 measurement of the async copies is committed "
                "yet: `scripts/gpu-check.sh async` writes %s/async/async.csv "
                "(configs/async.conf), and this part is computed from "
                "it.\n\n", dir);
        return;
    }
    fprintf(out, "From `%s/async/async.csv` (every block's data and the "
            "layout of its last tile checked on the CPU), the fastest "
            "configuration of each method:\n\n", dir);
    for (int l2 = 0; l2 < 2; l2++) {
        fprintf(out, "- **%s**:", l2 ? "L2-resident array" : "DRAM-sized "
                "array");
        for (int m = 0; m < 4; m++) {
            const mp_rep_row *r = best(d, methods[m], l2);
            double g, f;
            if (!r || mp_rep_num(d, r, MP_F_BANDWIDTH, &g)) {
                fprintf(out, " %s not measured%s", methods[m],
                        m < 3 ? ";" : ".\n");
                continue;
            }
            fprintf(out, " %s %.0f GB/s", methods[m], g);
            if (mp_rep_num(d, r, MP_F_FRACTION, &f) == 0)
                fprintf(out, " (%.1f%% of DRAM peak)", 100 * f);
            fprintf(out, "%s", m < 3 ? ";" : ".\n");
        }
    }
    int n = 0, match = 0;
    double worst = 0;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double w, mw;
        if (!verified_probe(d, r, "async")
            || mp_rep_num(d, r, MP_F_WF, &w)
            || mp_rep_num(d, r, MP_F_MODEL_WF, &mw))
            continue;
        n++;
        match += !strcmp(mp_rep_text(d, r, MP_F_MATCH), "yes");
        if (fabs(w - mw) > worst)
            worst = fabs(w - mw);
    }
    if (n)
        fprintf(out, "- **Shared-store wavefronts**: %d of %d configurations "
                "match the model (32 x width / 128 per STS or LDGSTS, none "
                "through the LSU for the TMA's copies); largest distance "
                "from it %.3f per copy instruction.\n", match, n, worst);
    fprintf(out, "\n");
}

/* Cycles per hop of the chase for target/cluster size, NAN if absent. */
static double chase(const mp_rep_data *d, const char *target, double size)
{
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double c, x;
        if (verified_probe(d, r, "cluster")
            && !strcmp(mp_rep_text(d, r, MP_F_OP), "chase")
            && !strcmp(mp_rep_text(d, r, MP_F_METHOD), target)
            && mp_rep_num(d, r, MP_F_CLUSTER_SIZE, &c) == 0 && c == size
            && mp_rep_num(d, r, MP_F_LATENCY_CYCLES, &x) == 0)
            return x;
    }
    return NAN;
}

/* The fastest loads (or stores) to target. */
static double best_bw(const mp_rep_data *d, const char *op,
                      const char *target)
{
    double top = NAN;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double g;
        if (verified_probe(d, r, "cluster")
            && !strcmp(mp_rep_text(d, r, MP_F_OP), op)
            && !strcmp(mp_rep_text(d, r, MP_F_METHOD), target)
            && mp_rep_num(d, r, MP_F_BANDWIDTH, &g) == 0
            && !(g <= top))
            top = g;
    }
    return top;
}

static void cluster_part(const mp_rep_data *d, const char *dir, FILE *out)
{
    fprintf(out, "Thread-block clusters (sm_90) let a block load and store "
            "another block's shared memory (`mapa` + "
            "`ld/st.shared::cluster`). What does that cost against the "
            "block's own? (`memprobe cluster`)\n\n");
    int any = 0;
    for (int i = 0; i < d->nrows && !any; i++)
        any = verified_probe(d, &d->rows[i], "cluster");
    if (!any) {
        fprintf(out, "No H200 measurement of distributed shared memory is "
                "committed yet: `scripts/gpu-check.sh async` writes "
                "%s/cluster/cluster.csv (configs/cluster.conf), and this "
                "part is computed from it.\n\n", dir);
        return;
    }
    fprintf(out, "From `%s/cluster/cluster.csv` (chase offsets, load sums "
            "and every stored word checked on the CPU):\n\n", dir);
    static const double sizes[] = {2, 4, 8, 16};
    for (int k = 0; k < 4; k++) {
        double l = chase(d, "local", sizes[k]);
        double r = chase(d, "remote", sizes[k]);
        if (isnan(l) || isnan(r))
            continue;
        fprintf(out, "- **Latency, cluster of %.0f**: %.1f cycles per "
                "dependent load to the block's own shared memory, %.1f to "
                "the next block's (%.1fx).\n", sizes[k], l, r, r / l);
    }
    static const char *const ops[] = {"ld", "st"};
    for (int k = 0; k < 2; k++) {
        double l = best_bw(d, ops[k], "local");
        double r = best_bw(d, ops[k], "remote");
        if (isnan(l) || isnan(r))
            continue;
        fprintf(out, "- **Bandwidth, %s**: best %.0f GB/s local, %.0f GB/s "
                "remote (%.2f of local).\n", ops[k], l, r, r / l);
    }
    fprintf(out, "\n");
}

void mp_study_async(const mp_rep_data *d, const char *results_dir,
                    FILE *out)
{
    fprintf(out, "\n## Filling shared memory: async copies and clusters\n\n");
    async_part(d, results_dir, out);
    cluster_part(d, results_dir, out);
}
