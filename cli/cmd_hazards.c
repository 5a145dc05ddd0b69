/*
 * cmd_hazards.c - `memprobe hazards`: its usage, the GPU check and the
 * run of the hazard catalogue (probes/hazards/hazards.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "hazards.h"
#include "subprocess.h"

static void print_wrapped(FILE *out, const char *text, int indent, int width)
{
    int col = 0;
    for (const char *p = text; *p; ) {
        size_t word = strcspn(p, " ");
        if (col && col + 1 + (int)word > width) {
            fputc('\n', out);
            col = 0;
        }
        if (!col)
            col = fprintf(out, "%*s", indent, "");
        else
            col += fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)word, p);
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

static void usage(FILE *out)
{
    fprintf(out,
        "usage: memprobe hazards [--tools LIST] [--hazards LIST] "
        "[--timeout S]\n"
        "                        [--compute-sanitizer PATH] [-o FILE] "
        "[--log-dir DIR]\n"
        "       memprobe hazards --run NAME [--threads T] "
        "[--timeout S] [--ignore-result]\n\n"
        "The seeds' dot product with a shared cache[] tree reduction, "
        "written correctly\nand with each of its synchronisation bugs, run "
        "with a result check and under\ncompute-sanitizer's tools, each run "
        "in a child process with a time limit.\nPrints hazard x tool -> "
        "caught / not caught with each tool's first finding,\nand appends "
        "the same as CSV (docs/hazards.md). Needs a GPU and\n"
        "compute-sanitizer.\n\nHazards:\n");
    for (int k = 0; k < MP_HZ_COUNT; k++) {
        char sizes[64] = "";
        for (int r = 0; r < mp_hazard_nrows; r++)
            if (mp_hazard_rows[r].kernel == k)
                snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes),
                         "%s%d", sizes[0] ? "," : "",
                         mp_hazard_rows[r].threads);
        fprintf(out, "  %s (%s; threads %s)\n", mp_hazard_defs[k].name,
                mp_hazard_defs[k].seed, sizes);
        print_wrapped(out, mp_hazard_defs[k].what, 6, 78);
    }
    fprintf(out,
        "\nOptions:\n"
        "  --tools LIST             some of memcheck,racecheck,synccheck,"
        "initcheck\n"
        "                           (default all four); none = the result "
        "check alone,\n"
        "                           without compute-sanitizer\n"
        "  --hazards LIST           the hazards to run (default all)\n"
        "  --timeout S              seconds one run may take before it is "
        "killed and\n"
        "                           reported as a timeout (default %g, at "
        "most %g)\n"
        "  --compute-sanitizer PATH the tool (default: the one in PATH, "
        "$CUDA_HOME/bin\n"
        "                           or /usr/local/cuda/bin)\n"
        "  -o, --output FILE        append the CSV rows to FILE (default\n"
        "                           %s; - = stdout)\n"
        "  --log-dir DIR            every run's output (default %s)\n"
        "  --run NAME               the child: run one kernel once; exit 0 "
        "if its result\n"
        "                           is right, 1 if wrong\n"
        "  --threads T              with --run: threads per block, a power "
        "of two 1..%d\n"
        "                           (default %d)\n"
        "  --ignore-result          with --run: exit 0 even when the result "
        "is wrong\n"
        "                           (--timeout with --run: the child ends "
        "itself 5 s after\n"
        "                           the limit, should the table's kill miss "
        "it)\n\n"
        "Exit status: 0 the table was produced and the correct kernel came "
        "out right and\nclean under every tool; 1 otherwise; 2 bad input; 3 "
        "no GPU, or no\ncompute-sanitizer; 5 a CUDA error (--run).\n",
        MP_HZ_DEFAULT_TIMEOUT, MP_HZ_MAX_TIMEOUT, MP_HZ_DEFAULT_OUTPUT,
        MP_HZ_DEFAULT_LOG_DIR, MP_HZ_MAX_THREADS, MP_HZ_MAX_THREADS);
}

int mp_cmd_hazards(int argc, char **argv)
{
    mp_hazard_options o;
    char err[512], name[256], sanitizer[PATH_MAX] = "";
    if (mp_hazard_parse_options(argc, argv, &o, err, sizeof err))
        mp_usage_error("%s", err);
    if (o.help) {
        usage(stdout);
        return MP_EXIT_OK;
    }
    if (o.run >= 0)
        return mp_hazard_run_child(&o);
    /* A path given that is no program is bad input, found before the GPU. */
    if (o.ntools && o.sanitizer
        && mp_hazard_find_sanitizer(o.sanitizer, sanitizer, sizeof sanitizer))
        mp_usage_error("--compute-sanitizer: '%s' is not an executable file",
                       o.sanitizer);
    if (mp_hazard_gpu_name(name, sizeof name, err, sizeof err)) {
        fflush(stdout);
        fprintf(stderr, "memprobe: hazards: %s; nothing run\n", err);
        return MP_EXIT_NOGPU;
    }
    if (o.ntools && !o.sanitizer
        && mp_hazard_find_sanitizer(NULL, sanitizer, sizeof sanitizer)) {
        fprintf(stderr, "memprobe: hazards: compute-sanitizer not found in "
                "PATH, $CUDA_HOME/bin or /usr/local/cuda/bin: give "
                "--compute-sanitizer PATH, or --tools none for the result "
                "check alone; nothing run\n");
        return MP_EXIT_NOGPU;
    }
    return mp_hazards_table(&o, mp_self_path(), sanitizer, name, stdout);
}
