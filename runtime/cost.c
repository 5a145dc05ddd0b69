/*
 * cost.c - the wall-time breakdown of a measuring run (cost.h): rows of
 * phase durations per configuration, per counter batch and per run,
 * written as CSV with a total and a per-configuration mean.
 */
#include "cost.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static const char *const phase_names[MP_COST_PHASES] = {
    [MP_COST_SETUP] = "setup",
    [MP_COST_VERIFY] = "verify",
    [MP_COST_TIMED] = "timed",
    [MP_COST_RELEASE] = "release",
    [MP_COST_PROF_LAUNCH] = "prof_launch",
    [MP_COST_PROF_VERIFY] = "prof_verify",
    [MP_COST_ROW] = "row",
    [MP_COST_BEGIN_CONFIG] = "begin_config",
    [MP_COST_BEGIN_START] = "begin_start",
    [MP_COST_END_SYNC] = "end_sync",
    [MP_COST_END_STOP] = "end_stop",
    [MP_COST_END_DECODE] = "end_decode",
    [MP_COST_END_EVALUATE] = "end_evaluate",
    [MP_COST_OPEN] = "open",
    [MP_COST_CLOSE] = "close",
};

typedef struct {
    char name[128];
    double s[MP_COST_PHASES];   /* seconds */
    double kernel_ns;           /* median of the timed launches, or 0 */
} record;

typedef struct {
    record *v;
    int n, cap;
} records;

static struct {
    int on;
    double t_start;   /* mp_cost_start, for the run's elapsed time */
    records configs, batches;
    record run;
} cost;

const char *mp_cost_phase_name(mp_cost_phase ph)
{
    return ph >= 0 && ph < MP_COST_PHASES ? phase_names[ph] : NULL;
}

int mp_cost_enabled(void)
{
    return cost.on;
}

int mp_cost_start(void)
{
    const char *where = getenv(MP_COST_ENV);
    mp_cost_reset();
    cost.on = where && *where;
    cost.t_start = mp_cost_now();
    snprintf(cost.run.name, sizeof cost.run.name, "collector");
    return cost.on;
}

double mp_cost_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Record i of rs, growing the array (new records zeroed). */
static record *at(records *rs, int i)
{
    if (i < 0)
        return NULL;
    if (i >= rs->cap) {
        int cap = rs->cap ? rs->cap : 64;
        while (cap <= i)
            cap *= 2;
        record *v = realloc(rs->v, (size_t)cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "memprobe: out of memory\n");
            exit(MP_EXIT_FAIL);
        }
        memset(v + rs->cap, 0, (size_t)(cap - rs->cap) * sizeof *v);
        rs->v = v;
        rs->cap = cap;
    }
    if (i >= rs->n)
        rs->n = i + 1;
    return &rs->v[i];
}

void mp_cost_config(int index, const char *name)
{
    record *r;
    if (!cost.on || !(r = at(&cost.configs, index)))
        return;
    snprintf(r->name, sizeof r->name, "%s", name);
}

void mp_cost_batch(int configs)
{
    if (!cost.on)
        return;
    int i = cost.batches.n;
    record *r = at(&cost.batches, i);
    snprintf(r->name, sizeof r->name, "%d (%d configuration%s)", i + 1,
             configs, configs == 1 ? "" : "s");
}

void mp_cost_add_seconds(mp_cost_phase ph, int index, double seconds)
{
    if (!cost.on || ph < 0 || ph >= MP_COST_PHASES)
        return;
    record *r;
    if (ph >= MP_COST_OPEN)
        r = &cost.run;
    else if (ph >= MP_COST_BEGIN_CONFIG)
        /* Outside any batch (should not happen): a batch of its own. */
        r = cost.batches.n ? &cost.batches.v[cost.batches.n - 1]
                           : at(&cost.batches, 0);
    else
        r = at(&cost.configs, index);
    if (r)
        r->s[ph] += seconds;
}

void mp_cost_add(mp_cost_phase ph, int index, double t0)
{
    if (cost.on)
        mp_cost_add_seconds(ph, index, mp_cost_now() - t0);
}

void mp_cost_kernel(int index, double median_ns)
{
    record *r;
    if (cost.on && (r = at(&cost.configs, index)))
        r->kernel_ns = median_ns;
}

/* A name as a CSV field (quoted when it holds a comma or quote). */
static void put_name(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void put_row(FILE *f, const char *scope, const char *name,
                    const double *s, double kernel_ns)
{
    fprintf(f, "%s,", scope);
    put_name(f, name);
    double sum = 0;
    for (int p = 0; p < MP_COST_PHASES; p++) {
        fprintf(f, ",%.4f", 1e3 * s[p]);
        sum += s[p];
    }
    fprintf(f, ",%.4f,%.4f\n", 1e3 * sum, 1e-6 * kernel_ns);
}

int mp_cost_write(FILE *f)
{
    fputs("scope,name", f);
    for (int p = 0; p < MP_COST_PHASES; p++)
        fprintf(f, ",%s", phase_names[p]);
    fputs(",wall,kernel_ms\n", f);

    double total[MP_COST_PHASES] = {0}, kernel = 0;
    int nconfigs = 0;
    for (int i = 0; i < cost.configs.n; i++) {
        const record *r = &cost.configs.v[i];
        if (!r->name[0])
            continue;   /* an index never announced (resumed runs) */
        put_row(f, "config", r->name, r->s, r->kernel_ns);
        for (int p = 0; p < MP_COST_PHASES; p++)
            total[p] += r->s[p];
        kernel += r->kernel_ns;
        nconfigs++;
    }
    for (int i = 0; i < cost.batches.n; i++) {
        const record *r = &cost.batches.v[i];
        put_row(f, "batch", r->name, r->s, 0);
        for (int p = 0; p < MP_COST_PHASES; p++)
            total[p] += r->s[p];
    }
    put_row(f, "run", cost.run.name, cost.run.s, 0);
    for (int p = 0; p < MP_COST_PHASES; p++)
        total[p] += cost.run.s[p];

    char name[64];
    snprintf(name, sizeof name, "%d configurations", nconfigs);
    put_row(f, "total", name, total, kernel);
    double mean[MP_COST_PHASES];
    for (int p = 0; p < MP_COST_PHASES; p++)
        mean[p] = nconfigs ? total[p] / nconfigs : 0;
    put_row(f, "per_config", "mean", mean, nconfigs ? kernel / nconfigs : 0);
    return ferror(f) ? -1 : 0;
}

void mp_cost_reset(void)
{
    free(cost.configs.v);
    free(cost.batches.v);
    memset(&cost, 0, sizeof cost);
}

void mp_cost_finish(void)
{
    if (!cost.on)
        return;
    const char *where = getenv(MP_COST_ENV);
    FILE *f = where && strcmp(where, "-") ? fopen(where, "w") : stderr;
    if (!f) {
        fprintf(stderr, "memprobe: %s=%s: cannot write the cost breakdown\n",
                MP_COST_ENV, where);
    } else {
        if (mp_cost_write(f))
            fprintf(stderr, "memprobe: writing the cost breakdown failed\n");
        if (f != stderr && fclose(f))
            fprintf(stderr, "memprobe: closing %s failed\n", where);
    }
    /* One line: the counters' share of the run per configuration. */
    double prof = 0, all = 0;
    int n = 0;
    for (int i = 0; i < cost.configs.n; i++) {
        const record *r = &cost.configs.v[i];
        if (!r->name[0])
            continue;
        n++;
        for (int p = 0; p < MP_COST_PHASES; p++) {
            all += r->s[p];
            if (p >= MP_COST_PROF_LAUNCH && p <= MP_COST_PROF_VERIFY)
                prof += r->s[p];
        }
    }
    for (int i = 0; i < cost.batches.n; i++)
        for (int p = 0; p < MP_COST_PHASES; p++)
            prof += cost.batches.v[i].s[p], all += cost.batches.v[i].s[p];
    for (int p = 0; p < MP_COST_PHASES; p++)
        prof += cost.run.s[p], all += cost.run.s[p];
    if (n)
        fprintf(stderr, "memprobe: cost: %d configurations in %.3f s (%.3f s "
                "in the phases recorded), counters %.3f s = %.2f ms per "
                "configuration\n", n, mp_cost_now() - cost.t_start, all, prof,
                1e3 * prof / n);
    mp_cost_reset();
}
