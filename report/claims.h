/*
 * claims.h - what the study's claim groups are made of, for the families'
 * *_study.c files that hold them; report/claims.c reads the values they
 * use, report/study.c writes the document from the groups the families
 * register (report/part.h).
 *
 * A claim is a seed's rule and a function that reads the measured values
 * (through the ctx helpers below), writes what was measured and why, and
 * returns the verdict. A group is its claims, in the order the study
 * numbers them, and the report tables (sections) the study shows for it.
 */
#ifndef MP_STUDY_CLAIMS_H
#define MP_STUDY_CLAIMS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Text files of the same runs that the claims read besides the CSVs. */
#define DEVICE_TXT "device/device.txt"
#define GPU_TESTS_TXT "suite/gpu-test-probes-summary.txt"

#define MAX_SOURCES 8

/* What a claim reads from (see mp_study_value). */
typedef struct {
    const mp_rep_data *d;
    const char *dir;
    const char *prefer;                /* file to take rows from first */
    char missing[256];                 /* first value not found */
    const char *sources[MAX_SOURCES];  /* files the claim's numbers are from */
    int nsources;
} ctx;

typedef enum { HOLDS, PARTLY, FAILS, UNMEASURED } verdict;

typedef struct {
    const char *title;   /* short name */
    const char *seed;    /* which seed says it */
    const char *claim;   /* the claim, in our words */
    const char *prefer;  /* CSV to take its rows from first, or NULL */
    /* Writes what was measured (m) and why the verdict, returns it. */
    verdict (*check)(ctx *c, char *m, char *why, size_t len);
} claim;

/* A report table the study shows, with an optional excerpt. */
typedef struct {
    const char *name;       /* table */
    const char *probe;      /* its probe family */
    const char *heading;
    const char *intro;      /* one paragraph before the table */
    int (*keep)(char *const *keys, void *ctx);
    const char *excerpt;    /* what the excerpt leaves out */
} section;

typedef struct {
    const claim *claims;
    int nclaims;
    const section *sections;
    int nsections;
} mp_study_group;

#define N_OF(a) ((int)(sizeof(a) / sizeof *(a)))


/* ---- reading values (report/claims.c) ------------------------------ */

/* The results folder the study reads: dir; when NULL results/h200 of the
 * current folder (a checkout), else the copy installed with memprobe
 * (share/memprobe/results/h200, own_files.h). */
const char *mp_study_dir(const char *dir);

/* Notes `file` among the claim's sources. */
void mp_study_note_source(ctx *c, const char *file);
/* Field f of configuration `config` (see study.c); NAN when missing. */
double mp_study_value(ctx *c, const char *config, int f);
/* A number in text (see study.c); one of 32 rotating buffers. */
const char *mp_study_fmt(double x, int dec, int trim);
/* The rest of the line after `key` in a text file of the results
 * directory; the number that starts it. */
void mp_study_text_after(ctx *c, const char *file, const char *key,
                         char *out, size_t len);
double mp_study_text_number(ctx *c, const char *file, const char *key);

/* Short names for the claims' code. */
static inline void note_source(ctx *c, const char *file)
{
    mp_study_note_source(c, file);
}

static inline double v(ctx *c, const char *config, int f)
{
    return mp_study_value(c, config, f);
}

static inline const char *fmt(double x, int dec, int trim)
{
    return mp_study_fmt(x, dec, trim);
}

static inline void text_after(ctx *c, const char *file, const char *key,
                              char *out, size_t len)
{
    mp_study_text_after(c, file, key, out, len);
}

static inline double text_number(ctx *c, const char *file, const char *key)
{
    return mp_study_text_number(c, file, key);
}

#define N0(x) fmt((x), 0, 1)    /* counts: "16" */
#define N2(x) fmt((x), 2, 1)    /* "31.9999" -> "32" */
#define F1(x) fmt((x), 1, 0)    /* times, GB/s, percent */
#define F2(x) fmt((x), 2, 0)    /* cycles */

static inline void say(char *buf, size_t len, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static inline void say(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, len, f, ap);
    va_end(ap);
}

/* The verdict of a claim with one test, after `m` is written: UNMEASURED
 * when a value is missing, else HOLDS or FAILS as `holds` says, with
 * if_holds or if_fails as the reason. */
static inline verdict verdict_of(ctx *c, int holds, char *why, size_t len,
                                 const char *if_holds, const char *if_fails)
{
    if (c->missing[0])
        return UNMEASURED;
    say(why, len, "%s", holds ? if_holds : if_fails);
    return holds ? HOLDS : FAILS;
}

/* One verdict a claim can reach: `is`, with the reason `why`, when `when`
 * holds. */
typedef struct {
    int when;
    verdict is;
    const char *why;
} outcome;

/* The verdict of a claim with several tests, after `m` is written:
 * UNMEASURED when a value is missing, else the first of the n outcomes
 * whose test holds (the last one when none does), its reason in why. */
static inline verdict first_outcome(ctx *c, char *why, size_t len,
                                    const outcome *o, int n)
{
    if (c->missing[0])
        return UNMEASURED;
    int i = 0;
    while (i < n - 1 && !o[i].when)
        i++;
    say(why, len, "%s", o[i].why);
    return o[i].is;
}

/* OUTCOMES(c, why, len, {test, VERDICT, "reason"}, ..., {1, VERDICT,
 * "reason otherwise"}): first_outcome of the outcomes listed. */
#define OUTCOMES(c, why, len, ...)                                       \
    first_outcome((c), (why), (len), (const outcome[]){__VA_ARGS__},     \
                  N_OF(((const outcome[]){__VA_ARGS__})))

static inline double wf(ctx *c, const char *config)
{
    return v(c, config, MP_F_WF);
}

static inline double cyc(ctx *c, const char *config)
{
    return v(c, config, MP_F_CYCLES);
}

/* Field num over field den of one configuration (a hit rate: hits over
 * sectors or requests); num is read first, so a missing row is named by
 * num. */
static inline double ratio(ctx *c, const char *config, int num, int den)
{
    double n = v(c, config, num);
    return n / v(c, config, den);
}

static inline int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(s, list[i]))
            return 1;
    return 0;
}

#endif
