/*
 * family.h - what a probe family is: one folder, probes/NAME/, described
 * by one mp_family (its NAME_family.c) and listed by one line in the
 * registry (probes/registry.c). The layer above (cli/) and the tests see
 * the families only through the registry; the engine (runtime/) and the
 * report (report/) get their parts of it when mp_families_register runs.
 *
 * docs/architecture.md has the recipe for a new family.
 */
#ifndef MP_FAMILY_H
#define MP_FAMILY_H

#include "part.h"
#include "probe.h"

typedef struct {
    const char *name;
    /* The engine's interface (runtime/probe.h), or NULL for a family with
     * its own command (the hazard catalogue: `memprobe hazards`). */
    const mp_probe *probe;
    /* One line on what it measures, for `memprobe list`, `help` and a
     * probe's --help (NULL for a family with its own command: its line
     * is in the command table, cli/main.c). */
    const char *summary;
    /* The parameters of its standard set: what `memprobe ncu-check`
     * compares without --args and tests/gpu/test_gpu_determinism.c runs
     * twice (NULL for a family without a probe). */
    const char *ncu_check_args;
    /* The CSV columns its rows fill (runtime/row.h ids) besides the
     * engine's own (mp_engine_columns): parameters, model and derived
     * columns. `memprobe columns --probe NAME` lists them;
     * tests/test_families.c checks them against the family's sources and
     * that every column of the CSV is someone's. */
    const int *columns;
    int ncolumns;
    /* Its tables, study claims and section, plot data (report/part.h). */
    const mp_rep_part report;
    /* Its sweep file and its docs page, from the repository root. */
    const char *sweep;
    const char *doc;
} mp_family;

/* What the descriptor of a family with a probe starts with: its name NAME
 * (a bare word, made the string "NAME"), its probe mp_probe_NAME, its
 * file's `columns` array and its sweep file configs/NAME.conf. The rest is
 * the family's own: `MP_FAMILY_BASE(bank), .summary = ..., .report = ...`. */
#define MP_FAMILY_BASE(NAME)                                             \
    .name = #NAME, .probe = &mp_probe_##NAME, .columns = columns,        \
    .ncolumns = N(columns), .sweep = "configs/" #NAME ".conf"

/* The families in registry order, NULL-terminated. */
extern const mp_family *const mp_families[];

/* Hands the engine its probe table and the report its parts, in registry
 * order. Idempotent; main() and the tests' harnesses call it first. */
void mp_families_register(void);

/* The family named `name`, or NULL. */
const mp_family *mp_family_find(const char *name);

#endif
