/*
 * latency_study.c - the study's memory-hierarchy part: seed 000's
 * two latency claims checked against results/h200/latency/latency.csv, and
 * the hierarchy table and staircase plot for docs/study.md. report/study.c
 * calls in here; the figures come from report/hierarchy.c.
 *
 * Without the CSV every claim is "not measured" and the section says that
 * no H200 measurement is committed yet.
 */
#include "latency_study.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hierarchy.h"
#include "l2map.h"
#include "latency_model.h"

#define LATENCY_CSV "latency/latency.csv"
#define L2MAP_CSV "latency/partitions/l2map.csv"

/* Loads DIR/latency/latency.csv into h (t keeps the cells). 0, or -1
 * with the reason in missing. */
static int load(const char *dir, mp_csv_table *t, mp_hier *h, char *missing,
                size_t len)
{
    char path[4096], err[512];
    memset(h, 0, sizeof *h);
    snprintf(path, sizeof path, "%s/%s", dir, LATENCY_CSV);
    if (mp_csv_table_read(path, t, err, sizeof err)) {
        snprintf(missing, len, "no `%s` in %s", LATENCY_CSV, dir);
        return -1;
    }
    /* Rows named by the file's base name, as `memprobe hierarchy` does. */
    mp_hier_add(h, t, "latency.csv");
    if (h->n == 0) {
        snprintf(missing, len, "`%s` has no verified latency rows",
                 LATENCY_CSV);
        mp_csv_free(t);
        return -1;
    }
    return 0;
}

/* The measured text of a claim without the CSV. */
static void unmeasured(char *m, size_t len)
{
    snprintf(m, len, "No H200 measurement is committed yet (`%s`; "
             "`scripts/gpu-check.sh latency` writes it).", LATENCY_CSV);
}

/* The key latencies of DIR/latency.csv into l, and *source; 0. Without
 * them: the unmeasured text in m, the reason in missing, and -1. */
static int latencies(const char *dir, mp_hier_latency *l, char *m,
                     size_t len, char *missing, size_t mlen,
                     const char **source)
{
    mp_csv_table t;
    mp_hier h;
    if (load(dir, &t, &h, missing, mlen)) {
        unmeasured(m, len);
        return -1;
    }
    *source = LATENCY_CSV;
    mp_hier_latencies(&h, l);
    mp_hier_free(&h);
    mp_csv_free(&t);
    return 0;
}

/* 1 when any of a, b, c is missing (NaN): the reason, that the CSV
 * lacks `rows`, in missing. */
static int lacks(double a, double b, double c, const char *rows,
                 char *missing, size_t mlen)
{
    if (!isnan(a) && !isnan(b) && !isnan(c))
        return 0;
    snprintf(missing, mlen, "`%s` lacks %s", LATENCY_CSV, rows);
    return 1;
}

int mp_study_latency_global(const char *dir, char *m, char *why, size_t len,
                            char *missing, size_t mlen, const char **source)
{
    mp_hier_latency l;
    if (latencies(dir, &l, m, len, missing, mlen, source) ||
        lacks(l.l1, l.l2, l.dram, "the L1, L2 or device-memory rows "
              "(random chase, stride 128)", missing, mlen))
        return MP_STUDY_UNMEASURED;
    snprintf(m, len, "One thread chasing pointers: %.0f cycles per load "
             "from L1 (footprints up to 64 KiB), %.0f from L2 (cg), "
             "%.0f from device memory (random over the smallest "
             "footprint of 4x the L2 or more; %.0f at the largest, "
             "where address translation misses too).", l.l1, l.l2,
             l.dram, l.dram_tlb);
    snprintf(why, len, "Global memory IS cached: a load that hits L1 "
             "takes %.0f cycles, %.1fx fewer than device memory, and one "
             "that hits L2 %.0f. Only a load that misses both costs the "
             "seed's \"hundreds of cycles\" (%.0f).", l.l1,
             l.dram / l.l1, l.l2, l.dram);
    return l.l1 < 0.5 * l.dram ? MP_STUDY_PARTLY : MP_STUDY_HOLDS;
}

int mp_study_latency_shared(const char *dir, char *m, char *why, size_t len,
                            char *missing, size_t mlen, const char **source)
{
    mp_hier_latency l;
    if (latencies(dir, &l, m, len, missing, mlen, source) ||
        lacks(l.shared, l.l1, l.dram, "the shared, L1 or device-memory rows",
              missing, mlen))
        return MP_STUDY_UNMEASURED;
    snprintf(m, len, "A dependent shared-memory load takes %.0f cycles; "
             "an L1 hit %.0f, device memory %.0f.", l.shared, l.l1, l.dram);
    if (l.shared > 1.1 * l.l1) {
        snprintf(why, len, "Shared memory is slower than an L1 hit "
                 "(%.0f vs %.0f cycles).", l.shared, l.l1);
        return MP_STUDY_FAILS;
    }
    snprintf(why, len, "Shared memory is as fast as the L1 it shares the "
             "SM's storage with (%.0f vs %.0f cycles) and %.0fx faster than "
             "device memory - but it still has a latency, which a chain of "
             "dependent loads (or a bank conflict, claims above) does not "
             "hide.", l.shared, l.l1, l.dram / l.shared);
    return MP_STUDY_PARTLY;
}

/* The map's TLB rows (one line per 2 MiB page from SM 0, L2 hits) as a
 * table: pages, footprint and cycles per load, and the reach the model
 * takes. */
static void tlb_rows(const mp_csv_table *t, FILE *out)
{
    int kind = mp_csv_column(t, "kind"), pages = mp_csv_column(t, "lines");
    int fp = mp_csv_column(t, "footprint_bytes");
    int cyc = mp_csv_column(t, "cycles_per_load"), header = 0;
    for (int r = 0; r < t->nrows && kind >= 0 && pages >= 0 && fp >= 0
                    && cyc >= 0; r++) {
        double n, f, c;
        if (strcmp(t->cells[r][kind], "tlb") || mp_csv_number(t, r, pages, &n)
            || mp_csv_number(t, r, fp, &f) || mp_csv_number(t, r, cyc, &c))
            continue;
        if (!header++) {
            mp_lat_partitions p;
            mp_lat_partitions_h200(&p);
            fprintf(out, "\nThe TLB: one line per 2 MiB page, a random "
                    "cycle from SM 0 through L2 hits. The model takes a reach "
                    "of %.0f MiB and %.1f cycles more from four times it."
                    "\n\n| pages | MiB | cycles |\n| --- | --- | --- |\n",
                    p.tlb_reach_bytes / 1048576.0, p.tlb_cycles);
        }
        fprintf(out, "| %.0f | %.0f | %.1f |\n", n, f / 1048576, c);
    }
}

/* "### The L2's two halves": DIR/latency/partitions/l2map.csv's figures
 * over the SMs, its plateau chases beside the partition model, and the
 * heatmap; nothing without the CSV. */
static void halves_section(const char *dir, FILE *out)
{
    char path[4096], err[512];
    mp_csv_table t;
    snprintf(path, sizeof path, "%s/%s", dir, L2MAP_CSV);
    if (mp_csv_table_read(path, &t, err, sizeof err))
        return;
    int kind = mp_csv_column(&t, "kind"), sm = mp_csv_column(&t, "sm");
    int half = mp_csv_column(&t, "half"), set = mp_csv_column(&t, "set");
    int fp = mp_csv_column(&t, "footprint_bytes");
    int cyc = mp_csv_column(&t, "cycles_per_load");
    static const char *const what[MP_L2MAP_LATENCY_FIELDS] = {
        "device memory, line homed in the SM's half",
        "device memory, homed in the other half",
        "L2 hit in the SM's own partition",
        "L2 hit on its copy of a line homed in the other half",
        "L2 hit in the far partition (the line only there)"};
    mp_l2map_row *rows = mp_xcalloc((size_t)(t.nrows + 1), sizeof *rows);
    int n = 0;
    for (int r = 0; r < t.nrows && kind >= 0 && sm >= 0 && half >= 0; r++) {
        if (strcmp(t.cells[r][kind], "map"))
            continue;
        mp_l2map_row *row = &rows[n];
        double x;
        int ok = !mp_csv_number(&t, r, sm, &x);
        for (int f = 0; f < MP_L2MAP_LATENCY_FIELDS && ok; f++)
            ok = !mp_csv_number(&t, r, mp_csv_column(&t, mp_l2map_field_name(
                                    (mp_l2map_field)f)),
                                mp_l2map_field_ref(row, (mp_l2map_field)f));
        if (!ok)
            continue;
        row->sm = (int)x;
        row->half = atoi(t.cells[r][half]);
        row->verified = 1;
        n++;
    }
    if (n > 0) {
        fprintf(out, "\n### The L2's two halves\n\n`memprobe l2map --plateau "
                "--tlb` (`%s`, docs/latency.md): cycles per load of one "
                "thread's ld.global.cg chase from each of %d SMs.\n\n"
                "| load served by | median | least | greatest |\n"
                "| --- | --- | --- | --- |\n", L2MAP_CSV, n);
        for (int f = 0; f < MP_L2MAP_LATENCY_FIELDS; f++) {
            double med, lo, hi;
            mp_l2map_summary(rows, n, -1, (mp_l2map_field)f, &med, &lo, &hi);
            fprintf(out, "| %s | %.1f | %.1f | %.1f |\n", what[f], med, lo,
                    hi);
        }
        fprintf(out, "\n![the L2 map](plots/l2map-heatmap.svg)\n");
    }
    mp_lat_partitions p;
    mp_lat_partitions_h200(&p);
    int header = 0;
    for (int r = 0; r < t.nrows && kind >= 0 && set >= 0 && fp >= 0
                    && cyc >= 0; r++) {
        double f, c, lo, hi;
        if (strcmp(t.cells[r][kind], "plateau") || strcmp(t.cells[r][set], "all")
            || mp_csv_number(&t, r, fp, &f) || mp_csv_number(&t, r, cyc, &c)
            || mp_lat_cycles(&p, (long long)f, 128, &lo, &hi))
            continue;
        if (!header++)
            fprintf(out, "\nRandom chases from SM 0 through lines of both "
                    "halves, against the partition model (its band over the "
                    "SMs):\n\n| MiB | cycles | model |\n| --- | --- | --- |\n");
        fprintf(out, "| %.0f | %.1f | %.0f..%.0f |\n", f / 1048576, c, lo, hi);
    }
    tlb_rows(&t, out);
    free(rows);
    mp_csv_free(&t);
}

void mp_study_latency_section(const char *dir, FILE *out)
{
    mp_csv_table t;
    mp_hier h;
    char missing[512];
    fprintf(out, "\n## The memory hierarchy\n\n"
            "The latency probe (docs/latency.md) chases pointers with one "
            "thread: each load's address is the previous load's value, so "
            "cycles per load is the latency of the level that served it. "
            "`memprobe hierarchy %s/%s` prints this table.\n\n", dir,
            LATENCY_CSV);
    if (load(dir, &t, &h, missing, sizeof missing)) {
        fprintf(out, "No H200 measurement is committed yet (%s; "
                "`scripts/gpu-check.sh latency` writes it).\n", missing);
        return;
    }
    mp_hier_figure f[MP_HIER_FIGURES];
    int n = mp_hier_derive(&h, f);
    mp_hier_print(f, n, 1, out);
    fprintf(out, "\nThe staircase: ![latency against footprint]"
            "(plots/latency-footprint.svg)\n");
    char bw[4096];
    snprintf(bw, sizeof bw, "%s/bandwidth/bandwidth-footprint.csv",
             dir);
    FILE *b = fopen(bw, "r");
    if (b) {
        fclose(b);
        fprintf(out, "\nBandwidth against array size (read, write, copy; "
                "configs/bandwidth-footprint.conf): ![bandwidth against "
                "footprint](plots/bandwidth-footprint.svg)\n");
    }
    halves_section(dir, out);
    mp_hier_free(&h);
    mp_csv_free(&t);
}
