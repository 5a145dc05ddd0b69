/*
 * ncu_spread.c - repeat spread of Nsight Compute's counts (see
 * ncu_spread.h). Used by scripts/gpu-check.sh (step ncurepeat), which
 * runs `memprobe ncu-check` five times per family and hands the ncu CSVs
 * here.
 */
#include "ncu_spread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics.h"
#include "csv_table.h"

/* The largest spread of one metric over the configurations. */
typedef struct {
    double spread;       /* max - min over the runs, in the metric's unit */
    double per;          /* spread / scale (requests, or the value) */
    double needed;       /* tolerance giving 3 x spread at every row */
    int row;             /* where `per` is largest, or -1 */
} worst;

/* Reads the n ncu CSVs into runs, each with as many launches as memprobe's
 * CSV `mine` has configurations; *read: how many tables to free. 0, or
 * MP_EXIT_USAGE (said on stderr) when one cannot be read or its launches
 * do not match. */
static int read_runs(const mp_csv_table *mine, const char *memprobe_csv,
                     const char *const *ncu_csvs, int n, mp_csv_table *runs,
                     int *read)
{
    for (*read = 0; *read < n; ++*read) {
        if (mp_table_read_or_say(mp_ncu_read, ncu_csvs[*read], &runs[*read],
                                 "ncu-check --spread"))
            return MP_EXIT_USAGE;
        if (runs[*read].nrows != mine->nrows || mine->nrows == 0) {
            fprintf(stderr, "memprobe: ncu-check --spread: %s has %d "
                    "launches, %s %d configurations\n", ncu_csvs[*read],
                    runs[*read].nrows, memprobe_csv, mine->nrows);
            ++*read;
            return MP_EXIT_USAGE;
        }
    }
    return MP_EXIT_OK;
}

/* Metric m's largest spread over the n runs at every configuration of
 * `mine` that all of them measured, into *w; counts each such
 * configuration in *compared. Returns 1 when there was one, 0 when none. */
static int metric_worst(const mp_metric *m, const mp_csv_table *mine,
                        const mp_csv_table *runs, int n, int requests_col,
                        worst *w, int *compared)
{
    int seen = 0;
    for (int r = 0; r < mine->nrows; r++) {
        double lo = INFINITY, hi = -INFINITY, x;
        int have = 0;
        for (int i = 0; i < n; i++) {
            int col = mp_csv_column(&runs[i], m->name);
            if (col < 0 || mp_csv_number(&runs[i], r, col, &x))
                continue;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            have++;
        }
        if (have < n)   /* not asked of ncu (a chip lacking it) */
            continue;
        seen = 1;
        double requests = 0;
        if (requests_col >= 0)
            mp_csv_number(mine, r, requests_col, &requests);
        double scale = m->tolerance_per == MP_TOL_VALUE
                           ? fabs(hi) : requests;
        double spread = hi - lo;
        double per = scale > 0 ? spread / scale : 0;
        double need = scale > 0
                          ? (3 * spread - m->tolerance_floor) / scale
                          : 0;
        if (need > w->needed)
            w->needed = need;
        if (w->row < 0 || per > w->per) {
            w->per = per;
            w->spread = spread;
            w->row = r;
        }
        (*compared)++;
    }
    return seen;
}

/* Prints metric m's line: its worst spread w, the tolerances and where;
 * returns 1 when its tolerance covers 3x the spread (an exact metric: no
 * spread), else 0. */
static int say_metric(const mp_metric *m, const worst *w,
                      const mp_csv_table *mine, int config_col, FILE *out)
{
    int exact = m->tolerance == 0 && m->tolerance_floor == 0;
    int ok = exact ? w->spread == 0 : m->tolerance >= w->needed;
    fprintf(out, "%-62s %12.0f %12.3g %12.3g %10.3g %10.0f  %s %s\n",
            m->name, w->spread, w->per, m->tolerance, w->needed,
            m->tolerance_floor,
            w->row >= 0 && config_col >= 0 ? mine->cells[w->row][config_col]
                                           : "-",
            ok ? "ok" : exact ? "EXACT METRIC DIFFERS" : "TOO TIGHT");
    return ok;
}

/* The table of spreads, one line per metric of the probe's set with a
 * non-zero tolerance, and the count line; MP_EXIT_OK or MP_EXIT_FAIL. */
static int say_spreads(const mp_probe *p, const mp_csv_table *mine,
                       const mp_csv_table *runs, int n, FILE *out)
{
    size_t nm;
    const mp_metric *m = mp_metric_set_get(p->metrics, &nm);
    int config_col = mp_csv_column(mine, "config");
    int requests_col = mp_csv_column(mine, "requests");
    int compared = 0, rc = MP_EXIT_OK;
    fprintf(out, "%-62s %12s %12s %12s %10s %10s  %s\n", "metric",
            "spread", "per", "tolerance", "needed", "floor",
            "where (largest per request / relative)");
    for (size_t k = 0; k < nm; k++) {
        if (m[k].tolerance_per == MP_TOL_VALUE && m[k].tolerance == 0)
            continue;
        worst w = {0, 0, 0, -1};
        if (!metric_worst(&m[k], mine, runs, n, requests_col, &w, &compared))
            continue;
        if (!say_metric(&m[k], &w, mine, config_col, out))
            rc = MP_EXIT_FAIL;
    }
    fprintf(out, "ncu-check --spread: %d runs, %d configuration x "
            "metric spreads\n", n, compared);
    if (compared == 0) {
        fprintf(stderr, "memprobe: ncu-check --spread: no metric was "
                "in every run: nothing compared\n");
        rc = MP_EXIT_FAIL;
    }
    return rc;
}

int mp_ncu_spread(const mp_probe *p, const char *memprobe_csv,
                  const char *const *ncu_csvs, int n, FILE *out)
{
    if (n < 2) {
        fprintf(stderr, "memprobe: ncu-check --spread: needs at least two "
                "ncu CSVs, got %d\n", n);
        return MP_EXIT_USAGE;
    }
    mp_csv_table mine;
    if (mp_table_read_or_say(mp_csv_table_read, memprobe_csv, &mine,
                             "ncu-check --spread"))
        return MP_EXIT_USAGE;
    mp_csv_table *runs = calloc((size_t)n, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    int read;
    int rc = read_runs(&mine, memprobe_csv, ncu_csvs, n, runs, &read);
    if (rc != MP_EXIT_USAGE)
        rc = say_spreads(p, &mine, runs, n, out);
    for (int i = 0; i < read; i++)
        mp_csv_free(&runs[i]);
    free(runs);
    mp_csv_free(&mine);
    return rc;
}
