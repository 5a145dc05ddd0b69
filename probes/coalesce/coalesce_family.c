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

const mp_family mp_family_coalesce = {
    .name = "coalesce",
    .probe = &mp_probe_coalesce,
    .report = {.tables = tables, .ntables = N(tables),
               .claims = &mp_study_global},
    .sweep = "configs/coalesce.conf",
    .doc = "docs/coalesce.md",
};
