/*
 * ncu_profile.h - `memprobe ncu-check --profile`'s comparison: Nsight
 * Compute's per-instruction source counters (report/ncu_source.h) against
 * memprobe profile's per-instruction rows (the profile-lines CSV of
 * docs/profile-design.md), per kernel and SASS instruction offset. No
 * runs here: cli/cmd_ncu_check.c makes them.
 */
#ifndef MP_NCU_PROFILE_H
#define MP_NCU_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "ncu_csv.h"
#include "ncu_source.h"

/* memprobe's column of each ncu value (MP_SRC_*). */
extern const char *const mp_ncu_profile_columns[MP_SRC_VALUES];

/* 1 when ncu's kernel name and memprobe's (demangled `kernel`, `mangled`)
 * name the same kernel: equal after dropping a leading "void " and
 * doubled blanks, or ncu's equals the mangled name, or - when one of the
 * two has no parameter list - the names before "(" are equal. */
int mp_ncu_profile_same_kernel(const char *ncu, const char *kernel,
                               const char *mangled);

/* Sums both sides per (kernel, instruction offset) - ncu's tables are
 * launches, memprobe's rows processes - and compares the shared
 * wavefronts, shared ideal, global sectors and global ideal, and the
 * executed instructions where both have them; an instruction missing on
 * one side counts as all zeros there. Prints a summary line ("N
 * instructions compared, E equal, D different"), kernels seen on one
 * side only, and the first `show` differences to out. Returns 0 when all
 * are equal, 1 when one differs, 4 when nothing was compared; 2 with a
 * one-line reason in err when `lines` lacks a column it needs or a cell
 * is not a number. */
int mp_ncu_profile_compare(const mp_ncu_source *ncu,
                           const mp_ncu_table *lines, FILE *out, int show,
                           char *err, size_t errlen);

#endif
