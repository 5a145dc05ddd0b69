/*
 * coalesce_family.c - the coalesce family's descriptor (probes/family.h): the probe (coalesce.c, coalesce.cu), its tables (coalesce_tables.c) and the study's global-memory claims (coalesce_study.c, which also shows the bandwidth family's table).
 */
#include "family.h"

extern const mp_probe mp_probe_coalesce;
extern const mp_rep_spec mp_rep_spec_coalesce, mp_rep_spec_layouts;
extern const mp_study_group mp_study_global;

static const mp_rep_table_def tables[] = {
    {.spec = &mp_rep_spec_coalesce},
    {.spec = &mp_rep_spec_layouts},
};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_STRIDE, MP_COL_GROUP,
    MP_COL_PERIOD, MP_COL_OFFSET, MP_COL_LAYOUT, MP_COL_CACHE,
    MP_COL_ARRAY_BYTES, MP_COLS_LAUNCH, MP_COL_ITERATIONS, MP_COLS_PER_REQUEST,
    MP_COLS_BANDWIDTH, MP_COL_MODEL_SECTORS, MP_COL_MODEL_IDEAL_SECTORS,
    MP_COL_MODEL_DISTINCT, MP_COL_SECTORS_PER_REQUEST, MP_COL_MODEL_MATCH,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "coalesce/coalesce-w4.csv",
    "coalesce/coalesce-w8.csv",
    "coalesce/coalesce-w16.csv",
    "coalesce/coalesce-cg.csv",
    "coalesce/coalesce-layouts.csv",
    NULL,
};

/* The report fields a CSV with its rows must have. */
static const int needs[] = {
    MP_F_OP, MP_F_WIDTH, MP_F_STRIDE, MP_F_GROUP, MP_F_PERIOD,
    MP_F_OFFSET, MP_F_LAYOUT, MP_F_CACHE, MP_F_MODEL_SECTORS, MP_F_SECTORS,
    MP_F_MATCH, MP_F_TIME_NS, MP_F_REQUESTS, MP_F_BANDWIDTH, MP_F_VERIFIED, -1};

const mp_family mp_family_coalesce = {
    MP_FAMILY_BASE(coalesce),
    .summary = "global-memory coalescing: width, offset, stride, patterns, "
               "and the seeds' AoS/SoA layouts (sectors per request)",
    .ncu_check_args = "--op ld,st --width 4,8,16 --offset 0,16,32 "
                      "--stride 1,2,32 --blocks 132 --iterations 64",
    .report = {.needs = needs,
               .study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .claims = &mp_study_global},
    .doc = "docs/coalesce.md",
};
