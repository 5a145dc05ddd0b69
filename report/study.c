/*
 * study.c - docs/study.md, generated from the committed H200 CSVs
 * (`make study-report`, `memprobe report --study`; see report.h).
 *
 * The document has three parts: the seeds' classic rules, each beside what
 * was measured and a verdict; links to the plots (`make study-report` draws
 * them into docs/plots); and the report's tables (excerpts where the full
 * table is long: `make report` prints them whole). Every number and every
 * verdict is computed from the CSVs, none is typed in: the verdict rules
 * are the `if`s in the claim functions, so a new measurement that breaks a
 * rule changes the verdict. The claims and the tables the study shows live
 * in one file per memory space or claim group (report/study_shared.c,
 * study_global.c, study_const_texture.c, study_reduce.c, study_bitmap.c,
 * study_latency_claims.c; report/study_claims.h); this file reads the
 * values for them, keeps the registry of groups and writes the document.
 *
 * Which row is used: the first row with counters of each configuration, in
 * the order of mp_study_files (study.csv, the full study sweep of `make
 * study`, first; then the families' own CSVs), so a new sweep replaces the
 * older measurements without any change here. Each claim names the files
 * its numbers came from.
 *
 * The output is deterministic (no time, no absolute path), so that
 * tests/test_study.c can regenerate it and compare it byte for byte with
 * the committed docs/study.md.
 */
#include "report.h"
#include "check.h"
#include "study_claims.h"
#include "study_latency.h"
#include "plotdata_transfer.h"
#include "study_async.h"

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

static const char *dir_or_default(const char *dir)
{
    return dir ? dir : "results/h200";
}

int mp_study_load(mp_rep_data *d, const char *results_dir, char *err,
                  size_t errlen)
{
    const char *dir = dir_or_default(results_dir);
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

/* ------------------------------------------------------------------ */
/* The registry: the claim groups in the order the study numbers their
 * claims and shows their tables. A new group is one line here (its claims
 * and sections live in its report/study_*.c). */

static const mp_study_group *const groups[] = {
    &mp_study_shared, &mp_study_global, &mp_study_const_texture,
    &mp_study_reduce, &mp_study_bitmap, &mp_study_latency,
};

#define NGROUPS ((int)(sizeof groups / sizeof *groups))

/* Claims can be at most this many (the document's buffers). */
#define MAX_CLAIMS 64

static const char *const verdict_text[] = {
    "holds", "holds partly", "does not hold", "not measured",
};

/* The registry's claims in order, into list (at most MAX_CLAIMS); returns
 * how many. */
static int all_claims(const claim **list)
{
    int n = 0;
    for (int g = 0; g < NGROUPS; g++)
        for (int i = 0; i < groups[g]->nclaims && n < MAX_CLAIMS; i++)
            list[n++] = &groups[g]->claims[i];
    return n;
}

/* ------------------------------------------------------------------ */
/* Table excerpts                                                     */

/* The rows of `probe` that the CSVs flag as differing from the model
 * (model_match "no"), and the largest difference: one sentence, or nothing
 * when there is none. */
static void mismatch_note(const mp_rep_data *d, const char *probe, FILE *out)
{
    int meas = MP_F_SECTORS, model = MP_F_MODEL_SECTORS;
    const char *unit = "sectors";
    if (!strcmp(probe, "bank")) {
        meas = MP_F_WF;
        model = MP_F_MODEL_WF;
        unit = "wavefronts";
    } else if (!strcmp(probe, "const")) {
        meas = MP_F_REPLAYS;
        model = MP_F_MODEL_REPLAYS;
        unit = "replays";
    }
    int n = 0;
    double worst = 0, worst_model = 0;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double x, y;
        if (strcmp(mp_rep_text(d, r, MP_F_PROBE), probe)
            || strcmp(mp_rep_text(d, r, MP_F_MATCH), "no"))
            continue;
        n++;
        if (mp_rep_num(d, r, meas, &x) == 0
            && mp_rep_num(d, r, model, &y) == 0 && fabs(x - y) > worst) {
            worst = fabs(x - y);
            worst_model = y;
        }
    }
    if (n)
        fprintf(out, "\nThe CSVs flag %d %s row%s as differing from the "
                "model; the largest difference is %s %s per request (%s%% "
                "of the model's %s).\n", n, probe, n == 1 ? "" : "s",
                fmt(worst, 4, 1), unit,
                fmt(worst_model ? 100 * worst / worst_model : 0, 4, 1),
                fmt(worst_model, 4, 1));
}

/* ------------------------------------------------------------------ */
/* The document                                                       */

/* " " before a source list "(`a.csv`): ...", nothing before ": ...". */
static const char *c_space(const char *measured)
{
    return measured[0] == '(' ? " " : "";
}

static void device_line(const mp_rep_data *d, FILE *out)
{
    const mp_rep_row *r = d->nrows ? &d->rows[0] : NULL;
    if (!r) {
        fprintf(out, "No rows.\n");
        return;
    }
    fprintf(out, "Measured on %s (compute capability %s, %s SMs, %s MHz) "
            "by memprobe; every number below is read from the CSVs by the "
            "generator.\n", d->devices[0], mp_rep_text(d, r, MP_F_CC),
            mp_rep_text(d, r, MP_F_SM_COUNT), mp_rep_text(d, r, MP_F_SM_CLOCK));
}

/* Anchor of a heading as GitHub makes it: lower case, spaces to '-',
 * punctuation dropped. */
static void anchor(const char *heading, char *out, size_t len)
{
    size_t n = 0;
    for (const char *s = heading; *s && n + 1 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 'A' && ch <= 'Z')
            out[n++] = (char)(ch - 'A' + 'a');
        else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
                 || ch == '-' || ch == '_')
            out[n++] = (char)ch;
        else if (ch == ' ')
            out[n++] = '-';
    }
    out[n] = '\0';
}

int mp_study_write(const mp_rep_data *d, const char *results_dir, FILE *out,
                   char *err, size_t errlen)
{
    char measured[1536], why[1024], head[256], anc[256];
    /* The device as the text calls it: "H200" for "NVIDIA H200". */
    const char *gpu = d->ndev ? d->devices[0] : "GPU";
    if (!strncmp(gpu, "NVIDIA ", 7))
        gpu += 7;
    const claim *claims[MAX_CLAIMS];
    int nclaims = all_claims(claims);
    verdict verdicts[MAX_CLAIMS];
    static char measured_all[MAX_CLAIMS][2048], why_all[MAX_CLAIMS][1024];

    for (int i = 0; i < nclaims; i++) {
        ctx c = {d, dir_or_default(results_dir), claims[i]->prefer, "", {NULL},
                 0};
        char src[512] = "";
        measured[0] = why[0] = '\0';
        verdicts[i] = claims[i]->check(&c, measured, why, sizeof why);
        if (verdicts[i] == UNMEASURED && c.missing[0])
            snprintf(why, sizeof why, "Missing data: %s.", c.missing);
        /* "(`a.csv`, `b.csv`) " before the text: where it comes from. */
        for (int k = 0; k < c.nsources; k++) {
            size_t n = strlen(src);
            snprintf(src + n, sizeof src - n, "%s`%s`", k ? ", " : "(",
                     c.sources[k]);
        }
        snprintf(measured_all[i], sizeof measured_all[i], "%s%s%s", src,
                 c.nsources ? "): " : ": ", measured);
        snprintf(why_all[i], sizeof why_all[i], "%s", why);
    }
    const char *dir = dir_or_default(results_dir);

    fprintf(out, "# The study: the classic CUDA memory rules on the %s\n\n"
            "<!-- Generated by `make study-report` (`memprobe report "
            "--study docs/study.md`) from the CSVs in %s/. Do not edit: "
            "change report/study.c or the CSVs and regenerate; "
            "tests/test_study.c fails when this file is stale. -->\n\n",
            gpu, dir);
    device_line(d, out);
    fprintf(out, "\nThe seeds are three Chinese CUDA tutorials (numbered "
            "000, 003 and 004 in the project's seed set): 000 on shared "
            "memory, bank conflicts and coalescing, 003 on a dot product "
            "with a shared-memory reduction, 004 on constant and texture "
            "memory. Their claims are paraphrased below. How memprobe "
            "measures is in the README; the tables' columns are explained "
            "above each table.\n\n");

    fprintf(out, "## The classic rules, checked\n\n");
    fprintf(out, "| # | claim | seed | verdict |\n| ---: | --- | --- | --- |\n");
    for (int i = 0; i < nclaims; i++) {
        snprintf(head, sizeof head, "%d. %s", i + 1, claims[i]->title);
        anchor(head, anc, sizeof anc);
        fprintf(out, "| %d | [%s](#%s) | %s | %s |\n", i + 1,
                claims[i]->title, anc, claims[i]->seed,
                verdict_text[verdicts[i]]);
    }
    for (int i = 0; i < nclaims; i++) {
        fprintf(out, "\n### %d. %s\n\n", i + 1, claims[i]->title);
        fprintf(out, "- **Seed %s:** %s\n", claims[i]->seed,
                claims[i]->claim);
        fprintf(out, "- **%s**%s%s\n", gpu, c_space(measured_all[i]),
                measured_all[i]);
        fprintf(out, "- **Verdict: %s.** %s\n", verdict_text[verdicts[i]],
                why_all[i]);
    }

    mp_study_transfer(d, dir, out);
    mp_study_async(d, dir, out);
    mp_study_matrix(d, out);

    fprintf(out, "\n## The plots\n\n"
            "Drawn by gnuplot from the same CSVs (`make study-report`; "
            "`scripts/plots/*.gp`); each also as PNG next to the SVG.\n\n"
            "- Wavefronts per request over stride and width, loads and "
            "stores: ![bank conflicts](plots/bank-heatmap.svg)\n"
            "- Time per request against the conflict degree: ![cycles "
            "against conflict ways](plots/bank-cycles.svg)\n"
            "- DRAM bandwidth against the start offset: ![bandwidth "
            "against offset](plots/bandwidth-offset.svg)\n"
            "- DRAM bandwidth against the stride: ![bandwidth against "
            "stride](plots/bandwidth-stride.svg)\n");

    mp_study_latency_section(dir, out);

    fprintf(out, "\n## The tables\n\n"
            "`*` marks a measured value that differs from the model (the "
            "row's `model_match` is `no`); `-` is a value not measured. "
            "`memprobe report %s/*/*.csv` prints every table in full.\n",
            dir);
    for (int g = 0; g < NGROUPS; g++) {
        for (int i = 0; i < groups[g]->nsections; i++) {
            const section *s = &groups[g]->sections[i];
            mp_rep_table *t = mp_rep_table_build(d, s->name);
            fprintf(out, "\n### %s\n\n%s\n\n", s->heading, s->intro);
            if (s->keep) {
                mp_rep_table_keep(t, s->keep, NULL);
                fprintf(out, "Excerpt: %s.\n\n", s->excerpt);
            }
            mp_rep_table_print(t, MP_REP_MD, 0, out);
            if (t->marks)
                mismatch_note(d, s->probe, out);
            mp_rep_table_free(t);
        }
    }
    if (ferror(out)) {
        mp_reason(err, errlen, "write failed");
        return -1;
    }
    return 0;
}
