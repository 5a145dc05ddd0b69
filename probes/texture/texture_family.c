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

const mp_family mp_family_texture = {
    .name = "texture",
    .probe = &mp_probe_texture,
    .report = {.tables = tables, .ntables = N(tables)},
    .sweep = "configs/texture.conf",
    .doc = "docs/constant-texture.md",
};
