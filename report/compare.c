/*
 * compare.c - `memprobe compare BASE.csv NEW.csv`: the counters of two
 * runs of the same configurations within the ncu-check tolerances, the
 * model check of the new run, and the spread of the time ratio (see
 * compare.h).
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics.h"
#include "ncu_csv.h"
#include "probe.h"
#include "stats.h"

/* Row of the first occurrence of each config name, sorted by name for
 * lookups. */
typedef struct {
    const char *name;
    int row;
} entry;

static int by_name(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* Index of t's rows by config column; duplicates after the first are
 * dropped. Returns the number of entries (*out malloc'd). */
static int index_rows(const mp_ncu_table *t, int col, entry **out)
{
    entry *e = mp_xcalloc((size_t)(t->nrows ? t->nrows : 1), sizeof *e);
    for (int r = 0; r < t->nrows; r++)
        e[r] = (entry){t->cells[r][col], r};
    if (t->nrows)
        qsort(e, (size_t)t->nrows, sizeof *e, by_name);
    int n = 0;
    for (int r = 0; r < t->nrows; r++)
        if (n == 0 || strcmp(e[n - 1].name, e[r].name))
            e[n++] = e[r];
    *out = e;
    return n;
}

static int find(const entry *e, int n, const char *name)
{
    entry key = {name, -1};
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(e[mid].name, key.name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && !strcmp(e[lo].name, name) ? e[lo].row : -1;
}

/* Every metric of every set, once each (by name). */
static int all_metrics(const mp_metric **out, int max)
{
    int n = 0;
    mp_metric_set sets[MP_MAX_METRIC_SETS];
    int nsets = mp_metric_sets(sets, MP_MAX_METRIC_SETS);
    for (int s = 0; s < nsets; s++) {
        size_t k;
        const mp_metric *m = mp_metric_set_get(sets[s], &k);
        for (size_t i = 0; i < k; i++) {
            int seen = 0;
            for (int j = 0; j < n && !seen; j++)
                seen = !strcmp(out[j]->name, m[i].name);
            if (!seen && n < max)
                out[n++] = &m[i];
        }
    }
    return n;
}

/* The tolerance of metric `def` for a row of probe `probe`: the row of the
 * same name in that probe's own set (reduce and bitmap use shared-mixed,
 * texture its own sector bound), else the first set's (`def`). */
static const mp_metric *row_metric(const char *probe, const mp_metric *def)
{
    const mp_probe *p = probe ? mp_probe_find(probe) : NULL;
    size_t n = 0;
    const mp_metric *t = p ? mp_metric_set_get(p->metrics, &n) : NULL;
    for (size_t i = 0; t && i < n; i++)
        if (!strcmp(t[i].name, def->name))
            return &t[i];
    return def;
}

int mp_compare_files(const char *base, const char *fresh, int verbose,
                     FILE *out, mp_compare_result *res)
{
    mp_compare_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    mp_ncu_table a, b;
    if (mp_table_read_or_say(mp_csv_table_read, base, &a, "compare"))
        return MP_EXIT_USAGE;
    if (mp_table_read_or_say(mp_csv_table_read, fresh, &b, "compare")) {
        mp_ncu_free(&a);
        return MP_EXIT_USAGE;
    }
    int ca = mp_ncu_column(&a, "config"), cb = mp_ncu_column(&b, "config");
    if (ca < 0 || cb < 0) {
        fprintf(stderr, "memprobe: compare: %s has no config column\n",
                ca < 0 ? base : fresh);
        mp_ncu_free(&a);
        mp_ncu_free(&b);
        return MP_EXIT_USAGE;
    }
    res->base_rows = a.nrows;
    res->new_rows = b.nrows;
    /* Everything goes to `out` only once something was compared: a
     * comparison of nothing is refused with one line and no output. */
    char *text = NULL;
    size_t textlen = 0;
    FILE *final_out = out;
    out = open_memstream(&text, &textlen);
    if (!out) {
        fprintf(stderr, "memprobe: compare: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    entry *ea, *eb;
    int na = index_rows(&a, ca, &ea), nb = index_rows(&b, cb, &eb);

    const mp_metric *m[64];
    int nm = all_metrics(m, 64);
    int ma[64], mb[64];
    for (int k = 0; k < nm; k++) {
        ma[k] = mp_ncu_column(&a, m[k]->name);
        mb[k] = mp_ncu_column(&b, m[k]->name);
    }
    int req = mp_ncu_column(&a, "requests");
    int pc = mp_ncu_column(&a, "probe");
    int ta = mp_ncu_column(&a, "time_ns_median");
    int tb = mp_ncu_column(&b, "time_ns_median");
    int match = mp_ncu_column(&b, "model_match");
    double *ratios = mp_xcalloc((size_t)(na ? na : 1), sizeof *ratios);

    /* In base order, so the output follows the base file. */
    for (int r = 0; r < a.nrows; r++) {
        const char *name = a.cells[r][ca];
        if (find(ea, na, name) != r)
            continue;   /* a repeat */
        int s = find(eb, nb, name);
        if (s < 0) {
            fprintf(out, "%-40s missing from %s\n", name, fresh);
            res->only_base++;
            continue;
        }
        res->matched++;
        double requests = 0;
        if (req >= 0)
            mp_ncu_number(&a, r, req, &requests);
        for (int k = 0; k < nm; k++) {
            double x, y;
            if (ma[k] < 0 || mb[k] < 0 || !strcmp(m[k]->name, MP_METRIC_TIME)
                || mp_ncu_number(&a, r, ma[k], &x)
                || mp_ncu_number(&b, s, mb[k], &y))
                continue;
            double allowed = mp_metric_allowed(
                row_metric(pc >= 0 ? a.cells[r][pc] : NULL, m[k]), x,
                requests);
            int ok = fabs(y - x) <= allowed;
            res->values++;
            res->differ += !ok;
            if (!ok || verbose)
                fprintf(out, "%-40s %-58s %16.0f %16.0f %12.0f %12.0f  %s\n",
                        name, m[k]->name, x, y, y - x, allowed,
                        ok ? "ok" : "DIFFERS");
        }
        double x, y;
        if (ta >= 0 && tb >= 0 && !mp_ncu_number(&a, r, ta, &x)
            && !mp_ncu_number(&b, s, tb, &y) && x > 0)
            ratios[res->time_pairs++] = y / x;
    }
    for (int r = 0; r < nb; r++)
        if (find(ea, na, eb[r].name) < 0)
            res->only_new++;
    if (match >= 0)
        for (int r = 0; r < nb; r++)
            if (!strcmp(b.cells[eb[r].row][match], "no")) {
                fprintf(out, "%-40s differs from the model in %s\n",
                        eb[r].name, fresh);
                res->model_mismatch++;
            }
    if (res->time_pairs) {
        int n = res->time_pairs;
        res->time_ratio_median = mp_median(ratios, (size_t)n);
        res->time_ratio_min = ratios[0];
        res->time_ratio_max = ratios[n - 1];
    }
    fprintf(out, "compare: %d configurations in both, %d only in %s, %d only "
            "in %s; %d counter values compared, %d differ beyond tolerance; "
            "%d rows differ from the model",
            res->matched, res->only_base, base, res->only_new, fresh,
            res->values, res->differ, res->model_mismatch);
    if (res->time_pairs)
        fprintf(out, "; time new/base median %.4f (%.4f to %.4f)",
                res->time_ratio_median, res->time_ratio_min,
                res->time_ratio_max);
    fputc('\n', out);
    int status = res->differ || res->only_base || res->model_mismatch
                     ? MP_EXIT_FAIL : MP_EXIT_OK;
    if (fclose(out) != 0) {
        fprintf(stderr, "memprobe: compare: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    if (res->values == 0) {
        /* Nothing compared is no pass (and no check failed either): the
         * files cannot answer the question. */
        if (a.nrows == 0 || b.nrows == 0)
            fprintf(stderr, "memprobe: compare: %s has no data rows: "
                    "nothing to compare\n", a.nrows == 0 ? base : fresh);
        else if (res->matched == 0)
            fprintf(stderr, "memprobe: compare: %s and %s have no "
                    "configuration in common: nothing compared\n", base,
                    fresh);
        else
            fprintf(stderr, "memprobe: compare: none of the %d "
                    "configuration%s in both %s and %s has a counter value "
                    "in both (measured with --counters off?): 0 counter "
                    "values compared\n", res->matched,
                    res->matched == 1 ? "" : "s", base, fresh);
        status = MP_EXIT_USAGE;
    } else {
        fwrite(text, 1, textlen, final_out);
    }
    free(text);
    free(ratios);
    free(ea);
    free(eb);
    mp_ncu_free(&a);
    mp_ncu_free(&b);
    return status;
}

