/*
 * metrics.c - what the engine does with a family's metric set (the sets
 * themselves live with their families: probes/NAME/NAME_metrics.c, and
 * probes/metric_sets.c for the sets several families share; the tolerance
 * vocabulary they are written in is runtime/metric_set.h), and a GPU-free
 * validator built on the CUPTI Profiler Host API.
 *
 * The names are Nsight Compute's (checked against CUPTI 13.0 for GH100
 * with cuptiProfilerHostGetMetricProperties); see docs/collector.md.
 * tests/test_metrics.c checks that every row of every registered set
 * validates for GH100 and prints the pass count.
 */
#include "metrics.h"
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Needs shim/string ahead of the CUDA include dir: see shim/string. */
#include <cupti_profiler_host.h>

double mp_metric_allowed(const mp_metric *m, double value, double requests)
{
    double scale = m->tolerance_per == MP_TOL_VALUE ? fabs(value) : requests;
    return m->tolerance * scale + m->tolerance_floor;
}

const mp_metric *mp_metric_set_get(mp_metric_set set, size_t *count)
{
    if (count) *count = set ? set->count : 0;
    return set ? set->metrics : NULL;
}

int mp_metric_set_cache_independent(mp_metric_set set)
{
    return set ? set->cache_independent : 0;
}

const char *mp_metric_set_name(mp_metric_set set)
{
    return set ? set->name : NULL;
}

size_t mp_metric_set_names(mp_metric_set set, const char **names, size_t max)
{
    size_t count = 0;
    const mp_metric *t = mp_metric_set_get(set, &count);
    size_t i;

    for (i = 0; t && i < count && i < max; i++) names[i] = t[i].name;
    return i;
}

/* ------------------------------------------------------------------------
 * Validator (host API only; no GPU, no driver).
 * ---------------------------------------------------------------------- */


/* CHECK_CUPTI writes "<call>: <error name> (<code>)"; for messages about a
 * metric the call text is noise, so keep what follows the first ": ". */
static const char *error_part(const char *reason)
{
    const char *p = strstr(reason, ": ");
    return p ? p + 2 : reason;
}

/* mp_metrics_validate's arguments: a chip, and n names, each given once.
 * 0, or -1 with why. Clears why first. */
static int check_validate_args(const char *chip, const char *const *names,
                               size_t n, char *why, size_t whylen)
{
    if (why && whylen) why[0] = '\0';
    if (!chip || !*chip) {
        mp_reason(why, whylen, "no chip name given");
        return -1;
    }
    if (!names || n == 0) {
        mp_reason(why, whylen, "empty metric list");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !*names[i]) {
            mp_reason(why, whylen, "metric #%zu has no name", i);
            return -1;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(names[i], names[j]) == 0) {
                mp_reason(why, whylen, "metric '%s' is listed twice", names[i]);
                return -1;
            }
        }
    }
    return 0;
}

/* A host object for the chip into *host: 0, or -1 with why when this
 * CUPTI does not support it. A NULL counter-availability image is
 * accepted for chips CUPTI knows; on a GPU machine the collector passes
 * the real one instead. */
static int host_for_chip(const char *chip, CUpti_Profiler_Host_Object **host,
                         char *why, size_t whylen)
{
    char err[256] = "";
    CUpti_Profiler_Host_Initialize_Params init = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = chip,
        .pCounterAvailabilityImage = NULL,
    };
    if (CHECK_CUPTI(cuptiProfilerHostInitialize(&init), err, sizeof err)) {
        mp_reason(why, whylen, "chip '%s' is not supported by this CUPTI: %s",
            chip, error_part(err));
        return -1;
    }
    *host = init.pHostObject;
    return 0;
}

/* Frees a host object of host_for_chip (NULL: nothing). A failure here
 * cannot change a verdict; CHECK_CUPTI with no buffer just reports the
 * code, which is ignored. */
static void host_free(CUpti_Profiler_Host_Object *host)
{
    if (!host)
        return;
    CUpti_Profiler_Host_Deinitialize_Params fini = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    (void)CHECK_CUPTI(cuptiProfilerHostDeinitialize(&fini), NULL, 0);
}

/* Each name known to the chip, one at a time so that the reason names the
 * bad metric: 0, or -1 with why. */
static int check_each_metric(CUpti_Profiler_Host_Object *host,
                             const char *chip, const char *const *names,
                             size_t n, char *why, size_t whylen)
{
    char err[256] = "";
    for (size_t i = 0; i < n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params prop = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
            .pHostObject = host,
            .pMetricName = names[i],
        };
        if (CHECK_CUPTI(cuptiProfilerHostGetMetricProperties(&prop),
                        err, sizeof err)) {
            mp_reason(why, whylen, "metric '%s' is not valid for %s: %s",
                names[i], chip, error_part(err));
            return -1;
        }
    }
    return 0;
}

/* The names scheduled together into a config image, and its replay pass
 * count into *passes (if not NULL): 0, or -1 with why. */
static int count_passes(CUpti_Profiler_Host_Object *host, const char *chip,
                        const char *const *names, size_t n, size_t *passes,
                        char *why, size_t whylen)
{
    char err[256] = "";
    uint8_t *image = NULL;
    int rc = -1;

    /* CUPTI takes a non-const list but does not write it. */
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = host,
        .ppMetricNames = (const char **)names,
        .numMetrics = n,
    };
    if (CHECK_CUPTI(cuptiProfilerHostConfigAddMetrics(&add), err, sizeof err)) {
        mp_reason(why, whylen, "metrics cannot be scheduled together on %s: %s",
            chip, err);
        goto out;
    }

    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    if (CHECK_CUPTI(cuptiProfilerHostGetConfigImageSize(&size), err, sizeof err)) {
        mp_reason(why, whylen, "config image for %s: %s", chip, err);
        goto out;
    }
    image = malloc(size.configImageSize ? size.configImageSize : 1);
    if (!image) {
        mp_reason(why, whylen, "out of memory for a %zu-byte config image",
            size.configImageSize);
        goto out;
    }

    CUpti_Profiler_Host_GetConfigImage_Params get = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = host,
        .configImageSize = size.configImageSize,
        .pConfigImage = image,
    };
    if (CHECK_CUPTI(cuptiProfilerHostGetConfigImage(&get), err, sizeof err)) {
        mp_reason(why, whylen, "config image for %s: %s", chip, err);
        goto out;
    }

    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = size.configImageSize,
        .pConfigImage = image,
    };
    if (CHECK_CUPTI(cuptiProfilerHostGetNumOfPasses(&np), err, sizeof err)) {
        mp_reason(why, whylen, "pass count for %s: %s", chip, err);
        goto out;
    }
    if (passes) *passes = np.numOfPasses;
    rc = 0;

out:
    free(image);
    return rc;
}

int mp_metrics_validate(const char *chip, const char *const *names, size_t n,
                        size_t *passes, char *why, size_t whylen)
{
    CUpti_Profiler_Host_Object *host = NULL;
    int rc;

    if (check_validate_args(chip, names, n, why, whylen))
        return -1;
    if (host_for_chip(chip, &host, why, whylen))
        return -1;
    rc = check_each_metric(host, chip, names, n, why, whylen);
    if (rc == 0)
        rc = count_passes(host, chip, names, n, passes, why, whylen);
    host_free(host);
    return rc;
}

const char *const *mp_metrics_supported_chips(size_t *n)
{
    CUpti_Profiler_Host_GetSupportedChips_Params p = {
        .structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE,
    };
    char err[256];
    *n = 0;
    if (CHECK_CUPTI(cuptiProfilerHostGetSupportedChips(&p), err, sizeof err))
        return NULL;
    *n = p.numChips;
    return p.ppChipNames;
}

int mp_metrics_missing(const char *chip, const char *const *names, size_t n,
                       int *missing, char *why, size_t whylen)
{
    char err[256] = "";
    CUpti_Profiler_Host_Object *host = NULL;
    if (host_for_chip(chip, &host, why, whylen))
        return -1;
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params prop = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
            .pHostObject = host,
            .pMetricName = names[i],
        };
        missing[i] = CHECK_CUPTI(cuptiProfilerHostGetMetricProperties(&prop),
                                 err, sizeof err) != 0;
        count += missing[i];
    }
    host_free(host);
    return count;
}

int mp_metrics_filter(const char *chip, const char *const *names, size_t n,
                      int *keep, char *note, size_t notelen)
{
    int *missing = calloc(n ? n : 1, sizeof *missing);
    if (note && notelen)
        note[0] = '\0';
    for (size_t i = 0; i < n; i++)
        keep[i] = 0;
    if (!missing) {
        mp_reason(note, notelen, "out of memory");
        return -1;
    }
    int m = mp_metrics_missing(chip, names, n, missing, note, notelen);
    if (m < 0) {
        free(missing);
        return -1;
    }
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        keep[i] = !missing[i];
        if (!missing[i] || !note || notelen == 0 || len + 1 >= notelen)
            continue;
        int w = len == 0 ? snprintf(note, notelen, "%s%s: %s",
                                    MP_COUNTERS_UNAVAILABLE_ON, chip, names[i])
                         : snprintf(note + len, notelen - len, ", %s",
                                    names[i]);
        len = w < 0 ? len : len + (size_t)w;
        if (len >= notelen)
            len = notelen - 1;
    }
    free(missing);
    return m;
}

void mp_counters_status_text(const char *note, char *out, size_t outlen)
{
    if (note && *note)
        snprintf(out, outlen, "%s; %s", MP_COUNTERS_STATUS_OK, note);
    else
        snprintf(out, outlen, "%s", MP_COUNTERS_STATUS_OK);
}

int mp_counters_status_ok(const char *status)
{
    size_t k = strlen(MP_COUNTERS_STATUS_OK);
    return status && strncmp(status, MP_COUNTERS_STATUS_OK, k) == 0
           && (status[k] == '\0' || status[k] == ';');
}

int mp_counters_status_lacks(const char *status, const char *name)
{
    if (!mp_counters_status_ok(status) || !name || !*name)
        return 0;
    const char *list = strstr(status, MP_COUNTERS_UNAVAILABLE_ON);
    if (!list || !(list = strchr(list, ':')))
        return 0;
    size_t k = strlen(name);
    for (const char *p = list + 1; (p = strstr(p, name)); p += k) {
        char before = p[-1], after = p[k];
        if ((before == ' ' || before == ',')
            && (after == '\0' || after == ',' || after == ' '))
            return 1;
    }
    return 0;
}
