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
#include "probe.h"

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

const int mp_engine_columns[] = {
    MP_COL_TOOL_VERSION, MP_COL_TIMESTAMP, MP_COL_DEVICE_NAME, MP_COL_CC,
    MP_COL_SM_COUNT, MP_COL_SM_CLOCK_MHZ, MP_COL_CONFIG, MP_COL_WARMUP,
    MP_COL_RUNS, MP_COL_TIME_NS_MEDIAN, MP_COL_TIME_NS_MIN,
    MP_COL_TIME_NS_COV, MP_COL_CLOCK64_SPAN, MP_COL_CLOCK64_BLOCK_MEDIAN,
    MP_COL_VERIFIED, MP_COL_COUNTERS_STATUS, MP_COL_DEVICE_ID,
    MP_COL_CLOCK_NOTE, MP_COL_LAUNCHES_PER_SAMPLE, MP_COL_TIME_OUTLIERS,
    MP_COL_SM_CLOCK_TIMED,
};
const int mp_engine_ncolumns =
    (int)(sizeof mp_engine_columns / sizeof mp_engine_columns[0]);

#define MP_MAX_METRIC_COLUMNS 64
static const mp_metric *metric_cols[MP_MAX_METRIC_COLUMNS];
static int nmetric_cols = -1;

static void build_metric_columns(void)
{
    if (nmetric_cols >= 0)
        return;
    nmetric_cols = 0;
    mp_metric_set sets[MP_MAX_METRIC_SETS];
    int nsets = mp_metric_sets(sets, MP_MAX_METRIC_SETS);
    for (int s = 0; s < nsets; s++) {
        size_t n;
        const mp_metric *m = mp_metric_set_get(sets[s], &n);
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

/* The fixed columns that hold a number >= 0 or nothing. Not here: the
 * text columns (swizzle is "none" or bytes), and
 * excess_wavefronts_per_request, a difference that may be below 0. */
static const mp_column nonneg_cols[] = {
    MP_COL_CC, MP_COL_SM_COUNT, MP_COL_SM_CLOCK_MHZ, MP_COL_WIDTH,
    MP_COL_STRIDE, MP_COL_BASE, MP_COL_GROUP, MP_COL_PERIOD, MP_COL_PAD,
    MP_COL_OFFSET, MP_COL_ARRAY_BYTES, MP_COL_TILE_BYTES, MP_COL_PASSES,
    MP_COL_CLUSTER_SIZE, MP_COL_LATENCY_CYCLES, MP_COL_SPREAD,
    MP_COL_SPACING, MP_COL_ELEMENTS, MP_COL_THREADS, MP_COL_BLOCKS,
    MP_COL_ITERATIONS, MP_COL_SHARED_BYTES, MP_COL_WARMUP, MP_COL_RUNS,
    MP_COL_TIME_NS_MEDIAN, MP_COL_TIME_NS_MIN, MP_COL_TIME_NS_COV,
    MP_COL_HOST_NS_MEDIAN, MP_COL_REQUESTS, MP_COL_NS_PER_REQUEST,
    MP_COL_CYCLES_PER_REQUEST, MP_COL_CLOCK64_SPAN,
    MP_COL_CLOCK64_CYCLES_PER_REQUEST, MP_COL_CLOCK64_BLOCK_MEDIAN,
    MP_COL_CLOCK64_BLOCK_CYCLES_PER_REQUEST, MP_COL_BANDWIDTH_GBS,
    MP_COL_CEILING_GBS, MP_COL_BANDWIDTH_FRACTION, MP_COL_MODEL_WAVEFRONTS,
    MP_COL_MODEL_IDEAL, MP_COL_MODEL_CONFLICT_WAYS, MP_COL_MODEL_SECTORS,
    MP_COL_MODEL_IDEAL_SECTORS, MP_COL_MODEL_DISTINCT, MP_COL_MODEL_REPLAYS,
    MP_COL_WAVEFRONTS_PER_REQUEST, MP_COL_SECTORS_PER_REQUEST,
    MP_COL_REPLAYS_PER_REQUEST, MP_COL_MEMCPY_GBS, MP_COL_MEMCPY_FRACTION,
    MP_COL_DEVICE_ID, MP_COL_BYTES, MP_COL_SRC_DEVICE, MP_COL_DST_DEVICE,
    MP_COL_LATENCY_US, MP_COL_FOOTPRINT, MP_COL_STRIDE_BYTES, MP_COL_LOADS,
    MP_COL_WARM_LOADS, MP_COL_CYCLES_PER_LOAD, MP_COL_NS_PER_LOAD,
    MP_COL_L1_HIT_RATE, MP_COL_L2_HIT_RATE, MP_COL_L2_SECTORS_PER_LOAD,
    MP_COL_DRAM_BYTES_PER_LOAD, MP_COL_INFLIGHT,
};

mp_value_rule mp_schema_value_rule(const char *name)
{
    if (!name)
        return MP_VALUE_ANY;
    if (mp_schema_metric_column(name) >= 0)
        return MP_VALUE_NONNEG;   /* counters count; times are >= 0 */
    for (size_t i = 0; i < sizeof nonneg_cols / sizeof *nonneg_cols; i++)
        if (strcmp(fixed_names[nonneg_cols[i]], name) == 0)
            return MP_VALUE_NONNEG;
    if (strcmp(fixed_names[MP_COL_EXCESS_WAVEFRONTS], name) == 0)
        return MP_VALUE_FINITE;
    return MP_VALUE_ANY;
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
