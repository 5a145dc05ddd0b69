/*
 * row.c - schema lookup and row cells (see row.h).
 *
 * Metric columns are the union of every metric set, in table order, each
 * name once (gpu__time_duration.sum is in every set).
 */
#include "row.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static const char *const fixed_names[] = {
#define MP_COL_NAME(id, name, desc) name,
    MP_COLUMNS(MP_COL_NAME)
#undef MP_COL_NAME
};
static const char *const fixed_descs[] = {
#define MP_COL_DESC(id, name, desc) desc,
    MP_COLUMNS(MP_COL_DESC)
#undef MP_COL_DESC
};

#define MP_MAX_METRIC_COLUMNS 64
static const mp_metric *metric_cols[MP_MAX_METRIC_COLUMNS];
static int nmetric_cols = -1;

static void build_metric_columns(void)
{
    if (nmetric_cols >= 0)
        return;
    nmetric_cols = 0;
    for (int s = 0; s < MP_SET_COUNT; s++) {
        size_t n;
        const mp_metric *m = mp_metric_set_get((mp_metric_set)s, &n);
        for (size_t i = 0; i < n; i++) {
            int dup = 0;
            for (int j = 0; j < nmetric_cols && !dup; j++)
                dup = strcmp(metric_cols[j]->name, m[i].name) == 0;
            if (!dup && nmetric_cols < MP_MAX_METRIC_COLUMNS)
                metric_cols[nmetric_cols++] = &m[i];
        }
    }
}

int mp_schema_columns(void)
{
    build_metric_columns();
    return MP_COL_FIXED_COUNT + nmetric_cols;
}

const char *mp_schema_name(int i)
{
    build_metric_columns();
    if (i < MP_COL_FIXED_COUNT)
        return fixed_names[i];
    return metric_cols[i - MP_COL_FIXED_COUNT]->name;
}

const char *mp_schema_description(int i)
{
    build_metric_columns();
    if (i < MP_COL_FIXED_COUNT)
        return fixed_descs[i];
    return metric_cols[i - MP_COL_FIXED_COUNT]->description;
}

int mp_schema_metric_column(const char *name)
{
    build_metric_columns();
    for (int j = 0; j < nmetric_cols; j++)
        if (strcmp(metric_cols[j]->name, name) == 0)
            return MP_COL_FIXED_COUNT + j;
    return -1;
}

int mp_row_init(mp_row *r)
{
    r->ncols = mp_schema_columns();
    r->cells = calloc((size_t)r->ncols, sizeof *r->cells);
    return r->cells ? 0 : -1;
}

void mp_row_free(mp_row *r)
{
    free(r->cells);
    r->cells = NULL;
}

void mp_row_clear(mp_row *r)
{
    memset(r->cells, 0, (size_t)r->ncols * sizeof *r->cells);
}

void mp_row_set(mp_row *r, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->cells[col], MP_CELL, fmt, ap);
    va_end(ap);
}

const char *mp_row_get(const mp_row *r, int col)
{
    return r->cells[col];
}

void mp_row_cells(const mp_row *r, const char **out)
{
    for (int i = 0; i < r->ncols; i++)
        out[i] = r->cells[i];
}
