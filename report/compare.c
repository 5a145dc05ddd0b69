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
#include "csv_table.h"
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
static int index_rows(const mp_csv_table *t, int col, entry **out)
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

/* The two files side by side: their tables, config columns and row
 * indexes, and the columns the comparison reads. */
typedef struct {
    const char *base, *fresh;
    mp_csv_table a, b;
    int ca, cb;
    entry *ea, *eb;
    int na, nb;
    const mp_metric *m[64];
    int nm, ma[64], mb[64];   /* every metric, its column in a and in b */
    int req, pc, ta, tb, match;
} pair;

/* Reads both files and finds their config columns; MP_EXIT_OK, or
 * MP_EXIT_USAGE with one line said (nothing left to free). */
static int pair_open(pair *p, const char *base, const char *fresh)
{
    p->base = base;
    p->fresh = fresh;
    if (mp_table_read_or_say(mp_csv_table_read, base, &p->a, "compare"))
        return MP_EXIT_USAGE;
    if (mp_table_read_or_say(mp_csv_table_read, fresh, &p->b, "compare")) {
        mp_csv_free(&p->a);
        return MP_EXIT_USAGE;
    }
    p->ca = mp_csv_column(&p->a, "config");
    p->cb = mp_csv_column(&p->b, "config");
    if (p->ca < 0 || p->cb < 0) {
        fprintf(stderr, "memprobe: compare: %s has no config column\n",
                p->ca < 0 ? base : fresh);
        mp_csv_free(&p->a);
        mp_csv_free(&p->b);
        return MP_EXIT_USAGE;
    }
    return MP_EXIT_OK;
}

/* Indexes both files' rows and finds the columns the comparison reads. */
static void pair_index(pair *p)
{
    p->na = index_rows(&p->a, p->ca, &p->ea);
    p->nb = index_rows(&p->b, p->cb, &p->eb);
    p->nm = all_metrics(p->m, 64);
    for (int k = 0; k < p->nm; k++) {
        p->ma[k] = mp_csv_column(&p->a, p->m[k]->name);
        p->mb[k] = mp_csv_column(&p->b, p->m[k]->name);
    }
    p->req = mp_csv_column(&p->a, "requests");
    p->pc = mp_csv_column(&p->a, "probe");
    p->ta = mp_csv_column(&p->a, "time_ns_median");
    p->tb = mp_csv_column(&p->b, "time_ns_median");
    p->match = mp_csv_column(&p->b, "model_match");
}

/* The columns of a configuration that its name does not always carry and
 * that set how much one launch does: two rows of one name that differ in
 * one of them count different work (16384 iterations against 4096 are 4x
 * the wavefronts), so their counters cannot be compared. */
static const int counted_settings[] = {
    MP_COL_OP, MP_COL_WIDTH, MP_COL_STRIDE, MP_COL_BASE, MP_COL_GROUP,
    MP_COL_PERIOD, MP_COL_PAD, MP_COL_OFFSET, MP_COL_LAYOUT, MP_COL_CACHE,
    MP_COL_KERNEL, MP_COL_ARRAY_BYTES, MP_COL_SWIZZLE, MP_COL_TILE_BYTES,
    MP_COL_PASSES, MP_COL_CLUSTER_SIZE, MP_COL_SPREAD, MP_COL_SPACING,
    MP_COL_SOURCE, MP_COL_ACCESS, MP_COL_VARIANT, MP_COL_WORKLOAD,
    MP_COL_ELEMENTS, MP_COL_THREADS, MP_COL_BLOCKS, MP_COL_ITERATIONS,
    MP_COL_SHARED_BYTES, MP_COL_DIRECTION, MP_COL_HOST_MEMORY, MP_COL_METHOD,
    MP_COL_BYTES, MP_COL_SRC_DEVICE, MP_COL_DST_DEVICE, MP_COL_PEER_ACCESS,
    MP_COL_PREFETCH, MP_COL_FOOTPRINT, MP_COL_STRIDE_BYTES, MP_COL_ORDER,
    MP_COL_SPACE, MP_COL_LOADS, MP_COL_WARM_LOADS, MP_COL_INFLIGHT,
    MP_COL_GRID,
};

/* The run settings that move only the times: their difference is said,
 * and the counters are compared all the same. */
static const int timing_settings[] = {
    MP_COL_WARMUP, MP_COL_RUNS, MP_COL_LAUNCHES_PER_SAMPLE,
};

/* A setting column that differs between rows of one name. */
typedef struct {
    const char *name;      /* the column; NULL when none differs */
    const char *x, *y;     /* its cells in the first such pair */
    int pairs;             /* configurations in both where it differs */
    int others;            /* further columns of the list that differ */
} setting_diff;

/* The first column of cols[0 .. n) whose cells differ between base and
 * new rows of one configuration name, with how many do. */
static setting_diff differing_setting(const pair *p, const int *cols, int n)
{
    setting_diff d = {NULL, NULL, NULL, 0, 0};
    for (int k = 0; k < n; k++) {
        const char *name = mp_schema_name(cols[k]);
        int ca = mp_csv_column(&p->a, name), cb = mp_csv_column(&p->b, name);
        int pairs = 0;
        const char *x = NULL, *y = NULL;
        for (int i = 0; ca >= 0 && cb >= 0 && i < p->na; i++) {
            int s = find(p->eb, p->nb, p->ea[i].name);
            if (s < 0 || !strcmp(p->a.cells[p->ea[i].row][ca],
                                 p->b.cells[s][cb]))
                continue;
            if (!pairs++) {
                x = p->a.cells[p->ea[i].row][ca];
                y = p->b.cells[s][cb];
            }
        }
        if (pairs && d.name)
            d.others++;
        else if (pairs)
            d = (setting_diff){name, x, y, pairs, 0};
    }
    return d;
}

/* "ITERATIONS (16384 vs 4096 in 3 configurations[, and 1 other
 * setting])" into buf. */
static void say_setting(const setting_diff *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%s vs %s in %d configuration%s%s", d->name,
             d->x[0] ? d->x : "empty", d->y[0] ? d->y : "empty", d->pairs,
             d->pairs == 1 ? "" : "s", d->others ? ", and " : ")");
    if (d->others) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%d other setting%s)", d->others,
                 d->others == 1 ? "" : "s");
    }
}

/* 0, with one line on stderr, when rows of one name differ in a setting
 * that sets the work of a launch; else 1, with a note for out in note
 * ("" when none) where they differ only in how they were timed. */
static int settings_comparable(const pair *p, char *note, size_t len)
{
    char said[512];
    setting_diff d = differing_setting(p, counted_settings,
                                       (int)(sizeof counted_settings
                                             / sizeof *counted_settings));
    if (d.name) {
        say_setting(&d, said, sizeof said);
        fprintf(stderr, "memprobe: compare: %s and %s were measured with "
                "different %s: their counters are not comparable\n",
                p->base, p->fresh, said);
        return 0;
    }
    d = differing_setting(p, timing_settings,
                          (int)(sizeof timing_settings
                                / sizeof *timing_settings));
    note[0] = '\0';
    if (d.name) {
        say_setting(&d, said, sizeof said);
        snprintf(note, len, "note: %s and %s were timed with different %s: "
                 "the counters compare all the same, the times less well\n",
                 p->base, p->fresh, said);
    }
    return 1;
}

static void pair_free(pair *p)
{
    free(p->ea);
    free(p->eb);
    mp_csv_free(&p->a);
    mp_csv_free(&p->b);
}

/* Compares the counters of base row r with new row s, each within its
 * tolerance, and prints those that differ (all of them when verbose). */
static void compare_row(const pair *p, int r, int s, int verbose, FILE *out,
                        mp_compare_result *res)
{
    const char *name = p->a.cells[r][p->ca];
    double requests = 0;
    if (p->req >= 0)
        mp_csv_number(&p->a, r, p->req, &requests);
    for (int k = 0; k < p->nm; k++) {
        double x, y;
        if (p->ma[k] < 0 || p->mb[k] < 0
            || !strcmp(p->m[k]->name, MP_METRIC_TIME)
            || mp_csv_number(&p->a, r, p->ma[k], &x)
            || mp_csv_number(&p->b, s, p->mb[k], &y))
            continue;
        double allowed = mp_metric_allowed(
            row_metric(p->pc >= 0 ? p->a.cells[r][p->pc] : NULL, p->m[k]),
            x, requests);
        int ok = fabs(y - x) <= allowed;
        res->values++;
        res->differ += !ok;
        if (!ok || verbose)
            fprintf(out, "%-40s %-58s %16.0f %16.0f %12.0f %12.0f  %s\n",
                    name, p->m[k]->name, x, y, y - x, allowed,
                    ok ? "ok" : "DIFFERS");
    }
}

/* The base file's configurations in its order: each compared with the
 * new file's row of the same name, or said missing; the time ratios new
 * / base go to ratios (time_pairs of them). */
static void compare_rows(const pair *p, int verbose, FILE *out,
                         double *ratios, mp_compare_result *res)
{
    for (int r = 0; r < p->a.nrows; r++) {
        const char *name = p->a.cells[r][p->ca];
        if (find(p->ea, p->na, name) != r)
            continue;   /* a repeat */
        int s = find(p->eb, p->nb, name);
        if (s < 0) {
            fprintf(out, "%-40s missing from %s\n", name, p->fresh);
            res->only_base++;
            continue;
        }
        res->matched++;
        compare_row(p, r, s, verbose, out, res);
        double x, y;
        if (p->ta >= 0 && p->tb >= 0 && !mp_csv_number(&p->a, r, p->ta, &x)
            && !mp_csv_number(&p->b, s, p->tb, &y) && x > 0)
            ratios[res->time_pairs++] = y / x;
    }
}

/* The new file's side: configurations only it has, and its rows that
 * differ from the model (said one a line). */
static void check_new(const pair *p, FILE *out, mp_compare_result *res)
{
    for (int r = 0; r < p->nb; r++)
        if (find(p->ea, p->na, p->eb[r].name) < 0)
            res->only_new++;
    if (p->match < 0)
        return;
    for (int r = 0; r < p->nb; r++)
        if (!strcmp(p->b.cells[p->eb[r].row][p->match], "no")) {
            fprintf(out, "%-40s differs from the model in %s\n",
                    p->eb[r].name, p->fresh);
            res->model_mismatch++;
        }
}

/* The closing line: counts, and the time ratios' median and range. */
static void say_totals(const pair *p, double *ratios, FILE *out,
                       mp_compare_result *res)
{
    if (res->time_pairs) {
        int n = res->time_pairs;
        res->time_ratio_median = mp_median(ratios, (size_t)n);
        res->time_ratio_min = ratios[0];
        res->time_ratio_max = ratios[n - 1];
    }
    fprintf(out, "compare: %d configurations in both, %d only in %s, %d only "
            "in %s; %d counter values compared, %d differ beyond tolerance; "
            "%d rows differ from the model",
            res->matched, res->only_base, p->base, res->only_new, p->fresh,
            res->values, res->differ, res->model_mismatch);
    if (res->time_pairs)
        fprintf(out, "; time new/base median %.4f (%.4f to %.4f)",
                res->time_ratio_median, res->time_ratio_min,
                res->time_ratio_max);
    fputc('\n', out);
}

/* Why no counter value was compared, in one line on stderr: nothing
 * compared is no pass (and no check failed either). */
static void say_nothing_compared(const pair *p, const mp_compare_result *res)
{
    if (p->a.nrows == 0 || p->b.nrows == 0)
        fprintf(stderr, "memprobe: compare: %s has no data rows: "
                "nothing to compare\n", p->a.nrows == 0 ? p->base : p->fresh);
    else if (res->matched == 0)
        fprintf(stderr, "memprobe: compare: %s and %s have no "
                "configuration in common: nothing compared\n", p->base,
                p->fresh);
    else
        fprintf(stderr, "memprobe: compare: none of the %d "
                "configuration%s in both %s and %s has a counter value "
                "in both (measured with --counters off?): 0 counter "
                "values compared\n", res->matched,
                res->matched == 1 ? "" : "s", p->base, p->fresh);
}

int mp_compare_files(const char *base, const char *fresh, int verbose,
                     FILE *out, mp_compare_result *res)
{
    mp_compare_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    pair p;
    if (pair_open(&p, base, fresh))
        return MP_EXIT_USAGE;
    res->base_rows = p.a.nrows;
    res->new_rows = p.b.nrows;
    pair_index(&p);
    char note[1024] = "";
    if (!settings_comparable(&p, note, sizeof note)) {
        pair_free(&p);
        return MP_EXIT_FAIL;
    }
    /* Everything goes to `out` only once something was compared: a
     * comparison of nothing is refused with one line and no output. */
    char *text = NULL;
    size_t textlen = 0;
    FILE *buf = open_memstream(&text, &textlen);
    if (!buf) {
        fprintf(stderr, "memprobe: compare: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    fputs(note, buf);
    double *ratios = mp_xcalloc((size_t)(p.na ? p.na : 1), sizeof *ratios);
    compare_rows(&p, verbose, buf, ratios, res);
    check_new(&p, buf, res);
    say_totals(&p, ratios, buf, res);
    int status = res->differ || res->only_base || res->model_mismatch
                     ? MP_EXIT_FAIL : MP_EXIT_OK;
    if (fclose(buf) != 0) {
        fprintf(stderr, "memprobe: compare: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    if (res->values == 0) {
        say_nothing_compared(&p, res);
        status = MP_EXIT_USAGE;
    } else {
        fwrite(text, 1, textlen, out);
    }
    free(text);
    free(ratios);
    pair_free(&p);
    return status;
}
