/*
 * profile_range.h - the second run of `memprobe profile` (the range
 * pass): which launches of the first run want range-profiler values
 * (--level kernel+: all; else those without line counts: the fallback),
 * the kernel regex that selects them for the injection library, and the
 * join of the range pass's rows (range.PID.csv) onto the first run's
 * launch rows by process ordinal, launch number, kernel and shape
 * (docs/profile-design.md, "The range pass").
 */
#ifndef MP_PROFILE_RANGE_H
#define MP_PROFILE_RANGE_H

#include <stddef.h>

#include "profile_csv.h"

/* Does launch row l want range values (kplus: --level kernel+)? */
int mp_prof_range_wanted(const mp_prof_launch *l, int kplus);

/* The POSIX ERE "^(A|B)$" of the mangled names of the launches without
 * line counts (special characters escaped), malloc'd; NULL when every
 * launch has line counts. */
char *mp_prof_fallback_regex(const mp_prof_data *d);

/* The range_why of a launch without line counts when the program ran
 * once (--fallback off at --level kernel). */
#define MP_PROF_RANGE_NOT_RUN "not measured: the program runs once; " \
    "--fallback rerun runs it again for these launches"

/* Launches that wanted range values (kplus: every launch) and get none:
 * range_counters unavailable, range_why why, the values empty. */
void mp_prof_range_none(mp_prof_data *d, int kplus, const char *why);

typedef struct {
    long wanted;      /* launches that wanted range values */
    long filled;      /* got them */
    long unmatched;   /* no same launch in the second run */
    long other;       /* wanted, not got for another reason */
    char other_why[256];   /* the first such reason */
} mp_prof_join_stats;

/* One run of the range pass: its raw folder, and whether it measured
 * only the launches without line counts (the fallback's counts at
 * --level kernel+) rather than every launch that wanted values. */
typedef struct {
    const char *dir;
    int fallback_only;
} mp_prof_range_run;

/* Fills the range columns of d's launches from the range pass's runs
 * (their raw folders), joining by the process ordinals of the first run
 * (raw1's status files) and of each run; a value comes from the first
 * run that has it, and the L2 hit rate is computed from the cache and l2
 * groups' counts. Rows that wanted none get empty columns. 0, or -1 with
 * a reason (a raw file that cannot be read). */
int mp_prof_range_join(mp_prof_data *d, const char *raw1,
                       const mp_prof_range_run *runs, int nruns, int kplus,
                       mp_prof_join_stats *js, char *err, size_t errlen);

#endif
