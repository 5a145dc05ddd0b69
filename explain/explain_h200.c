/*
 * explain_h200.c - the committed H200 row of a probe command's
 * configuration (explain_h200.h): the command's parameters through the
 * probe's own table and label, then the first verified row of that label
 * in the CSVs of results/h200/PROBE/ with a count per request.
 */
#include "explain_h200.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "csv_table.h"
#include "options.h"
#include "own_files.h"
#include "probe.h"

/* The configuration `memprobe PROBE --name value ...` measures: its probe
 * and label. 0, or -1 when the words are not such a command. */
static int command_config(const char *command, const mp_probe **probe,
                          char *config, size_t clen)
{
    char *words[64], *buf = NULL;
    int n = mp_split_words(command, words, 64, &buf), rc = -1;
    const mp_probe *p = n >= 2 && !strcmp(words[0], "memprobe")
                            ? mp_probe_find(words[1]) : NULL;
    if (p && p->label && n % 2 == 0) {
        long long v[MP_MAX_PARAMS];
        for (int k = 0; k < p->nparams; k++)
            v[k] = p->params[k].def;
        rc = 0;
        for (int i = 2; i + 1 < n && rc == 0; i += 2) {
            int k = 0;
            while (k < p->nparams && (strncmp(words[i], "--", 2)
                                      || strcmp(words[i] + 2,
                                                p->params[k].name)))
                k++;
            char err[256];
            rc = k < p->nparams && !mp_param_parse_value(
                     &p->params[k], words[i + 1], &v[k], err, sizeof err)
                     ? 0 : -1;
        }
        if (rc == 0) {
            p->label(v, config, clen);
            *probe = p;
        }
    }
    free(buf);
    return rc;
}

/* results/h200/NAME of memprobe's committed data (mp_own_path: the
 * checkout of the binary, or share/memprobe/ of its installed prefix), into
 * dir: 0, or -1. */
static int family_dir(const char *name, char *dir, size_t len)
{
    char rel[256];
    struct stat sb;
    snprintf(rel, sizeof rel, "results/h200/%s", name);
    return mp_own_path(MP_OWN_DATA, rel, dir, len) == 0
           && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first verified row of `config` in csv with a number in column
 * `count`. */
static int row_of(const char *csv, const char *config, const char *count,
                  double *v)
{
    mp_csv_table t;
    char err[512];
    if (mp_csv_table_read(csv, &t, err, sizeof err))
        return 0;
    int c = mp_csv_column(&t, "config"), ok = mp_csv_column(&t, "verified");
    int m = mp_csv_column(&t, count), found = 0;
    for (int r = 0; r < t.nrows && c >= 0 && ok >= 0 && m >= 0 && !found;
         r++)
        found = !strcmp(t.cells[r][c], config)
                && !strcmp(t.cells[r][ok], "yes")
                && !mp_csv_number(&t, r, m, v);
    mp_csv_free(&t);
    return found;
}

int mp_xp_h200(const char *command, const char *count, char *config,
               size_t clen, double *per_request, char *file, size_t flen)
{
    const mp_probe *p = NULL;
    char dir[4096];
    if (command_config(command, &p, config, clen))
        return -1;
    if (family_dir(p->name, dir, sizeof dir))
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".csv")
            && strncmp(e->d_name, "ncu-", 4))
            names[n++] = mp_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    int found = 0;
    for (int i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!found && row_of(path, config, count, per_request)) {
            snprintf(file, flen, "results/h200/%s/%s", p->name, names[i]);
            found = 1;
        }
        free(names[i]);
    }
    return found;
}
