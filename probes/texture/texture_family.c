/*
 * texture_family.c - the texture family's descriptor (probes/family.h):
 * the probe (texture.c, texture.cu) and its table (texture_tables.c);
 * the study's texture claims are with the constant family's
 * (probes/const/const_study.c).
 */
#include "family.h"

extern const mp_probe mp_probe_texture;
extern const mp_rep_spec mp_rep_spec_texture;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_texture}};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_ARRAY_BYTES, MP_COL_SOURCE,
    MP_COL_ACCESS, MP_COLS_LAUNCH, MP_COL_ITERATIONS, MP_COLS_PER_REQUEST,
    MP_COLS_BANDWIDTH, MP_COL_MODEL_SECTORS, MP_COL_MODEL_IDEAL_SECTORS,
    MP_COL_SECTORS_PER_REQUEST, MP_COL_MODEL_MATCH,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "texture/texture-4096.csv",
    "texture/texture-small.csv",
    NULL,
};

/* The report fields a CSV with its rows must have. */
static const int needs[] = {
    MP_F_SOURCE, MP_F_ACCESS, MP_F_TIME_NS, MP_F_MODEL_SECTORS,
    MP_F_SECTORS, MP_F_MATCH, MP_F_VERIFIED, -1};

const mp_family mp_family_texture = {
    MP_FAMILY_BASE(texture),
    .summary = "texture objects (tex1Dfetch, tex2D) against global and "
               "__ldg loads: 5-point stencil, column and row walks",
    .ncu_check_args = "--source tex1d,tex2d,global,ldg "
                      "--access stencil,column --size 2048",
    .report = {.needs = needs,
               .study_files = study_files,
               .tables = tables, .ntables = N(tables)},
    .doc = "docs/constant-texture.md",
};
