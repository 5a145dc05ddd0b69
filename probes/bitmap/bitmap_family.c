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

const mp_family mp_family_bitmap = {
    .name = "bitmap",
    .probe = &mp_probe_bitmap,
    .report = {.tables = tables, .ntables = N(tables),
               .claims = &mp_study_bitmap},
    .sweep = "configs/bitmap.conf",
    .doc = "docs/bitmap.md",
};
