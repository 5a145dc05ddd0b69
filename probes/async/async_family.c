/*
 * async_family.c - the async family's descriptor (probes/family.h): the
 * probe (async.c, async.cu, its model async_model.c), its table
 * (async_tables.c) and the study's async section (async_study.c, which
 * also reads the cluster family's rows).
 */
#include "family.h"

#include "async_study.h"

extern const mp_probe mp_probe_async;
extern const mp_rep_spec mp_rep_spec_async;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_async}};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_CACHE, MP_COL_ARRAY_BYTES,
    MP_COL_SWIZZLE, MP_COL_TILE_BYTES, MP_COL_PASSES, MP_COLS_LAUNCH,
    MP_COLS_PER_REQUEST, MP_COLS_BANDWIDTH, MP_COL_MODEL_WAVEFRONTS,
    MP_COL_MODEL_IDEAL, MP_COL_WAVEFRONTS_PER_REQUEST,
    MP_COL_EXCESS_WAVEFRONTS, MP_COL_MODEL_MATCH, MP_COL_METHOD,
    MP_COL_ITERATIONS, MP_COL_ACCESS, MP_COL_MODEL_CONFLICT_WAYS,
    MP_COL_MODEL_SECTORS, MP_COL_SECTORS_PER_REQUEST,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "async/async.csv",
    NULL,
};

const mp_family mp_family_async = {
    MP_FAMILY_BASE(async),
    .summary = "global -> shared copies: register-staged, cp.async, bulk "
               "and tensor (TMA) copies with swizzles (sm_80/sm_90)",
    .ncu_check_args = "--method staged,cpasync,bulk,tensor --width 16 "
                      "--bytes 16777216 --passes 4",
    .report = {.study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .section = mp_study_async, .section_order = 20},
    .doc = "docs/async.md",
};
