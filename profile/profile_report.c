/*
 * profile_report.c - the report of a profile CSV (profile_report.h): the
 * worst source lines by excess = measured - ideal (shared wavefronts or
 * global sectors), per instruction and as a share of their kernel's
 * excess; the sums per kernel and per NVTX range; and the plot of excess
 * by line for the worst kernels. The tables print through report/'s
 * table printer (mp_rep_table_print), so --format works as for results.
 */
#include "profile_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "profile_csv.h"
#include "stats.h"
#include "subprocess.h"

/* ---- tables through report/'s printer ---------------------------------- */

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = mp_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

/* An empty table of one device and one unnamed column group, as
 * mp_rep_table_free frees it. */
static mp_rep_table *new_table(const char *name, int nkeys,
                               const char *const *keys, int nsub,
                               const char *const *subs, int cap)
{
    mp_rep_table *t = mp_xcalloc(1, sizeof *t);
    t->name = name;
    t->title = name;
    t->nkeys = nkeys;
    t->key_headers = keys;
    t->nsub = nsub;
    t->sub_headers = subs;
    t->ngroups = 1;
    t->groups = mp_xcalloc(1, sizeof *t->groups);
    t->groups[0] = dup_text("");
    t->group_sort = mp_xcalloc(1, sizeof *t->group_sort);
    t->ndev = 1;
    t->devices = mp_xcalloc(1, sizeof *t->devices);
    t->devices[0] = dup_text("");
    t->caprows = cap > 0 ? cap : 1;
    t->rows = mp_xcalloc((size_t)t->caprows, sizeof *t->rows);
    t->empty = "no rows";
    return t;
}

/* Appends a row: nkeys key texts, then nsub value texts. */
static void add_row(mp_rep_table *t, const char *const *keys,
                    const char *const *vals)
{
    if (t->nrows == t->caprows)
        return;   /* sized by the caller */
    mp_rep_trow *r = &t->rows[t->nrows++];
    r->keys = mp_xcalloc((size_t)t->nkeys, sizeof *r->keys);
    r->sort = mp_xcalloc((size_t)t->nkeys, sizeof *r->sort);
    for (int k = 0; k < t->nkeys; k++)
        r->keys[k] = dup_text(keys[k]);
    r->cells = mp_xcalloc((size_t)t->nsub, sizeof *r->cells);
    for (int s = 0; s < t->nsub; s++)
        r->cells[s].text = dup_text(vals[s]);
}

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

/* The positive excess of every line of kernel `mangled` in class c. */
static mp_u64 kernel_excess(const mp_prof_src *s, int n, const char *mangled,
                            int c)
{
    mp_u64 sum = 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(s[k].mangled, mangled) && s[k].meas[c] > s[k].ideal[c])
            sum += s[k].meas[c] - s[k].ideal[c];
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

/* The worst lines (by excess, each class on its own row). */
static mp_rep_table *worst_table(const mp_prof_src *s, int n, int *more)
{
    static const char *const keys[] = {"#", "line", "kernel", "opcode",
                                       "unit"};
    static const char *const subs[] = {"per inst", "ideal per inst",
                                       "excess", "share of kernel"};
    worst *w = mp_xcalloc((size_t)n * MP_NCLASS + 1, sizeof *w);
    int nw = 0;
    for (int k = 0; k < n; k++)
        for (int c = 0; c < MP_NCLASS; c++)
            if (s[k].meas[c] > s[k].ideal[c])
                w[nw++] = (worst){k, c, s[k].meas[c] - s[k].ideal[c]};
    mp_sort(w, (size_t)nw, sizeof *w, cmp_worst);
    int shown = nw < MP_PROF_WORST_LINES ? nw : MP_PROF_WORST_LINES;
    *more = nw - shown;
    mp_rep_table *t = new_table("lines", 5, keys, 4, subs, shown);
    for (int k = 0; k < shown; k++) {
        const mp_prof_src *l = &s[w[k].src];
        int c = w[k].cls;
        char rank[16], where[512], name[256], v[4][48];
        snprintf(rank, sizeof rank, "%d", k + 1);
        mp_prof_src_where(l, where, sizeof where);
        mp_prof_short_name(l->kernel, name, sizeof name);
        fmt_ratio_cell(v[0], sizeof v[0], l->meas[c], l->cinst[c]);
        fmt_ratio_cell(v[1], sizeof v[1], l->ideal[c], l->cinst[c]);
        fmt_u64(v[2], sizeof v[2], w[k].excess);
        mp_u64 all = kernel_excess(s, n, l->mangled, c);
        mp_rep_fmt(v[3], sizeof v[3], 100.0 * (double)w[k].excess
                   / (double)all, 1);
        strcat(v[3], "%");
        const char *kv[] = {rank, where, name, l->ops[c][0] ? l->ops[c] : "?",
                            mp_prof_class_unit[c]};
        const char *vv[] = {v[0], v[1], v[2], v[3]};
        add_row(t, kv, vv);
    }
    free(w);
    return t;
}

/* Launch sums grouped by a key (the kernel, or the NVTX stack). */
typedef struct {
    const char *key;
    long launches;
    mp_u64 m[MP_PM_N];
} group;

static group *group_by(const mp_prof_data *d, int by_nvtx, int *n)
{
    group *g = mp_xcalloc((size_t)d->nl + 1, sizeof *g);
    *n = 0;
    for (int k = 0; k < d->nl; k++) {
        const char *key = by_nvtx ? d->l[k].nvtx : d->l[k].mangled;
        int j = 0;
        while (j < *n && strcmp(g[j].key, key))
            j++;
        if (j == *n)
            g[(*n)++].key = key;
        g[j].launches += d->l[k].launches;
        for (int m = 0; m < MP_PM_N; m++)
            g[j].m[m] += d->l[k].m[m];
    }
    return g;
}

static mp_rep_table *sums_table(const mp_prof_data *d, int by_nvtx)
{
    static const char *const kernel_key[] = {"kernel"};
    static const char *const nvtx_key[] = {"NVTX range"};
    static const char *const subs[] = {
        "launches", "instructions", "shared wavefronts", "ideal",
        "shared x", "global sectors", "ideal", "global x"};
    int n;
    group *g = group_by(d, by_nvtx, &n);
    mp_rep_table *t = new_table(by_nvtx ? "nvtx" : "kernels", 1,
                                by_nvtx ? nvtx_key : kernel_key, 8, subs, n);
    for (int k = 0; k < n; k++) {
        char key[512], v[8][32];
        if (by_nvtx) {
            snprintf(key, sizeof key, "%s", g[k].key[0] ? g[k].key
                     : "(none)");
        } else {
            const char *dem = g[k].key;
            for (int j = 0; j < d->nl; j++)
                if (!strcmp(d->l[j].mangled, g[k].key))
                    dem = d->l[j].kernel;
            mp_prof_short_name(dem, key, sizeof key);
        }
        snprintf(v[0], sizeof v[0], "%ld", g[k].launches);
        fmt_u64(v[1], sizeof v[1], g[k].m[MP_PM_INST]);
        fmt_u64(v[2], sizeof v[2], g[k].m[MP_PM_SH]);
        fmt_u64(v[3], sizeof v[3], g[k].m[MP_PM_SH_IDEAL]);
        fmt_ratio_cell(v[4], sizeof v[4], g[k].m[MP_PM_SH],
                       g[k].m[MP_PM_SH_IDEAL]);
        fmt_u64(v[5], sizeof v[5], g[k].m[MP_PM_GL]);
        fmt_u64(v[6], sizeof v[6], g[k].m[MP_PM_GL_IDEAL]);
        fmt_ratio_cell(v[7], sizeof v[7], g[k].m[MP_PM_GL],
                       g[k].m[MP_PM_GL_IDEAL]);
        const char *kv[] = {key};
        const char *vv[] = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
        add_row(t, kv, vv);
    }
    free(g);
    return t;
}

/* ---- plot -------------------------------------------------------------- */

typedef struct {
    const char *mangled, *kernel;
    mp_u64 excess;
} kernel_rank;

static int cmp_rank(const void *a, const void *b)
{
    const kernel_rank *x = a, *y = b;
    if (x->excess != y->excess)
        return x->excess > y->excess ? -1 : 1;
    return strcmp(x->mangled, y->mangled);
}

static int write_plot(const mp_prof_src *s, int n, const char *dir,
                      FILE *out, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        mp_reason(err, errlen, "--plot-data: %s: %s", dir, strerror(errno));
        return -1;
    }
    kernel_rank *r = mp_xcalloc((size_t)n + 1, sizeof *r);
    int nr = 0;
    for (int k = 0; k < n; k++) {
        int j = 0;
        while (j < nr && strcmp(r[j].mangled, s[k].mangled))
            j++;
        if (j == nr) {
            r[nr].mangled = s[k].mangled;
            r[nr++].kernel = s[k].kernel;
        }
        for (int c = 0; c < MP_NCLASS; c++)
            if (s[k].meas[c] > s[k].ideal[c])
                r[j].excess += s[k].meas[c] - s[k].ideal[c];
    }
    mp_sort(r, (size_t)nr, sizeof *r, cmp_rank);
    int nk = 0;
    while (nk < nr && nk < MP_PROF_PLOT_KERNELS && r[nk].excess)
        nk++;
    FILE *f = mp_rep_plot_open(dir, "profile-excess.dat", err, errlen);
    if (!f) {
        free(r);
        return -1;
    }
    fprintf(f, "# memprobe profile: excess (measured - ideal) by source "
            "line of the %d worst kernels, one block each\n", nk);
    fprintf(f, "# line shared_excess_wavefronts global_excess_sectors\n");
    for (int j = 0; j < nk; j++) {
        char name[256];
        mp_prof_short_name(r[j].kernel, name, sizeof name);
        fprintf(f, "%s# kernel %d: %s\n", j ? "\n\n" : "", j, name);
        for (int k = 0; k < n; k++) {
            if (strcmp(s[k].mangled, r[j].mangled) || !s[k].file[0])
                continue;
            mp_u64 e[MP_NCLASS];
            for (int c = 0; c < MP_NCLASS; c++)
                e[c] = s[k].meas[c] > s[k].ideal[c]
                       ? s[k].meas[c] - s[k].ideal[c] : 0;
            fprintf(f, "%ld %llu %llu\n", s[k].line, e[0], e[1]);
        }
    }
    if (mp_rep_plot_close(f, dir, "profile-excess.dat", err, errlen)) {
        free(r);
        return -1;
    }
    f = mp_rep_plot_open(dir, "profile-excess.gp", err, errlen);
    if (!f) {
        free(r);
        return -1;
    }
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
        char name[256];
        mp_prof_short_name(r[j].kernel, name, sizeof name);
        for (char *p = name; *p; p++)
            if (*p == '"' || *p == '\\')
                *p = '\'';
        for (int c = 0; c < MP_NCLASS; c++)
            fprintf(f, "%s datadir.\"/profile-excess.dat\" index %d using "
                    "1:%d title \"%s %s\"%s\n", j || c ? "    " : "plot", j,
                    2 + c, name, mp_prof_class_name[c],
                    j + 1 < nk || c + 1 < MP_NCLASS ? ", \\" : "");
    }
    free(r);
    if (mp_rep_plot_close(f, dir, "profile-excess.gp", err, errlen))
        return -1;
    fprintf(out, "wrote the plot data to %s\n", dir);

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

/* ---- the report -------------------------------------------------------- */

int mp_prof_report(const char *csv, mp_rep_format f, const char *plot_dir,
                   FILE *out, char *err, size_t errlen)
{
    mp_prof_data d;
    if (mp_prof_load(csv, &d, err, errlen))
        return -1;
    int n, rc = 0;
    mp_prof_src *s = mp_prof_sources(&d, &n);
    if (plot_dir) {
        rc = write_plot(s, n, plot_dir, out, err, errlen);
    } else {
        int more;
        char title[1024];
        mp_rep_table *t = worst_table(s, n, &more);
        snprintf(title, sizeof title, "Worst source lines of %s (excess = "
                 "measured - ideal; share of its kernel's excess)", csv);
        print_table(t, title, f, 1, out);
        if (more && f != MP_REP_CSV)
            fprintf(out, "(%d more line%s with excess)\n", more,
                    more == 1 ? "" : "s");
        mp_rep_table_free(t);
        t = sums_table(&d, 0);
        print_table(t, "Per kernel (x = measured / ideal)", f, 0, out);
        mp_rep_table_free(t);
        t = sums_table(&d, 1);
        print_table(t, "Per NVTX range", f, 0, out);
        mp_rep_table_free(t);
        long unavailable = 0, launches = 0;
        for (int k = 0; k < d.nl; k++) {
            launches += d.l[k].launches;
            if (strcmp(d.l[k].line_counts, "exact") != 0)
                unavailable += d.l[k].launches;
        }
        if (f != MP_REP_CSV)
            fprintf(out, "\n%ld launch%s in %d row%s, %d instruction row%s; "
                    "%ld launch%s without line counts.\n", launches,
                    launches == 1 ? "" : "es", d.nl, d.nl == 1 ? "" : "s",
                    d.ni, d.ni == 1 ? "" : "s", unavailable,
                    unavailable == 1 ? "" : "es");
    }
    free(s);
    mp_prof_free(&d);
    return rc;
}
