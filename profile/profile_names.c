/*
 * profile_names.c - the names memprobe profile prints kernels by
 * (profile_names.h): the demangler, the short name of a demangled name,
 * and the names that tell apart kernels sharing a short name by the
 * template arguments (then the parameters) in which they differ; and
 * mp_prof_name_kernels (profile_csv.h), which names a profile's kernels
 * with them.
 */
#include "profile_names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "profile_csv.h"
#include "stats.h"

/* The C++ runtime's demangler (memprobe links libstdc++). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

char *mp_prof_demangle(const char *mangled)
{
    int status = 0;
    char *d = __cxa_demangle(mangled, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return mp_xstrdup(mangled);
}

/* The length of what at d[i] stands for itself, no bracket opening or
 * closing: "(anonymous namespace)", or an operator's name with its
 * symbol ("operator<", "operator()"); else 0. */
static size_t plain_token(const char *d, size_t i)
{
    static const char anon[] = "(anonymous namespace)";
    if (!strncmp(d + i, anon, sizeof anon - 1))
        return sizeof anon - 1;
    int word = !i || !(isalnum((unsigned char)d[i - 1]) || d[i - 1] == '_');
    if (!word || strncmp(d + i, "operator", 8))
        return 0;
    const char *p = d + i + 8;
    if (isalnum((unsigned char)*p) || *p == '_')
        return 0;   /* "operators" */
    if (!strncmp(p, "()", 2))
        return 10;
    return 8 + strspn(p, "<>=!+-*/%^&|~");
}

static int opens(char c) { return c && strchr("<({[", c) != NULL; }
static int closes(char c) { return c && strchr(">)}]", c) != NULL; }

/* The length of an ABI tag at d[i], "[abi:...]" to its ']', else 0. */
static size_t abi_tag(const char *d, size_t i)
{
    if (strncmp(d + i, "[abi:", 5))
        return 0;
    const char *close = strchr(d + i, ']');
    return close ? (size_t)(close - (d + i)) + 1 : 0;
}

/* The qualified name in d: after the last blank before it (a return
 * type) and before the parameter list, both outside any brackets:
 * d[*start .. *end). */
static void qualified(const char *d, size_t *start, size_t *end)
{
    size_t t;
    int depth = 0;
    *start = 0;
    *end = strlen(d);
    for (size_t i = 0; d[i]; i += t ? t : 1) {
        if ((t = plain_token(d, i)) || (t = abi_tag(d, i)))
            continue;
        if (d[i] == '(' && !depth) {
            *end = i;
            break;
        }
        if (opens(d[i]))
            depth++;
        else if (closes(d[i]) && depth > 0)
            depth--;
        else if (d[i] == ' ' && !depth && d[i + 1] != '<')
            *start = i + 1;   /* not "operator<< <int>" */
    }
}

char *mp_prof_short_name(const char *d)
{
    size_t start, end, t;
    qualified(d, &start, &end);
    /* copied without its template argument lists, at any depth, and its
     * ABI tags */
    char *out = mp_xmalloc(end - start + 1);
    size_t n = 0;
    int skip = -1;   /* the depth at which the dropped "<" opened */
    int depth = 0;
    for (size_t i = start; i < end; i += t) {
        if ((t = abi_tag(d, i)))
            continue;
        t = plain_token(d, i);
        if (!t) {
            t = 1;
            if (opens(d[i])) {
                if (d[i] == '<' && skip < 0)
                    skip = depth;
                depth++;
            } else if (closes(d[i]) && depth > 0 && --depth == skip) {
                skip = -1;
                continue;
            }
        }
        if (skip < 0)
            for (size_t k = 0; k < t && i + k < end; k++)
                out[n++] = d[i + k];
    }
    while (n && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
    return out;
}

/* ---- telling apart kernels of one short name ------------------------- */

/* A list of strings. */
typedef struct {
    char **v;
    int n;
} strs;

static void push(strs *s, const char *from, size_t len)
{
    while (len && isspace((unsigned char)*from))
        from++, len--;
    while (len && isspace((unsigned char)from[len - 1]))
        len--;
    s->v = mp_xrealloc(s->v, (size_t)(s->n + 1) * sizeof *s->v);
    s->v[s->n] = mp_xmalloc(len + 1);
    memcpy(s->v[s->n], from, len);
    s->v[s->n++][len] = '\0';
}

static void strs_free(strs *s)
{
    for (int k = 0; k < s->n; k++)
        free(s->v[k]);
    free(s->v);
}

/* The arguments of the list opening at d[i] ('<' or '('), to end at the
 * most, each pushed onto s ("()" adds none): the index after its closing
 * bracket. */
static size_t take_list(const char *d, size_t i, size_t end, strs *s)
{
    int depth = 0, any = 0;
    size_t from = i + 1, t;
    for (size_t k = i; k < end; k += t ? t : 1) {
        if ((t = plain_token(d, k)) || (t = abi_tag(d, k))) {
            any = 1;
            continue;
        }
        if (opens(d[k]))
            depth++;
        else if (closes(d[k]) && --depth == 0) {
            if (any || k > from)
                push(s, d + from, k - from);
            return k + 1;
        } else if (d[k] == ',' && depth == 1) {
            push(s, d + from, k - from);
            from = k + 1;
        }
        any |= k > i && !isspace((unsigned char)d[k]);
    }
    push(s, d + from, end - from);   /* unbalanced: to the end */
    return end;
}

/* A kernel's name taken apart: its qualified name d[start .. end), the
 * arguments of its template lists there (outermost, in order) and its
 * parameters. */
typedef struct {
    const char *d;
    size_t start, end;
    strs targs, params;
} parts;

static void take_apart(const char *d, parts *p)
{
    size_t t;
    memset(p, 0, sizeof *p);
    p->d = d;
    qualified(d, &p->start, &p->end);
    for (size_t i = p->start; i < p->end; i += t ? t : 1) {
        if ((t = plain_token(d, i)) || (t = abi_tag(d, i)))
            continue;
        if (d[i] == '<') {
            i = take_list(d, i, p->end, &p->targs);
            t = 0;
            if (i >= p->end)
                break;
            continue;
        }
    }
    if (d[p->end] == '(')
        take_list(d, p->end, strlen(d), &p->params);
}

/* Which arguments (of n kernels' lists, the k-th list of each by get)
 * differ: show[a] for argument a, 1 where some kernel's differs from the
 * first's or is missing; the number of such arguments. */
static int differing(const parts *p, int n, const strs *(*get)(const parts *),
                     int *show, int most)
{
    int diff = 0;
    for (int a = 0; a < most; a++) {
        show[a] = 0;
        for (int k = 1; k < n && !show[a]; k++) {
            const strs *x = get(&p[0]), *y = get(&p[k]);
            show[a] = a >= x->n || a >= y->n || strcmp(x->v[a], y->v[a]);
        }
        diff += show[a];
    }
    return diff;
}

static const strs *targs_of(const parts *p) { return &p->targs; }
static const strs *params_of(const parts *p) { return &p->params; }

/* A growing string. */
typedef struct {
    char *s;
    size_t n;
} text;

static void put(text *t, const char *s, size_t len)
{
    t->s = mp_xrealloc(t->s, t->n + len + 1);
    memcpy(t->s + t->n, s, len);
    t->n += len;
    t->s[t->n] = '\0';
}

/* The characters of l's arguments with their separators. */
static size_t whole(const strs *l)
{
    size_t n = 0;
    for (int a = 0; a < l->n; a++)
        n += strlen(l->v[a]) + (a ? 2 : 0);
    return n;
}

/* Which arguments are shown: show[a] (they differ), or every one when
 * all kernels' lists are short (1 in show[most]). */
typedef struct {
    int *show;
    int all;
} shows;

/* Arguments first .. first + n of l into t: each that w leaves out
 * "..." (unless it is no longer), each longer than MP_PROF_ARG_MAX cut. */
static void put_args(text *t, const strs *l, int first, int n,
                     const shows *w)
{
    for (int a = first; a < first + n && a < l->n; a++) {
        if (a > first)
            put(t, ", ", 2);
        const char *v = l->v[a];
        size_t len = strlen(v);
        if (!w->all && !w->show[a] && len > 3)
            put(t, "...", 3);
        else if (len > MP_PROF_ARG_MAX) {
            put(t, v, MP_PROF_ARG_MAX - 3);
            put(t, "...", 3);
        } else
            put(t, v, len);
    }
}

/* p's name as shown: its qualified name, ABI tags dropped, with its
 * template lists when tshow (else without), its parameter list when
 * pshow. */
static char *shown(const parts *p, const shows *tshow, const shows *pshow)
{
    text t = {mp_xstrdup(""), 0};
    size_t k;
    int a = 0;
    for (size_t i = p->start; i < p->end; i += k) {
        if ((k = abi_tag(p->d, i)))
            continue;
        if ((k = plain_token(p->d, i))) {
            put(&t, p->d + i, k);
            continue;
        }
        k = 1;
        if (p->d[i] != '<') {
            put(&t, p->d + i, 1);
            continue;
        }
        strs one = {0};
        size_t next = take_list(p->d, i, p->end, &one);
        if (tshow) {
            put(&t, "<", 1);
            put_args(&t, &p->targs, a, one.n, tshow);
            put(&t, ">", 1);
        }
        a += one.n;
        strs_free(&one);
        k = next - i;
    }
    if (pshow) {
        put(&t, "(", 1);
        put_args(&t, &p->params, 0, p->params.n, pshow);
        put(&t, ")", 1);
    }
    return t.s;
}

/* 1 when out[0 .. n) are all different. */
static int all_different(char *const *out, int n)
{
    for (int j = 0; j < n; j++)
        for (int k = j + 1; k < n; k++)
            if (!strcmp(out[j], out[k]))
                return 0;
    return 1;
}

/* "#N" after each name that another of out shares, N in order. */
static void number_alike(char **out, int n)
{
    int *alike = mp_xcalloc((size_t)n + 1, sizeof *alike);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
            alike[j] |= j != k && !strcmp(out[j], out[k]);
    for (int j = 0, num = 0; j < n; j++) {
        if (!alike[j])
            continue;
        char *v = mp_xmalloc(strlen(out[j]) + 24);
        sprintf(v, "%s#%d", out[j], ++num);
        free(out[j]);
        out[j] = v;
    }
    free(alike);
}

/* Which of n kernels' lists (by get) to show: the differing
 * arguments, or all when every kernel's list is short; the number that
 * differ. Frees nothing: w->show is malloc'd. */
static int to_show(const parts *p, int n, const strs *(*get)(const parts *),
                   shows *w)
{
    int most = 0;
    size_t longest = 0;
    for (int k = 0; k < n; k++) {
        most = get(&p[k])->n > most ? get(&p[k])->n : most;
        longest = whole(get(&p[k])) > longest ? whole(get(&p[k])) : longest;
    }
    w->show = mp_xcalloc((size_t)most + 1, sizeof *w->show);
    w->all = longest <= MP_PROF_ARGS_SHOWN;
    return differing(p, n, get, w->show, most);
}

void mp_prof_tell_apart(const char *const *demangled, int n, char **out)
{
    parts *p = mp_xcalloc((size_t)n + 1, sizeof *p);
    for (int k = 0; k < n; k++)
        take_apart(demangled[k], &p[k]);
    shows tw, pw;
    int tdiff = to_show(p, n, targs_of, &tw);
    int pdiff = to_show(p, n, params_of, &pw);
    for (int k = 0; k < n; k++)
        out[k] = shown(&p[k], tdiff ? &tw : NULL, NULL);
    if (!all_different(out, n) && pdiff)
        for (int k = 0; k < n; k++) {
            free(out[k]);
            out[k] = shown(&p[k], tdiff ? &tw : NULL, &pw);
        }
    number_alike(out, n);
    for (int k = 0; k < n; k++) {
        strs_free(&p[k].targs);
        strs_free(&p[k].params);
    }
    free(p);
    free(tw.show);
    free(pw.show);
}

/* ---- the kernels' printed names ------------------------------------- */

/* A kernel of a profile: its names and its first row (launch rows, then
 * instruction rows, numbered on). */
typedef struct {
    const char *mangled, *kernel;
    char *name;
    long first;
} kname;

static int cmp_kname_mangled(const void *a, const void *b)
{
    const kname *x = a, *y = b;
    int c = strcmp(x->mangled, y->mangled);
    return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int cmp_kname_name(const void *a, const void *b)
{
    const kname *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->first > y->first) - (x->first < y->first);
}

/* The kernels of d, each once (its first row's), by mangled name; *n of
 * them, each with its short name. */
static kname *kernels_of(const mp_prof_data *d, int *n)
{
    long rows = (long)d->nl + d->ni;
    kname *k = mp_xcalloc((size_t)rows + 1, sizeof *k);
    for (long r = 0; r < rows; r++) {
        int launch = r < d->nl;
        k[r].mangled = launch ? d->l[r].mangled : d->i[r - d->nl].mangled;
        k[r].kernel = launch ? d->l[r].kernel : d->i[r - d->nl].kernel;
        k[r].first = r;
    }
    mp_sort(k, (size_t)rows, sizeof *k, cmp_kname_mangled);
    *n = 0;
    for (long r = 0; r < rows; r++)
        if (!*n || strcmp(k[*n - 1].mangled, k[r].mangled))
            k[(*n)++] = k[r];
    for (int j = 0; j < *n; j++) {
        k[j].name = mp_prof_short_name(k[j].kernel);
        if (!k[j].name[0]) {   /* no demangled name: the mangled one */
            free(k[j].name);
            k[j].name = mp_xstrdup(k[j].mangled);
        }
    }
    return k;
}

/* Kernels k[0 .. n) of one short name, in the order of their first
 * row, named apart (mp_prof_tell_apart). */
static void tell_apart(kname *k, int n)
{
    const char **dem = mp_xcalloc((size_t)n + 1, sizeof *dem);
    char **out = mp_xcalloc((size_t)n + 1, sizeof *out);
    for (int j = 0; j < n; j++)
        dem[j] = k[j].kernel;
    mp_prof_tell_apart(dem, n, out);
    for (int j = 0; j < n; j++) {
        free(k[j].name);
        k[j].name = out[j];
    }
    free(dem);
    free(out);
}

static int cmp_kname_key(const void *key, const void *b)
{
    return strcmp(key, ((const kname *)b)->mangled);
}

static const char *name_of(const kname *k, int n, const char *mangled)
{
    const kname *f = bsearch(mangled, k, (size_t)n, sizeof *k,
                             cmp_kname_key);
    return f ? f->name : "";
}

void mp_prof_name_kernels(mp_prof_data *d)
{
    int n;
    kname *k = kernels_of(d, &n);
    mp_sort(k, (size_t)n, sizeof *k, cmp_kname_name);
    for (int j = 0; j < n;) {
        int same = 1;
        while (j + same < n && !strcmp(k[j].name, k[j + same].name))
            same++;
        if (same > 1)
            tell_apart(k + j, same);
        j += same;
    }
    mp_sort(k, (size_t)n, sizeof *k, cmp_kname_mangled);
    d->names = mp_xcalloc((size_t)n + 1, sizeof *d->names);
    d->nnames = n;
    for (int j = 0; j < n; j++)
        d->names[j] = k[j].name;
    for (int r = 0; r < d->nl; r++)
        d->l[r].name = name_of(k, n, d->l[r].mangled);
    for (int r = 0; r < d->ni; r++)
        d->i[r].name = name_of(k, n, d->i[r].mangled);
    free(k);
}

