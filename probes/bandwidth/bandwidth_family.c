/*
 * bandwidth_family.c - the bandwidth family's descriptor
 * (probes/family.h): the probe (bandwidth.c, bandwidth.cu, its launch
 * shapes bw_shape.c), its table (bandwidth_tables.c) and plot data
 * (bandwidth_plotdata.c); the study's bandwidth claims are with the
 * coalesce family's (probes/coalesce/coalesce_study.c).
 */
#include "family.h"

extern const mp_probe mp_probe_bandwidth;
extern const mp_rep_spec mp_rep_spec_bandwidth;
int mp_bandwidth_plot_data(const mp_rep_data *d, const char *dir, char *err,
                           size_t errlen);

static const mp_rep_table_def tables[] = {{.spec = &mp_rep_spec_bandwidth}};

static const char *const plot_files[] = {"bandwidth-offset.dat",
                                         "bandwidth-stride.dat", NULL};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_WIDTH, MP_COL_STRIDE, MP_COL_OFFSET, MP_COL_CACHE,
    MP_COL_KERNEL, MP_COL_ARRAY_BYTES, MP_COLS_LAUNCH, MP_COL_REQUESTS,
    MP_COLS_BANDWIDTH, MP_COL_MODEL_SECTORS, MP_COL_MODEL_IDEAL_SECTORS,
    MP_COL_SECTORS_PER_REQUEST, MP_COL_MEMCPY_GBS, MP_COL_MEMCPY_FRACTION,
    MP_COL_MODEL_MATCH, MP_COL_INFLIGHT, MP_COL_SHAPE, MP_COL_GRID,
    MP_COL_TILE_BYTES,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "bandwidth/bandwidth-offset.csv",
    "bandwidth/bandwidth-stride.csv",
    "bandwidth/bandwidth-table.csv",
    "bandwidth/bandwidth-dram.csv",
    "bandwidth/bandwidth-footprint.csv",
    NULL,
};

/* The report fields a CSV with its rows must have. */
static const int needs[] = {
    MP_F_KERNEL, MP_F_WIDTH, MP_F_OFFSET, MP_F_STRIDE,
    MP_F_ARRAY_BYTES, MP_F_CACHE, MP_F_BANDWIDTH, MP_F_FRACTION,
    MP_F_OF_MEMCPY, MP_F_MODEL_SECTORS, MP_F_SECTORS, MP_F_MATCH,
    MP_F_VERIFIED, -1};

const mp_family mp_family_bandwidth = {
    MP_FAMILY_BASE(bandwidth),
    .summary = "DRAM bandwidth: read, write and copy of large arrays, "
               "beside cudaMemcpy and the peak",
    /* 1 GiB: what the L2 keeps from before a launch (up to 60 MB) stays
     * within the 10% the metric table allows DRAM bytes between runs. */
    .ncu_check_args = "--kernel read,write,copy --width 4,16 "
                      "--bytes 1073741824 --inflight 4 --threads 256 "
                      "--cache default",
    .report = {.needs = needs,
               .study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .plot_data = mp_bandwidth_plot_data,
               .plot_files = plot_files},
    .doc = "docs/bandwidth.md",
};
