/*
 * sweep_file.h - sweep files: which configurations `memprobe sweep` runs,
 * read from an INI file (docs/sweep-files.md), and --resume's filter that
 * drops the configurations an existing result CSV already holds.
 *
 *     [bank]                    ; a section names a probe ...
 *     op = ld,st
 *     width = 4,8,16
 *     stride = 0..64            ; ... keys are its parameters
 *
 *     [bank.padding]            ; PROBE.TAG: another section of the probe
 *     stride = 16,32
 *     pad = 1
 *     iterations = 4096
 *     runs = 5                  ; run options: warmup, runs
 *
 * Each section is the cross product of its values (runtime/configs.c); the
 * file's configurations are its sections' in file order. Values are parsed
 * by the command line's parser (runtime/params.c), so `stride = 0..64:4`
 * means what `--stride 0..64:4` means. Lines are read by inih.
 *
 * Every error is one line naming the file and, where there is one, the
 * line: "configs/bank.conf:4: --stride: 'abc' is not a whole number (allowed:
 * 0..4096)".
 */
#ifndef MP_SWEEP_FILE_H
#define MP_SWEEP_FILE_H

#include <stddef.h>

#include "configs.h"
#include "runner.h"

/* Run options a section may set, with their defaults (main.c's). */
#define MP_SWEEP_DEFAULT_WARMUP ((int)mp_run_option_defs[MP_OPT_WARMUP].def)
#define MP_SWEEP_DEFAULT_RUNS ((int)mp_run_option_defs[MP_OPT_RUNS].def)

typedef struct {
    char name[64];               /* as written: "bank" or "bank.padding" */
    int line;                    /* line of the [header] */
    const mp_probe *probe;
    int key_line[MP_MAX_PARAMS]; /* line of each parameter's key, 0 = unset */
    mp_value_list *lists[MP_MAX_PARAMS];   /* NULL = the default */
    int warmup, runs;            /* launches that time each configuration */
    int warmup_line, runs_line;
    mp_config_list configs;      /* what is left to run, in order */
} mp_sweep_section;

typedef struct {
    char *path;
    int nsections;
    mp_sweep_section *sections;
    int total;        /* configurations left to run, all sections */
    int duplicates;   /* dropped: the same as an earlier configuration */
    int resumed;      /* dropped by mp_sweep_resume: already measured */
    /* "" or why --resume cannot work: two different configurations whose
     * rows would look the same (one line naming the file and line). */
    char ambiguous[512];
} mp_sweep;

/*
 * Reads the sweep file at path into *s: parses it, expands every section,
 * checks every configuration with its probe's check (sm_90's shared-memory
 * limit; no GPU), and drops configurations that repeat an earlier one
 * (same probe, values, warm-up and runs). Two configurations that differ
 * only where their CSV rows do not show it (see mp_sweep_resume) both
 * run, but --resume refuses the file (s->ambiguous says why).
 * Returns 0, or -1 with a one-line error in err; *s is then empty (safe to
 * pass to mp_sweep_free).
 */
int mp_sweep_read(const char *path, mp_sweep *s, char *err, size_t errlen);

void mp_sweep_free(mp_sweep *s);

/*
 * --resume: drops from *s every configuration that the memprobe CSV at
 * csv_path already holds, counted in s->resumed. A configuration is there
 * when a row has verified=yes, its config, warmup_runs and timed_runs, and
 * the same text in every parameter column (probe .. shared_bytes_per_block)
 * that the probe's describe() fills for it. Rows with verified=no are
 * measured again. A missing or empty file holds nothing. Returns 0, or -1
 * with a one-line error in err (s->ambiguous, unreadable file, a header
 * that is not this memprobe's, a last line without its line end, bad
 * CSV).
 */
int mp_sweep_resume(mp_sweep *s, const char *csv_path, char *err,
                    size_t errlen);

/* Keeps shard k of n (0 <= k < n): the configurations whose index in
 * the whole sweep (sections in order, repeats dropped, before any
 * resume) is k modulo n. Round robin, so that every shard gets a share of
 * each section's sizes. Call before mp_sweep_resume. */
void mp_sweep_shard(mp_sweep *s, int k, int n);

/* Parses "K/N" (0 <= K < N <= 4096) into *k, *n: 0, or -1 with a one-line
 * reason naming `what` (the option or variable it came from) in err. */
int mp_shard_parse(const char *text, const char *what, int *k, int *n,
                   char *err, size_t errlen);

#endif
