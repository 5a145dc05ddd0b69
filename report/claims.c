/*
 * claims.c - what the study's claims read (claims.h): the result files in
 * the order their rows are taken (mp_study_files), loading them, and the
 * values, text lines and number formats the claim functions of the
 * families' *_study.c files use. report/study.c writes the document.
 */
#include "report.h"
#include "check.h"
#include "claims.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Below the results directory: one folder per probe family
 * (results/h200/README.md). */
const char *const mp_study_files[] = {
    "study/study.csv",
    "bank/bank-sweep.csv",
    "bank/bank-pads.csv",
    "coalesce/coalesce-w4.csv",
    "coalesce/coalesce-w8.csv",
    "coalesce/coalesce-w16.csv",
    "coalesce/coalesce-cg.csv",
    "coalesce/coalesce-layouts.csv",
    "bandwidth/bandwidth-offset.csv",
    "bandwidth/bandwidth-stride.csv",
    "bandwidth/bandwidth-table.csv",
    "bandwidth/bandwidth-dram.csv",
    "const/const-sweep.csv",
    "const/const-sources.csv",
    "const/const-interleaved2.csv",
    "const/const-interleaved16.csv",
    "texture/texture-4096.csv",
    "texture/texture-small.csv",
    "reduce/reduce-ladder.csv",
    "bitmap/bitmap.csv",
    "transfer/transfer.csv",
    "latency/latency.csv",
    "async/async.csv",
    "cluster/cluster.csv",
    "bandwidth/bandwidth-footprint.csv",
    "bank/matrix.csv",
    "bank/ldsm.csv",
    NULL,
};

const char *mp_study_dir(const char *dir)
{
    return dir ? dir : "results/h200";
}

int mp_study_load(mp_rep_data *d, const char *results_dir, char *err,
                  size_t errlen)
{
    const char *dir = mp_study_dir(results_dir);
    int n = 0, have = 0;
    while (mp_study_files[n])
        n++;
    char **paths = mp_xcalloc((size_t)n, sizeof *paths);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(mp_study_files[i]) + 2;
        char *path = mp_xmalloc(len);
        snprintf(path, len, "%s/%s", dir, mp_study_files[i]);
        if (access(path, F_OK) == 0)
            paths[have++] = path;   /* the files that exist, in order */
        else
            free(path);
    }
    int rc = -1;
    if (have == 0)
        mp_reason(err, errlen, "%s: none of the study's CSVs (%s, %s, ...) "
                  "is there", dir, mp_study_files[0], mp_study_files[1]);
    else
        rc = mp_rep_load(d, have, (const char *const *)paths, NULL, NULL,
                         err, errlen);
    for (int i = 0; i < have; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Reading values for the claims                                      */

void mp_study_note_source(ctx *c, const char *file)
{
    for (int i = 0; i < c->nsources; i++)
        if (!strcmp(c->sources[i], file))
            return;
    if (c->nsources < MAX_SOURCES)
        c->sources[c->nsources++] = file;
}

/* Field f of configuration `config` on the (first) device; NAN, and a
 * note in c->missing, when there is no such row or no value. The row comes
 * from study.csv if it has one, else from the claim's preferred file (so
 * that values compared with each other come from one run), else it is the
 * kept row of any file. */
double mp_study_value(ctx *c, const char *config, int f)
{
    /* Rows are found by file name without its directory (mp_rep_find);
     * mp_study_files names the files below the results directory. */
    const char *study = strrchr(mp_study_files[0], '/');
    study = study ? study + 1 : mp_study_files[0];
    const mp_rep_row *r = mp_rep_find(c->d, study, config, 0);
    if (!r && c->prefer)
        r = mp_rep_find(c->d, c->prefer, config, 0);
    if (!r)
        r = mp_rep_find(c->d, NULL, config, 0);
    double x;
    if (r && mp_rep_num(c->d, r, f, &x) == 0) {
        note_source(c, c->d->files[r->file].base);
        return x;
    }
    if (!c->missing[0])
        snprintf(c->missing, sizeof c->missing, "no %s for `%s`",
                 mp_rep_field_name(f), config);
    return NAN;
}

/* A number in text: `dec` decimals, trailing zeros kept (trim = 0) or
 * dropped (trim = 1). Returns one of 32 rotating buffers. */
const char *mp_study_fmt(double x, int dec, int trim)
{
    static char ring[32][48];
    static int next;
    char *b = ring[next++ % 32];
    if (isnan(x))
        return "?";
    if (trim)
        mp_rep_fmt(b, sizeof ring[0], x, dec);
    else
        snprintf(b, sizeof ring[0], "%.*f", dec, x);
    return b;
}

/* Opens a text file of the results directory; notes it as a source. */
static FILE *open_text(ctx *c, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", c->dir, file);
    FILE *f = fopen(path, "r");
    if (f)
        note_source(c, file);
    return f;
}

/* The rest of the line after `key` in a text file of the results
 * directory, blanks trimmed; "" if absent. */
void mp_study_text_after(ctx *c, const char *file, const char *key,
                         char *out, size_t len)
{
    char line[512];
    out[0] = '\0';
    FILE *f = open_text(c, file);
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *k = strstr(line, key);
        if (!k)
            continue;
        char *p = k + strlen(key);
        while (*p == ' ')
            p++;
        snprintf(out, len, "%s", p);
        out[strcspn(out, "\r\n")] = '\0';
        break;
    }
    fclose(f);
}

/* The number that starts the text after `key` (device.txt: "  constant
 * memory  65536 bytes"); NAN if absent. */
double mp_study_text_number(ctx *c, const char *file, const char *key)
{
    char buf[256], *end;
    text_after(c, file, key, buf, sizeof buf);
    double x = strtod(buf, &end);
    return end == buf ? NAN : x;
}

