/*
 * ncu_kplus.h - `memprobe ncu-check --profile --level kernel+`: memprobe
 * profile's per-launch range values (profile.csv at --level kernel+)
 * against Nsight Compute's raw metrics of the same launches (ncu --csv
 * --page raw --cache-control all), launch by launch in program order.
 */
#ifndef MP_NCU_KPLUS_H
#define MP_NCU_KPLUS_H

#include <stdio.h>

#include "csv_table.h"

/* The metrics ncu is asked for (and the columns the comparison reads). */
#define MP_KPLUS_NCU_METRICS                                                 \
    "dram__bytes_read.sum,dram__bytes_write.sum,"                           \
    "l1tex__t_sector_hit_rate.pct,lts__t_sectors.sum,"                      \
    "lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,"         \
    "lts__t_sector_hit_rate.pct"

/* Walks profile.csv's launch rows (`prof`) in order, each covering
 * `launches` of ncu's rows (`ncu`, one per launch, same kernel names),
 * and judges per row, against ncu's sums over its launches: DRAM bytes
 * read, DRAM bytes written, L2 sectors, and (rows of one launch) the L1
 * hit rate, each within the tolerance ncu_kplus.c states from measured
 * data; the L2 lookup hits and the hit rate are printed beside ncu's with
 * ncu's own balance (hits + misses - sectors), not judged
 * (docs/profile.md says why). Rows without range values (graph launches,
 * ...) are counted, not compared. Prints a line per row and a summary to
 * out. Returns 0 all within tolerance, 1 one outside, 4 nothing compared;
 * 2 with a one-line reason in err when a table lacks a column, a cell is
 * not a number, or the launch sequences differ (kernel names, counts). */
int mp_ncu_kplus_compare(const mp_csv_table *prof, const mp_csv_table *ncu,
                         FILE *out, char *err, size_t errlen);

/* Runs, in dir (which exists), with logs there:
 *   memprobe profile --level kernel+ -o DIR/kplus.csv -- PROGRAM ARGS
 *   NCU --csv --page raw --print-units base --clock-control none
 *       --cache-control all --metrics MP_KPLUS_NCU_METRICS
 *       --log-file DIR/kplus-ncu.csv PROGRAM ARGS
 * then mp_ncu_kplus_compare. Returns its status; 2 when ncu is not found
 * or memprobe profile refused the program, 4 when it collected nothing,
 * 1 when a run failed otherwise (a `memprobe: ` line names the log);
 * *compared: 1 when the comparison ran (0 or 1 returned by it). */
int mp_ncu_kplus_check(const char *ncu, const char *dir, char *const *argv,
                       FILE *out, int *compared);

#endif
