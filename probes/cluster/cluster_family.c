/*
 * cluster_family.c - the cluster family's descriptor (probes/family.h):
 * the probe (cluster.c, cluster.cu) and its table (cluster_tables.c).
 */
#include "family.h"

extern const mp_probe mp_probe_cluster;
extern const mp_rep_spec mp_rep_spec_cluster;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_cluster}};

const mp_family mp_family_cluster = {
    .name = "cluster",
    .probe = &mp_probe_cluster,
    .report = {.tables = tables, .ntables = N(tables)},
    .sweep = "configs/cluster.conf",
    .doc = "docs/cluster.md",
};
