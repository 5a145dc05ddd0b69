/*
 * profile_metrics.h - the per-instruction metrics of `memprobe profile`, one table
 * that the merge, the CSVs, --check, --baseline, the report and explain
 * read: each metric's raw name (the SASS metric the injection library
 * collects, inject/raw.h), the memory class it counts, its ideal partner
 * and its unit. A class's count and ideal are found through the table,
 * never by position. Header-only.
 */
#ifndef MP_PROFILE_METRICS_H
#define MP_PROFILE_METRICS_H

#include "raw.h"

/* The per-instruction metrics, in inject/raw.h's MP_RAW_METRICS order. */
enum { MP_PM_INST, MP_PM_SH, MP_PM_SH_IDEAL, MP_PM_GL, MP_PM_GL_IDEAL,
       MP_PM_LD, MP_PM_N };

/* The memory classes a source line is judged in. */
enum { MP_CLASS_SHARED, MP_CLASS_GLOBAL, MP_NCLASS };

typedef struct {
    const char *raw;   /* the SASS metric's name */
    int cls;           /* MP_CLASS_* it counts, or -1 */
    int is_ideal;      /* 1: the ideal of its class's count */
    int partner;       /* the ideal of a count, the count of an ideal; -1 */
    const char *unit;
} mp_prof_metric_def;

static const mp_prof_metric_def mp_prof_metrics[MP_PM_N] = {
    [MP_PM_INST] = {MP_RAW_METRIC_0, -1, 0, -1, "warp instructions"},
    [MP_PM_SH] = {MP_RAW_METRIC_1, MP_CLASS_SHARED, 0, MP_PM_SH_IDEAL,
                  "wavefronts"},
    [MP_PM_SH_IDEAL] = {MP_RAW_METRIC_2, MP_CLASS_SHARED, 1, MP_PM_SH,
                        "wavefronts"},
    [MP_PM_GL] = {MP_RAW_METRIC_3, MP_CLASS_GLOBAL, 0, MP_PM_GL_IDEAL,
                  "sectors"},
    [MP_PM_GL_IDEAL] = {MP_RAW_METRIC_4, MP_CLASS_GLOBAL, 1, MP_PM_GL,
                        "sectors"},
    [MP_PM_LD] = {MP_RAW_METRIC_5, -1, 0, -1, "load instructions"},
};

/* The metric that counts class cls (shared wavefronts, global sectors),
 * and its ideal. */
static inline int mp_prof_count_of(int cls)
{
    for (int m = 0; m < MP_PM_N; m++)
        if (mp_prof_metrics[m].cls == cls && !mp_prof_metrics[m].is_ideal)
            return m;
    return -1;
}

static inline int mp_prof_ideal_of(int cls)
{
    int m = mp_prof_count_of(cls);
    return m < 0 ? -1 : mp_prof_metrics[m].partner;
}

#endif
