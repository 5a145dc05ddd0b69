/*
 * matrix_plotdata.h - the ldmatrix plot's data (matrix_plotdata.c).
 */
#ifndef MP_PLOTDATA_MATRIX_H
#define MP_PLOTDATA_MATRIX_H

#include <stddef.h>

#include "report.h"

/* Writes DIR/matrix-swizzle.dat. 0, or -1 with a reason. */
int mp_rep_plot_matrix(const mp_rep_data *d, const char *dir, char *err,
                       size_t errlen);

/* The study's "Which swizzle makes this conflict-free" section (ldmatrix
 * wavefronts by pitch and swizzle; matrix_study.c). */
void mp_study_matrix(const mp_rep_data *d, FILE *out);

#endif
