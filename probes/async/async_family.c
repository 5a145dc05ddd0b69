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

const mp_family mp_family_async = {
    .name = "async",
    .probe = &mp_probe_async,
    .report = {.tables = tables, .ntables = N(tables),
               .section = mp_study_async, .section_order = 20},
    .sweep = "configs/async.conf",
    .doc = "docs/async.md",
};
