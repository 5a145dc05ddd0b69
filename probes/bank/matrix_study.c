/*
 * matrix_study.c - the study's section "Which swizzle makes this
 * conflict-free": wavefronts per ldmatrix .x4 for every row pitch
 * x swizzle mode, plain rows and the MMA fragment's quadrants, measured
 * beside the bank probe's model, which is called through the generic probe
 * interface. The measurements come from results/h200/bank/matrix.csv (the
 * full sweep of configs/matrix.conf) when it is there, else from
 * bank/ldsm.csv (the GPU test's sweep); when the file has .trans rows a
 * column compares them with the plain form. Without either CSV the table
 * shows the model alone and says so.
 */
#include "report.h"
#include "params.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The CSVs the section reads, the preferred first. */
static const char *const sources[] = {"matrix.csv", "ldsm.csv"};

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

/* The file the measurements come from: the first of `sources` that was
 * loaded. */
static const char *source_of(const mp_rep_data *d)
{
    for (size_t s = 0; s < sizeof sources / sizeof *sources; s++)
        for (int i = 0; i < d->nfiles; i++)
            if (!strcmp(d->files[i].base, sources[s]))
                return sources[s];
    return sources[0];
}

/* Measured wavefronts per LDSM .x4 (trans 0 or 1) in `file`, or NAN. */
static double measured_t(const mp_rep_data *d, const char *file,
                         const char *rows_name, long long pitch, int sw,
                         int trans)
{
    char cfg[96];
    double x;
    snprintf(cfg, sizeof cfg, "bank/ldsm/x4/t%d/p%lld/%s/sw%s", trans,
             pitch, rows_name, swizzles[sw]);
    const mp_rep_row *r = mp_rep_find(d, file, cfg, 0);
    if (!r || strcmp(mp_rep_text(d, r, MP_F_VERIFIED), "yes")
        || mp_rep_num(d, r, MP_F_WF, &x))
        return NAN;
    return x;
}

/* Of file's ldsm/stsm rows with a pitch and counters, how many there are
 * (*n) and how many equal the model to the CSV's 4 decimals (*same);
 * *trans counts the .trans rows among them. */
static void agreement(const mp_rep_data *d, const char *file, int *n,
                      int *same, int *trans)
{
    *n = *same = *trans = 0;
    for (int i = 0; i < d->nall; i++) {
        const mp_rep_row *r = &d->all[i];
        const char *op = mp_rep_text(d, r, MP_F_OP);
        const char *a = mp_rep_text(d, r, MP_F_ACCESS);
        double x, m;
        int mats, t;
        if (r->device != 0 || strcmp(d->files[r->file].base, file)
            || (strcmp(op, "ldsm") && strcmp(op, "stsm"))
            || !strstr(a, "/pitch")
            || sscanf(a, "x%d/trans%d/", &mats, &t) != 2
            || strcmp(mp_rep_text(d, r, MP_F_VERIFIED), "yes")
            || mp_rep_num(d, r, MP_F_WF, &x)
            || mp_rep_num(d, r, MP_F_MODEL_WF, &m))
            continue;
        (*n)++;
        *same += fabs(x - m) < 0.5e-4;
        *trans += t == 1;
    }
}

/* The `.trans` cell of one pitch: "same" when every swizzle measured
 * with .trans equals the plain form, else the four values; "-" when
 * nothing was measured with .trans. */
static void trans_cell(const mp_rep_data *d, const char *file,
                       const char *rows_name, long long pitch, FILE *out)
{
    char buf[96] = "";
    int seen = 0, differ = 0;
    for (int s = 0; s < 4; s++) {
        double t = measured_t(d, file, rows_name, pitch, s, 1);
        double x = measured_t(d, file, rows_name, pitch, s, 0);
        char v[32];
        mp_rep_fmt(v, sizeof v, t, 3);
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, "%s%s", s ? ", " : "",
                 isnan(t) ? "-" : v);
        seen |= !isnan(t);
        differ |= !isnan(t) && (isnan(x) || fabs(t - x) >= 0.5e-3);
    }
    fprintf(out, " %s |", !seen ? "-" : differ ? buf : "same");
}

void mp_study_matrix(const mp_rep_data *d, FILE *out)
{
    const char *file = source_of(d);
    int any = 0, any_trans = 0;
    for (int l = 0; l < 2; l++)
        for (int p = 0; p < NP; p++)
            for (int s = 0; s < 4; s++) {
                any |= !isnan(measured_t(d, file, rows[l], pitches[p], s, 0));
                any_trans |= !isnan(measured_t(d, file, rows[l], pitches[p],
                                               s, 1));
            }
    int n, same, ntrans;
    agreement(d, file, &n, &same, &ntrans);
    fprintf(out, "\n## Which swizzle makes this conflict-free\n\n"
            "An `ldmatrix.x4` moves four 8 x 16-byte matrices; lane i gives "
            "the address of row i %% 8 of matrix i / 8, rows `pitch` bytes "
            "apart (plain: lane i is tile row i; mma: the four quadrants of "
            "a 16 x 16 b16 tile, the A-fragment order), after the TMA "
            "swizzle (`Swizzle<B,4,3>`: the 16-byte chunk index XOR the "
            "128-byte row index, B = 1, 2, 3 for 32, 64, 128). Wavefronts "
            "per instruction; the ideal is 4. ");
    if (any) {
        fprintf(out, "Measured (`%s`), the model in brackets. The model: "
                "each 8-row matrix costs the largest number of distinct row "
                "addresses that fall in one 16-byte bank group ((address / "
                "16) %% 8), and an instruction the sum over its matrices. "
                "%d of the %d ldmatrix/stmatrix configurations with a pitch "
                "in `%s` (%d of them `.trans`) equal it. ", file, same, n,
                file, ntrans);
        if (any_trans)
            fprintf(out, "The last column gives the `.trans` form's "
                    "wavefronts for none, 32B, 64B, 128B, or `same` where "
                    "they equal the plain form's. ");
        fprintf(out, "`memprobe report --table matrix` prints every op, "
                "matrix count and pitch; `--table matrix-free` the "
                "conflict-free modes.\n\n");
    } else {
        fprintf(out, "No H200 measurement is committed yet (`%s` or `%s`, "
                "from `scripts/gpu-check.sh build matrix` or `ldsm`): the "
                "cells are the model's HYPOTHESIS (each matrix costs its "
                "busiest 4-bank group's number of distinct rows), which "
                "that run decides.\n\n", sources[0], sources[1]);
    }
    for (int l = 0; l < 2; l++) {
        fprintf(out, "%s rows:\n\n| pitch (bytes) | none | 32B | 64B | 128B "
                "| conflict-free with |%s\n| ---: | ---: | ---: | ---: | "
                "---: | --- |%s\n", l ? "MMA-fragment" : "Plain",
                any_trans ? " `.trans` |" : "", any_trans ? " --- |" : "");
        for (int p = 0; p < NP; p++) {
            if (l == 1 && pitches[p] < 32)
                continue;
            char free_with[64] = "";
            fprintf(out, "| %lld |", pitches[p]);
            for (int s = 0; s < 4; s++) {
                double m = model(rows[l], pitches[p], s);
                double x = measured_t(d, file, rows[l], pitches[p], s, 0);
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
            fprintf(out, " %s |", free_with[0] ? free_with : "-");
            if (any_trans)
                trans_cell(d, file, rows[l], pitches[p], out);
            fputc('\n', out);
        }
        if (l == 0)
            fputc('\n', out);
    }
    if (any)
        fprintf(out, "\n![wavefronts per ldmatrix.x4 against the row pitch, "
                "by swizzle](plots/matrix-swizzle.svg)\n");
}
