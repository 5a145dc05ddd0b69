/*
 * gpu_util.h - helpers shared by the GPU tests: run memprobe, read its CSV
 * back, look up cells by column name.
 */
#ifndef MP_GPU_UTIL_H
#define MP_GPU_UTIL_H

#include "ncu_csv.h"

/* $MEMPROBE or ./memprobe; $GPU_TEST_DIR or results/gpu-test. */
const char *gpu_memprobe(void);
const char *gpu_test_dir(void);

/* Runs `memprobe PROBE ARGS --counters on -o DIR/NAME.csv` (log in
 * DIR/NAME.log), prints a "# ..." line, reads the CSV into t. Exits 1 if
 * the CSV cannot be read. Returns memprobe's exit status. */
int gpu_run_sweep(const char *probe, const char *name, const char *args,
                  mp_ncu_table *t);

/* Cell text / number of column `col` in `row`; a missing column or a
 * non-number fails the current cmocka test. */
const char *gpu_cell(const mp_ncu_table *t, int row, const char *col);
double gpu_number(const mp_ncu_table *t, int row, const char *col);

#endif
