/*
 * const_family.c - the const family's descriptor (probes/family.h): the probe (constant.c, constant.cu), its table (const_tables.c) and the study's constant- and texture-memory claims (const_study.c, which also shows the texture family's table).
 */
#include "family.h"

extern const mp_probe mp_probe_const;
extern const mp_rep_spec mp_rep_spec_const;
extern const mp_study_group mp_study_const_texture;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_const}};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_GROUP, MP_COL_PERIOD,
    MP_COL_ARRAY_BYTES, MP_COL_SPREAD, MP_COL_SPACING, MP_COL_SOURCE,
    MP_COLS_LAUNCH, MP_COL_ITERATIONS, MP_COLS_PER_REQUEST, MP_COLS_BANDWIDTH,
    MP_COL_MODEL_DISTINCT, MP_COL_MODEL_REPLAYS, MP_COL_REPLAYS_PER_REQUEST,
    MP_COL_MODEL_MATCH,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "const/const-sweep.csv",
    "const/const-sources.csv",
    "const/const-interleaved2.csv",
    "const/const-interleaved16.csv",
    NULL,
};

/* The report fields a CSV with its rows must have. */
static const int needs[] = {
    MP_F_SPREAD, MP_F_SPACING, MP_F_SOURCE, MP_F_GROUP, MP_F_PERIOD,
    MP_F_CYCLES, MP_F_MODEL_REPLAYS, MP_F_REPLAYS, MP_F_MATCH, MP_F_VERIFIED,
    -1};

const mp_family mp_family_const = {
    MP_FAMILY_BASE(const),
    .summary = "constant memory: broadcast and serialised LDC against "
               "global and __ldg loads",
    .ncu_check_args = "--source constant,ldg --spread 1,2,8,32 "
                      "--spacing 4,128 --iterations 256",
    .report = {.needs = needs,
               .mismatch_measured = MP_F_REPLAYS, .mismatch_model = MP_F_MODEL_REPLAYS,
               .mismatch_unit = "replays",
               .study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .claims = &mp_study_const_texture},
    .doc = "docs/constant-texture.md",
};
