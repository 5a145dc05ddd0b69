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

const mp_family mp_family_bandwidth = {
    .name = "bandwidth",
    .probe = &mp_probe_bandwidth,
    .report = {.tables = tables, .ntables = N(tables),
               .plot_data = mp_bandwidth_plot_data,
               .plot_files = plot_files},
    .sweep = "configs/bandwidth.conf",
    .doc = "docs/bandwidth.md",
};
