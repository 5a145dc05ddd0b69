/*
 * claims.c - what the study's claims read (claims.h): the result files in
 * the order their rows are taken (study.csv, then the families'), loading them, and the
 * values, text lines and number formats the claim functions of the
 * families' *_study.c files use. report/study.c writes the document.
 */
#include "report.h"
#include "check.h"
#include "claims.h"
#include "own_files.h"
#include "part.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The full study sweep's CSV (`make study`), below the results directory;
 * its rows come first. The families' own CSVs follow, as their parts list
 * them (report/part.h: study_files), in registry order. */
#define STUDY_CSV "study/study.csv"

/* The results folder of the study by default: here (a checkout), else the
 * copy installed with memprobe (own_files.h). */
#define STUDY_RESULTS "results/h200"

/* The study's files in the order their rows are taken: STUDY_CSV, then
 * each family's; *n of them (a malloc'd array of the parts' strings). */
static const char **study_files(int *n)
{
    int cap = 1;
    for (int p = 0; p < mp_report_nparts(); p++)
        for (int i = 0; mp_report_part(p)->study_files
                        && mp_report_part(p)->study_files[i]; i++)
            cap++;
    const char **files = mp_xcalloc((size_t)cap, sizeof *files);
    *n = 0;
    files[(*n)++] = STUDY_CSV;
    for (int p = 0; p < mp_report_nparts(); p++)
        for (int i = 0; mp_report_part(p)->study_files
                        && mp_report_part(p)->study_files[i]; i++)
            files[(*n)++] = mp_report_part(p)->study_files[i];
    return files;
}

const char *mp_study_dir(const char *dir)
{
    static char own[PATH_MAX];
    struct stat st;
    if (dir)
        return dir;
    if (stat(STUDY_RESULTS, &st) == 0 && S_ISDIR(st.st_mode))
        return STUDY_RESULTS;
    if (!own[0] && mp_own_path(MP_OWN_DATA, STUDY_RESULTS, own, sizeof own))
        snprintf(own, sizeof own, "%s", STUDY_RESULTS);
    return own;
}

int mp_study_load(mp_rep_data *d, const char *results_dir, char *err,
                  size_t errlen)
{
    const char *dir = mp_study_dir(results_dir);
    int n, have = 0;
    const char **files = study_files(&n);
    char **paths = mp_xcalloc((size_t)n, sizeof *paths);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(files[i]) + 2;
        char *path = mp_xmalloc(len);
        snprintf(path, len, "%s/%s", dir, files[i]);
        if (access(path, F_OK) == 0)
            paths[have++] = path;   /* the files that exist, in order */
        else
            free(path);
    }
    int rc = -1;
    if (have == 0)
        mp_reason(err, errlen, "%s: none of the study's CSVs (%s, %s, ...) "
                  "is there", dir, files[0], n > 1 ? files[1] : "");
    else
        rc = mp_rep_load(d, have, (const char *const *)paths, NULL, NULL,
                         err, errlen);
    for (int i = 0; i < have; i++)
        free(paths[i]);
    free(paths);
    free(files);
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
     * the study's files are named below the results directory. */
    const char *study = strrchr(STUDY_CSV, '/') + 1;
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

