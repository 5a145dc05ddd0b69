/*
 * profile_check.c - --check and --baseline of `memprobe profile`
 * (profile_check.h): the spec parser, the per-source-line judgement by
 * measured / ideal, and the comparison with an earlier profile, per
 * kernel and per source line; library kernels' lines judged only when
 * asked, counted either way.
 */
#include "profile_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int mp_prof_check_parse(const char *text, mp_prof_check_spec *s, char *err,
                        size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!text[0]) {
        mp_reason(err, errlen, "--check: empty (e.g. 'shared<=1.0,"
                  "global<=1.25')");
        return -1;
    }
    for (const char *p = text; ;) {
        size_t n = strcspn(p, ",");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        char *op = strstr(item, "<=");
        if (!op || op == item || !op[2]) {
            mp_reason(err, errlen, "--check: '%s' is not CLASS<=LIMIT "
                      "(e.g. 'shared<=1.0,global<=1.25')", item);
            return -1;
        }
        *op = '\0';
        int c = -1;
        for (int k = 0; k < MP_NCLASS; k++)
            if (!strcmp(item, mp_prof_class_name[k]))
                c = k;
        if (c < 0) {
            mp_reason(err, errlen, "--check: unknown class '%s' (shared or "
                      "global)", item);
            return -1;
        }
        if (s->has[c]) {
            mp_reason(err, errlen, "--check: %s given twice", item);
            return -1;
        }
        char *end;
        double v = strtod(op + 2, &end);
        if (*end || end == op + 2 || !isfinite(v) || v < 1.0) {
            mp_reason(err, errlen, "--check: limit '%s' of %s is not a "
                      "number >= 1 (1.0 = no excess)", op + 2, item);
            return -1;
        }
        s->has[c] = 1;
        s->limit[c] = v;
        if (!p[n])
            break;
        p += n + 1;
    }
    return 0;
}

/* One judgement as printed: "WHERE WHAT: R.Rx ideal (M UNIT, ideal I)",
 * WHERE naming the kernel, R with the digits that show it above `limit`
 * (the check's limit, or the old ratio); old_ratio >= 0 adds "O.Ox -> "
 * before it. */
static void say(FILE *out, const char *prefix, const char *where,
                const char *what, int c, mp_u64 meas, mp_u64 ideal,
                double old_ratio, double limit)
{
    char r[32], o[32] = "";
    mp_prof_fmt_ratio_from((double)meas / (double)ideal, limit, r, sizeof r);
    if (old_ratio >= 0) {
        mp_prof_fmt_ratio(old_ratio, o, sizeof o - 4);
        strcat(o, "x -> ");
    }
    fprintf(out, "%s%s %s: %s%sx ideal (%llu %s, ideal %llu)\n", prefix,
            where, what, o, r, meas, mp_prof_class_unit[c], ideal);
}

void mp_prof_src_what(const mp_prof_src *l, int c, int dir, char *buf,
                      size_t len)
{
    const char *ops = l->dops[c][dir];
    snprintf(buf, len, "%s %s%s%s%s", mp_prof_class_name[c],
             mp_prof_dir_name[dir], ops[0] ? " (" : "", ops,
             ops[0] ? ")" : "");
}

/* Prints the judgement of line l's loads or stores of class c, the line
 * named "file:line KERNEL", or "KERNEL+0xOFF" without line info. */
static void say_src(FILE *out, const char *prefix, const mp_prof_src *l,
                    int c, int dir, double old_ratio, double limit)
{
    char what[128];
    char *at = mp_prof_src_where(l);
    char *where = mp_xmalloc(strlen(at) + strlen(l->name) + 2);
    if (l->file[0])
        sprintf(where, "%s %s", at, l->name);
    else
        sprintf(where, "%s%s", l->name, at);
    mp_prof_src_what(l, c, dir, what, sizeof what);
    say(out, prefix, where, what, c, l->meas[c][dir], l->ideal[c][dir],
        old_ratio, limit);
    free(where);
    free(at);
}

/* Whether line l is one to judge under s: an ideal count in a class s
 * judges. */
static int judgeable(const mp_prof_src *l, const mp_prof_check_spec *s)
{
    for (int c = 0; c < MP_NCLASS; c++)
        for (int dir = 0; dir < MP_NDIR; dir++)
            if (s->has[c] && l->ideal[c][dir])
                return 1;
    return 0;
}

/* Counts a line (kernel, comparison) to judge of a library kernel or
 * not in j: 1 when it is judged, 0 when it is left (a library's, not
 * asked for). */
static int take(mp_prof_judged *j, int library, int libraries)
{
    if (library && !libraries) {
        j->library_left++;
        return 0;
    }
    j->judged++;
    j->library += library;
    return 1;
}

/* Whether line l's loads or stores (dir) of class c exceed s's limit. */
static int offends(const mp_prof_src *l, const mp_prof_check_spec *s, int c,
                   int dir)
{
    if (!s->has[c] || !l->ideal[c][dir])
        return 0;
    return (long double)l->meas[c][dir]
           > (long double)s->limit[c] * (long double)l->ideal[c][dir];
}

mp_prof_offender *mp_prof_offenders(const mp_prof_data *d,
                                    const mp_prof_check_spec *s,
                                    mp_u64 min_count, int libraries, int *n,
                                    mp_prof_judged *j)
{
    int ns, cap = 0;
    mp_prof_src *src = mp_prof_sources(d, &ns);
    mp_prof_offender *o = NULL;
    memset(j, 0, sizeof *j);
    *n = 0;
    for (int k = 0; k < ns; k++) {
        const mp_prof_src *l = &src[k];
        if (l->inst < min_count || !judgeable(l, s)
            || !take(j, l->library, libraries))
            continue;
        for (int c = 0; c < MP_NCLASS; c++)
            for (int dir = 0; dir < MP_NDIR; dir++)
                if (offends(l, s, c, dir)) {
                    if (*n == cap) {
                        cap = cap ? 2 * cap : 16;
                        o = mp_xrealloc(o, (size_t)cap * sizeof *o);
                    }
                    o[(*n)++] = (mp_prof_offender){*l, c, dir};
                }
    }
    free(src);
    return o;
}

int mp_prof_check(const mp_prof_data *d, const mp_prof_check_spec *s,
                  mp_u64 min_count, int libraries, const char *prefix,
                  FILE *out, mp_prof_judged *j)
{
    int n;
    mp_prof_offender *o = mp_prof_offenders(d, s, min_count, libraries, &n,
                                            j);
    for (int k = 0; k < n; k++)
        say_src(out, prefix, &o[k].src, o[k].cls, o[k].dir, -1,
                s->limit[o[k].cls]);
    free(o);
    return n;
}

/* new_m / new_i > old_m / old_i x (1 + tol), exactly when tol is 0. */
static int grew(mp_u64 new_m, mp_u64 new_i, mp_u64 old_m, mp_u64 old_i,
                double tol)
{
    if (tol == 0)
        return (unsigned __int128)new_m * old_i
               > (unsigned __int128)old_m * new_i;
    return (long double)new_m * old_i
           > (long double)old_m * new_i * (1.0L + tol);
}

/* Per kernel (mangled name, all processes): the launch sums; a library
 * kernel when all its launches are a library's. */
typedef struct {
    const char *name, *mangled;
    int library;
    mp_u64 meas[MP_NCLASS], ideal[MP_NCLASS];
} kernel_sum;

static kernel_sum *kernel_sums(const mp_prof_data *d, int *n)
{
    kernel_sum *k = mp_xcalloc((size_t)d->nl + 1, sizeof *k);
    *n = 0;
    for (int i = 0; i < d->nl; i++) {
        const mp_prof_launch *l = &d->l[i];
        int j = 0;
        while (j < *n && strcmp(k[j].mangled, l->mangled))
            j++;
        if (j == *n) {
            k[j].name = l->name;
            k[j].mangled = l->mangled;
            k[j].library = 1;
            (*n)++;
        }
        k[j].library &= l->library;
        for (int c = 0; c < MP_NCLASS; c++) {
            k[j].meas[c] += l->m[mp_prof_count_of(c)];
            k[j].ideal[c] += l->m[mp_prof_ideal_of(c)];
        }
    }
    return k;
}

/* The order of mp_prof_sources: kernel, mangled, file, line, and the
 * offset for an instruction without line info. */
static int cmp_src(const mp_prof_src *a, const mp_prof_src *b)
{
    int c;
    if ((c = strcmp(a->kernel, b->kernel)) || (c = strcmp(a->mangled,
                                                          b->mangled))
        || (c = strcmp(a->file, b->file)))
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->file[0])
        return 0;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

/* The source line of so (n, ordered) that is s's, or NULL. */
static const mp_prof_src *find_src(const mp_prof_src *so, int n,
                                   const mp_prof_src *s)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = cmp_src(s, &so[mid]);
        if (!c)
            return &so[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The kernels of d and old compared (per class): one line per kernel
 * whose measured / ideal grew. The offenders. */
static int baseline_kernels(const mp_prof_data *d, const mp_prof_data *old,
                            double tolerance, int libraries,
                            const char *prefix, FILE *out, mp_prof_judged *jd)
{
    int bad = 0, nk, nko;
    kernel_sum *k = kernel_sums(d, &nk), *ko = kernel_sums(old, &nko);
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < nko; j++) {
            if (strcmp(k[i].mangled, ko[j].mangled))
                continue;
            for (int c = 0; c < MP_NCLASS; c++) {
                if (!k[i].ideal[c] || !ko[j].ideal[c]
                    || !take(jd, k[i].library, libraries))
                    continue;
                if (!grew(k[i].meas[c], k[i].ideal[c], ko[j].meas[c],
                          ko[j].ideal[c], tolerance))
                    continue;
                char *where = mp_xmalloc(strlen(k[i].name) + 8);
                sprintf(where, "kernel %s", k[i].name);
                double was = (double)ko[j].meas[c] / (double)ko[j].ideal[c];
                say(out, prefix, where, mp_prof_class_name[c], c,
                    k[i].meas[c], k[i].ideal[c], was, was);
                free(where);
                bad++;
            }
        }
    free(k);
    free(ko);
    return bad;
}

int mp_prof_baseline(const mp_prof_data *d, const mp_prof_data *old,
                     double tolerance, mp_u64 min_count, int libraries,
                     const char *prefix, FILE *out, mp_prof_judged *j)
{
    memset(j, 0, sizeof *j);
    int bad = baseline_kernels(d, old, tolerance, libraries, prefix, out, j);
    int n, no;
    mp_prof_src *s = mp_prof_sources(d, &n), *so = mp_prof_sources(old, &no);
    for (int i = 0; i < n; i++) {
        const mp_prof_src *o = find_src(so, no, &s[i]);
        if (s[i].inst < min_count || !o)
            continue;
        for (int c = 0; c < MP_NCLASS; c++)
            for (int dir = 0; dir < MP_NDIR; dir++) {
                const mp_u64 *m = s[i].meas[c], *id = s[i].ideal[c];
                if (!id[dir] || !o->ideal[c][dir]
                    || !take(j, s[i].library, libraries))
                    continue;
                if (!grew(m[dir], id[dir], o->meas[c][dir],
                          o->ideal[c][dir], tolerance))
                    continue;
                double was = (double)o->meas[c][dir]
                             / (double)o->ideal[c][dir];
                say_src(out, prefix, &s[i], c, dir, was, was);
                bad++;
            }
    }
    free(s);
    free(so);
    return bad;
}
