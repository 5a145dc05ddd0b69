/*
 * profile_lines.c - the per-source-line sums of a profile (profile_csv.h)
 * that --check, --baseline and the report judge: each line's instructions
 * by class and direction, measured against their ideal.
 */
#include "profile_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"

/* ---- source lines ---------------------------------------------------- */

static int cmp_src_line(const void *a, const void *b)
{
    const mp_prof_line *x = *(const mp_prof_line *const *)a;
    const mp_prof_line *y = *(const mp_prof_line *const *)b;
    int c;
    if ((c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->mangled,
                                                          y->mangled)))
        return c;
    if ((c = strcmp(x->file, y->file)))
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Same source line (without line info: same instruction). */
static int same_src(const mp_prof_line *x, const mp_prof_line *y)
{
    return !strcmp(x->mangled, y->mangled) && !strcmp(x->file, y->file)
           && x->line == y->line && (x->file[0] || x->offset == y->offset);
}

static void add_op(char *ops, size_t len, const char *op)
{
    if (!op[0])
        return;
    for (const char *p = ops; *p;) {
        size_t n = strcspn(p, "/");
        if (n == strlen(op) && !strncmp(p, op, n))
            return;
        p += n + (p[n] == '/');
    }
    size_t used = strlen(ops);
    snprintf(ops + used, len - used, "%s%s", used ? "/" : "", op);
}

/* The direction in which instruction i counts in class c (a load when
 * it executed load instructions, else a store), or -1 when it has no
 * count of the class. */
static int class_dir(const mp_prof_line *i, int c)
{
    if (!i->m[mp_prof_count_of(c)] && !i->m[mp_prof_ideal_of(c)])
        return -1;
    return i->m[MP_PM_LD] ? MP_DIR_LOAD : MP_DIR_STORE;
}

int mp_prof_line_counts_in(const mp_prof_line *i, const mp_prof_src *s,
                           int c, int dir)
{
    if (strcmp(i->mangled, s->mangled) || strcmp(i->file, s->file)
        || i->line != s->line || (!s->file[0] && i->offset != s->offset))
        return 0;
    return class_dir(i, c) == dir;
}

mp_prof_src *mp_prof_sources(const mp_prof_data *d, int *n)
{
    const mp_prof_line **order = mp_xcalloc((size_t)d->ni + 1,
                                            sizeof *order);
    for (int k = 0; k < d->ni; k++)
        order[k] = &d->i[k];
    mp_sort(order, (size_t)d->ni, sizeof *order, cmp_src_line);
    mp_prof_src *s = mp_xcalloc((size_t)d->ni + 1, sizeof *s);
    *n = 0;
    for (int k = 0; k < d->ni; k++) {
        const mp_prof_line *i = order[k];
        if (!k || !same_src(order[k - 1], i)) {
            mp_prof_src *t = &s[(*n)++];
            t->kernel = i->kernel;
            t->mangled = i->mangled;
            t->name = i->name;
            t->file = i->file;
            t->line = i->line;
            t->offset = i->offset;
            t->library = 1;
        }
        mp_prof_src *t = &s[*n - 1];
        t->library &= i->library;
        t->inst += i->m[MP_PM_INST];
        for (int c = 0; c < MP_NCLASS; c++) {
            int dir = class_dir(i, c);
            if (dir < 0)
                continue;
            t->meas[c][dir] += i->m[mp_prof_count_of(c)];
            t->ideal[c][dir] += i->m[mp_prof_ideal_of(c)];
            t->cinst[c] += i->m[MP_PM_INST];
            /* no opcode: the class and load or store, from the metrics */
            char what[32];
            snprintf(what, sizeof what, "%s %s", mp_prof_class_name[c],
                     mp_prof_dir_name[dir]);
            add_op(t->ops[c], sizeof t->ops[c],
                   i->opcode[0] ? i->opcode : what);
            add_op(t->dops[c][dir], sizeof t->dops[c][dir], i->opcode);
        }
    }
    free(order);
    return s;
}

char *mp_prof_src_where(const mp_prof_src *s)
{
    const char *base = strrchr(s->file, '/');
    base = base ? base + 1 : s->file;
    char *w = mp_xmalloc(strlen(base) + 32);
    if (s->file[0])
        sprintf(w, "%s:%ld", base, s->line);
    else
        sprintf(w, "+0x%llx", s->offset);
    return w;
}

