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
#include "ncu_csv.h"

/* The largest spread of one metric over the configurations. */
typedef struct {
    double spread;       /* max - min over the runs, in the metric's unit */
    double per;          /* spread / scale (requests, or the value) */
    double needed;       /* tolerance giving 3 x spread at every row */
    int row;             /* where `per` is largest, or -1 */
} worst;

int mp_ncu_spread(const mp_probe *p, const char *memprobe_csv,
                  const char *const *ncu_csvs, int n, FILE *out)
{
    if (n < 2) {
        fprintf(stderr, "memprobe: ncu-check --spread: needs at least two "
                "ncu CSVs, got %d\n", n);
        return MP_EXIT_USAGE;
    }
    mp_ncu_table mine;
    if (mp_table_read_or_say(mp_csv_table_read, memprobe_csv, &mine,
                             "ncu-check --spread"))
        return MP_EXIT_USAGE;
    mp_ncu_table *runs = calloc((size_t)n, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    int rc = MP_EXIT_OK, read = 0;
    for (; read < n; read++) {
        if (mp_table_read_or_say(mp_ncu_read, ncu_csvs[read], &runs[read],
                                 "ncu-check --spread")) {
            rc = MP_EXIT_USAGE;
            break;
        }
        if (runs[read].nrows != mine.nrows || mine.nrows == 0) {
            fprintf(stderr, "memprobe: ncu-check --spread: %s has %d "
                    "launches, %s %d configurations\n", ncu_csvs[read],
                    runs[read].nrows, memprobe_csv, mine.nrows);
            rc = MP_EXIT_USAGE;
            read++;
            break;
        }
    }
    size_t nm;
    const mp_metric *m = mp_metric_set_get(p->metrics, &nm);
    int config_col = mp_ncu_column(&mine, "config");
    int requests_col = mp_ncu_column(&mine, "requests");
    int compared = 0;
    if (rc != MP_EXIT_USAGE)
        fprintf(out, "%-62s %12s %12s %12s %10s %10s  %s\n", "metric",
                "spread", "per", "tolerance", "needed", "floor",
                "where (largest per request / relative)");
    for (size_t k = 0; rc != MP_EXIT_USAGE && k < nm; k++) {
        if (m[k].tolerance_per == MP_TOL_VALUE && m[k].tolerance == 0)
            continue;
        worst w = {0, 0, 0, -1};
        int seen = 0;
        for (int r = 0; r < mine.nrows; r++) {
            double lo = INFINITY, hi = -INFINITY, x;
            int have = 0;
            for (int i = 0; i < n; i++) {
                int col = mp_ncu_column(&runs[i], m[k].name);
                if (col < 0 || mp_ncu_number(&runs[i], r, col, &x))
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
                mp_ncu_number(&mine, r, requests_col, &requests);
            double scale = m[k].tolerance_per == MP_TOL_VALUE
                               ? fabs(hi) : requests;
            double spread = hi - lo;
            double per = scale > 0 ? spread / scale : 0;
            double need = scale > 0
                              ? (3 * spread - m[k].tolerance_floor) / scale
                              : 0;
            if (need > w.needed)
                w.needed = need;
            if (w.row < 0 || per > w.per) {
                w.per = per;
                w.spread = spread;
                w.row = r;
            }
            compared++;
        }
        if (!seen)
            continue;
        int exact = m[k].tolerance == 0 && m[k].tolerance_floor == 0;
        int ok = exact ? w.spread == 0 : m[k].tolerance >= w.needed;
        fprintf(out, "%-62s %12.0f %12.3g %12.3g %10.3g %10.0f  %s %s\n",
                m[k].name, w.spread, w.per, m[k].tolerance, w.needed,
                m[k].tolerance_floor,
                w.row >= 0 && config_col >= 0 ? mine.cells[w.row][config_col]
                                              : "-",
                ok ? "ok" : exact ? "EXACT METRIC DIFFERS" : "TOO TIGHT");
        if (!ok)
            rc = MP_EXIT_FAIL;
    }
    if (rc != MP_EXIT_USAGE) {
        fprintf(out, "ncu-check --spread: %d runs, %d configuration x "
                "metric spreads\n", n, compared);
        if (compared == 0) {
            fprintf(stderr, "memprobe: ncu-check --spread: no metric was "
                    "in every run: nothing compared\n");
            rc = MP_EXIT_FAIL;
        }
    }
    for (int i = 0; i < read; i++)
        mp_ncu_free(&runs[i]);
    free(runs);
    mp_ncu_free(&mine);
    return rc;
}
