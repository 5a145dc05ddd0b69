/*
 * bitmap_family.c - the bitmap family's descriptor (probes/family.h):
 * the probe (bitmap.c, bitmap.cu), its table (bitmap_tables.c) and the
 * study's claim on seed 004's 2D buffer (bitmap_study.c).
 */
#include "family.h"

extern const mp_probe mp_probe_bitmap;
extern const mp_rep_spec mp_rep_spec_bitmap;
extern const mp_study_group mp_study_bitmap;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_bitmap}};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_PAD, MP_COL_LAYOUT,
    MP_COL_ARRAY_BYTES, MP_COL_ACCESS, MP_COLS_LAUNCH, MP_COLS_PER_REQUEST,
    MP_COL_MODEL_WAVEFRONTS, MP_COL_MODEL_IDEAL, MP_COL_MODEL_CONFLICT_WAYS,
    MP_COL_WAVEFRONTS_PER_REQUEST, MP_COL_EXCESS_WAVEFRONTS,
    MP_COL_MODEL_MATCH,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "bitmap/bitmap.csv",
    NULL,
};

const mp_family mp_family_bitmap = {
    MP_FAMILY_BASE(bitmap),
    .summary = "the seeds' 2D shared-memory bitmap kernel: as written, "
               "[y][x] and padded",
    .ncu_check_args = "--layout seed,yx,pad --op st,ld",
    .report = {.study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .claims = &mp_study_bitmap},
    .doc = "docs/bitmap.md",
};
