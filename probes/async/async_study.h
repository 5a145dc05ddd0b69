/*
 * async_study.h - the study's section on async copies into shared memory
 * and distributed shared memory, from
 * results_dir/async/async.csv and results_dir/cluster/cluster.csv.
 */
#ifndef MP_STUDY_ASYNC_H
#define MP_STUDY_ASYNC_H

#include <stdio.h>

#include "report.h"

/* Writes the section (or lines saying no measurement is committed yet). */
void mp_study_async(const mp_rep_data *d, const char *results_dir,
                    FILE *out);

#endif
