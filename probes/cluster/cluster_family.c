/*
 * cluster_family.c - the cluster family's descriptor (probes/family.h):
 * the probe (cluster.c, cluster.cu) and its table (cluster_tables.c).
 */
#include "family.h"

extern const mp_probe mp_probe_cluster;
extern const mp_rep_spec mp_rep_spec_cluster;

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_cluster}};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_TILE_BYTES,
    MP_COL_CLUSTER_SIZE, MP_COL_LATENCY_CYCLES, MP_COL_SPACING, MP_COLS_LAUNCH,
    MP_COL_ITERATIONS, MP_COLS_PER_REQUEST, MP_COLS_BANDWIDTH,
    MP_COL_MODEL_IDEAL, MP_COL_MODEL_MATCH, MP_COL_METHOD,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "cluster/cluster.csv",
    NULL,
};

const mp_family mp_family_cluster = {
    MP_FAMILY_BASE(cluster),
    .summary = "distributed shared memory (sm_90 clusters): latency and "
               "bandwidth to another block's shared memory against the "
               "block's own",
    .ncu_check_args = "--target local,remote --op ld,st --cluster 2,4 "
                      "--width 4,16 --iterations 256",
    .report = {.study_files = study_files,
               .tables = tables, .ntables = N(tables)},
    .doc = "docs/cluster.md",
};
