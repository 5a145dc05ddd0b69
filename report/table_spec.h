/*
 * table_spec.h - how a report table is described (report/tables.c builds
 * and prints every table from one of these): which rows it takes, their
 * keys, the column group and the values. Tables of newer probe families
 * live in files of their own (tables_transfer.c) and are listed here.
 */
#ifndef MP_TABLE_SPEC_H
#define MP_TABLE_SPEC_H

#include "report.h"

#define MP_REP_KEYLEN 64     /* longest key or value text */

typedef struct {
    const char *name, *title;
    int nkeys;
    const char *const *key_headers;
    int nsub;
    const char *const *sub_headers;
    const char *empty;    /* said when the table has no rows */
    int (*want)(const mp_rep_data *d, const mp_rep_row *r);
    void (*keys)(const mp_rep_data *d, const mp_rep_row *r,
                 char k[][MP_REP_KEYLEN]);
    /* label of the column group; returns the number groups sort by */
    double (*group)(const mp_rep_data *d, const mp_rep_row *r, char *label);
    void (*values)(const mp_rep_data *d, const mp_rep_row *r,
                   char v[][MP_REP_KEYLEN], int *mark);
} mp_rep_spec;

/* report/tables_transfer.c: "transfers" and "peers". */
extern const mp_rep_spec mp_rep_transfer_specs[];
extern const int mp_rep_transfer_nspecs;

#endif
