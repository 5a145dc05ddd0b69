/*
 * ncu_check.h - memprobe's in-process counters against Nsight Compute's,
 * for the same configurations of a probe.
 */
#ifndef MP_NCU_CHECK_H
#define MP_NCU_CHECK_H

#include <stdio.h>

#include "probe.h"

/* Runs the configurations of `args` (the probe's parameters, space-
 * separated: the caller gives its family's standard set) twice: once
 * as memprobe with --counters on, once as memprobe under `ncu` with the
 * same metrics and --counters off. Both runs launch exactly one kernel per
 * configuration in the profiled phase, so ncu's launch i is configuration
 *  * i. Writes both CSVs and logs into dir (which exists), prints per
 * configuration and metric memprobe's value, ncu's and the difference,
 * and returns 0 when every metric agrees within its tolerance (the
 * metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c), 1 when
 * one does not, 2/3/5 when a run could not be made; *compared is 1 when
 * the two runs' values were compared (0 or 1 returned by the
 * comparison). */
#define MP_NCU_CHECK_MAX_WORDS 96   /* words of args it passes on */
int mp_ncu_check(const mp_probe *p, const char *args, const char *ncu,
                 const char *dir, FILE *out, int *compared);

/* Compares the two CSV files only (no runs): memprobe's CSV and ncu's
 * --csv --page raw output. Same return values; 2 (one line, nothing
 * printed) when memprobe's CSV has no rows, and never 0 when no value was
 * compared. */
int mp_ncu_compare(const mp_probe *p, const char *memprobe_csv,
                   const char *ncu_csv, FILE *out);

/* The --metrics list for ncu: p's set, comma-separated, less the names a
 * memprobe row's counters_status `status` says its chip lacks. */
void mp_ncu_check_metrics(const mp_probe *p, const char *status, char *out,
                          size_t outlen);

/* out = dir/name, a file this check writes (ncu-check and its --profile),
 * with any copy already there removed (dir is the run's own folder:
 * cli/cmd_ncu_check.c moves its files on only when the check compared). */
void mp_ncu_check_fresh_path(char *out, size_t len, const char *dir,
                             const char *name);

#endif
