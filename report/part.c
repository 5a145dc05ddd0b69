/*
 * part.c - the families' report parts (part.h), as the layer above
 * registered them, and the tables they define, by position and by name.
 */
#include "part.h"

#include <string.h>

static const mp_rep_part *const *parts;
static const char *const *part_names;
static int nparts;

void mp_report_register(const mp_rep_part *const *p,
                        const char *const *names, int n)
{
    parts = p;
    part_names = names;
    nparts = n;
}

const char *mp_report_part_name(int i)
{
    return i >= 0 && i < nparts ? part_names[i] : NULL;
}

const mp_rep_part *mp_report_part_of(const char *name)
{
    for (int i = 0; i < nparts; i++)
        if (!strcmp(part_names[i], name))
            return parts[i];
    return NULL;
}

int mp_report_nparts(void)
{
    return nparts;
}

const mp_rep_part *mp_report_part(int i)
{
    return i >= 0 && i < nparts ? parts[i] : NULL;
}

/* The i-th table of every part in registry order, or NULL past the end. */
static const mp_rep_table_def *table_at(int i)
{
    for (int p = 0; p < nparts; p++) {
        if (i < parts[p]->ntables)
            return &parts[p]->tables[i];
        i -= parts[p]->ntables;
    }
    return NULL;
}

const char *mp_rep_table_name(int i)
{
    const mp_rep_table_def *t = i >= 0 ? table_at(i) : NULL;
    return t ? t->spec->name : NULL;
}

const mp_rep_table_def *mp_rep_table_def_find(const char *name)
{
    const mp_rep_table_def *t;
    for (int i = 0; (t = table_at(i)); i++)
        if (!strcmp(t->spec->name, name))
            return t;
    return NULL;
}
