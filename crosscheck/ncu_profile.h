/*
 * ncu_profile.h - `memprobe ncu-check --profile`'s comparison: Nsight
 * Compute's per-instruction source counters (report/ncu_source.h) against
 * memprobe profile's per-instruction rows (the profile-lines CSV of
 * docs/profile-design.md), per kernel and SASS instruction offset; and
 * the runs that make both (mp_ncu_profile_check).
 */
#ifndef MP_NCU_PROFILE_H
#define MP_NCU_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "csv_table.h"
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
 * one side counts as all zeros there. With `repeat` (the lines of a
 * second memprobe run of the same program, or NULL), a kernel whose
 * counts differ between memprobe's two runs (per launch) varies from run
 * to run: its differences from ncu are counted apart and fail nothing.
 * Prints a summary line ("N instructions compared, E equal, D
 * different[, V in kernels whose counts vary from run to run]"), kernels
 * seen on one side only or varying, and the first `show` differences to
 * out. Returns 0 when all are equal (or vary), 1 when one differs, 4 when
 * nothing was compared; 2 with a one-line reason in err when a table
 * lacks a column it needs or a cell is not a number. */
int mp_ncu_profile_compare(const mp_ncu_source *ncu,
                           const mp_csv_table *lines,
                           const mp_csv_table *repeat, FILE *out, int show,
                           char *err, size_t errlen);

/* argv of `head... program args...` (both NULL-terminated), for
 * mp_spawn_wait; free() it (the strings stay the callers'). */
char **mp_ncu_profile_command(const char *const *head, char *const *args);

/* Runs this memprobe as `memprobe profile -o CSV [--level LEVEL] --
 * PROGRAM ARGS` (level NULL: the default), output to log. 0; else a
 * `memprobe: ` line naming the log and 2 (the program refused), 4
 * (nothing collected) or 1. */
int mp_ncu_profile_memprobe(const char *level, const char *csv,
                            char *const *argv, const char *log);

/* Runs, in dir (which exists), with logs there:
 *   memprobe profile -o DIR/profile.csv -- PROGRAM ARGS   (this memprobe,
 *       as a program: DIR/profile-lines.csv)
 *   NCU --section SourceCounters --clock-control none -f -o DIR/source
 *       PROGRAM ARGS
 *   NCU -i DIR/source.ncu-rep --page source --csv --print-source sass
 *       (to DIR/source.csv)
 * then mp_ncu_profile_compare, showing 20 differences; where they
 * differ, memprobe profile again (DIR/profile-repeat.csv) and the
 * comparison with that repeat, which tells kernels that vary from run to
 * run (only the second comparison is printed). program is
 * argv[0] of the NULL-terminated argv. Returns the comparison's status;
 * 2 when ncu is not found or memprobe profile refused the program (2),
 * 4 when memprobe profile collected nothing (4), 1 when a run failed
 * otherwise; a `memprobe: ` line on stderr says which and names the
 * log. *compared: 1 when the comparison ran (0 or 1 returned by it). */
int mp_ncu_profile_check(const char *ncu, const char *dir,
                         char *const *argv, FILE *out, int *compared);

#endif
