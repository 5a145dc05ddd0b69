/*
 * latency_family.c - the latency family's descriptor (probes/family.h):
 * the probe (latency.c, latency.cu), the study's latency claims
 * (latency_claims.c) and hierarchy section (latency_study.c). Its model
 * (model/latency_model.c) stays in model/: report/hierarchy.c uses it
 * too.
 */
#include "family.h"

#include "latency_study.h"

extern const mp_probe mp_probe_latency;
extern const mp_study_group mp_study_latency;

static void study_section(const mp_rep_data *d, const char *dir, FILE *out)
{
    (void)d;
    mp_study_latency_section(dir, out);
}

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_WIDTH, MP_COL_CACHE, MP_COL_ARRAY_BYTES,
    MP_COLS_LAUNCH, MP_COL_REQUESTS, MP_COL_MODEL_MATCH, MP_COL_FOOTPRINT,
    MP_COL_STRIDE_BYTES, MP_COL_ORDER, MP_COL_SPACE, MP_COL_LOADS,
    MP_COL_WARM_LOADS, MP_COL_CYCLES_PER_LOAD, MP_COL_NS_PER_LOAD,
    MP_COL_MODEL_LEVEL, MP_COL_L1_HIT_RATE, MP_COL_L2_HIT_RATE,
    MP_COL_L2_SECTORS_PER_LOAD, MP_COL_DRAM_BYTES_PER_LOAD,
    MP_COL_COUNTER_LEVEL,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "latency/latency.csv",
    NULL,
};

const mp_family mp_family_latency = {
    MP_FAMILY_BASE(latency),
    .summary = "pointer-chase latency of L1, L2, device, shared and constant "
               "memory against footprint and stride",
    .ncu_check_args = "--footprint 16384,1048576,268435456 --order random "
                      "--cache default,cg --loads 2048",
    .report = {.study_files = study_files,
               .claims = &mp_study_latency, .section = study_section,
               .section_order = 110},
    .doc = "docs/latency.md",
};
