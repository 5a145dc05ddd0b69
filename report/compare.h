/*
 * compare.h - two result CSVs of the same configurations side by side
 * (`memprobe compare BASE.csv NEW.csv`): does a new run (a faster tool, a
 * fresh machine) give the same counters as a committed one?
 *
 * Rows are matched by their config name (the first row of a name counts).
 * For every counter column of the metric tables (the metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c) that
 * both rows hold, |new - base| must stay within the metric's ncu-check
 * tolerance (mp_metric_allowed, scaled by the base row's requests). Kernel
 * time (gpu__time_duration.sum) and the timed median are reported, not
 * judged: times move with clocks. Rows of NEW whose model_match is "no"
 * are counted as differing from the model.
 */
#ifndef MP_COMPARE_H
#define MP_COMPARE_H

#include <stdio.h>

typedef struct {
    int base_rows, new_rows;    /* data rows read */
    int matched;                /* configurations in both */
    int only_base, only_new;    /* configurations in one file only */
    int values;                 /* counter values compared */
    int differ;                 /* counter values beyond tolerance */
    int model_mismatch;         /* rows of NEW with model_match "no" */
    int time_pairs;             /* rows with a timed median in both */
    double time_ratio_median;   /* median of new / base timed medians */
    double time_ratio_min, time_ratio_max;
} mp_compare_result;

/* Compares; prints every value beyond tolerance and every configuration
 * missing from NEW to out (and, verbose, every value), then one summary
 * line (after a "note:" line where rows of one name were timed with
 * different warmup, timed runs or launches per sample). Returns 0 when
 * nothing differs beyond tolerance, no base configuration is missing from
 * NEW and no NEW row differs from the model; 1 otherwise, and 1 with one
 * line on stderr and nothing on out when rows of one name differ in a
 * setting that sets a launch's work (iterations, threads_per_block,
 * blocks, ...: their counters count different work); 2 when a file cannot be read, or when no counter value is
 * in both files (a comparison of nothing: one line on stderr naming the
 * files, nothing on out). res may be NULL. */
int mp_compare_files(const char *base, const char *fresh, int verbose,
                     FILE *out, mp_compare_result *res);


#endif
