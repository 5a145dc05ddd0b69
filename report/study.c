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
 * rule changes the verdict. The claims, the tables the study shows and the
 * families' own sections live in the families' folders (probes/NAME/
 * NAME_study.c), registered as their report parts (report/part.h);
 * report/claims.c reads the values for them; this file writes the
 * document.
 *
 * Which row is used: the first row with counters of each configuration, in
 * the order report/claims.c reads them (study.csv, the full study sweep of `make
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
#include "part.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* The claim groups are the families' registered parts (report/part.h),
 * in the registry's order: the order the study numbers their claims and
 * shows their tables. */

static const mp_study_group *group_at(int g)
{
    const mp_rep_part *p = mp_report_part(g);
    return p ? p->claims : NULL;
}

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
    for (int g = 0; g < mp_report_nparts(); g++)
        for (int i = 0; group_at(g) && i < group_at(g)->nclaims
                        && n < MAX_CLAIMS; i++)
            list[n++] = &group_at(g)->claims[i];
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
    const mp_rep_part *p = mp_report_part_of(probe);
    if (p && p->mismatch_unit) {   /* the family's own (report/part.h) */
        meas = p->mismatch_measured;
        model = p->mismatch_model;
        unit = p->mismatch_unit;
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

/* The families' own sections whose section_order is in [from, to), in
 * that order (ties: the registry's). */
static void family_sections(const mp_rep_data *d, const char *dir, int from,
                            int to, FILE *out)
{
    for (int order = from, next; order < to; order = next) {
        next = to;
        for (int g = 0; g < mp_report_nparts(); g++) {
            const mp_rep_part *p = mp_report_part(g);
            if (!p->section || p->section_order < order
                || p->section_order >= to)
                continue;
            if (p->section_order == order)
                p->section(d, dir, out);
            else if (p->section_order < next)
                next = p->section_order;
        }
    }
}

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

/* What each claim says, for the document: its sources and what was
 * measured, and why the verdict is what it is (the document's buffers). */
static char measured_all[MAX_CLAIMS][2048], why_all[MAX_CLAIMS][1024];

/* Checks each of the n claims against the CSVs: its verdict into
 * verdicts[i], its measured text (after its sources) and its reason into
 * measured_all[i] and why_all[i]. */
static void check_claims(const mp_rep_data *d, const char *results_dir,
                         const claim *const *claims, int nclaims,
                         verdict *verdicts)
{
    char measured[1536], why[1024];
    for (int i = 0; i < nclaims; i++) {
        ctx c = {d, mp_study_dir(results_dir), claims[i]->prefer, "", {NULL},
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
}

/* The document's title, the generator's note, the device and the seeds. */
static void write_heading(const mp_rep_data *d, const char *gpu,
                          const char *dir, FILE *out)
{
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
}

/* "The classic rules, checked": the table of verdicts, then each claim
 * with its seed, what was measured on the GPU and the verdict's reason. */
static void write_claims(const claim *const *claims, int nclaims,
                         const verdict *verdicts, const char *gpu, FILE *out)
{
    char head[256], anc[256];
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
}

/* "The plots": the links to the plots `make study-report` draws. */
static void write_plot_links(FILE *out)
{
    fprintf(out, "\n## The plots\n\n"
            "Drawn by gnuplot from the same CSVs (`make study-report`; "
            "`probes/*/*.gp`); each also as PNG next to the SVG.\n\n"
            "- Wavefronts per request over stride and width, loads and "
            "stores: ![bank conflicts](plots/bank-heatmap.svg)\n"
            "- Time per request against the conflict degree: ![cycles "
            "against conflict ways](plots/bank-cycles.svg)\n"
            "- DRAM bandwidth against the start offset: ![bandwidth "
            "against offset](plots/bandwidth-offset.svg)\n"
            "- DRAM bandwidth against the stride: ![bandwidth against "
            "stride](plots/bandwidth-stride.svg)\n");
}

/* "The tables": each family's sections, excerpts where the section keeps
 * only some rows, with a note on the rows that differ from the model. */
static void write_tables(const mp_rep_data *d, const char *dir, FILE *out)
{
    fprintf(out, "\n## The tables\n\n"
            "`*` marks a measured value that differs from the model (the "
            "row's `model_match` is `no`); `-` is a value not measured. "
            "`memprobe report %s/*/*.csv` prints every table in full.\n",
            dir);
    for (int g = 0; g < mp_report_nparts(); g++) {
        for (int i = 0; group_at(g) && i < group_at(g)->nsections; i++) {
            const section *s = &group_at(g)->sections[i];
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
}

int mp_study_write(const mp_rep_data *d, const char *results_dir, FILE *out,
                   char *err, size_t errlen)
{
    /* The device as the text calls it: "H200" for "NVIDIA H200". */
    const char *gpu = d->ndev ? d->devices[0] : "GPU";
    if (!strncmp(gpu, "NVIDIA ", 7))
        gpu += 7;
    const claim *claims[MAX_CLAIMS];
    int nclaims = all_claims(claims);
    verdict verdicts[MAX_CLAIMS];
    check_claims(d, results_dir, claims, nclaims, verdicts);
    const char *dir = mp_study_dir(results_dir);

    write_heading(d, gpu, dir, out);
    write_claims(claims, nclaims, verdicts, gpu, out);
    family_sections(d, dir, 0, 100, out);
    write_plot_links(out);
    family_sections(d, dir, 100, INT_MAX, out);
    write_tables(d, dir, out);
    if (ferror(out)) {
        mp_reason(err, errlen, "write failed");
        return -1;
    }
    return 0;
}
