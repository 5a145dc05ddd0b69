/*
 * hierarchy.c - the memory-hierarchy figures from latency rows (see
 * hierarchy.h): which rows each figure takes and how it is read off them.
 *
 * Rows are the latency probe's (global chases at stride 128 unless said):
 *   L1 latency     cache default, footprint <= 64 KiB (random first);
 *   L2 latency     cache cg, footprint 64 KiB .. L2/8 (random first);
 *                  else cache default, 2 x L1 .. L2/8;
 *   DRAM latency   the smallest footprint >= 4 x L2, random; the largest
 *                  footprint's figure beside it (more pages: TLB misses);
 *   L1 / L2 edge   the random staircase (default for L1, cg for L2): the
 *                  last footprint below the midpoint between the two
 *                  levels' latencies and the first above it;
 *   granularity    sequential stride sweeps (strides up to 4 KiB): the
 *                  smallest stride at which
 *                  the latency reaches 90% of the largest stride's, for a
 *                  footprint between 2 x L1 and L2/8 (L1's fetch) and one
 *                  >= 4 x L2 (what the L2 fetches from DRAM);
 *   TLB reach      stride 2 MiB (one load per page), cache cg (L2 hits
 *                  whatever the page count; through L1 the lines would
 *                  fill the L1 first), sequential: the first page count
 *                  from which every row lies above all rows of fewer
 *                  pages and 2% (and 5 cycles) above their median; else
 *                  "no step" with the rows' range;
 *   shared, constant  space shared (median), constant (smallest and
 *                  largest footprint).
 * Medians where several rows qualify (several files, seq and random).
 */
#include "hierarchy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "latency_model.h"
#include "params.h"
#include "replace.h"
#include "stats.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024)

static void copy_cell(char *dst, size_t len, const mp_csv_table *t, int r,
                      int c)
{
    snprintf(dst, len, "%s", c >= 0 ? t->cells[r][c] : "");
}

void mp_hier_add(mp_hier *h, const mp_csv_table *t, const char *file)
{
    int probe = mp_csv_column(t, "probe");
    int verified = mp_csv_column(t, "verified");
    int fp = mp_csv_column(t, "footprint_bytes");
    int st = mp_csv_column(t, "stride_bytes");
    int cy = mp_csv_column(t, "cycles_per_load");
    if (probe < 0 || fp < 0 || st < 0 || cy < 0)
        return;
    int ns = mp_csv_column(t, "ns_per_load");
    for (int r = 0; r < t->nrows; r++) {
        mp_hier_row x;
        memset(&x, 0, sizeof x);
        if (strcmp(t->cells[r][probe], "latency")
            || (verified >= 0 && strcmp(t->cells[r][verified], "yes"))
            || mp_csv_number(t, r, fp, &x.footprint)
            || mp_csv_number(t, r, st, &x.stride)
            || mp_csv_number(t, r, cy, &x.cycles))
            continue;
        if (ns < 0 || mp_csv_number(t, r, ns, &x.ns))
            x.ns = NAN;
        copy_cell(x.order, sizeof x.order, t, r, mp_csv_column(t, "order"));
        copy_cell(x.cache, sizeof x.cache, t, r, mp_csv_column(t, "cache"));
        copy_cell(x.space, sizeof x.space, t, r, mp_csv_column(t, "space"));
        copy_cell(x.model, sizeof x.model, t, r,
                  mp_csv_column(t, "model_level"));
        copy_cell(x.counter, sizeof x.counter, t, r,
                  mp_csv_column(t, "counter_level"));
        copy_cell(x.config, sizeof x.config, t, r, mp_csv_column(t, "config"));
        x.file = file;
        if (h->n == h->cap) {
            h->cap = h->cap ? 2 * h->cap : 64;
            h->rows = realloc(h->rows, (size_t)h->cap * sizeof *h->rows);
            if (!h->rows) {
                fprintf(stderr, "memprobe: out of memory\n");
                exit(MP_EXIT_FAIL);
            }
        }
        h->rows[h->n++] = x;
    }
}

void mp_hier_free(mp_hier *h)
{
    free(h->rows);
    memset(h, 0, sizeof *h);
}

/* ---- selecting rows ------------------------------------------------- */

typedef struct {
    const char *space, *cache, *order;   /* NULL: any */
    double stride;                       /* 0: any */
    double fmin, fmax;                   /* footprint range, inclusive */
} filter;

static int matches(const mp_hier_row *r, const filter *f)
{
    return (!f->space || !strcmp(r->space, f->space))
           && (!f->cache || !strcmp(r->cache, f->cache))
           && (!f->order || !strcmp(r->order, f->order))
           && (f->stride <= 0 || r->stride == f->stride)
           && r->footprint >= f->fmin && r->footprint <= f->fmax;
}

/* Median cycles of the matching rows; their configs (up to 3) and files
 * into `from`. */
static double median_of(const mp_hier *h, const filter *f, char *from,
                        size_t len)
{
    double *v = mp_xcalloc((size_t)h->n + 1, sizeof *v);
    int n = 0;
    size_t used = 0;
    if (from)
        from[0] = '\0';
    for (int i = 0; i < h->n; i++) {
        if (!matches(&h->rows[i], f))
            continue;
        if (from && n < 3)
            used += snprintf(from + used, used < len ? len - used : 0,
                             "%s%s (%s)", n ? ", " : "", h->rows[i].config,
                             h->rows[i].file);
        v[n++] = h->rows[i].cycles;
    }
    if (from && n > 3)
        snprintf(from + used, used < len ? len - used : 0, " and %d more",
                 n - 3);
    double m = mp_median(v, (size_t)n);
    free(v);
    return m;
}

/* The matching rows as a curve: distinct values of `key` (footprint or
 * stride), ascending, with the median cycles of each. Returns points. */
typedef struct {
    double x, cycles;
    const char *config, *file;
} point;

static int curve(const mp_hier *h, const filter *f, int by_stride,
                 point *pts, int max)
{
    int n = 0;
    for (int i = 0; i < h->n; i++) {
        const mp_hier_row *r = &h->rows[i];
        if (!matches(r, f))
            continue;
        double x = by_stride ? r->stride : r->footprint;
        int k = 0;
        while (k < n && pts[k].x != x)
            k++;
        if (k < n)
            continue;
        if (n == max)
            break;
        /* The median of every row at this x. */
        filter g = *f;
        if (by_stride)
            g.stride = x;
        else
            g.fmin = g.fmax = x;
        pts[n].x = x;
        pts[n].cycles = median_of(h, &g, NULL, 0);
        pts[n].config = r->config;
        pts[n].file = r->file;
        n++;
    }
    /* Sort by x (insertion: short lists). */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && pts[j - 1].x > pts[j].x; j--) {
            point t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    return n;
}

static void bytes_text(char *out, size_t len, double b)
{
    if (b >= MIB && fmod(b, MIB) == 0)
        snprintf(out, len, "%.0f MiB", b / MIB);
    else if (b >= KIB && fmod(b, KIB) == 0)
        snprintf(out, len, "%.0f KiB", b / KIB);
    else
        snprintf(out, len, "%.0f B", b);
}

/* ---- the figures ---------------------------------------------------- */

void mp_hier_latencies(const mp_hier *h, mp_hier_latency *l)
{
    mp_lat_caps caps;
    mp_lat_caps_h200(&caps);
    double l1 = (double)caps.l1_bytes, l2 = (double)caps.l2_bytes;
    filter f = {"global", "default", "random", 128, 0, 64 * KIB};
    l->l1 = median_of(h, &f, NULL, 0);
    if (isnan(l->l1)) {
        f.order = NULL;
        l->l1 = median_of(h, &f, NULL, 0);
    }
    filter g = {"global", "cg", "random", 128, 0, l2 / 8};
    l->l2 = median_of(h, &g, NULL, 0);
    if (isnan(l->l2)) {
        filter d = {"global", "default", "random", 128, 2 * l1, l2 / 8};
        l->l2 = median_of(h, &d, NULL, 0);
    }
    point pts[64];
    filter dr = {"global", NULL, "random", 128, 4 * l2, 1e30};
    int n = curve(h, &dr, 0, pts, 64);
    l->dram = n ? pts[0].cycles : NAN;
    l->dram_tlb = n ? pts[n - 1].cycles : NAN;
    filter s = {"shared", NULL, NULL, 0, 0, 1e30};
    l->shared = median_of(h, &s, NULL, 0);
    filter c = {"constant", NULL, NULL, 0, 0, 1e30};
    n = curve(h, &c, 0, pts, 64);
    l->constant_hit = n ? pts[0].cycles : NAN;
    l->constant_miss = n ? pts[n - 1].cycles : NAN;
}

/* The step of a staircase between latencies lo and hi: the last point
 * below their midpoint and the first at or above it. */
static void edge(mp_hier_figure *fig, const point *pts, int n, double lo,
                 double hi, double after)
{
    double mid = 0.5 * (lo + hi);
    char a[32], b[32];
    for (int i = 1; i < n; i++) {
        if (pts[i].x <= after || pts[i].cycles < mid)
            continue;
        if (pts[i - 1].cycles >= mid)
            continue;
        bytes_text(a, sizeof a, pts[i - 1].x);
        bytes_text(b, sizeof b, pts[i].x);
        snprintf(fig->value, sizeof fig->value, "between %s (%.1f cycles) "
                 "and %s (%.1f cycles)", a, pts[i - 1].cycles, b,
                 pts[i].cycles);
        snprintf(fig->from, sizeof fig->from, "%s, %s (%s)",
                 pts[i - 1].config, pts[i].config, pts[i].file);
        return;
    }
}

/* The smallest stride at which a sequential chase pays 90% of the
 * largest stride's latency step over `base` (the level that serves
 * repeated bytes). */
static void granularity(mp_hier_figure *fig, const mp_hier *h, double fmin,
                        double fmax, double base)
{
    point pts[32];
    filter f = {"global", "default", "seq", 0, fmin, fmax};
    int n = curve(h, &f, 1, pts, 32);
    while (n > 0 && pts[n - 1].x > 4096)   /* page strides: the TLB's */
        n--;
    if (n < 3 || isnan(base))
        return;
    double top = pts[n - 1].cycles;
    for (int i = 0; i < n; i++) {
        if (pts[i].cycles - base >= 0.9 * (top - base)) {
            size_t used = (size_t)snprintf(fig->value, sizeof fig->value,
                "%.0f bytes (every load slow from this stride on:",
                pts[i].x);
            for (int k = 0; k < n && used < sizeof fig->value; k++)
                used += (size_t)snprintf(fig->value + used,
                                         sizeof fig->value - used,
                                         " %.0f B %.0f", pts[k].x,
                                         pts[k].cycles);
            if (used < sizeof fig->value)
                snprintf(fig->value + used, sizeof fig->value - used, ")");
            snprintf(fig->from, sizeof fig->from, "%s .. %s (%s)",
                     pts[0].config, pts[n - 1].config, pts[0].file);
            return;
        }
    }
}

/* The TLB reach from the cg chases at one load per 2 MiB page (pts, by
 * page count): the first page count from which every row lies above
 * every row of fewer pages and 2% (and 5 cycles) above their median. A
 * curve without such a step says so with its range: which L2 half homes
 * each page's line moves a chase by more than the TLB does (l2map --tlb
 * keeps the homes apart). */
static void tlb_reach(mp_hier_figure *fig, const point *pts, int n)
{
    if (n < 2)
        return;
    double lo = pts[0].cycles, hi = pts[0].cycles, after[128], before[128];
    after[n - 1] = pts[n - 1].cycles;   /* the least from each row on */
    for (int k = n - 2; k >= 0; k--)
        after[k] = fmin(after[k + 1], pts[k].cycles);
    for (int i = 1; i < n; i++) {
        for (int k = 0; k < i; k++)   /* mp_median sorts its input */
            before[k] = pts[k].cycles;
        double m = mp_median(before, (size_t)i);
        if (after[i] > hi && after[i] > 1.02 * m && after[i] > m + 5) {
            snprintf(fig->value, sizeof fig->value, "%.0f pages (%.0f MiB: "
                     "%.1f cycles) fit, %.0f pages (%.1f cycles) do not; "
                     "%.0f pages: %.1f cycles", pts[i - 1].x / (2 * MIB),
                     pts[i - 1].x / MIB, pts[i - 1].cycles,
                     pts[i].x / (2 * MIB), pts[i].cycles,
                     pts[n - 1].x / (2 * MIB), pts[n - 1].cycles);
            break;
        }
        lo = fmin(lo, pts[i].cycles);
        hi = fmax(hi, pts[i].cycles);
    }
    if (!fig->value[0])
        snprintf(fig->value, sizeof fig->value, "no step from %.0f to %.0f "
                 "pages: %.1f-%.1f cycles, the L2 homes' spread (memprobe "
                 "l2map --tlb)", pts[0].x / (2 * MIB),
                 pts[n - 1].x / (2 * MIB), lo, hi);
    snprintf(fig->from, sizeof fig->from, "%s .. %s (%s)", pts[0].config,
             pts[n - 1].config, pts[0].file);
}

/* A figure from a median of cycles x (none when NAN) and its rows. */
static void median_figure(mp_hier_figure *fig, double x, const char *from)
{
    if (isnan(x))
        return;
    snprintf(fig->value, sizeof fig->value, "%.1f cycles", x);
    snprintf(fig->from, sizeof fig->from, "%s", from);
}

/* A figure from one point of a curve: its cycles and footprint (after
 * `what`), and its config and file. */
static void point_figure(mp_hier_figure *fig, const point *p,
                         const char *what)
{
    char b[32];
    bytes_text(b, sizeof b, p->x);
    snprintf(fig->value, sizeof fig->value, "%.1f cycles (%s%s)", p->cycles,
             what, b);
    snprintf(fig->from, sizeof fig->from, "%s (%s)", p->config, p->file);
}

int mp_hier_derive(const mp_hier *h, mp_hier_figure *f)
{
    static const char *const names[MP_HIER_FIGURES] = {
        "L1 hit latency", "L2 hit latency", "device-memory latency",
        "device memory, largest footprint", "effective L1 capacity",
        "effective L2 capacity", "L1 fetch granularity",
        "L2 fetch granularity from DRAM", "TLB reach (2 MiB pages)",
        "shared-memory latency", "constant cache hit", "constant, largest",
    };
    for (int i = 0; i < MP_HIER_FIGURES; i++) {
        memset(&f[i], 0, sizeof f[i]);
        f[i].name = names[i];
    }
    mp_lat_caps caps;
    mp_lat_caps_h200(&caps);
    double l1 = (double)caps.l1_bytes, l2 = (double)caps.l2_bytes;
    mp_hier_latency lat;
    mp_hier_latencies(h, &lat);
    char from[320];

    filter fl1 = {"global", "default", "random", 128, 0, 64 * KIB};
    double x = median_of(h, &fl1, from, sizeof from);
    if (isnan(x)) {
        fl1.order = NULL;
        x = median_of(h, &fl1, from, sizeof from);
    }
    median_figure(&f[0], x, from);
    filter fl2 = {"global", "cg", "random", 128, 0, l2 / 8};
    x = median_of(h, &fl2, from, sizeof from);
    if (isnan(x)) {
        filter d = {"global", "default", "random", 128, 2 * l1, l2 / 8};
        x = median_of(h, &d, from, sizeof from);
    }
    median_figure(&f[1], x, from);
    point pts[128];
    filter fd = {"global", NULL, "random", 128, 4 * l2, 1e30};
    int n = curve(h, &fd, 0, pts, 128);
    if (n) {
        point_figure(&f[2], &pts[0], "random, ");
        point_figure(&f[3], &pts[n - 1], "random, ");
    }
    filter s1 = {"global", "default", "random", 128, 0, 1e30};
    n = curve(h, &s1, 0, pts, 128);
    edge(&f[4], pts, n, lat.l1, lat.l2, 0);
    filter s2 = {"global", "cg", "random", 128, 0, 1e30};
    n = curve(h, &s2, 0, pts, 128);
    if (n == 0) {
        s2.cache = "default";
        n = curve(h, &s2, 0, pts, 128);
    }
    edge(&f[5], pts, n, lat.l2, lat.dram, 2 * l1);
    granularity(&f[6], h, 2 * l1, l2 / 8, lat.l1);
    granularity(&f[7], h, 4 * l2, 1e30, lat.l2);

    filter ft = {"global", "cg", "seq", 2 * MIB, 0, 1e30};
    n = curve(h, &ft, 0, pts, 128);
    if (n == 0) {
        ft.order = NULL;
        n = curve(h, &ft, 0, pts, 128);
    }
    tlb_reach(&f[8], pts, n);
    filter fs = {"shared", NULL, NULL, 0, 0, 1e30};
    x = median_of(h, &fs, from, sizeof from);
    median_figure(&f[9], x, from);
    filter fc = {"constant", NULL, NULL, 0, 0, 1e30};
    n = curve(h, &fc, 0, pts, 128);
    if (n) {
        point_figure(&f[10], &pts[0], "");
        point_figure(&f[11], &pts[n - 1], "");
    }
    return MP_HIER_FIGURES;
}

void mp_hier_print(const mp_hier_figure *f, int n, int md, FILE *out)
{
    if (md)
        fprintf(out, "| figure | measured | from rows |\n| --- | --- | --- |\n");
    for (int i = 0; i < n; i++) {
        const char *v = f[i].value[0] ? f[i].value : "-";
        if (md)
            fprintf(out, "| %s | %s | %s |\n", f[i].name, v,
                    f[i].from[0] ? f[i].from : "-");
        else
            fprintf(out, "%-34s %s\n%-34s   from: %s\n", f[i].name, v, "",
                    f[i].from[0] ? f[i].from : "-");
    }
}

/* DIR/name's new file beside it, opened for writing (NULL when it
 * cannot be). */
static FILE *create_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return mp_replace_open(path, NULL, 0);
}

/* out closed and renamed over DIR/name: 0, or -1 with DIR/name left as
 * it was. */
static int close_in(FILE *out, const char *dir, const char *name)
{
    char path[4096], temp[4096 + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mp_replace_temp_name(path, temp, sizeof temp);
    if (ferror(out) | (fclose(out) != 0)) {
        unlink(temp);
        return -1;
    }
    return mp_replace_commit_one(temp, path, NULL, 0);
}

int mp_hier_plot_data(const mp_hier *h, const char *dir)
{
    FILE *out = create_in(dir, "latency-footprint.dat");
    if (!out)
        return -1;
    fprintf(out, "# latency (cycles per load) against footprint (KiB), "
            "stride 128, one block per series\n");
    static const char *const orders[] = {"random", "seq"};
    static const char *const caches[] = {"default", "cg"};
    point pts[128];
    for (int o = 0; o < 2; o++)
        for (int c = 0; c < 2; c++) {
            filter f = {"global", caches[c], orders[o], 128, 0, 1e30};
            int n = curve(h, &f, 0, pts, 128);
            if (n == 0)
                continue;
            fprintf(out, "\n\n\"%s, %s\"\n", orders[o],
                    c ? "cg (L2 only)" : "through L1");
            for (int i = 0; i < n; i++)
                fprintf(out, "%.6g %.2f\n", pts[i].x / KIB, pts[i].cycles);
        }
    return close_in(out, dir, "latency-footprint.dat");
}

/* A bandwidth configuration of repeated walks: a "/r<digits>" segment
 * ("bandwidth/read/w16/o0/s1/b4096/r0"). */
static int repeated(const char *config)
{
    for (const char *s = strstr(config, "/r"); s; s = strstr(s + 1, "/r"))
        if (s[2] >= '0' && s[2] <= '9')
            return 1;
    return 0;
}

int mp_hier_bandwidth_plot_data(const mp_csv_table *const *tables, int n,
                                const char *dir)
{
    FILE *out = create_in(dir, "bandwidth-footprint.dat");
    if (!out)
        return -1;
    fprintf(out, "# bandwidth (GB/s) against array size (KiB), repeated "
            "walks, one block per kernel\n");
    static const char *const kernels[] = {"read", "write", "copy"};
    for (int k = 0; k < 3; k++) {
        point pts[64];
        int np = 0;
        for (int i = 0; i < n; i++) {
            const mp_csv_table *t = tables[i];
            int probe = mp_csv_column(t, "probe");
            int config = mp_csv_column(t, "config");
            int kernel = mp_csv_column(t, "kernel");
            int bytes = mp_csv_column(t, "array_bytes");
            int gbs = mp_csv_column(t, "bandwidth_gbs");
            if (probe < 0 || config < 0 || kernel < 0 || bytes < 0 || gbs < 0)
                continue;
            for (int r = 0; r < t->nrows && np < 64; r++) {
                double b, g;
                if (strcmp(t->cells[r][probe], "bandwidth")
                    || !repeated(t->cells[r][config])
                    || strcmp(t->cells[r][kernel], kernels[k])
                    || mp_csv_number(t, r, bytes, &b)
                    || mp_csv_number(t, r, gbs, &g))
                    continue;
                int dup = 0;
                for (int j = 0; j < np && !dup; j++)
                    dup = pts[j].x == b;
                if (!dup)
                    pts[np++] = (point){b, g, NULL, NULL};
            }
        }
        for (int i = 1; i < np; i++)
            for (int j = i; j > 0 && pts[j - 1].x > pts[j].x; j--) {
                point x = pts[j];
                pts[j] = pts[j - 1];
                pts[j - 1] = x;
            }
        if (np == 0)
            continue;
        fprintf(out, "\n\n\"%s\"\n", kernels[k]);
        for (int i = 0; i < np; i++)
            fprintf(out, "%.6g %.1f\n", pts[i].x / KIB, pts[i].cycles);
    }
    return close_in(out, dir, "bandwidth-footprint.dat");
}

/* ---- memprobe hierarchy --------------------------------------------- */

