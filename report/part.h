/*
 * part.h - what one probe family gives the report: its tables, the study's
 * claims about it, its own study section and its plot data. The layer
 * above (probes/registry.c) registers every family's part at start, in the
 * registry's order; report/ never names a family.
 */
#ifndef MP_PART_H
#define MP_PART_H

#include <stddef.h>
#include <stdio.h>

#include "claims.h"
#include "report.h"
#include "table_spec.h"

/* A table of the report and how it prints: split, the number of leading
 * keys that split it into one table per combination (0: none; text and
 * Markdown, see mp_rep_table.split); legend, what a mark means when it is
 * not the row's model_match verdict (NULL: that verdict). */
typedef struct {
    const mp_rep_spec *spec;
    int split;
    const char *legend;
} mp_rep_table_def;

typedef struct {
    const mp_rep_table_def *tables;   /* in the order the report prints */
    int ntables;
    const mp_study_group *claims;     /* NULL: no claims */
    /* The family's own study section (NULL: none), written after the
     * claims in the order of section_order (below 100: before the plots'
     * paragraph, from 100 on: after it). */
    void (*section)(const mp_rep_data *d, const char *dir, FILE *out);
    int section_order;
    /* Writes the family's plot data files in dir (NULL: none); 0, or -1
     * with a one-line reason. */
    int (*plot_data)(const mp_rep_data *d, const char *dir, char *err,
                     size_t errlen);
    /* The files plot_data writes, NULL-terminated (NULL: none). */
    const char *const *plot_files;
    /* The report fields a CSV with rows of the family must have (their
     * cells may be empty), ending at -1; NULL: the identity columns only. */
    const int *needs;
    /* What the study's table sections call a difference from the model:
     * the measured and the model field, and their unit (all 0 / NULL:
     * sectors per request). */
    int mismatch_measured, mismatch_model;
    const char *mismatch_unit;
    /* The family's CSVs the study reads, below the results directory
     * ("bank/bank-sweep.csv"), NULL-terminated, in the order their rows
     * are taken (after study/study.csv's); NULL: none. */
    const char *const *study_files;
} mp_rep_part;

/* Registers the families' parts and their names (the CSV's probe column),
 * n of them, in the registry's order. */
void mp_report_register(const mp_rep_part *const *parts,
                        const char *const *names, int n);
/* The registered parts: count, the i-th, its name, and the part of the
 * probe named `name` (NULL: none). */
int mp_report_nparts(void);
const mp_rep_part *mp_report_part(int i);
const char *mp_report_part_name(int i);
const mp_rep_part *mp_report_part_of(const char *name);
/* The table named `name` among the registered parts, or NULL. */
const mp_rep_table_def *mp_rep_table_def_find(const char *name);

#endif
