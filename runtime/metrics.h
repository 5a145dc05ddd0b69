/*
 * metrics.h - the one table of hardware counters memprobe collects, per
 * probe family, and a host-only validator for metric lists.
 *
 * Metric names are spelled exactly as Nsight Compute spells them (with the
 * rollup suffix, e.g. ".sum"), and the CSV column of a metric IS its name,
 * so users can cross-reference memprobe output with `ncu --metrics`.
 * Every set also contains gpu__time_duration.sum.
 *
 * mp_metrics_validate() uses the CUPTI Profiler Host API only: it needs no
 * GPU and no driver, so CI can check the tables and pass counts.
 */
#ifndef MP_METRICS_H
#define MP_METRICS_H

#include <stddef.h>

/* A metric set: the counters one probe family (or several, alike)
 * collects, defined with the family (probes/NAME/NAME_metrics.c, or
 * probes/metric_sets.c when families share it) in the vocabulary of
 * runtime/metric_set.h. Every set ends with gpu__time_duration.sum. The
 * sets the engine knows are those of the registered probes
 * (mp_metric_sets, runtime/probe.h). */
struct mp_metric;
typedef struct {
    const char *name;               /* "shared", "global", ... */
    const struct mp_metric *metrics;
    size_t count;
    /* 1: no counter of the set depends on what the caches hold before the
     * launch (shared memory only, exact counts), so the runner does not
     * flush the L2 before its profiled launches. */
    int cache_independent;
} mp_metric_set_def;
typedef const mp_metric_set_def *mp_metric_set;

/* What a metric's tolerance is a fraction of. */
typedef enum {
    MP_TOL_VALUE,      /* the value itself (times): relative difference */
    MP_TOL_REQUEST     /* the launch's requests: events per request, for
                          counters that are exact but for a few arbitration
                          events (wavefronts, conflicts, sectors) */
} mp_tolerance_scale;

typedef struct mp_metric {
    const char *name;        /* ncu spelling incl. rollup; also the CSV column */
    const char *unit;        /* "wavefronts", "requests", "sectors", "bytes", "ns", ... */
    const char *description; /* one line */
    /* Difference allowed between two runs of the same launch (memprobe
     * vs ncu), set from run-to-run noise measured on the H200
     * (docs/notes.md): |a - b| <= tolerance * scale + tolerance_floor,
     * where the scale is set by tolerance_per: */
    double tolerance;
    mp_tolerance_scale tolerance_per;
    /* Plus this much, in the metric's unit, whatever the scale: for
     * counters that depend on what the caches held before the launch, one
     * L2's worth of data; for kernel time, launch jitter. */
    double tolerance_floor;
} mp_metric;

/* The difference two measurements of one launch may show in metric m
 * (see the tolerance fields): `value` is either measurement, `requests`
 * the launch's warp-level requests (the CSV's requests column). */
double mp_metric_allowed(const mp_metric *m, double value, double requests);

/* The name every set contains: kernel duration as measured by the profiler. */
#define MP_METRIC_TIME "gpu__time_duration.sum"

/* Table for a set; *count (if non-NULL) receives its length. NULL and
 * *count = 0 for a NULL set. The table is static: never free it. */
const mp_metric *mp_metric_set_get(mp_metric_set set, size_t *count);

/* 1 when no counter of the set depends on what the caches hold before the
 * launch (no L2 flush needed before a profiled launch); 0 otherwise and
 * for a NULL set. */
int mp_metric_set_cache_independent(mp_metric_set set);

/* "shared", "global", "constant", "tex", "latency"; NULL for a NULL set. */
const char *mp_metric_set_name(mp_metric_set set);


/* Fills names[0..n-1] with the metric names of `set` (n = set's count,
 * at most max). Returns the number written. A convenience for callers
 * that need a `const char *const *` list for the validator or collector. */
size_t mp_metric_set_names(mp_metric_set set, const char **names, size_t max);

/* Builds a CUPTI config image for `chip` (e.g. "GH100") holding all n
 * metrics, without a GPU. Returns 0 and sets *passes (if non-NULL) to the
 * number of replay passes the set needs. On failure returns nonzero and
 * leaves a one-line reason in why (if non-NULL) naming the bad metric, e.g.
 * "metric 'x.sum' is not valid for GH100: CUPTI_ERROR_INVALID_METRIC_NAME (17)". */
int mp_metrics_validate(const char *chip, const char *const *names, size_t n,
                        size_t *passes, char *why, size_t whylen);

/* The chip names this CUPTI's host API knows ("GA100", "AD102", "GH100",
 * ...), without a GPU; *n their count. NULL when it cannot say. */
const char *const *mp_metrics_supported_chips(size_t *n);

/* Which of the n names `chip` lacks: missing[i] = 1 for each; returns how
 * many, or -1 with a reason in why when the chip is not supported. */
int mp_metrics_missing(const char *chip, const char *const *names, size_t n,
                       int *missing, char *why, size_t whylen);

/* The collector's filter (pure: the chip's name and the list, no GPU).
 * keep[i] = 1 for each of the n names `chip` knows, 0 for each it lacks;
 * note gets "unavailable on CHIP: a, b" naming the ones it lacks ("" when
 * none). Returns how many it lacks, or -1 with a reason in note when the
 * chip is not supported (keep then all 0). The collector profiles the kept
 * names only and leaves the others' cells empty. */
int mp_metrics_filter(const char *chip, const char *const *names, size_t n,
                      int *keep, char *note, size_t notelen);

/* The counters_status of a row with counters: "ok", or "ok; " and the
 * filter's note when the chip lacks some names of the set. */
#define MP_COUNTERS_STATUS_OK "ok"
#define MP_COUNTERS_UNAVAILABLE_ON "unavailable on "
void mp_counters_status_text(const char *note, char *out, size_t outlen);

/* 1 when a counters_status says the row has counters ("ok" alone, or
 * "ok; " and a note of names the chip lacks), else 0. */
int mp_counters_status_ok(const char *status);

/* 1 when a counters_status names metric `name` among those its chip lacks
 * (the note of mp_metrics_filter), else 0. */
int mp_counters_status_lacks(const char *status, const char *name);

#endif
