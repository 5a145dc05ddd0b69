/*
 * study_matrix.c - the study's section "Which swizzle makes this
 * conflict-free" (issue 15): wavefronts per ldmatrix .x4 for every row
 * pitch x swizzle mode, plain rows and the MMA fragment's quadrants,
 * measured (results/h200/ldsm.csv, the GPU test's sweep) beside the
 * bank probe's model, which is called through the generic probe interface
 * (the matrix model is a hypothesis until the H200's counters agree).
 * Without the CSV the table shows the model alone and says so.
 */
#include "report.h"
#include "params.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MATRIX_CSV "ldsm.csv"

static const long long pitches[] = {16, 32, 64, 128, 144, 272};
static const char *const swizzles[] = {"none", "32", "64", "128"};
static const char *const rows[] = {"plain", "mma"};
#define NP ((int)(sizeof pitches / sizeof *pitches))

/* The bank probe's model for ldsm .x4 (no .trans) at one cell. */
static double model(const char *rows_name, long long pitch, int sw)
{
    const mp_probe *p = mp_probe_find("bank");
    long long v[MP_MAX_PARAMS];
    char err[256];
    for (int i = 0; i < p->nparams; i++)
        v[i] = p->params[i].def;
    struct { const char *name, *value; } set[] = {
        {"op", "ldsm"}, {"matrices", "4"}, {"rows", rows_name},
        {"swizzle", swizzles[sw]},
    };
    for (size_t k = 0; k < sizeof set / sizeof *set; k++) {
        int i = mp_param_find(p->params, p->nparams, set[k].name);
        if (i < 0 || mp_param_parse_value(&p->params[i], set[k].value, &v[i],
                                          err, sizeof err))
            return NAN;
    }
    v[mp_param_find(p->params, p->nparams, "pitch")] = pitch;
    if (p->check(v, MP_SM90_SMEM_OPTIN, err, sizeof err))
        return NAN;
    mp_prediction pr;
    p->predict(v, &pr);
    return pr.value[0];
}

/* Measured wavefronts per LDSM, or NAN. */
static double measured(const mp_rep_data *d, const char *rows_name,
                       long long pitch, int sw)
{
    char cfg[96];
    double x;
    snprintf(cfg, sizeof cfg, "bank/ldsm/x4/t0/p%lld/%s/sw%s", pitch,
             rows_name, swizzles[sw]);
    const mp_rep_row *r = mp_rep_find(d, MATRIX_CSV, cfg, 0);
    if (!r || mp_rep_num(d, r, MP_F_WF, &x))
        return NAN;
    return x;
}

void mp_study_matrix(const mp_rep_data *d, FILE *out)
{
    int any = 0;
    for (int l = 0; l < 2; l++)
        for (int p = 0; p < NP; p++)
            for (int s = 0; s < 4; s++)
                any |= !isnan(measured(d, rows[l], pitches[p], s));
    fprintf(out, "\n## Which swizzle makes this conflict-free\n\n"
            "An `ldmatrix.x4` moves four 8 x 16-byte matrices; lane i gives "
            "the address of row i %% 8 of matrix i / 8, rows `pitch` bytes "
            "apart (plain: lane i is tile row i; mma: the four quadrants of "
            "a 16 x 16 b16 tile, the A-fragment order), after the TMA "
            "swizzle (`Swizzle<B,4,3>`: the 16-byte chunk index XOR the "
            "128-byte row index, B = 1, 2, 3 for 32, 64, 128). Wavefronts "
            "per instruction; the ideal is 4. ");
    if (any)
        fprintf(out, "Measured (`%s`), the model in brackets.\n\n",
                MATRIX_CSV);
    else
        fprintf(out, "No H200 measurement is committed yet (`%s`, from "
                "`scripts/gpu-check.sh build ldsm`): the cells are the "
                "model's HYPOTHESIS (each matrix costs its busiest 4-bank "
                "group's number of distinct rows), which that run "
                "decides.\n\n", MATRIX_CSV);
    for (int l = 0; l < 2; l++) {
        fprintf(out, "%s rows:\n\n| pitch (bytes) | none | 32B | 64B | 128B "
                "| conflict-free with |\n| ---: | ---: | ---: | ---: | ---: | "
                "--- |\n", l ? "MMA-fragment" : "Plain");
        for (int p = 0; p < NP; p++) {
            if (l == 1 && pitches[p] < 32)
                continue;
            char free_with[64] = "";
            fprintf(out, "| %lld |", pitches[p]);
            for (int s = 0; s < 4; s++) {
                double m = model(rows[l], pitches[p], s);
                double x = measured(d, rows[l], pitches[p], s);
                char mt[32], xt[32];
                mp_rep_fmt(mt, sizeof mt, m, 2);
                mp_rep_fmt(xt, sizeof xt, x, 3);
                if (any)
                    fprintf(out, " %s (%s) |", isnan(x) ? "-" : xt, mt);
                else
                    fprintf(out, " %s |", mt);
                double judged = any ? x : m;
                if (!isnan(judged) && judged < 4.5) {
                    size_t n = strlen(free_with);
                    snprintf(free_with + n, sizeof free_with - n, "%s%s",
                             n ? ", " : "", s ? swizzles[s] : "none");
                }
            }
            fprintf(out, " %s |\n", free_with[0] ? free_with : "-");
        }
        if (l == 0)
            fputc('\n', out);
    }
}
