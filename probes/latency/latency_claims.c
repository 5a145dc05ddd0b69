/*
 * latency_claims.c - seed 000's two latency claims as a claim group
 * of the study: the measurements and verdicts are computed by
 * probes/latency/latency_study.c (which also writes the memory-hierarchy section);
 * this file adapts them to report/claims.h.
 */
#include "claims.h"
#include "latency_study.h"

static verdict latency_claim(ctx *c, int shared, char *m, char *why,
                             size_t len)
{
    const char *src = NULL;
    int v = (shared ? mp_study_latency_shared : mp_study_latency_global)(
        c->dir, m, why, len, c->missing, sizeof c->missing, &src);
    if (src)
        note_source(c, src);
    return (verdict)v;
}

static verdict global_latency(ctx *c, char *m, char *why, size_t len)
{
    return latency_claim(c, 0, m, why, len);
}

static verdict shared_latency(ctx *c, char *m, char *why, size_t len)
{
    return latency_claim(c, 1, m, why, len);
}

static const claim claims[] = {
    {"A global load costs hundreds of cycles", "000 (global memory)",
     "Global memory has no cache (a cache per multiprocessor would need a "
     "coherence protocol), so the latency of a load from it is very long, "
     "usually hundreds of cycles.",
     "latency.csv", global_latency},
    {"Shared memory has no latency to worry about", "000 (shared memory)",
     "Shared memory is on the GPU chip and shared by a block, so access is "
     "fast and latency need not be worried about.",
     "latency.csv", shared_latency},
};

const mp_study_group mp_study_latency = {claims, N_OF(claims), NULL, 0};
