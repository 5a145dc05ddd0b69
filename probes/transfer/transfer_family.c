/*
 * transfer_family.c - the transfer family's descriptor
 * (probes/family.h): the probe (transfer.c, transfer.cu, its link model
 * link_model.c), its tables (transfer_tables.c), the study's transfer
 * section (transfer_study.c) and plot data (transfer_plotdata.c).
 */
#include "family.h"

#include "transfer_plotdata.h"

extern const mp_probe mp_probe_transfer;
extern const mp_rep_spec mp_rep_transfer_specs[2];

static const mp_rep_table_def tables[] = {
    {.spec = &mp_rep_transfer_specs[0]},
    {.spec = &mp_rep_transfer_specs[1]},
};

static const char *const plot_files[] = {"transfer-bandwidth.dat", NULL};

/* The CSV columns its rows fill besides the engine's (runtime/row.h). */
static const int columns[] = {
    MP_COL_PROBE, MP_COL_OP, MP_COL_ARRAY_BYTES, MP_COL_THREADS, MP_COL_BLOCKS,
    MP_COL_REQUESTS, MP_COLS_BANDWIDTH, MP_COL_DIRECTION, MP_COL_HOST_MEMORY,
    MP_COL_METHOD, MP_COL_BYTES, MP_COL_SRC_DEVICE, MP_COL_DST_DEVICE,
    MP_COL_PEER_ACCESS, MP_COL_PREFETCH, MP_COL_LATENCY_US, MP_COL_LINK,
};

/* Its CSVs the study reads (results/h200/...). */
static const char *const study_files[] = {
    "transfer/transfer.csv",
    NULL,
};

const mp_family mp_family_transfer = {
    MP_FAMILY_BASE(transfer),
    .summary = "host/device, device and peer copies against the link's "
               "ceiling (PCIe, NVLink)",
    /* Both sizes beyond the 50 MB L2: sizes that fit there ran 20-32%
     * apart from one process to the next (gate of 67ccc9e). */
    .ncu_check_args = "--direction d2d --method kernel "
                      "--bytes 67108864,268435456",
    .report = {.study_files = study_files,
               .tables = tables, .ntables = N(tables),
               .section = mp_study_transfer, .section_order = 10,
               .plot_data = mp_rep_plot_transfer, .plot_files = plot_files},
    .doc = "docs/transfer.md",
};
