/*
 * const_family.c - the const family's descriptor (probes/family.h): the probe (constant.c, constant.cu), its table (const_tables.c) and the study's constant- and texture-memory claims (const_study.c, which also shows the texture family's table).
 */
#include "family.h"

extern const mp_probe mp_probe_const;
extern const mp_rep_spec mp_rep_spec_const;
extern const mp_study_group mp_study_const_texture;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_const}};

const mp_family mp_family_const = {
    .name = "const",
    .probe = &mp_probe_const,
    .report = {.tables = tables, .ntables = N(tables),
               .claims = &mp_study_const_texture},
    .sweep = "configs/const.conf",
    .doc = "docs/constant-texture.md",
};
