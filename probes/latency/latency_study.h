/*
 * latency_study.h - the study's memory-hierarchy claims and section
 * (probes/latency/latency_study.c), called from report/study.c.
 */
#ifndef MP_STUDY_LATENCY_H
#define MP_STUDY_LATENCY_H

#include <stddef.h>
#include <stdio.h>

/* Verdicts, in study.c's order. */
enum { MP_STUDY_HOLDS, MP_STUDY_PARTLY, MP_STUDY_FAILS,
       MP_STUDY_UNMEASURED };

/* Seed 000: "global memory has no cache; a load costs hundreds of
 * cycles". Writes what was measured (m), why the verdict, or what is
 * missing; *source = the CSV read. Returns a verdict. */
int mp_study_latency_global(const char *dir, char *m, char *why, size_t len,
                            char *missing, size_t mlen, const char **source);
/* Seed 000: "shared memory is fast: no latency to worry about". */
int mp_study_latency_shared(const char *dir, char *m, char *why, size_t len,
                            char *missing, size_t mlen, const char **source);

/* "## The memory hierarchy": the figures as a Markdown table and the
 * staircase plot, or a line saying nothing is committed yet. */
void mp_study_latency_section(const char *dir, FILE *out);

#endif
