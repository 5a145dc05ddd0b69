/*
 * reduce_family.c - the reduce family's descriptor (probes/family.h):
 * the probe (reduce.c, reduce.cu, its model reduce_model.c), its table
 * (reduce_tables.c) and the study's reduction claims (reduce_study.c).
 */
#include "family.h"

extern const mp_probe mp_probe_reduce;
extern const mp_rep_spec mp_rep_spec_reduction;
extern const mp_study_group mp_study_reduce;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_reduction}};

const mp_family mp_family_reduce = {
    .name = "reduce",
    .probe = &mp_probe_reduce,
    .report = {.tables = tables, .ntables = N(tables),
               .claims = &mp_study_reduce},
    .sweep = "configs/reduce.conf",
    .doc = "docs/reduce.md",
};
