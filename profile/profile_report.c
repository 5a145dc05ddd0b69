/*
 * profile_report.c - the report of a profile CSV (profile_report.h): the
 * worst source lines by excess = measured - ideal (shared wavefronts or
 * global sectors), per instruction and as a share of their kernel's
 * excess; the sums per kernel and per NVTX range; and the plot of excess
 * by line for the worst kernels. Those are the program's own kernels;
 * library kernels (mp_prof_origin_library) get their own table after
 * them, counted, not judged. The tables print through report/'s
 * table printer (mp_rep_table_print), so --format works as for results.
 */
#include "profile_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "csv_table.h"
#include "profile_csv.h"
#include "stats.h"
#include "subprocess.h"

/* ---- tables through report/'s printer ---------------------------------- */

static void print_table(const mp_rep_table *t, const char *title,
                        mp_rep_format f, int first, FILE *out)
{
    if (!first)
        fputs(f == MP_REP_CSV ? "\r\n" : "\n", out);
    if (f == MP_REP_MD)
        fprintf(out, "**%s**\n\n", title);
    else if (f == MP_REP_TXT)
        fprintf(out, "%s\n", title);
    if (t->nrows || f == MP_REP_CSV)
        mp_rep_table_print(t, f, MP_REP_NO_TITLE, out);
    else
        fprintf(out, "%s\n", t->empty);
}

/* ---- the numbers ------------------------------------------------------- */

typedef struct {
    int src, cls;
    mp_u64 excess;
} worst;

static int cmp_worst(const void *a, const void *b)
{
    const worst *x = a, *y = b;
    if (x->excess != y->excess)
        return x->excess > y->excess ? -1 : 1;
    if (x->src != y->src)
        return x->src - y->src;   /* sources are ordered */
    return x->cls - y->cls;
}

/* A line's measured count above its ideal in class c, or 0. */
static mp_u64 line_excess(const mp_prof_src *l, int c)
{
    mp_u64 m = mp_prof_src_sum(l->meas, c), i = mp_prof_src_sum(l->ideal, c);
    return m > i ? m - i : 0;
}

/* The positive excess of every line of kernel `mangled` in class c. */
static mp_u64 kernel_excess(const mp_prof_src *s, int n, const char *mangled,
                            int c)
{
    mp_u64 sum = 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(s[k].mangled, mangled))
            sum += line_excess(&s[k], c);
    return sum;
}

static void fmt_u64(char *buf, size_t len, mp_u64 v)
{
    snprintf(buf, len, "%llu", v);
}

static void fmt_ratio_cell(char *buf, size_t len, mp_u64 m, mp_u64 i)
{
    buf[0] = '\0';
    if (i)
        mp_rep_fmt(buf, len, (double)m / (double)i, 2);
}

/* Every line with excess of the program's own kernels, worst first (one
 * entry per class); *nw how many. */
static worst *worst_lines(const mp_prof_src *s, int n, int *nw)
{
    worst *w = mp_xcalloc((size_t)n * MP_NCLASS + 1, sizeof *w);
    *nw = 0;
    for (int k = 0; k < n; k++)
        for (int c = 0; c < MP_NCLASS && !s[k].library; c++)
            if (line_excess(&s[k], c))
                w[(*nw)++] = (worst){k, c, line_excess(&s[k], c)};
    mp_sort(w, (size_t)*nw, sizeof *w, cmp_worst);
    return w;
}

/* The worst lines (w, nw from worst_lines; each class on its own row). */
static mp_rep_table *worst_table(const mp_prof_src *s, int n,
                                 const worst *w, int nw, int *more)
{
    static const char *const keys[] = {"#", "line", "kernel", "opcode",
                                       "unit"};
    static const char *const subs[] = {"per inst", "ideal per inst",
                                       "excess", "share of kernel"};
    int shown = nw < MP_PROF_WORST_LINES ? nw : MP_PROF_WORST_LINES;
    *more = nw - shown;
    mp_rep_table *t = mp_rep_table_new("lines", 5, keys, 4, subs, shown);
    for (int k = 0; k < shown; k++) {
        const mp_prof_src *l = &s[w[k].src];
        int c = w[k].cls;
        char rank[16], v[4][48];
        snprintf(rank, sizeof rank, "%d", k + 1);
        char *where = mp_prof_src_where(l);
        fmt_ratio_cell(v[0], sizeof v[0], mp_prof_src_sum(l->meas, c),
                       l->cinst[c]);
        fmt_ratio_cell(v[1], sizeof v[1], mp_prof_src_sum(l->ideal, c),
                       l->cinst[c]);
        fmt_u64(v[2], sizeof v[2], w[k].excess);
        mp_u64 all = kernel_excess(s, n, l->mangled, c);
        mp_rep_fmt(v[3], sizeof v[3], 100.0 * (double)w[k].excess
                   / (double)all, 1);
        strcat(v[3], "%");
        const char *kv[] = {rank, where, l->name,
                            l->ops[c][0] ? l->ops[c] : "?",
                            mp_prof_class_unit[c]};
        const char *vv[] = {v[0], v[1], v[2], v[3]};
        mp_rep_table_add(t, kv, vv);
        free(where);
    }
    return t;
}

/* ---- memprobe explain's rows beside the worst lines ------------------ */

/* The columns of explain.csv the report reads (explain/explain_out.c). */
static const char *const xp_cols[] = {
    "mangled", "file", "line", "function_offset", "opcode", "measured",
    "model", "equal", "why_not_compared", "fix_rank", "fix", "predicted",
    "reaches_ideal"};
enum { XP_MANGLED, XP_FILE, XP_LINE, XP_OFFSET, XP_OPCODE, XP_MEASURED,
       XP_MODEL, XP_EQUAL, XP_WHY, XP_RANK, XP_FIX, XP_PREDICTED,
       XP_REACHES, XP_NCOLS };

/* The row of instruction x's rows (those from `first` on that share its
 * kernel and offset) to show: the fix ranked 1, else the first. */
static int best_row(const mp_csv_table *x, const int *c, int first)
{
    for (int r = first; r < x->nrows; r++) {
        if (strcmp(x->cells[r][c[XP_MANGLED]], x->cells[first][c[XP_MANGLED]])
            || strcmp(x->cells[r][c[XP_OFFSET]],
                      x->cells[first][c[XP_OFFSET]]))
            break;
        if (!strcmp(x->cells[r][c[XP_RANK]], "1"))
            return r;
    }
    return first;
}

/* Whether explain row r is on source line l. */
static int on_line(const mp_csv_table *x, const int *c, int r,
                   const mp_prof_src *l)
{
    return l->file[0] && !strcmp(x->cells[r][c[XP_MANGLED]], l->mangled)
           && !strcmp(x->cells[r][c[XP_FILE]], l->file)
           && atol(x->cells[r][c[XP_LINE]]) == l->line;
}

/* One row per explained instruction of a line with excess (w, nw), in
 * the worst lines' order: its counts, the model's, and the best fix.
 * *shown: the instructions listed; *all: those explain.csv holds. */
static mp_rep_table *explained_table(const mp_prof_src *s, int n,
                                     const worst *w, int nw,
                                     const mp_csv_table *x, const int *c,
                                     int *shown, int *all)
{
    static const char *const keys[] = {"#", "line", "opcode", "offset",
                                       "equal", "best fix"};
    static const char *const subs[] = {"measured", "model", "predicted",
                                       "reaches ideal"};
    mp_rep_table *t = mp_rep_table_new("explained", 6, keys, 4, subs,
                                       x->nrows);
    *shown = *all = 0;
    for (int r = 0; r < x->nrows; r++)
        *all += r == 0 || strcmp(x->cells[r][c[XP_OFFSET]],
                                 x->cells[r - 1][c[XP_OFFSET]])
                || strcmp(x->cells[r][c[XP_MANGLED]],
                          x->cells[r - 1][c[XP_MANGLED]]);
    unsigned char *listed = mp_xcalloc((size_t)n + 1, 1);
    for (int k = 0; k < nw; k++) {
        const mp_prof_src *l = &s[w[k].src];
        if (listed[w[k].src]++)
            continue;   /* a line's other class: its rows are listed */
        for (int r = 0; r < x->nrows; r++) {
            if (!on_line(x, c, r, l) || (r > 0 && on_line(x, c, r - 1, l)
                && !strcmp(x->cells[r][c[XP_OFFSET]],
                           x->cells[r - 1][c[XP_OFFSET]])))
                continue;
            int b = best_row(x, c, r);
            char rank[16];
            snprintf(rank, sizeof rank, "%d", k + 1);
            char *where = mp_prof_src_where(l);
            const char *eq = x->cells[b][c[XP_EQUAL]][0]
                                 ? x->cells[b][c[XP_EQUAL]]
                                 : x->cells[b][c[XP_WHY]];
            const char *kv[] = {rank, where, x->cells[b][c[XP_OPCODE]],
                                x->cells[b][c[XP_OFFSET]], eq,
                                x->cells[b][c[XP_FIX]][0]
                                    ? x->cells[b][c[XP_FIX]] : "-"};
            const char *vv[] = {x->cells[b][c[XP_MEASURED]],
                                x->cells[b][c[XP_MODEL]],
                                x->cells[b][c[XP_PREDICTED]],
                                x->cells[b][c[XP_REACHES]]};
            mp_rep_table_add(t, kv, vv);
            free(where);
            (*shown)++;
        }
    }
    free(listed);
    return t;
}

/* Reads explain.csv into x and its columns into c: 0, or -1 with why. */
static int read_explain(const char *path, mp_csv_table *x, int *c,
                        char *err, size_t errlen)
{
    if (mp_csv_table_read(path, x, err, errlen))
        return -1;
    for (int i = 0; i < XP_NCOLS; i++)
        if ((c[i] = mp_csv_column(x, xp_cols[i])) < 0) {
            snprintf(err, errlen, "%s: no column %s: not a CSV of memprobe "
                     "explain (-o)", path, xp_cols[i]);
            mp_csv_free(x);
            return -1;
        }
    return 0;
}

/* ---- the range pass's values (docs/profile.md, the second run) ------- */

/* What a launch row's counts are: the SASS line counts, the range
 * profiler's hardware counts (launches without line counts: no ideal), or
 * neither. */
enum { CNT_SASS, CNT_HW, CNT_NONE };
static const char *const cnt_name[] = {"sass", "hw", "none"};

static int has_range(const mp_prof_launch *l, int k)
{
    return l->range[k][0] != '\0';
}

static double range_num(const mp_prof_launch *l, int k)
{
    return strtod(l->range[k], NULL);
}

static int exact(const mp_prof_launch *l)
{
    return !strcmp(l->line_counts, "exact");
}

static int counts_of(const mp_prof_launch *l)
{
    if (exact(l))
        return CNT_SASS;
    for (int k = MP_PR_SH_LD; k <= MP_PR_GL_ST; k++)
        if (has_range(l, k))
            return CNT_HW;
    return CNT_NONE;
}

/* What the CSV has of the range pass: any range_counters at all (else
 * the report is as it was before them), and kernel+'s L1 rate or DRAM
 * bytes on some row. */
typedef struct {
    int any, kplus;
} range_view;

static range_view view_of(const mp_prof_data *d)
{
    range_view v = {0, 0};
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        v.any |= l->range_src[0] != '\0';
        v.kplus |= has_range(l, MP_PR_L1_HIT) || has_range(l, MP_PR_DRAM_RD)
                   || has_range(l, MP_PR_DRAM_WR);
    }
    return v;
}

/* The global sectors an L1 hit rate is weighted by: the row's hardware
 * counts (ld + st, the same pass), else its SASS sum; -1: neither. */
static double l1_weight(const mp_prof_launch *l)
{
    if (has_range(l, MP_PR_GL_LD) && has_range(l, MP_PR_GL_ST))
        return range_num(l, MP_PR_GL_LD) + range_num(l, MP_PR_GL_ST);
    return exact(l) ? (double)l->m[MP_PM_GL] : -1;
}

/* ---- per kernel and per NVTX range ------------------------------------ */

/* Launch sums grouped by a key (the kernel, or the NVTX stack) and, when
 * the CSV has range values, by what the counts are (CNT_*). */
typedef struct {
    const char *key, *name;   /* name: the kernel's printed name */
    const char *origin;       /* the first launch's */
    int counts;
    long launches, measured;   /* measured: with range values */
    mp_u64 m[MP_PM_N];
    double hw[MP_NCLASS];      /* hardware counts of CNT_HW rows */
    int hw_has[MP_NCLASS];
    double l1, l1_w;           /* sum of rate x sectors, of sectors */
    double l1_n, l1_l;         /* sum of rate x launches, of launches */
    double dram[2];
    int dram_has[2];
    double l2_hits, l2_sectors;  /* rows with both L2 counts */
} group;

static void add_range(group *g, const mp_prof_launch *l)
{
    if (!strcmp(l->range_src, MP_PROF_RANGE_FILLED))
        g->measured += l->launches;
    static const int cls[MP_NCLASS][2] = {{MP_PR_SH_LD, MP_PR_SH_ST},
                                          {MP_PR_GL_LD, MP_PR_GL_ST}};
    for (int c = 0; c < MP_NCLASS; c++) {
        int has = has_range(l, cls[c][0]) && has_range(l, cls[c][1]);
        g->hw_has[c] &= has;
        if (has)
            g->hw[c] += range_num(l, cls[c][0]) + range_num(l, cls[c][1]);
    }
    if (has_range(l, MP_PR_L1_HIT)) {
        double rate = range_num(l, MP_PR_L1_HIT), w = l1_weight(l);
        if (w > 0)
            g->l1 += rate * w, g->l1_w += w;
        g->l1_n += rate * (double)l->launches;
        g->l1_l += (double)l->launches;
    }
    for (int k = 0; k < 2; k++)
        if (has_range(l, MP_PR_DRAM_RD + k)) {
            g->dram[k] += range_num(l, MP_PR_DRAM_RD + k);
            g->dram_has[k] = 1;
        }
    if (has_range(l, MP_PR_L2_LOOKUP_HIT) && has_range(l, MP_PR_L2_SECTORS)) {
        g->l2_hits += range_num(l, MP_PR_L2_LOOKUP_HIT);
        g->l2_sectors += range_num(l, MP_PR_L2_SECTORS);
    }
}

/* Which launches a table sums: all, the program's own kernels', or the
 * library kernels'. */
enum { ALL, OWN, LIBRARY };

static group *group_by(const mp_prof_data *d, int by_nvtx, int split,
                       int which, int *n)
{
    group *g = mp_xcalloc((size_t)d->nl + 1, sizeof *g);
    *n = 0;
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        if (which != ALL && l->library != (which == LIBRARY))
            continue;
        const char *key = by_nvtx ? l->nvtx : l->mangled;
        int counts = split ? counts_of(l) : CNT_SASS;
        int j = 0, after = -1;   /* after: the key's last group */
        for (; j < *n && (strcmp(g[j].key, key) || g[j].counts != counts);
             j++)
            if (!strcmp(g[j].key, key))
                after = j;
        if (j == *n) {   /* new: beside the key's other groups */
            if (after >= 0) {
                j = after + 1;
                memmove(&g[j + 1], &g[j], (size_t)(*n - j) * sizeof *g);
                memset(&g[j], 0, sizeof *g);
            }
            g[j].key = key;
            g[j].name = l->name;
            g[j].origin = l->origin;
            g[j].counts = counts;
            g[j].hw_has[0] = g[j].hw_has[1] = 1;
            (*n)++;
        }
        g[j].launches += l->launches;
        for (int m = 0; m < MP_PM_N; m++)
            g[j].m[m] += l->m[m];
        add_range(&g[j], l);
    }
    return g;
}

static void fmt_bytes(char *buf, size_t len, double v, int has)
{
    buf[0] = '\0';
    if (has)
        snprintf(buf, len, "%.0f", v);
}

/* The count cells of a group: SASS sums with ideals and ratios, the
 * hardware counts alone, or nothing. */
static void count_cells(const group *g, char v[][32])
{
    for (int k = 0; k < 7; k++)
        v[k][0] = '\0';
    if (g->counts == CNT_HW) {
        fmt_bytes(v[1], sizeof v[1], g->hw[MP_CLASS_SHARED],
                  g->hw_has[MP_CLASS_SHARED]);
        fmt_bytes(v[4], sizeof v[4], g->hw[MP_CLASS_GLOBAL],
                  g->hw_has[MP_CLASS_GLOBAL]);
    }
    if (g->counts != CNT_SASS)
        return;
    fmt_u64(v[0], sizeof v[0], g->m[MP_PM_INST]);
    fmt_u64(v[1], sizeof v[1], g->m[MP_PM_SH]);
    fmt_u64(v[2], sizeof v[2], g->m[MP_PM_SH_IDEAL]);
    fmt_ratio_cell(v[3], sizeof v[3], g->m[MP_PM_SH], g->m[MP_PM_SH_IDEAL]);
    fmt_u64(v[4], sizeof v[4], g->m[MP_PM_GL]);
    fmt_u64(v[5], sizeof v[5], g->m[MP_PM_GL_IDEAL]);
    fmt_ratio_cell(v[6], sizeof v[6], g->m[MP_PM_GL], g->m[MP_PM_GL_IDEAL]);
}

/* kernel+'s cells: launches measured, the L1 hit rate weighted by global
 * sectors (by launches where no row has sectors), the L2 hit rate of the
 * summed L2 counts (lookup hits / sectors, as the rows'), DRAM bytes. */
static void kplus_cells(const group *g, char v[][32])
{
    snprintf(v[0], sizeof v[0], "%ld", g->measured);
    v[1][0] = v[2][0] = '\0';
    if (g->l1_w > 0)
        mp_rep_fmt(v[1], sizeof v[1], g->l1 / g->l1_w, 2);
    else if (g->l1_l > 0)
        mp_rep_fmt(v[1], sizeof v[1], g->l1_n / g->l1_l, 2);
    if (g->l2_sectors > 0)
        mp_rep_fmt(v[2], sizeof v[2], 100.0 * g->l2_hits / g->l2_sectors, 2);
    fmt_bytes(v[3], sizeof v[3], g->dram[0], g->dram_has[0]);
    fmt_bytes(v[4], sizeof v[4], g->dram[1], g->dram_has[1]);
}

/* A file name: what follows the last '/'. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The sums per kernel (which: OWN, or LIBRARY with the library's file
 * name as a second key) or per NVTX range (ALL). */
static mp_rep_table *sums_table(const mp_prof_data *d, int by_nvtx,
                                int which, range_view rv)
{
    static const char *const kernel_key[] = {"kernel", "counts"};
    static const char *const nvtx_key[] = {"NVTX range", "counts"};
    static const char *const library_key[] = {"kernel", "library",
                                              "counts"};
    int lib = which == LIBRARY;
    static const char *const subs[] = {
        "launches", "instructions", "shared wavefronts", "ideal",
        "shared x", "global sectors", "ideal", "global x",
        "range launches", "L1 hit %", "L2 hit %", "DRAM read",
        "DRAM written"};
    int n, nsub = rv.kplus ? 13 : 8;
    group *g = group_by(d, by_nvtx, rv.any, which, &n);
    mp_rep_table *t = mp_rep_table_new(by_nvtx ? "nvtx" : lib
                                       ? "library_kernels" : "kernels",
                                       1 + lib + rv.any, by_nvtx ? nvtx_key
                                       : lib ? library_key : kernel_key,
                                       nsub, subs, n);
    for (int k = 0; k < n; k++) {
        char v[13][32];
        const char *key = !by_nvtx ? g[k].name
                          : g[k].key[0] ? g[k].key : "(none)";
        snprintf(v[0], sizeof v[0], "%ld", g[k].launches);
        count_cells(&g[k], v + 1);
        kplus_cells(&g[k], v + 8);
        const char *kv[3] = {key, cnt_name[g[k].counts]};
        if (lib)
            kv[1] = base_name(g[k].origin), kv[2] = cnt_name[g[k].counts];
        const char *vv[13];
        for (int c = 0; c < 13; c++)
            vv[c] = v[c];
        mp_rep_table_add(t, kv, vv);
    }
    free(g);
    return t;
}

/* What the range columns mean, and every launch without range values with
 * its reason (range_why; "not wanted" for the launches with line counts
 * that the fallback left alone): never a silent gap. Text and Markdown. */
static void range_notes(const mp_prof_data *d, range_view rv,
                        mp_rep_format f, FILE *out)
{
    const char *eol = f == MP_REP_MD ? "\n\n" : "\n";   /* paragraphs */
    int hw = 0, none = 0;
    long launches = 0, measured = 0;
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        hw |= counts_of(l) == CNT_HW;
        none |= counts_of(l) == CNT_NONE;
        launches += l->launches;
        if (!strcmp(l->range_src, MP_PROF_RANGE_FILLED))
            measured += l->launches;
    }
    fputc('\n', out);
    if (hw || none)
        fprintf(out, "counts: sass = the exact per-line counts; hw = the "
                "range profiler's hardware counts of launches without line "
                "counts (no ideal, no ratio); none = neither.%s", eol);
    if (rv.kplus)
        fprintf(out, "L1 hit %%: the launches' rates weighted by their "
                "global sectors (by launches where none has sectors); L2 "
                "hit %%: their L2 lookup hits / L2 sectors; L2 and DRAM "
                "from an L2 flushed before each launch (docs/profile.md).%s",
                eol);
    fprintf(out, "Range profiler: %ld of %ld launch%s measured", measured,
            launches, launches == 1 ? "" : "es");
    if (measured == launches) {
        fprintf(out, ".\n");
        return;
    }
    fprintf(out, "; %ld without range values:\n", launches - measured);
    /* each reason once, with its launches, in the order of the rows */
    int shown = 0;
    long rest = 0, rest_reasons = 0;
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        if (!strcmp(l->range_src, MP_PROF_RANGE_FILLED))
            continue;
        const char *why = l->range_src[0] ? l->range_why : "not wanted";
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) {
            const mp_prof_launch *o = &d->l[j];
            seen = strcmp(o->range_src, MP_PROF_RANGE_FILLED)
                   && !strcmp(o->range_src[0] ? o->range_why : "not wanted",
                              why);
        }
        if (seen)
            continue;
        long n = 0;
        for (int j = k; j < d->nl; j++) {
            const mp_prof_launch *o = &d->l[j];
            if (strcmp(o->range_src, MP_PROF_RANGE_FILLED)
                && !strcmp(o->range_src[0] ? o->range_why : "not wanted",
                           why))
                n += o->launches;
        }
        if (shown == MP_PROF_RANGE_REASONS) {
            rest += n, rest_reasons++;
            continue;
        }
        shown++;
        fprintf(out, "- %ld launch%s: %s%s\n", n, n == 1 ? "" : "es",
                why[0] ? why : "no reason given",
                l->range_src[0] ? "" : " (line counts exact; only --level "
                "kernel+ measures every launch)");
    }
    if (rest)
        fprintf(out, "- %ld more launch%s for %ld more reason%s (range_why "
                "in the CSV)\n", rest, rest == 1 ? "" : "es", rest_reasons,
                rest_reasons == 1 ? "" : "s");
}

/* ---- plot -------------------------------------------------------------- */

typedef struct {
    const char *mangled, *name;
    mp_u64 excess;
} kernel_rank;

static int cmp_rank(const void *a, const void *b)
{
    const kernel_rank *x = a, *y = b;
    if (x->excess != y->excess)
        return x->excess > y->excess ? -1 : 1;
    return strcmp(x->mangled, y->mangled);
}

/* The kernels of s by their excess over the ideal, worst first; *nk = how
 * many of them to plot (those with excess, at most MP_PROF_PLOT_KERNELS). */
static kernel_rank *rank_kernels(const mp_prof_src *s, int n, int *nk)
{
    kernel_rank *r = mp_xcalloc((size_t)n + 1, sizeof *r);
    int nr = 0;
    for (int k = 0; k < n; k++) {
        if (s[k].library)
            continue;   /* the program's own kernels are plotted */
        int j = 0;
        while (j < nr && strcmp(r[j].mangled, s[k].mangled))
            j++;
        if (j == nr) {
            r[nr].mangled = s[k].mangled;
            r[nr++].name = s[k].name;
        }
        for (int c = 0; c < MP_NCLASS; c++)
            r[j].excess += line_excess(&s[k], c);
    }
    mp_sort(r, (size_t)nr, sizeof *r, cmp_rank);
    int k = 0;
    while (k < nr && k < MP_PROF_PLOT_KERNELS && r[k].excess)
        k++;
    *nk = k;
    return r;
}

/* Writes dir/profile-excess.dat: a block of excess by source line for each
 * of the nk kernels of r. 0 = ok, -1 = error in err. */
static int write_excess_data(const mp_prof_src *s, int n,
                             const kernel_rank *r, int nk, const char *dir,
                             char *err, size_t errlen)
{
    FILE *f = mp_rep_plot_open(dir, "profile-excess.dat", err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# memprobe profile: excess (measured - ideal) by source "
            "line of the %d worst kernels, one block each\n", nk);
    fprintf(f, "# line shared_excess_wavefronts global_excess_sectors\n");
    for (int j = 0; j < nk; j++) {
        fprintf(f, "%s# kernel %d: %s\n", j ? "\n\n" : "", j, r[j].name);
        for (int k = 0; k < n; k++) {
            if (strcmp(s[k].mangled, r[j].mangled) || !s[k].file[0])
                continue;
            mp_u64 e[MP_NCLASS];
            for (int c = 0; c < MP_NCLASS; c++)
                e[c] = line_excess(&s[k], c);
            fprintf(f, "%ld %llu %llu\n", s[k].line, e[0], e[1]);
        }
    }
    return mp_rep_plot_close(f, dir, "profile-excess.dat", err, errlen)
           ? -1 : 0;
}

/* Writes dir/profile-excess.gp, the gnuplot script that draws the data of
 * the nk kernels of r. 0 = ok, -1 = error in err. */
static int write_excess_script(const kernel_rank *r, int nk,
                               const char *dir, char *err, size_t errlen)
{
    FILE *f = mp_rep_plot_open(dir, "profile-excess.gp", err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# profile-excess.gp - excess (measured - ideal) by source "
            "line of the worst\n# kernels, written by memprobe report "
            "--plot-data beside profile-excess.dat.\n"
            "# gnuplot -e \"datadir='DIR'; outdir='DIR'\" "
            "profile-excess.gp\n"
            "if (!exists(\"datadir\")) datadir = \".\"\n"
            "if (!exists(\"outdir\")) outdir = datadir\n"
            "set terminal svg size 900,500 dynamic\n"
            "set output outdir.\"/profile-excess.svg\"\n"
            "set title \"Excess over the ideal by source line\"\n"
            "set xlabel \"source line\"\n"
            "set ylabel \"excess (shared wavefronts, global sectors)\"\n"
            "set key outside right\n"
            "set style data linespoints\n");
    if (!nk)
        fprintf(f, "set label 1 \"no excess\" at graph 0.5, 0.5 center\n"
                "plot [0:1] [0:1] NaN notitle\n");
    for (int j = 0; j < nk; j++) {
        char *name = mp_xstrdup(r[j].name);
        for (char *p = name; *p; p++)
            if (*p == '"' || *p == '\\')
                *p = '\'';
        for (int c = 0; c < MP_NCLASS; c++)
            fprintf(f, "%s datadir.\"/profile-excess.dat\" index %d using "
                    "1:%d title \"%s %s\"%s\n", j || c ? "    " : "plot", j,
                    2 + c, name, mp_prof_class_name[c],
                    j + 1 < nk || c + 1 < MP_NCLASS ? ", \\" : "");
        free(name);
    }
    return mp_rep_plot_close(f, dir, "profile-excess.gp", err, errlen)
           ? -1 : 0;
}

/* Draws dir/profile-excess.svg with gnuplot, if there is one (else a note
 * on stderr). 0 = drawn or no gnuplot, -1 = error in err. */
static int draw_plot(const char *dir, FILE *out, char *err, size_t errlen)
{
    char gnuplot[4096], script[4096], vars[8300], log[4096];
    if (mp_prof_find_program("gnuplot", NULL, gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "memprobe: gnuplot not found: no plot drawn (the "
                "data and %s/profile-excess.gp are written; apt-get install "
                "gnuplot-nox)\n", dir);
        return 0;
    }
    snprintf(script, sizeof script, "%s/profile-excess.gp", dir);
    snprintf(vars, sizeof vars, "datadir='%s'; outdir='%s'", dir, dir);
    snprintf(log, sizeof log, "%s/profile-excess.log", dir);
    char *argv[] = {gnuplot, "-e", vars, script, NULL};
    int rc = mp_spawn_wait(argv, log);
    if (rc) {
        mp_reason(err, errlen, "gnuplot %s failed (status %d; see %s)",
                  script, rc, log);
        return -1;
    }
    remove(log);
    fprintf(out, "drew %s/profile-excess.svg\n", dir);
    return 0;
}

/* Writes the plot data and script of the kernels with the most excess to
 * dir, and draws the plot. 0 = ok, -1 = error in err. */
static int write_plot(const mp_prof_src *s, int n, const char *dir,
                      FILE *out, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        mp_reason(err, errlen, "--plot-data: %s: %s", dir, strerror(errno));
        return -1;
    }
    int nk;
    kernel_rank *r = rank_kernels(s, n, &nk);
    int rc = write_excess_data(s, n, r, nk, dir, err, errlen);
    if (!rc)
        rc = write_excess_script(r, nk, dir, err, errlen);
    free(r);
    if (rc)
        return -1;
    fprintf(out, "wrote the plot data to %s\n", dir);
    return draw_plot(dir, out, err, errlen);
}

/* ---- the report -------------------------------------------------------- */

/* explain.csv's table beside the worst lines (t NULL: none given). */
typedef struct {
    mp_rep_table *t;
    const char *csv;
    int shown, all;
} explained;

/* The report's tables: the worst lines (w, nw) and the sums per kernel
 * of the program's own kernels, explain.csv's instructions of those lines
 * (when given), the library kernels' sums (when there are any), the sums
 * per NVTX range, then what the counts are. */
static void print_report(const mp_prof_data *d, const mp_prof_src *s, int n,
                         const worst *w, int nw, const char *csv,
                         const explained *xp, mp_rep_format f, FILE *out)
{
    int more, libraries = 0;
    for (int k = 0; k < d->nl; k++)
        libraries |= d->l[k].library;
    char title[1024];
    mp_rep_table *t = worst_table(s, n, w, nw, &more);
    snprintf(title, sizeof title, "Worst source lines of %s (%sexcess = "
             "measured - ideal; share of its kernel's excess)", csv,
             libraries ? "the program's own kernels; " : "");
    print_table(t, title, f, 1, out);
    if (more && f != MP_REP_CSV)
        fprintf(out, "(%d more line%s with excess)\n", more,
                more == 1 ? "" : "s");
    mp_rep_table_free(t);
    if (xp->t) {
        snprintf(title, sizeof title, "Explained by %s: the worst lines' "
                 "instructions, model against measured, the best fix and "
                 "its predicted count, in the launch explain captured (%d "
                 "of its %d instruction%s)", xp->csv, xp->shown, xp->all,
                 xp->all == 1 ? "" : "s");
        print_table(xp->t, title, f, 0, out);
    }
    range_view rv = view_of(d);
    t = sums_table(d, 0, OWN, rv);
    print_table(t, "Per kernel (x = measured / ideal)", f, 0, out);
    mp_rep_table_free(t);
    if (libraries) {
        t = sums_table(d, 0, LIBRARY, rv);
        print_table(t, "Library kernels (counted, not judged; "
                    "--check-libraries judges them)", f, 0, out);
        mp_rep_table_free(t);
    }
    t = sums_table(d, 1, ALL, rv);
    print_table(t, "Per NVTX range", f, 0, out);
    mp_rep_table_free(t);
    long unavailable = 0, launches = 0;
    for (int k = 0; k < d->nl; k++) {
        launches += d->l[k].launches;
        if (strcmp(d->l[k].line_counts, "exact") != 0)
            unavailable += d->l[k].launches;
    }
    if (f != MP_REP_CSV)
        fprintf(out, "\n%ld launch%s in %d row%s, %d instruction row%s; "
                "%ld launch%s without line counts.\n", launches,
                launches == 1 ? "" : "es", d->nl, d->nl == 1 ? "" : "s",
                d->ni, d->ni == 1 ? "" : "s", unavailable,
                unavailable == 1 ? "" : "es");
    if (rv.any && f != MP_REP_CSV)
        range_notes(d, rv, f, out);
}

int mp_prof_report(const char *csv, const char *explain_csv,
                   mp_rep_format f, const char *plot_dir, FILE *out,
                   char *err, size_t errlen)
{
    mp_prof_data d;
    mp_csv_table x;
    int xc[XP_NCOLS];
    if (mp_prof_load(csv, &d, err, errlen))
        return -1;
    if (explain_csv && read_explain(explain_csv, &x, xc, err, errlen)) {
        mp_prof_free(&d);
        return -1;
    }
    int n, nw, rc = 0;
    mp_prof_src *s = mp_prof_sources(&d, &n);
    worst *w = worst_lines(s, n, &nw);
    explained xp = {NULL, explain_csv, 0, 0};
    if (explain_csv)
        xp.t = explained_table(s, n, w, nw, &x, xc, &xp.shown, &xp.all);
    if (explain_csv && !xp.shown) {
        snprintf(err, errlen, "%s: none of its %d rows is an instruction of "
                 "a line with excess in %s", explain_csv, x.nrows, csv);
        rc = -1;
    } else if (plot_dir)
        rc = write_plot(s, n, plot_dir, out, err, errlen);
    else
        print_report(&d, s, n, w, nw, csv, &xp, f, out);
    if (xp.t)
        mp_rep_table_free(xp.t);
    free(w);
    if (explain_csv)
        mp_csv_free(&x);
    free(s);
    mp_prof_free(&d);
    return rc;
}
