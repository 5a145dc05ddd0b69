/*
 * profile_csv_int.h - what profile_csv.c and profile_columns.c share
 * with profile_merge.c and profile_opcodes.c inside profile/: parsing a
 * cell (profile_columns.c), finding a column, freeing a launch or a line,
 * the opcodes from cuobjdump.
 */
#ifndef MP_PROFILE_CSV_INT_H
#define MP_PROFILE_CSV_INT_H

#include "csv_table.h"
#include "profile_csv.h"

int mp_prof_parse_u64(const char *s, mp_u64 *out);
int mp_prof_parse_offset(const char *s, mp_u64 *out);
int mp_prof_parse_long(const char *s, long *out);
void mp_prof_free_launch(mp_prof_launch *l);
void mp_prof_free_line(mp_prof_line *i);
/* The index of column name in t, or -1 with "PATH: no column NAME". */
int mp_prof_need_col(const mp_csv_table *t, const char *path,
                     const char *name, char *err, size_t errlen);

/* Sets the opcode of each of d's instructions found in `cuobjdump -sass`
 * of the raw directory's cubins[0 .. ncubins) (file names). */
void mp_prof_set_opcodes(const char *raw_dir, char **cubins, int ncubins,
                         mp_prof_data *d);

#endif
