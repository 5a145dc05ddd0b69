/*
 * hierarchy.h - the memory hierarchy from latency-probe CSVs:
 * L1, L2 and device-memory latency, the effective L1 and L2 capacities
 * (where the latency steps up), the fetch granularity from stride sweeps,
 * the TLB reach from page-sized strides, and shared and constant latency,
 * each figure with the rows it came from. `memprobe hierarchy FILE.csv...`
 * prints the table; the study reads results/h200/latency/latency.csv through
 * the same code; `memprobe report --plot-data` writes latency-footprint.dat.
 */
#ifndef MP_HIERARCHY_H
#define MP_HIERARCHY_H

#include <stdio.h>

#include "csv_table.h"

/* One verified latency row. */
typedef struct {
    double footprint, stride, cycles, ns;
    char order[8], cache[8], space[12], model[12], counter[12];
    char config[96];
    const char *file;     /* base name, owned by the caller */
} mp_hier_row;

typedef struct {
    int n, cap;
    mp_hier_row *rows;
} mp_hier;

/* Adds the verified latency rows of one result table (other probes' rows
 * and rows without cycles are skipped). `file` must outlive h. */
void mp_hier_add(mp_hier *h, const mp_csv_table *t, const char *file);
void mp_hier_free(mp_hier *h);

#define MP_HIER_FIGURES 12

/* One derived figure: its name, value text ("" when the rows needed are
 * missing) and the rows it came from. */
typedef struct {
    const char *name;
    char value[160];
    char from[320];
} mp_hier_figure;

/* The figures, in table order; returns their number. Capacities for the
 * thresholds are the H200's (model/latency_model.h). */
int mp_hier_derive(const mp_hier *h, mp_hier_figure *f);

/* Key latencies (NAN when not measured): L1, L2, DRAM, shared cycles. */
typedef struct {
    double l1, l2, dram, dram_tlb, shared, constant_hit, constant_miss;
} mp_hier_latency;
void mp_hier_latencies(const mp_hier *h, mp_hier_latency *l);

/* The table, aligned text (md = 0) or Markdown. */
void mp_hier_print(const mp_hier_figure *f, int n, int md, FILE *out);

/* DIR/latency-footprint.dat: one block per series (global random/seq x
 * default/cg at stride 128): a title line, then footprint in KiB and
 * cycles per load. Nothing measured: a file with one comment line.
 * 0, or -1 when it cannot be written. */
int mp_hier_plot_data(const mp_hier *h, const char *dir);

/* DIR/bandwidth-footprint.dat from the bandwidth rows of repeated walks
 * (a "/r<n>" config segment, configs/bandwidth-footprint.conf): one block per
 * kernel (read, write, copy), array size in KiB and GB/s. 0 or -1. */
int mp_hier_bandwidth_plot_data(const mp_csv_table *const *tables, int n,
                                const char *dir);


#endif
