/*
 * transfer_plotdata.h - the transfer probe's plot data (see
 * transfer_plotdata.c) and study section (transfer_study.c).
 */
#ifndef MP_PLOTDATA_TRANSFER_H
#define MP_PLOTDATA_TRANSFER_H

#include <stdio.h>

#include "report.h"

/* Writes DIR/transfer-bandwidth.dat. 0, or -1 with a reason. */
int mp_rep_plot_transfer(const mp_rep_data *d, const char *dir, char *err,
                         size_t errlen);

/* The study's section on host transfers and peer access, from
 * results_dir/transfer/transfer.csv and the sibling h200x2/ folder's CSVs
 * (or a line saying no measurement is committed yet). */
void mp_study_transfer(const mp_rep_data *d, const char *results_dir,
                       FILE *out);

#endif
