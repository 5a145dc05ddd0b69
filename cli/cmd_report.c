/*
 * report.c - `memprobe report`: tables, plot data and the study document
 * from memprobe's result CSVs (issue 7). The work is done in data.c,
 * tables.c, plotdata.c and study.c (see report.h); this file is the
 * command line.
 */
#include "report.h"
#include "check.h"
#include "options.h"
#include "params.h"
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
    "skipped with a note.\n"
    "\n"
    "  --format F      txt (aligned text, default), md (Markdown) or csv\n"
    "                  (one block per table, its first column 'table')\n"
    "  --table NAME    only this table: bank, padding, matrix, matrix-free,\n"
    "                  bitmap, coalesce, layouts, bandwidth, const, texture,\n"
    "                  reduction, transfers, peers, async or cluster\n"
    "  --device NAME   only rows whose device_name contains NAME\n"
    "  --plot-data DIR write the data files of scripts/plots/*.gp into DIR\n"
    "                  (first device) instead of printing tables\n"
    "  --merge         append the rows of every FILE (the shards of a sweep,\n"
    "                  from a Slurm array or several nodes) to the new file\n"
    "                  given by -o, check that no device measured one\n"
    "                  configuration twice, and print the tables of the\n"
    "                  merged file, devices side by side\n"
    "  --study OUT.md  write the study document (docs/study.md) from the\n"
    "                  CSVs in --results DIR (default results/h200)\n"
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

int mp_cmd_report(int argc, char **argv)
{
    const char *format = NULL, *table = NULL, *device = NULL;
    const char *plot_dir = NULL, *study = NULL, *results = NULL;
    const char *output = NULL;
    int merge = 0;
    /* The file arguments are gathered at the front of argv itself (never
     * ahead of the argument being read): nothing on the heap, so the many
     * usage errors below (exit 2) leave nothing behind. */
    const char **files = (const char **)argv;
    int nfiles = 0;
    char err[1024] = "";

#define TEXT(n, d, e) {.name = n, .kind = MP_OPT_TEXT, .dest = d, \
                          .once = 1, .empty = e}
    const mp_opt opts[] = {
        TEXT("format", &format, "empty value"),
        TEXT("table", &table, "empty value"),
        TEXT("device", &device, "empty value"),
        TEXT("plot-data", &plot_dir, "empty value"),
        TEXT("study", &study, "empty value"),
        TEXT("results", &results, "empty value"),
        {.name = "merge", .kind = MP_OPT_FLAG, .dest = &merge, .once = 1},
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &output, .once = 1, .empty = "empty file name"},
    };
#undef TEXT
    const mp_opts_spec spec = {
        .cmd = "report", .opts = opts, .nopts = 8,
        .dashes = MP_OPTS_DASH_ONE, .rest = files, .nrest = &nfiles,
        .max_rest = argc, .usage = usage};
    mp_opts_parse(&spec, argc, argv, NULL);

    mp_rep_format f = MP_REP_TXT;
    if (format) {
        if (!strcmp(format, "md"))
            f = MP_REP_MD;
        else if (!strcmp(format, "csv"))
            f = MP_REP_CSV;
        else if (strcmp(format, "txt"))
            mp_usage_error("--format: '%s' is not txt, md or csv", format);
    }
    if (table) {
        int known = 0;
        for (int i = 0; mp_rep_table_name(i); i++)
            known |= !strcmp(mp_rep_table_name(i), table);
        if (!known)
            mp_usage_error("--table: no table '%s' (bank, padding, matrix, "
                           "matrix-free, bitmap, coalesce, layouts, "
                           "bandwidth, const, texture, reduction, transfers, "
                           "peers, async, cluster)", table);
    }
    if (study) {
        if (nfiles)
            mp_usage_error("--study: reads the study's own CSVs from "
                           "--results DIR; '%s' is not wanted", files[0]);
        if (format || table || device)
            mp_usage_error("--study: takes no --%s", format ? "format"
                           : table ? "table" : "device");
    } else {
        if (results)
            mp_usage_error("--results: only with --study");
        if (!nfiles)
            mp_usage_error("report: no CSV file given (memprobe report "
                           "FILE.csv...; see --help)");
        if (plot_dir && (format || table))
            mp_usage_error("--plot-data: takes no --%s",
                           format ? "format" : "table");
    }

    if (output && !merge)
        mp_usage_error("-o: only with --merge");
    if (merge) {
        if (study || plot_dir || device)
            mp_usage_error("--merge: takes no --%s", study ? "study"
                           : plot_dir ? "plot-data" : "device");
        if (!output || !strcmp(output, "-"))
            mp_usage_error("--merge: needs -o MERGED.csv, a new file");
        FILE *exists = fopen(output, "r");
        if (exists) {
            int c = fgetc(exists);
            fclose(exists);
            if (c != EOF)
                mp_usage_error("-o: %s exists and is not empty; --merge "
                               "writes a new file", output);
        }
        int total = 0;
        for (int i = 0; i < nfiles; i++) {
            int rows;
            if (!strcmp(files[i], output))
                mp_usage_error("--merge: %s is both input and -o", output);
            FILE *in = fopen(files[i], "r");
            if (!in)
                mp_usage_error("report: cannot read %s: %s", files[i],
                               strerror(errno));
            fclose(in);
            if (mp_csv_append_rows(output, files[i], 0, &rows, err,
                                   sizeof err))
                mp_usage_error("--merge: %s", err);
            total += rows;
        }
        fprintf(stderr, "memprobe: merged %d rows of %d file%s into %s\n",
                total, nfiles, nfiles == 1 ? "" : "s", output);
        files[0] = output;
        nfiles = 1;
    }

    mp_rep_data d;
    int rc = study ? mp_study_load(&d, results, err, sizeof err)
                   : mp_rep_load(&d, nfiles, files, device, stderr, err,
                                 sizeof err);
    if (rc)
        mp_usage_error("report: %s", err);

    int status = MP_EXIT_OK;
    if (study) {
        FILE *out = fopen(study, "w");
        if (!out) {
            mp_rep_free(&d);
            mp_usage_error("--study: cannot write %s: %s", study,
                           strerror(errno));
        }
        rc = mp_study_write(&d, results ? results : "results/h200", out, err,
                            sizeof err);
        if (fclose(out) != 0 && rc == 0) {
            rc = -1;
            snprintf(err, sizeof err, "%s: %s", study, strerror(errno));
        }
        if (rc) {
            fprintf(stderr, "memprobe: report: %s\n", err);
            status = MP_EXIT_FAIL;
        } else {
            printf("wrote %s\n", study);
        }
    }
    if (status == MP_EXIT_OK && plot_dir) {
        if (mp_rep_plot_data(&d, plot_dir, err, sizeof err)) {
            fprintf(stderr, "memprobe: report: %s\n", err);
            status = MP_EXIT_USAGE;
        } else {
            printf("wrote the plot data to %s\n", plot_dir);
        }
    }
    if (merge && d.nall > d.nrows) {
        fprintf(stderr, "memprobe: report: --merge: %d configuration%s "
                "measured more than once on one device (overlapping "
                "shards?)\n", d.nall - d.nrows, d.nall - d.nrows == 1 ? ""
                : "s");
        status = MP_EXIT_FAIL;
    }
    if (!study && !plot_dir && mp_rep_print_all(&d, table, f, stdout) == -2) {
        char probes[256];
        probe_names(&d, probes, sizeof probes);
        char first[512];
        snprintf(first, sizeof first, "%s", d.files[0].path);
        int others = d.nfiles - 1;
        mp_rep_free(&d);
        if (table)
            mp_usage_error("report: --table %s: no row of %s%s belongs to it "
                           "(their probes: %s)", table, first,
                           others ? " and the other files" : "", probes);
        mp_usage_error("report: no table has a row from %s%s (their probes: "
                       "%s): nothing to report", first,
                       others ? " and the other files" : "", probes);
    }
    mp_rep_free(&d);
    if (fflush(stdout) != 0 && status == MP_EXIT_OK) {
        fprintf(stderr, "memprobe: report: cannot write the output: %s\n",
                strerror(errno));
        status = MP_EXIT_FAIL;
    }
    return status;
}
