/*
 * ncu_check.c - the Nsight Compute cross-check (see ncu_check.h).
 *
 * The comparison is per configuration and per metric of the probe's set:
 * |memprobe - ncu| <= tolerance * scale + floor, with the tolerance of the
 * metric table (the metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c); the scale is the value (times, cache-
 * dependent traffic) or the launch's warp-level requests (counters). Exact
 * counters have tolerance 0. A metric the chip lacks (its row's
 * counters_status says "ok; unavailable on CHIP: ...") is neither asked of
 * ncu nor compared: it is listed as UNAVAILABLE, not as a difference.
 */
#include "ncu_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "metrics.h"
#include "csv_table.h"
#include "options.h"
#include "subprocess.h"

int mp_ncu_compare(const mp_probe *p, const char *memprobe_csv,
                   const char *ncu_csv, FILE *out)
{
    mp_csv_table mine, theirs;
    if (mp_table_read_or_say(mp_csv_table_read, memprobe_csv, &mine,
                             "ncu-check"))
        return MP_EXIT_USAGE;
    if (mp_table_read_or_say(mp_ncu_read, ncu_csv, &theirs, "ncu-check")) {
        mp_csv_free(&mine);
        return MP_EXIT_USAGE;
    }
    if (mine.nrows == 0) {
        fprintf(stderr, "memprobe: ncu-check: %s has no data rows: nothing "
                "to compare\n", memprobe_csv);
        mp_csv_free(&mine);
        mp_csv_free(&theirs);
        return MP_EXIT_USAGE;
    }
    int rc = MP_EXIT_OK;
    if (mine.nrows != theirs.nrows) {
        fprintf(stderr, "memprobe: ncu-check: %s has %d rows but ncu "
                "profiled %d launches\n", memprobe_csv, mine.nrows,
                theirs.nrows);
        rc = MP_EXIT_FAIL;
    }
    size_t nm;
    const mp_metric *m = mp_metric_set_get(p->metrics, &nm);
    int config_col = mp_csv_column(&mine, "config");
    int status_col = mp_csv_column(&mine, "counters_status");
    int requests_col = mp_csv_column(&mine, "requests");
    int compared = 0, failed = 0;
    fprintf(out, "%-30s %-58s %16s %16s %12s %12s  %s\n", "configuration",
            "metric", "memprobe", "ncu", "difference", "allowed", "");
    for (int r = 0; r < mine.nrows && r < theirs.nrows; r++) {
        const char *config = config_col >= 0 ? mine.cells[r][config_col] : "?";
        const char *status = status_col >= 0 ? mine.cells[r][status_col] : "";
        for (size_t k = 0; k < nm; k++) {
            if (mp_counters_status_lacks(status, m[k].name)) {
                fprintf(out, "%-30s %-58s %16s %16s %12s %12s  UNAVAILABLE "
                        "(chip lacks it)\n", config, m[k].name, "", "", "", "");
                continue;
            }
            int a_col = mp_csv_column(&mine, m[k].name);
            int b_col = mp_csv_column(&theirs, m[k].name);
            double a, b;
            if (a_col < 0 || b_col < 0
                || mp_csv_number(&mine, r, a_col, &a)
                || mp_csv_number(&theirs, r, b_col, &b)) {
                fprintf(out, "%-30s %-58s %16s %16s %12s %12s  MISSING\n",
                        config, m[k].name, "", "", "", "");
                failed++;
                continue;
            }
            double diff = a - b, requests = 0;
            if (requests_col >= 0)
                mp_csv_number(&mine, r, requests_col, &requests);
            double allowed = mp_metric_allowed(&m[k], b, requests);
            int ok = fabs(diff) <= allowed;
            compared++;
            failed += !ok;
            fprintf(out, "%-30s %-58s %16.0f %16.0f %12.0f %12.0f  %s\n",
                    config, m[k].name, a, b, diff, allowed,
                    ok ? "ok" : "DIFFERS");
        }
    }
    fprintf(out, "ncu-check: %d values compared, %d differ beyond "
            "tolerance\n", compared, failed);
    if (failed)
        rc = MP_EXIT_FAIL;
    if (compared == 0) {
        /* Nothing compared is never a pass. */
        if (rc == MP_EXIT_OK)
            fprintf(stderr, "memprobe: ncu-check: no value of %s could be "
                    "compared with %s (every metric unavailable on this "
                    "chip): not a pass\n", memprobe_csv, ncu_csv);
        rc = MP_EXIT_FAIL;
    }
    mp_csv_free(&mine);
    mp_csv_free(&theirs);
    return rc;
}

void mp_ncu_check_metrics(const mp_probe *p, const char *status, char *out,
                          size_t outlen)
{
    size_t nm, len = 0;
    const mp_metric *m = mp_metric_set_get(p->metrics, &nm);
    if (outlen)
        out[0] = '\0';
    for (size_t k = 0; k < nm; k++) {
        if (mp_counters_status_lacks(status, m[k].name))
            continue;
        int w = snprintf(out + len, outlen - len, "%s%s", len ? "," : "",
                         m[k].name);
        if (w < 0 || (size_t)w >= outlen - len)
            break;
        len += (size_t)w;
    }
}

/* The words of a configuration set: argv words and the text they came
 * from. */
typedef struct {
    const char *text;
    char *w[MP_NCU_CHECK_MAX_WORDS];
    int n;
} config_words;

static int check_in(const mp_probe *p, const config_words *cw,
                    const char *ncu, const char *dir, FILE *out,
                    int *compared);

int mp_ncu_check(const mp_probe *p, const char *args, const char *ncu,
                 const char *dir, FILE *out, int *compared)
{
    *compared = 0;
    if (access(dir, W_OK)) {
        fprintf(stderr, "memprobe: ncu-check: cannot use directory %s\n",
                dir);
        return MP_EXIT_USAGE;
    }
    config_words cw = {.text = args};
    char *buf;
    cw.n = mp_split_words(cw.text, cw.w, MP_NCU_CHECK_MAX_WORDS, &buf);
    int rc = MP_EXIT_USAGE;
    if (cw.n < 0)
        fprintf(stderr, "memprobe: ncu-check: --args: more than %d words\n",
                MP_NCU_CHECK_MAX_WORDS);
    else
        rc = check_in(p, &cw, ncu, dir, out, compared);
    free(buf);
    return rc;
}

void mp_ncu_check_fresh_path(char *out, size_t len, const char *dir,
                             const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
    remove(out);
}

/* mp_ncu_check of the configurations cw in the folder dir, which
 * exists. */
static int check_in(const mp_probe *p, const config_words *cw,
                    const char *ncu, const char *dir, FILE *out,
                    int *compared)
{
    char mine[4096], theirs[4096], run[4096], log[4096], metrics[4096] = "";
    mp_ncu_check_fresh_path(mine, sizeof mine, dir, "memprobe.csv");
    mp_ncu_check_fresh_path(theirs, sizeof theirs, dir, "ncu.csv");
    mp_ncu_check_fresh_path(run, sizeof run, dir, "ncu-run.csv");
    snprintf(log, sizeof log, "%s/ncu-check.log", dir);

    const char *self = mp_self_path();
    char *argv[128];
    int n = 0;
    argv[n++] = (char *)self;
    argv[n++] = (char *)p->name;
    for (int i = 0; i < cw->n; i++)
        argv[n++] = cw->w[i];
    const char *tail_on[] = {"--counters", "on", "--runs", "0", "--warmup",
                             "0", "-o", mine, NULL};
    for (int i = 0; tail_on[i]; i++)
        argv[n++] = (char *)tail_on[i];
    argv[n] = NULL;
    fprintf(out, "ncu-check: memprobe %s %s (counters from CUPTI)\n",
            p->name, cw->text);
    int rc = mp_spawn_wait(argv, log);
    if (rc != 0) {
        fprintf(stderr, "memprobe: ncu-check: memprobe run failed (exit "
                "%d); see %s\n", rc, log);
        return rc == MP_EXIT_NOGPU ? MP_EXIT_NOGPU : MP_EXIT_FAIL;
    }

    /* The set, less the names this chip lacks (ncu refuses a name the
     * chip does not have): memprobe's run says which in counters_status. */
    char status[1024] = "";
    mp_csv_table ran;
    if (mp_csv_table_read(mine, &ran, status, sizeof status) == 0) {
        int col = mp_csv_column(&ran, "counters_status");
        snprintf(status, sizeof status, "%s",
                 col >= 0 && ran.nrows > 0 ? ran.cells[0][col] : "");
        mp_csv_free(&ran);
    } else {
        status[0] = '\0';
    }
    mp_ncu_check_metrics(p, status, metrics, sizeof metrics);

    n = 0;
    const char *head[] = {ncu, "--csv", "--page", "raw", "--print-units",
                          "base", "--clock-control", "none",
                          "--cache-control", "none", "--metrics", metrics, "--log-file",
                          theirs, self, p->name, NULL};
    for (int i = 0; head[i]; i++)
        argv[n++] = (char *)head[i];
    for (int i = 0; i < cw->n; i++)
        argv[n++] = cw->w[i];
    const char *tail_off[] = {"--counters", "off", "--runs", "0",
                              "--warmup", "0", "-o", run, NULL};
    for (int i = 0; tail_off[i]; i++)
        argv[n++] = (char *)tail_off[i];
    argv[n] = NULL;
    fprintf(out, "ncu-check: %s over the same configurations\n", ncu);
    rc = mp_spawn_wait(argv, log);
    if (rc != 0) {
        fprintf(stderr, "memprobe: ncu-check: %s failed (exit %d); see %s\n",
                ncu, rc, log);
        return rc == 127 ? MP_EXIT_USAGE : MP_EXIT_FAIL;
    }
    rc = mp_ncu_compare(p, mine, theirs, out);
    *compared = rc == MP_EXIT_OK || rc == MP_EXIT_FAIL;
    return rc;
}
