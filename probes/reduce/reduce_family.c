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

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_WIDTH, MP_COL_ARRAY_BYTES, MP_COL_VARIANT,
    MP_COL_WORKLOAD, MP_COL_ELEMENTS, MP_COLS_LAUNCH, MP_COL_HOST_NS_MEDIAN,
    MP_COL_REQUESTS, MP_COLS_BANDWIDTH, MP_COL_MODEL_WAVEFRONTS,
    MP_COL_MODEL_IDEAL, MP_COL_MODEL_CONFLICT_WAYS,
    MP_COL_WAVEFRONTS_PER_REQUEST, MP_COL_EXCESS_WAVEFRONTS,
    MP_COL_MODEL_MATCH,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "reduce/reduce-ladder.csv",
    NULL,
};

const mp_family mp_family_reduce = {
    MP_FAMILY_BASE(reduce),
    .summary = "block reductions of the seeds: host partials, thread 0, "
               "trees, warp shuffle, atomics",
    /* Every variant and workload at the seeds' sizes and launch (32 x
     * 256): 14 small launches. */
    .ncu_check_args = "--variant host-partials,thread0-serial,"
                      "tree-interleaved,tree-strided,tree-sequential,"
                      "warp-shuffle,atomic --workload cubes,dot --blocks 32",
    .report = {.study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .claims = &mp_study_reduce},
    .doc = "docs/reduce.md",
};
