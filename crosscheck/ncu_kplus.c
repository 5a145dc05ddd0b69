/*
 * ncu_kplus.c - memprobe profile's kernel+ values against Nsight
 * Compute's raw metrics of the same launches (see ncu_kplus.h).
 */
#include "ncu_kplus.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ncu_check.h"
#include "ncu_profile.h"
#include "subprocess.h"

/* What is judged, memprobe's column (= ncu's metric), and its tolerance:
 * |memprobe - ncu| <= rel x ncu + abs. From the H200 (tests/profile/app,
 * results/h200/profile/l2-hit/, 11 memprobe runs against 4 ncu runs with
 * --cache-control all): DRAM read 0.1-3.3% apart (reduce kernels, 68 KB:
 * 2.3 KB), written 0 on both sides; L2 sectors 0.1-1.5% apart on the
 * medians, while the runs of one kernel moved by up to 369 sectors under
 * ncu (reduce_interleaved: 5,721-6,090) and 388 under memprobe
 * (5,494-5,882): 3% + 800 sectors holds both spreads; L1 hit rates equal
 * to 0.01 points. */
typedef struct {
    const char *col, *what;
    double rel, abs;
    int single;   /* judged on rows of one launch only (a rate) */
} judged;

static const judged judge[] = {
    {"dram__bytes_read.sum", "DRAM read", 0.05, 4096, 0},
    {"dram__bytes_write.sum", "DRAM written", 0.0, 16384, 0},
    {"lts__t_sectors.sum", "L2 sectors", 0.03, 800, 0},
    {"l1tex__t_sector_hit_rate.pct", "L1 hit %", 0.0, 0.5, 1},
};
enum { NJUDGED = sizeof judge / sizeof judge[0] };

/* Shown, not judged. */
#define HITS "lts__t_sectors_lookup_hit.sum"
#define MISSES "lts__t_sectors_lookup_miss.sum"
#define RATE "lts__t_sector_hit_rate.pct"

/* memprobe's value in a cell: NAN when empty (not measured). */
static double value(const mp_csv_table *t, int r, int c)
{
    double v;
    return mp_csv_parse_number(t->cells[r][c], &v) ? NAN : v;
}

/* The number in a cell, or -1 with err (who, row, column). */
static int number(const mp_csv_table *t, int r, int c, const char *who,
                  double *v, char *err, size_t errlen)
{
    if (!mp_csv_parse_number(t->cells[r][c], v))
        return 0;
    mp_reason(err, errlen, "%s: data row %d: %s '%s' is not a number", who,
              r + 1, t->header[c], t->cells[r][c]);
    return -1;
}

/* Sums ncu's nl rows from *j (advanced past them) for profile row r,
 * each checked to be the same kernel: 0, or -1 with err set. */
static int sum_ncu_rows(const mp_csv_table *ncu, const int *nc, int *j,
                        int nl, const mp_csv_table *prof, int r,
                        const int *pc, double *sum, char *err, size_t errlen)
{
    char **c = prof->cells[r];
    const int nkernel = nc[NJUDGED + 3];
    for (int i = 0; i < nl; i++, (*j)++) {
        if (!mp_ncu_profile_same_kernel(ncu->cells[*j][nkernel], c[pc[0]],
                                        c[pc[1]])) {
            mp_reason(err, errlen, "launch sequences differ: ncu row %d "
                      "is %.200s, profile CSV row %d %.200s", *j + 1,
                      ncu->cells[*j][nkernel], r + 1, c[pc[0]]);
            return -1;
        }
        for (int k = 0; k < NJUDGED + 3; k++) {
            double v;
            if (number(ncu, *j, nc[k], "ncu CSV", &v, err, errlen))
                return -1;
            sum[k] += v;
        }
    }
    return 0;
}

/* Prints profile row r (nl launches) against ncu's sums, each judged
 * column within its tolerance; returns 1 when all are. */
static int judge_row(const mp_csv_table *prof, int r, const int *pc, int nl,
                     const double *sum, FILE *out)
{
    char **c = prof->cells[r];
    int ok = 1;
    fprintf(out, "  %s launch %s%s:", c[pc[0]], c[pc[2]],
            nl > 1 ? " (a run: sums)" : "");
    for (int k = 0; k < NJUDGED; k++) {
        if (judge[k].single && nl > 1)
            continue;
        double m = value(prof, r, pc[9 + k]);   /* NAN: not measured */
        double t = judge[k].single ? sum[k] / nl : sum[k];
        int in = fabs(m - t) <= judge[k].rel * fabs(t) + judge[k].abs;
        ok &= in;
        fprintf(out, " %s %.6g / %.6g%s;", judge[k].what, m, t,
                in ? "" : " OUTSIDE");
    }
    double hits = value(prof, r, pc[7]), rate = value(prof, r, pc[8]);
    fprintf(out, " L2 hits %.6g / %.6g (ncu's hits + misses - sectors "
            "%+.6g), L2 hit %% %.4g / %.4g (shown)\n", hits,
            sum[NJUDGED], sum[NJUDGED] + sum[NJUDGED + 1] - sum[2],
            rate, nl > 1 ? sum[NJUDGED + 2] / nl : sum[NJUDGED + 2]);
    return ok;
}

int mp_ncu_kplus_compare(const mp_csv_table *prof, const mp_csv_table *ncu,
                         FILE *out, char *err, size_t errlen)
{
    /* profile.csv's columns: these nine, then the judged ones; ncu's:
     * the judged ones, then hits, misses, rate and the kernel name */
    const char *pnames[9 + NJUDGED] = {"kernel", "mangled", "launch",
                                       "launches", "graph", "range_counters",
                                       "range_why", HITS, RATE};
    const char *nnames[NJUDGED + 4];
    for (int k = 0; k < NJUDGED; k++)
        pnames[9 + k] = nnames[k] = judge[k].col;
    nnames[NJUDGED] = HITS, nnames[NJUDGED + 1] = MISSES;
    nnames[NJUDGED + 2] = RATE, nnames[NJUDGED + 3] = "Kernel Name";
    int pc[9 + NJUDGED], nc[NJUDGED + 4];
    for (int k = 0; k < 9 + NJUDGED; k++)
        if ((pc[k] = mp_csv_need_column(prof, pnames[k], "profile CSV", err,
                                        errlen)) < 0)
            return MP_EXIT_USAGE;
    for (int k = 0; k < NJUDGED + 4; k++)
        if ((nc[k] = mp_csv_need_column(ncu, nnames[k], "ncu CSV", err,
                                        errlen)) < 0)
            return MP_EXIT_USAGE;

    long compared = 0, within = 0, skipped = 0;
    int j = 0;   /* ncu's next row */
    for (int r = 0; r < prof->nrows; r++) {
        char **c = prof->cells[r];
        double n;
        if (number(prof, r, pc[3], "profile CSV", &n, err, errlen))
            return MP_EXIT_USAGE;
        int nl = n >= 1 ? (int)n : 1;
        if (j + nl > ncu->nrows) {
            mp_reason(err, errlen, "launch sequences differ: profile CSV row "
                      "%d (%s) needs ncu rows %d-%d, ncu has %d", r + 1,
                      c[pc[0]], j + 1, j + nl, ncu->nrows);
            return MP_EXIT_USAGE;
        }
        double sum[NJUDGED + 3] = {0};
        if (sum_ncu_rows(ncu, nc, &j, nl, prof, r, pc, sum, err, errlen))
            return MP_EXIT_USAGE;
        if (strcmp(c[pc[5]], "range_profiler")) {
            fprintf(out, "  %s launch %s: not compared (%s)\n", c[pc[0]],
                    c[pc[2]], c[pc[6]][0] ? c[pc[6]] : "no range values");
            skipped++;
            continue;
        }
        compared++;
        within += judge_row(prof, r, pc, nl, sum, out);
    }
    if (j != ncu->nrows) {
        mp_reason(err, errlen, "launch sequences differ: ncu has %d rows, "
                  "profile CSV's rows cover %d", ncu->nrows, j);
        return MP_EXIT_USAGE;
    }
    fprintf(out, "ncu-check --profile --level kernel+: %ld launch rows "
            "compared (DRAM bytes read and written, L2 sectors, L1 hit "
            "rate), %ld within tolerance, %ld outside; %ld not compared; "
            "L2 hits and hit rate shown, not judged (docs/profile.md)\n",
            compared, within, compared - within, skipped);
    return compared == 0 ? MP_EXIT_COUNTERS
           : within == compared ? MP_EXIT_OK : MP_EXIT_FAIL;
}

int mp_ncu_kplus_check(const char *ncu, const char *dir, char *const *argv,
                       FILE *out, int *compared)
{
    *compared = 0;
    char csv[4096], lines[4096], ncsv[4096], plog[4096], nlog[4096];
    char err[1024];
    mp_ncu_check_fresh_path(csv, sizeof csv, dir, "kplus.csv");
    mp_ncu_check_fresh_path(lines, sizeof lines, dir, "kplus-lines.csv");
    mp_ncu_check_fresh_path(ncsv, sizeof ncsv, dir, "kplus-ncu.csv");
    mp_ncu_check_fresh_path(plog, sizeof plog, dir, "kplus.log");
    mp_ncu_check_fresh_path(nlog, sizeof nlog, dir, "kplus-ncu.log");

    fprintf(out, "ncu-check --profile --level kernel+: memprobe profile "
            "--level kernel+ -- %s\n", argv[0]);
    int rc = mp_ncu_profile_memprobe("kernel+", csv, argv, plog);
    if (rc)
        return rc;
    const char *head2[] = {ncu, "--csv", "--page", "raw", "--print-units",
                           "base", "--clock-control", "none",
                           "--cache-control", "all", "--print-kernel-base",
                           "mangled", "--metrics", MP_KPLUS_NCU_METRICS,
                           "--log-file", ncsv, NULL};
    char **cmd = mp_ncu_profile_command(head2, argv);
    fprintf(out, "ncu-check --profile --level kernel+: %s --cache-control "
            "all --metrics (L1, L2, DRAM) -- %s\n", ncu, argv[0]);
    rc = mp_spawn_wait(cmd, nlog);
    free(cmd);
    if (rc != 0) {
        fprintf(stderr, "memprobe: ncu-check: %s %s (exit %d); see %s\n", ncu,
                rc == 127 ? "not found" : "failed", rc, nlog);
        return rc == 127 ? MP_EXIT_USAGE : MP_EXIT_FAIL;
    }
    mp_csv_table p, n;
    if (mp_table_read_or_say(mp_csv_table_read, csv, &p, "ncu-check"))
        return MP_EXIT_FAIL;
    if (mp_table_read_or_say(mp_ncu_read, ncsv, &n, "ncu-check")) {
        mp_csv_free(&p);
        return MP_EXIT_FAIL;
    }
    rc = mp_ncu_kplus_compare(&p, &n, out, err, sizeof err);
    *compared = rc == MP_EXIT_OK || rc == MP_EXIT_FAIL;
    if (rc == MP_EXIT_USAGE) {
        fprintf(stderr, "memprobe: ncu-check: %s\n", err);
        rc = MP_EXIT_FAIL;
    }
    mp_csv_free(&p);
    mp_csv_free(&n);
    return rc;
}
