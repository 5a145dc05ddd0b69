/*
 * data.c - reads memprobe result CSVs for the report (see report.h):
 * the files, their column maps, one kept row per device and configuration,
 * and the list of devices.
 */
#include "report.h"
#include "part.h"
#include "check.h"
#include "metrics.h"
#include "ncu_source.h"

#include <stdlib.h>
#include <string.h>

#define MP_REP_FIELD_NAME(id, name) name,
static const char *const field_names[MP_F_COUNT] = {
    MP_REP_FIELDS(MP_REP_FIELD_NAME)
};
#undef MP_REP_FIELD_NAME

const char *mp_rep_field_name(int field)
{
    return field >= 0 && field < MP_F_COUNT ? field_names[field] : "";
}


const char *mp_rep_text(const mp_rep_data *d, const mp_rep_row *r, int f)
{
    const mp_rep_file *file = &d->files[r->file];
    int col = f >= 0 && f < MP_F_COUNT ? file->col[f] : -1;
    return col < 0 ? "" : file->t.cells[r->row][col];
}

int mp_rep_num(const mp_rep_data *d, const mp_rep_row *r, int f,
               double *out)
{
    return mp_csv_parse_number(mp_rep_text(d, r, f), out);
}

void mp_rep_free(mp_rep_data *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nfiles; i++) {
        free(d->files[i].path);
        mp_csv_free(&d->files[i].t);
    }
    free(d->files);
    free(d->rows);
    free(d->all);
    for (int i = 0; i < d->ndev; i++)
        free(d->devices[i]);
    free(d->devices);
    memset(d, 0, sizeof *d);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Is this file Nsight Compute's CSV (its messages, or a header "ID"; or
 * its source page, report/ncu_source.h)? */
static int is_ncu_output(const char *path)
{
    mp_csv_table t;
    int ncu = mp_ncu_read(path, &t, NULL, 0) == 0;
    mp_csv_free(&t);
    if (!ncu) {
        mp_ncu_source s;
        char err[256];
        ncu = mp_ncu_source_read(path, &s, err, sizeof err) == 0;
        mp_ncu_source_free(&s);
    }
    return ncu;
}

/* Reads one file into f and checks its columns. 1 = skipped (ncu), 0 = ok,
 * -1 = error in err. */
static int read_file(mp_rep_file *f, const char *path, char *err,
                     size_t errlen)
{
    char why[512] = "";
    memset(f, 0, sizeof *f);
    if (mp_csv_table_read(path, &f->t, why, sizeof why) != 0) {
        if (is_ncu_output(path))
            return 1;
        mp_reason(err, errlen, "%s", why);
        return -1;
    }
    for (int i = 0; i < MP_F_COUNT; i++)
        f->col[i] = mp_csv_column(&f->t, field_names[i]);
    static const int identity[] = {MP_F_DEVICE, MP_F_PROBE, MP_F_CONFIG};
    for (size_t i = 0; i < sizeof identity / sizeof *identity; i++) {
        if (f->col[identity[i]] < 0) {
            int ncu = is_ncu_output(path);
            mp_csv_free(&f->t);
            if (ncu)
                return 1;
            mp_reason(err, errlen, "%s: no column '%s': not a memprobe "
                      "results CSV", path, field_names[identity[i]]);
            return -1;
        }
    }
    /* Every family present needs the columns its tables read (its
     * report part's needs, report/part.h); a family without that list
     * needs only the identity columns. */
    for (int k = 0; k < mp_report_nparts(); k++) {
        const int *needs = mp_report_part(k)->needs;
        const char *probe = mp_report_part_name(k);
        int present = 0;
        for (int r = 0; needs && r < f->t.nrows && !present; r++)
            present = !strcmp(f->t.cells[r][f->col[MP_F_PROBE]], probe);
        for (int j = 0; present && needs[j] >= 0; j++) {
            int fld = needs[j];
            if (f->col[fld] < 0) {
                mp_reason(err, errlen, "%s: %s rows need column '%s', which "
                          "the header lacks", path, probe,
                          field_names[fld]);
                mp_csv_free(&f->t);
                return -1;
            }
        }
    }
    for (int r = 0; r < f->t.nrows; r++) {
        if (!f->t.cells[r][f->col[MP_F_DEVICE]][0]
            || !f->t.cells[r][f->col[MP_F_CONFIG]][0]) {
            mp_reason(err, errlen, "%s: data row %d has no %s", path, r + 1,
                      f->t.cells[r][f->col[MP_F_DEVICE]][0] ? "config"
                                                            : "device_name");
            mp_csv_free(&f->t);
            return -1;
        }
    }
    f->path = strdup(path);
    if (!f->path) {
        mp_csv_free(&f->t);
        mp_reason(err, errlen, "%s: out of memory", path);
        return -1;
    }
    f->base = base_name(f->path);
    return 0;
}

/* ---- one row per device and configuration -------------------------- */

typedef struct {
    const mp_rep_data *d;
    int index;   /* position in d->all */
} ref;

static const char *cell(const mp_rep_data *d, const mp_rep_row *r, int f)
{
    return mp_rep_text(d, r, f);
}

/* Rows with counters ("ok", or "ok; " and the names the chip lacks)
 * come before rows without. */
static int has_counters(const mp_rep_data *d, const mp_rep_row *r)
{
    return mp_counters_status_ok(cell(d, r, MP_F_COUNTERS));
}

static int cmp_ref(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    const mp_rep_row *ra = &a->d->all[a->index], *rb = &b->d->all[b->index];
    int c = ra->device - rb->device;
    if (c)
        return c;
    c = strcmp(cell(a->d, ra, MP_F_CONFIG), cell(b->d, rb, MP_F_CONFIG));
    if (c)
        return c;
    c = has_counters(b->d, rb) - has_counters(a->d, ra);
    if (c)
        return c;
    return a->index - b->index;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static int device_index(mp_rep_data *d, const char *name)
{
    for (int i = 0; i < d->ndev; i++)
        if (!strcmp(d->devices[i], name))
            return i;
    char **v = realloc(d->devices, (size_t)(d->ndev + 1) * sizeof *v);
    if (!v)
        return -1;
    d->devices = v;
    if (!(d->devices[d->ndev] = strdup(name)))
        return -1;
    return d->ndev++;
}

/* Says in err that the report ran out of memory; returns -1. */
static int out_of_memory(char *err, size_t errlen)
{
    mp_reason(err, errlen, "report: out of memory");
    return -1;
}

/* Reads each file given into d->files, skipping Nsight Compute's with a
 * note; *total = their data rows. 0 = ok, -1 = error in err. */
static int read_files(mp_rep_data *d, int nfiles, const char *const *paths,
                      FILE *notes, size_t *total, char *err, size_t errlen)
{
    d->files = calloc((size_t)nfiles, sizeof *d->files);
    if (!d->files)
        return out_of_memory(err, errlen);
    for (int i = 0; i < nfiles; i++) {
        int rc = read_file(&d->files[d->nfiles], paths[i], err, errlen);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            d->skipped++;
            if (notes)
                fprintf(notes, "memprobe: report: skipping %s: Nsight "
                        "Compute output, not memprobe's (compare it with "
                        "memprobe ncu-check --compare)\n", paths[i]);
            continue;
        }
        *total += (size_t)d->files[d->nfiles].t.nrows;
        d->nfiles++;
    }
    return 0;
}

/* Checks that the files read hold a memprobe CSV and data rows in it
 * (first = the first file given). 0 = ok, -1 = error in err. */
static int check_found(const mp_rep_data *d, const char *first,
                       size_t total, char *err, size_t errlen)
{
    if (d->nfiles == 0) {
        mp_reason(err, errlen, "%s: no memprobe results CSV among the "
                  "files given", first);
        return -1;
    }
    if (total == 0) {   /* headers only: nothing to report */
        if (d->nfiles == 1)
            mp_reason(err, errlen, "%s: no data rows, only a header: "
                      "nothing to report", d->files[0].path);
        else
            mp_reason(err, errlen, "%s and the %d other files given: no data "
                      "rows, only headers: nothing to report",
                      d->files[0].path, d->nfiles - 1);
        return -1;
    }
    return 0;
}

/* Lists every row in d->all with its device, those of --device only.
 * 0 = ok, -1 = error in err. */
static int list_rows(mp_rep_data *d, size_t total, const char *device,
                     char *err, size_t errlen)
{
    d->all = calloc(total ? total : 1, sizeof *d->all);
    if (!d->all)
        return out_of_memory(err, errlen);
    for (int f = 0; f < d->nfiles; f++) {
        const mp_rep_file *file = &d->files[f];
        for (int r = 0; r < file->t.nrows; r++) {
            const char *name = file->t.cells[r][file->col[MP_F_DEVICE]];
            if (device && !strstr(name, device))
                continue;
            /* GPUs of one node share a name: the second and later ones
             * (device_id > 0) get columns of their own. */
            char named[300];
            int id = file->col[MP_F_DEVICE_ID];
            if (id >= 0 && atoi(file->t.cells[r][id]) > 0) {
                snprintf(named, sizeof named, "%s (GPU %d)", name,
                         atoi(file->t.cells[r][id]));
                name = named;
            }
            int dev = device_index(d, name);
            if (dev < 0)
                return out_of_memory(err, errlen);
            d->all[d->nall++] = (mp_rep_row){f, r, dev};
        }
    }
    if (device && d->nall == 0) {
        mp_reason(err, errlen, "--device: no row's device_name contains "
                  "'%s'", device);
        return -1;
    }
    return 0;
}

/* Keeps in d->rows the first row with counters of each (device, config),
 * in the order of d->all. 0 = ok, -1 = error in err. */
static int keep_rows(mp_rep_data *d, char *err, size_t errlen)
{
    ref *refs = calloc(d->nall ? (size_t)d->nall : 1, sizeof *refs);
    int *keep = calloc(d->nall ? (size_t)d->nall : 1, sizeof *keep);
    d->rows = calloc(d->nall ? (size_t)d->nall : 1, sizeof *d->rows);
    if (!refs || !keep || !d->rows) {
        free(refs);
        free(keep);
        return out_of_memory(err, errlen);
    }
    for (int i = 0; i < d->nall; i++)
        refs[i] = (ref){d, i};
    qsort(refs, (size_t)d->nall, sizeof *refs, cmp_ref);
    int nkeep = 0;
    for (int i = 0; i < d->nall; i++) {
        const mp_rep_row *r = &d->all[refs[i].index];
        if (i > 0) {
            const mp_rep_row *p = &d->all[refs[i - 1].index];
            if (p->device == r->device
                && !strcmp(cell(d, p, MP_F_CONFIG), cell(d, r, MP_F_CONFIG))) {
                d->repeats++;
                continue;
            }
        }
        keep[nkeep++] = refs[i].index;
    }
    qsort(keep, (size_t)nkeep, sizeof *keep, cmp_int);
    for (int i = 0; i < nkeep; i++)
        d->rows[i] = d->all[keep[i]];
    d->nrows = nkeep;
    free(refs);
    free(keep);
    return 0;
}

int mp_rep_load(mp_rep_data *d, int nfiles, const char *const *paths,
                const char *device, FILE *notes, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (nfiles <= 0) {
        mp_reason(err, errlen, "no CSV file given");
        return -1;
    }
    size_t total = 0;
    if (read_files(d, nfiles, paths, notes, &total, err, errlen)
        || check_found(d, paths[0], total, err, errlen)
        || list_rows(d, total, device, err, errlen)
        || keep_rows(d, err, errlen)) {
        mp_rep_free(d);
        return -1;
    }
    return 0;
}

const mp_rep_row *mp_rep_find(const mp_rep_data *d, const char *file,
                              const char *config, int dev)
{
    const mp_rep_row *v = file ? d->all : d->rows;
    int n = file ? d->nall : d->nrows;
    for (int i = 0; i < n; i++) {
        if (dev >= 0 && v[i].device != dev)
            continue;
        if (file && strcmp(d->files[v[i].file].base, file))
            continue;
        if (!strcmp(cell(d, &v[i], MP_F_CONFIG), config))
            return &v[i];
    }
    return NULL;
}
