/*
 * cmd_report.c - `memprobe report`: tables, plot data and the study
 * document from memprobe's result CSVs. The work is done in report/data.c,
 * tables.c, plotdata.c and study.c (see report/report.h); this file is the
 * command line.
 */
#include "report.h"
#include "check.h"
#include "options.h"
#include "params.h"
#include "profile_csv.h"
#include "profile_report.h"
#include "sweep_devices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: memprobe report FILE.csv... [--format txt|md|csv] [--table NAME]\n"
    "                       [--device NAME] [--plot-data DIR]\n"
    "       memprobe report --study OUT.md [--results DIR] [--plot-data DIR]\n"
    "       memprobe report --merge -o MERGED.csv SHARD.csv... [--format F]\n"
    "       memprobe report PROFILE.csv [EXPLAIN.csv] [--format F] "
    "[--plot-data DIR]\n"
    "       memprobe report --kind results|profile|explain FILE.csv...\n"
    "\n"
    "Tables from memprobe's result CSVs: bank conflicts (stride x width, ld\n"
    "and st), padding, ldmatrix/stmatrix (pitch x swizzle, and which swizzle\n"
    "is conflict-free), the bitmap kernel, coalescing (offset x width x\n"
    "stride), layouts (AoS, SoA, aligned, staged), DRAM bandwidth, constant\n"
    "broadcast, texture, the reduction ladder, transfers, async copies and\n"
    "cluster shared memory. A measured value that differs from the model is\n"
    "marked '*'. CSVs from several devices merge into side-by-side columns\n"
    "per device; a configuration measured twice on one device shows its\n"
    "first row with counters. Nsight Compute's CSVs among the files are\n"
    "skipped with a note. A CSV of memprobe profile (known by its header)\n"
    "gets its own report: the worst source lines by excess over the ideal,\n"
    "the sums per kernel and per NVTX range (docs/profile.md); a CSV of\n"
    "memprobe explain of the same program after it adds, beside the worst\n"
    "lines, their explained instructions: model against measured, the best\n"
    "fix and its predicted count (docs/explain.md).\n"
    "\n"
    "  --kind K        what the files are, instead of reading it from their\n"
    "                  headers: results (memprobe's result CSVs), profile\n"
    "                  (PROFILE.csv, optionally its EXPLAIN.csv) or explain\n"
    "                  (PROFILE.csv and EXPLAIN.csv); a file whose header\n"
    "                  says otherwise is refused\n"
    "  --format F      txt (aligned text, default), md (Markdown) or csv\n"
    "                  (one block per table, its first column 'table')\n"
    "  --table NAME    only this table: bank, padding, matrix, matrix-free,\n"
    "                  bitmap, coalesce, layouts, bandwidth, const, texture,\n"
    "                  reduction, transfers, peers, async or cluster\n"
    "  --device NAME   only rows whose device_name contains NAME\n"
    "  --plot-data DIR write the data files of probes/*/*.gp into DIR\n"
    "                  (first device) instead of printing tables\n"
    "  --merge         append the rows of every FILE (the shards of a sweep,\n"
    "                  from a Slurm array or several nodes) to the new file\n"
    "                  given by -o, check that no device measured one\n"
    "                  configuration twice, and print the tables of the\n"
    "                  merged file, devices side by side\n"
    "  --study OUT.md  write the study document (docs/study.md) from the\n"
    "                  CSVs in --results DIR (default results/h200 of the\n"
    "                  current folder, else the copy installed with memprobe)\n"
    "\n"
    "Exit status: 0 done; 2 bad option, or a file that cannot be read, is\n"
    "empty or lacks a column the tables need (one line naming the file), or\n"
    "files whose rows no table (or no --table NAME) shows: nothing to report.\n";

/* The probe families of d's rows, comma-separated, in order of first
 * appearance ("latency, cluster"). */
static void probe_names(const mp_rep_data *d, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < d->nrows && used < len; i++) {
        const char *p = mp_rep_text(d, &d->rows[i], MP_F_PROBE);
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = !strcmp(mp_rep_text(d, &d->rows[k], MP_F_PROBE), p);
        if (!seen)
            used += (size_t)snprintf(out + used, len - used, "%s%s",
                                     used ? ", " : "", p[0] ? p : "(none)");
    }
}

/* What `memprobe report` was asked for. */
typedef struct {
    const char *format, *table, *device, *plot_dir, *study, *results;
    const char *output, *kind;
    int merge;
    const char **files;   /* gathered at the front of argv */
    int nfiles;
    mp_rep_format f;
} report_args;

/* Reads the options into a; the file arguments are gathered at the front
 * of argv itself (never ahead of the argument being read): nothing on the
 * heap, so the usage errors (exit 2) leave nothing behind. */
static void parse_args(int argc, char **argv, report_args *a)
{
    memset(a, 0, sizeof *a);
    a->files = (const char **)argv;
#define TEXT(n, d, e) {.name = n, .kind = MP_OPT_TEXT, .dest = d, \
                          .once = 1, .empty = e}
    const mp_opt opts[] = {
        TEXT("format", &a->format, "empty value"),
        TEXT("table", &a->table, "empty value"),
        TEXT("device", &a->device, "empty value"),
        TEXT("plot-data", &a->plot_dir, "empty value"),
        TEXT("study", &a->study, "empty value"),
        TEXT("results", &a->results, "empty value"),
        TEXT("kind", &a->kind, "empty value"),
        {.name = "merge", .kind = MP_OPT_FLAG, .dest = &a->merge, .once = 1},
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &a->output, .once = 1, .empty = "empty file name"},
    };
#undef TEXT
    const mp_opts_spec spec = {
        .cmd = "report", .opts = opts, .nopts = 9,
        .dashes = MP_OPTS_DASH_ONE, .rest = a->files, .nrest = &a->nfiles,
        .max_rest = argc, .usage = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
}

/* The format's name, and the table's among the registered ones. */
static void check_format_and_table(report_args *a)
{
    a->f = MP_REP_TXT;
    if (a->format) {
        if (!strcmp(a->format, "md"))
            a->f = MP_REP_MD;
        else if (!strcmp(a->format, "csv"))
            a->f = MP_REP_CSV;
        else if (strcmp(a->format, "txt"))
            mp_usage_error("--format: '%s' is not txt, md or csv", a->format);
    }
    if (!a->table)
        return;
    char names[512] = "";
    int known = 0;
    for (int i = 0; mp_rep_table_name(i); i++) {
        known |= !strcmp(mp_rep_table_name(i), a->table);
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                 mp_rep_table_name(i));
    }
    if (!known)
        mp_usage_error("--table: no table '%s' (%s)", a->table, names);
}

/* The options that go together (--study, --results, --plot-data, --merge
 * and -o). */
static void check_combinations(const report_args *a)
{
    if (a->study) {
        if (a->nfiles)
            mp_usage_error("--study: reads the study's own CSVs from "
                           "--results DIR; '%s' is not wanted", a->files[0]);
        if (a->format || a->table || a->device)
            mp_usage_error("--study: takes no --%s", a->format ? "format"
                           : a->table ? "table" : "device");
    } else {
        if (a->results)
            mp_usage_error("--results: only with --study");
        if (!a->nfiles)
            mp_usage_error("report: no CSV file given (memprobe report "
                           "FILE.csv...; see --help)");
        if (a->plot_dir && (a->format || a->table))
            mp_usage_error("--plot-data: takes no --%s",
                           a->format ? "format" : "table");
    }
    if (a->output && !a->merge)
        mp_usage_error("-o: only with --merge");
    if (a->merge) {
        if (a->study || a->plot_dir || a->device)
            mp_usage_error("--merge: takes no --%s", a->study ? "study"
                           : a->plot_dir ? "plot-data" : "device");
        if (!a->output || !strcmp(a->output, "-"))
            mp_usage_error("--merge: needs -o MERGED.csv, a new file");
    }
}

/* --merge: the inputs' rows appended to the new file -o, which then is
 * the one file reported. */
static void merge_inputs(report_args *a)
{
    char err[1024] = "";
    FILE *exists = fopen(a->output, "r");
    if (exists) {
        int c = fgetc(exists);
        fclose(exists);
        if (c != EOF)
            mp_usage_error("-o: %s exists and is not empty; --merge "
                           "writes a new file", a->output);
    }
    int total = 0;
    for (int i = 0; i < a->nfiles; i++) {
        int rows;
        if (!strcmp(a->files[i], a->output))
            mp_usage_error("--merge: %s is both input and -o", a->output);
        FILE *in = fopen(a->files[i], "r");
        if (!in)
            mp_usage_error("report: cannot read %s: %s", a->files[i],
                           strerror(errno));
        fclose(in);
        if (mp_csv_append_rows(a->output, a->files[i], 0, &rows, err,
                               sizeof err))
            mp_usage_error("--merge: %s", err);
        total += rows;
    }
    fprintf(stderr, "memprobe: merged %d rows of %d file%s into %s\n",
            total, a->nfiles, a->nfiles == 1 ? "" : "s", a->output);
    a->files[0] = a->output;
    a->nfiles = 1;
}

/* --study FILE: the study document; MP_EXIT_OK or MP_EXIT_FAIL. */
static int write_study(const report_args *a, mp_rep_data *d)
{
    char err[1024] = "";
    FILE *out = fopen(a->study, "w");
    if (!out) {
        mp_rep_free(d);
        mp_usage_error("--study: cannot write %s: %s", a->study,
                       strerror(errno));
    }
    int rc = mp_study_write(d, a->results, out, err, sizeof err);
    if (fclose(out) != 0 && rc == 0) {
        rc = -1;
        snprintf(err, sizeof err, "%s: %s", a->study, strerror(errno));
    }
    if (rc) {
        fprintf(stderr, "memprobe: report: %s\n", err);
        return MP_EXIT_FAIL;
    }
    printf("wrote %s\n", a->study);
    return MP_EXIT_OK;
}

/* The tables; when none has a row, one line saying whose rows the files
 * hold, and exit 2. */
static void print_tables(const report_args *a, mp_rep_data *d)
{
    if (mp_rep_print_all(d, a->table, a->f, stdout) != -2)
        return;
    char probes[256];
    probe_names(d, probes, sizeof probes);
    char first[512];
    snprintf(first, sizeof first, "%s", d->files[0].path);
    int others = d->nfiles - 1;
    mp_rep_free(d);
    if (a->table)
        mp_usage_error("report: --table %s: no row of %s%s belongs to it "
                       "(their probes: %s)", a->table, first,
                       others ? " and the other files" : "", probes);
    mp_usage_error("report: no table has a row from %s%s (their probes: "
                   "%s): nothing to report", first,
                   others ? " and the other files" : "", probes);
}

/* What a CSV is, by its header: the one place memprobe report reads it. */
typedef enum { CSV_RESULTS, CSV_PROFILE, CSV_LINES, CSV_EXPLAIN } csv_kind;
static const char *const csv_kind_names[] = {
    "memprobe's results", "memprobe profile's launches (PROFILE.csv)",
    "memprobe profile's lines", "memprobe explain's"};

/* Whether path's first line names memprobe explain's columns. */
static int is_explain_csv(const char *path)
{
    char line[2048] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int yes = fgets(line, sizeof line, f) && strstr(line, "function_offset")
              && strstr(line, "fix_rank");
    fclose(f);
    return yes;
}

static csv_kind sniff(const char *path)
{
    if (mp_prof_is_profile_csv(path))
        return CSV_PROFILE;
    if (mp_prof_is_lines_csv(path))
        return CSV_LINES;
    return is_explain_csv(path) ? CSV_EXPLAIN : CSV_RESULTS;
}

/* A file --kind names that cannot be read: exit 2 naming it. */
static void must_open(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        mp_usage_error("report: %s: cannot open: %s", path, strerror(errno));
    fclose(f);
}

/* --kind K: the files must be what K names, by their kinds (exit 2
 * naming the first that is not); returns the report to make: CSV_RESULTS, or CSV_PROFILE
 * (with an explain CSV when there are two files). */
static csv_kind check_kind(const report_args *a, const csv_kind *kinds)
{
    int profile = !strcmp(a->kind, "profile"), explain = !strcmp(a->kind,
                                                                  "explain");
    if (!profile && !explain && strcmp(a->kind, "results"))
        mp_usage_error("--kind: '%s' is not results, profile or explain",
                       a->kind);
    if (profile || explain) {
        if (a->nfiles != 1 + explain && !(profile && a->nfiles == 2))
            mp_usage_error("--kind %s: takes PROFILE.csv%s", a->kind,
                           explain ? " and EXPLAIN.csv" : " [EXPLAIN.csv]");
        for (int i = 0; i < a->nfiles; i++) {
            must_open(a->files[i]);
            csv_kind want = i ? CSV_EXPLAIN : CSV_PROFILE, got = kinds[i];
            if (got != want)
                mp_usage_error("--kind %s: %s is a CSV of %s, not of %s",
                               a->kind, a->files[i], csv_kind_names[got],
                               csv_kind_names[want]);
        }
        return CSV_PROFILE;
    }
    for (int i = 0; i < a->nfiles; i++)
        if (kinds[i] != CSV_RESULTS)
            mp_usage_error("--kind results: %s is a CSV of %s", a->files[i],
                           csv_kind_names[kinds[i]]);
    return CSV_RESULTS;
}

/* A CSV of memprobe profile, reported alone (or with memprobe explain's
 * CSV of the same program): its worst lines, kernels and NVTX ranges
 * (profile/profile_report.c). */
static int report_profile(report_args *a, const char *explain)
{
    char err[1024] = "";
    if (a->table || a->device || a->study || a->merge || a->results)
        mp_usage_error("--%s: not for a profile CSV", a->table ? "table"
                       : a->device ? "device" : a->study ? "study"
                       : a->merge ? "merge" : "results");
    if (a->plot_dir && a->format)
        mp_usage_error("--plot-data: takes no --format");
    check_format_and_table(a);
    if (explain && a->plot_dir)
        mp_usage_error("--plot-data: not with an explain CSV");
    if (mp_prof_report(a->files[0], explain, a->f, a->plot_dir, stdout, err,
                       sizeof err))
        mp_usage_error("report: %s", err);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "memprobe: report: cannot write the output: %s\n",
                strerror(errno));
        return MP_EXIT_FAIL;
    }
    return MP_EXIT_OK;
}

int mp_cmd_report(int argc, char **argv)
{
    report_args a;
    char err[1024] = "";
    parse_args(argc, argv, &a);
    /* each file's header read once, here (a variable-length array: the
     * usage errors below leave nothing on the heap) */
    csv_kind kinds[a.nfiles + 1];
    for (int i = 0; i < a.nfiles; i++)
        kinds[i] = sniff(a.files[i]);
    if (a.kind && check_kind(&a, kinds) == CSV_PROFILE)
        return report_profile(&a, a.nfiles == 2 ? a.files[1] : NULL);
    if (a.nfiles == 1 && kinds[0] == CSV_PROFILE)
        return report_profile(&a, NULL);
    if (a.nfiles == 2 && kinds[0] == CSV_PROFILE && kinds[1] == CSV_EXPLAIN)
        return report_profile(&a, a.files[1]);
    /* Among several files (a results folder's glob), the CSVs of memprobe
     * profile are left out, each said: they are reported one at a time. */
    int kept = 0, left = 0;
    const char *first_left = NULL;
    for (int i = 0; i < a.nfiles; i++)
        if (kinds[i] == CSV_PROFILE || kinds[i] == CSV_LINES) {
            if (!left++)
                first_left = a.files[i];
        }
    if (left && left == a.nfiles)
        mp_usage_error("report: %s%s: CSVs of memprobe profile are reported "
                       "one at a time (memprobe report PROFILE.csv)",
                       first_left, left > 1 ? " and the others" : "");
    for (int i = 0; i < a.nfiles; i++) {
        if (kinds[i] == CSV_PROFILE || kinds[i] == CSV_LINES)
            fprintf(stderr, "memprobe: report: skipping %s: a CSV of "
                    "memprobe profile (report it alone)\n", a.files[i]);
        else
            a.files[kept++] = a.files[i];
    }
    a.nfiles = kept;
    check_format_and_table(&a);
    check_combinations(&a);
    if (a.merge)
        merge_inputs(&a);

    mp_rep_data d;
    int rc = a.study ? mp_study_load(&d, a.results, err, sizeof err)
                     : mp_rep_load(&d, a.nfiles, a.files, a.device, stderr,
                                   err, sizeof err);
    if (rc)
        mp_usage_error("report: %s", err);

    int status = a.study ? write_study(&a, &d) : MP_EXIT_OK;
    if (status == MP_EXIT_OK && a.plot_dir) {
        if (mp_rep_plot_data(&d, a.plot_dir, err, sizeof err)) {
            fprintf(stderr, "memprobe: report: %s\n", err);
            status = MP_EXIT_USAGE;
        } else {
            printf("wrote the plot data to %s\n", a.plot_dir);
        }
    }
    if (a.merge && d.nall > d.nrows) {
        fprintf(stderr, "memprobe: report: --merge: %d configuration%s "
                "measured more than once on one device (overlapping "
                "shards?)\n", d.nall - d.nrows, d.nall - d.nrows == 1 ? ""
                : "s");
        status = MP_EXIT_FAIL;
    }
    if (!a.study && !a.plot_dir)
        print_tables(&a, &d);
    mp_rep_free(&d);
    if (fflush(stdout) != 0 && status == MP_EXIT_OK) {
        fprintf(stderr, "memprobe: report: cannot write the output: %s\n",
                strerror(errno));
        status = MP_EXIT_FAIL;
    }
    return status;
}
