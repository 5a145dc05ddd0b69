/*
 * profile_range.c - the join of the range pass onto the first run
 * (profile_range.h). A launch row of the first run (process P, launch
 * number N, a run of K launches) takes the range rows of the process with
 * P's ordinal, numbers N .. N+K-1; each must name the same kernel, grid
 * and block, else the program did not repeat itself and the row gets no
 * values, saying so. Counts are summed over the run; its L1 hit rate is
 * weighted by each launch's global sectors (join_one says why). Launches
 * that wanted values and got no range run say why (mp_prof_range_none).
 */
#include "profile_range.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "csv_table.h"
#include "raw.h"

typedef struct {
    long pid;
    int ordinal;
} pid_ord;

typedef struct {
    int ordinal;
    long launch;
    char *mangled, *grid, *block, *why;
    char *v[MP_PR_N];
} range_row;

typedef struct {
    pid_ord *po;
    int npo;
    range_row *r;
    int nr;
    int fallback_only;   /* this run measured launches without line counts */
} range_data;

int mp_prof_range_wanted(const mp_prof_launch *l, int kplus)
{
    return kplus || strcmp(l->line_counts, MP_RAW_EXACT) != 0;
}

char *mp_prof_fallback_regex(const mp_prof_data *d)
{
    size_t cap = 8, n = 0;
    for (int k = 0; k < d->nl; k++)
        cap += 2 * strlen(d->l[k].mangled) + 2;
    char *re = mp_xmalloc(cap);
    n += (size_t)snprintf(re, cap, "^(");
    int any = 0;
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        if (!mp_prof_range_wanted(l, 0) || !l->mangled[0])
            continue;
        int seen = 0;   /* once per name */
        for (int j = 0; j < k && !seen; j++)
            seen = mp_prof_range_wanted(&d->l[j], 0)
                   && !strcmp(d->l[j].mangled, l->mangled);
        if (seen)
            continue;
        if (any)
            re[n++] = '|';
        for (const char *p = l->mangled; *p; p++) {
            if (strchr("\\.[]()*+?{}|^$", *p))
                re[n++] = '\\';
            re[n++] = *p;
        }
        any = 1;
    }
    snprintf(re + n, cap - n, ")$");
    if (!any) {
        free(re);
        return NULL;
    }
    return re;
}

/* ---- reading a raw folder ------------------------------------------- */

/* pid -> ordinal from the status files of dir. */
static int read_ordinals(const char *dir, range_data *rd, char *err,
                         size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        mp_reason(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, MP_RAW_STATUS, strlen(MP_RAW_STATUS)))
            continue;
        char path[4352], line[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        long pid = -1;
        int ord = -1;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, MP_RAW_KEY_PID " ", 4))
                pid = strtol(line + 4, NULL, 10);
            else if (!strncmp(line, MP_RAW_KEY_ORDINAL " ", 8))
                ord = (int)strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (pid < 0)
            continue;
        rd->po = mp_xrealloc(rd->po, (size_t)(rd->npo + 1) * sizeof *rd->po);
        rd->po[rd->npo++] = (pid_ord){pid, ord};
    }
    closedir(d);
    return 0;
}

static int ordinal_of(const range_data *rd, long pid)
{
    for (int k = 0; k < rd->npo; k++)
        if (rd->po[k].pid == pid)
            return rd->po[k].ordinal;
    return -1;
}

/* The rows of one range.PID.csv (a partly written last line dropped by
 * the column count check of the table reader). */
static int read_range_file(const char *path, range_data *rd, char *err,
                           size_t errlen)
{
    mp_csv_table t;
    if (mp_csv_table_read(path, &t, err, errlen))
        return -1;
    static const char *const fixed[] = {"pid", "launch", "mangled", "grid_x",
        "grid_y", "grid_z", "block_x", "block_y", "block_z", "why"};
    int c[10], v[MP_PR_N];
    for (int k = 0; k < 10; k++)
        if ((c[k] = mp_csv_need_column(&t, fixed[k], path, err, errlen)) < 0)
            goto fail;
    for (int k = 0; k < MP_PR_N; k++)
        if ((v[k] = mp_csv_need_column(&t, mp_prof_range_name(k), path, err,
                                       errlen)) < 0)
            goto fail;
    rd->r = mp_xrealloc(rd->r, (size_t)(rd->nr + t.nrows + 1) * sizeof *rd->r);
    for (int r = 0; r < t.nrows; r++) {
        char **cell = t.cells[r];
        char *end;
        long pid = strtol(cell[c[0]], &end, 10);
        long launch = strtol(cell[c[1]], &end, 10);
        if (!cell[c[1]][0] || *end) {
            mp_reason(err, errlen, "%s: data row %d: launch '%.40s' is not "
                      "a number", path, r + 1, cell[c[1]]);
            goto fail;
        }
        range_row *x = &rd->r[rd->nr++];
        char buf[128];
        x->ordinal = ordinal_of(rd, pid);
        x->launch = launch;
        x->mangled = mp_xstrdup(cell[c[2]]);
        snprintf(buf, sizeof buf, "%s,%s,%s", cell[c[3]], cell[c[4]],
                 cell[c[5]]);
        x->grid = mp_xstrdup(buf);
        snprintf(buf, sizeof buf, "%s,%s,%s", cell[c[6]], cell[c[7]],
                 cell[c[8]]);
        x->block = mp_xstrdup(buf);
        x->why = mp_xstrdup(cell[c[9]]);
        for (int k = 0; k < MP_PR_N; k++)
            x->v[k] = mp_xstrdup(cell[v[k]]);
    }
    mp_csv_free(&t);
    return 0;
fail:
    mp_csv_free(&t);
    return -1;
}

static int by_key(const void *a, const void *b)
{
    const range_row *x = a, *y = b;
    if (x->ordinal != y->ordinal)
        return x->ordinal < y->ordinal ? -1 : 1;
    return (x->launch > y->launch) - (x->launch < y->launch);
}

static int read_range_dir(const char *dir, range_data *rd, char *err,
                          size_t errlen)
{
    if (read_ordinals(dir, rd, err, errlen))
        return -1;
    DIR *d = opendir(dir);
    if (!d) {
        mp_reason(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, MP_RAW_RANGE, strlen(MP_RAW_RANGE))
            || n < 4 || strcmp(e->d_name + n - 4, ".csv"))
            continue;
        char path[4352];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rc = read_range_file(path, rd, err, errlen);
    }
    closedir(d);
    if (rd->nr)
        qsort(rd->r, (size_t)rd->nr, sizeof *rd->r, by_key);
    return rc;
}

static void free_data(range_data *rd)
{
    for (int k = 0; k < rd->nr; k++) {
        range_row *x = &rd->r[k];
        free(x->mangled), free(x->grid), free(x->block), free(x->why);
        for (int m = 0; m < MP_PR_N; m++)
            free(x->v[m]);
    }
    free(rd->r);
    free(rd->po);
}

/* ---- the join -------------------------------------------------------- */

static void set(mp_prof_launch *l, const char *src, const char *why,
                double *v, const int *have)
{
    for (int k = 0; k < MP_PR_N; k++) {
        char buf[40] = "";
        if (v && have[k])
            snprintf(buf, sizeof buf, "%.15g", v[k]);
        free(l->range[k]);
        l->range[k] = mp_xstrdup(buf);
    }
    free(l->range_src);
    free(l->range_why);
    l->range_src = mp_xstrdup(src);
    l->range_why = mp_xstrdup(why);
}

void mp_prof_range_none(mp_prof_data *d, int kplus, const char *why)
{
    for (int k = 0; k < d->nl; k++)
        if (mp_prof_range_wanted(&d->l[k], kplus))
            set(&d->l[k], MP_PROF_RANGE_UNAVAILABLE, why, NULL, NULL);
}

/* The range values of row l from the runs rd[0..nrd) that measured it
 * into v (have[k]: every launch of the row has value k from some run);
 * NULL, or why there are none (in buf). *unmatched when a run did not
 * repeat this launch. */
static const char *join_one(const mp_prof_launch *l, int ord,
                            const range_data *rd, int nrd, double *v,
                            int *have, int *unmatched, char *buf, size_t len)
{
    *unmatched = 0;
    if (!strcmp(l->graph, "1"))
        return "graph launch: the range pass does not measure kernels run "
               "by cuGraphLaunch";
    if (ord < 0) {
        *unmatched = 1;
        return "the first run's process has no ordinal (status file)";
    }
    long n = l->launches > 0 ? l->launches : 1;
    for (int k = 0; k < MP_PR_N; k++)
        v[k] = 0, have[k] = 1;
    int fallback = mp_prof_range_wanted(l, 0);
    /* the L1 hit rate weighted by each launch's global sectors (wl1 the
     * sum of rate x sectors, w the sectors) */
    double wl1 = 0, w = 0;
    for (long j = 0; j < n; j++) {
        double one[MP_PR_N];
        int got[MP_PR_N] = {0};
        for (int d = 0; d < nrd; d++) {
            if (rd[d].fallback_only && !fallback)
                continue;
            range_row key = {.ordinal = ord, .launch = l->launch + j};
            const range_row *x = rd[d].nr
                ? bsearch(&key, rd[d].r, (size_t)rd[d].nr, sizeof *rd[d].r,
                          by_key) : NULL;
            if (!x) {
                *unmatched = 1;
                snprintf(buf, len, "no launch %ld in process #%d of the "
                         "second run: the program did not repeat itself",
                         l->launch + j, ord);
                return buf;
            }
            if (strcmp(x->mangled, l->mangled) || strcmp(x->grid, l->grid)
                || strcmp(x->block, l->block)) {
                *unmatched = 1;
                snprintf(buf, len, "launch %ld of process #%d was %.100s "
                         "grid %s block %s in the second run: the program "
                         "did not repeat itself", l->launch + j, ord,
                         x->mangled, x->grid, x->block);
                return buf;
            }
            if (x->why[0]) {
                snprintf(buf, len, "%s", x->why);
                return buf;
            }
            for (int k = 0; k < MP_PR_N; k++) {
                char *end;
                double y = strtod(x->v[k], &end);
                if (!got[k] && x->v[k][0] && !*end && isfinite(y))
                    one[k] = y, got[k] = 1;
            }
        }
        for (int k = 0; k < MP_PR_N; k++) {
            if (!got[k])
                have[k] = 0;
            else
                v[k] += one[k];
        }
        if (got[MP_PR_L1_HIT] && got[MP_PR_GL_LD] && got[MP_PR_GL_ST]) {
            wl1 += one[MP_PR_L1_HIT] * (one[MP_PR_GL_LD] + one[MP_PR_GL_ST]);
            w += one[MP_PR_GL_LD] + one[MP_PR_GL_ST];
        }
    }
    /* Hit rates of a run: "identical" launches share kernel, shape, stream
     * and NVTX stack, not their data, so their traffic may differ; the L1
     * rate is weighted by the launches' global sectors (ld + st, the same
     * range run) when every launch has them and they are not all zero,
     * else the plain mean. The L2 rate is Nsight Compute's
     * lts__t_sector_hit_rate.pct, lookup hits / sectors, of the run's
     * sums: the hits from the cache group's run, the sectors from the l2
     * group's, each of one replay pass from a flushed L2. */
    v[MP_PR_L1_HIT] = have[MP_PR_GL_LD] && have[MP_PR_GL_ST] && w > 0
                    ? wl1 / w : v[MP_PR_L1_HIT] / (double)n;
    have[MP_PR_L2_HIT] = have[MP_PR_L2_LOOKUP_HIT] && have[MP_PR_L2_SECTORS]
                       && v[MP_PR_L2_SECTORS] > 0;
    v[MP_PR_L2_HIT] = have[MP_PR_L2_HIT]
                    ? 100.0 * v[MP_PR_L2_LOOKUP_HIT] / v[MP_PR_L2_SECTORS] : 0;
    return NULL;
}

int mp_prof_range_join(mp_prof_data *d, const char *raw1,
                       const mp_prof_range_run *runs, int nruns, int kplus,
                       mp_prof_join_stats *js, char *err, size_t errlen)
{
    memset(js, 0, sizeof *js);
    range_data r1 = {0}, *rd = mp_xmalloc((size_t)(nruns + 1) * sizeof *rd);
    memset(rd, 0, (size_t)(nruns + 1) * sizeof *rd);
    int rc = read_ordinals(raw1, &r1, err, errlen);
    for (int k = 0; !rc && k < nruns; k++) {
        rd[k].fallback_only = runs[k].fallback_only;
        rc = read_range_dir(runs[k].dir, &rd[k], err, errlen);
    }
    for (int k = 0; !rc && k < d->nl; k++) {
        mp_prof_launch *l = &d->l[k];
        if (!mp_prof_range_wanted(l, kplus)) {
            set(l, "", "", NULL, NULL);
            continue;
        }
        long n = l->launches > 0 ? l->launches : 1;
        js->wanted += n;
        double v[MP_PR_N];
        int have[MP_PR_N], unmatched;
        char buf[512];
        const char *why = join_one(l, ordinal_of(&r1, l->pid), rd, nruns, v,
                                   have, &unmatched, buf, sizeof buf);
        if (!why) {
            set(l, MP_PROF_RANGE_FILLED, "", v, have);
            js->filled += n;
            continue;
        }
        set(l, MP_PROF_RANGE_UNAVAILABLE, why, NULL, NULL);
        if (unmatched) {
            js->unmatched += n;
        } else {
            if (!js->other)
                snprintf(js->other_why, sizeof js->other_why, "%.200s", why);
            js->other += n;
        }
    }
    free_data(&r1);
    for (int k = 0; k < nruns; k++)
        free_data(&rd[k]);
    free(rd);
    return rc;
}
