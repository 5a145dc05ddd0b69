/*
 * cmd_l2map.c - `memprobe l2map`: its options; the measurement is
 * probes/latency/l2map.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "l2map.h"
#include "options.h"

static const char usage[] =
    "usage: memprobe l2map [--sm LIST] [--lines N] [--plateau] [--tlb]\n"
    "                      [--format txt|md] [-o FILE]\n\n"
    "Where a line lives in the GPU's two-partition L2, seen from each SM "
    "(docs/latency.md,\n\"The L2's two halves\"). The lines of a buffer are "
    "sorted by home half (their\nfirst loads from SM 0 against an SM of the "
    "other half); then, for each SM, one\nthread walks a random chain "
    "through the lines of each home with ld.global.cg:\n"
    "  dram_near, dram_far  the walk after the L2 was emptied\n"
    "  near_hit, copy_hit   the second walk: the SM's own half's lines, "
    "and its\n"
    "                       copies of the other half's\n"
    "  far_hit              the first walk after an SM of the other half "
    "walked\n"
    "                       them: a hit in the far partition\n"
    "Cycles per load (clock64). Every walk must end where its chain says.\n\n"
    "Options:\n"
    "  --sm LIST       the SMs to map (default every SM), e.g. 0,1,66..131\n"
    "  --lines N       lines of 128 bytes in the map's buffer (default 8192,"
    " 1 MiB;\n"
    "                  512..1048576)\n"
    "  --plateau       also: random chases from SM 0 through lines of SM "
    "0's home,\n"
    "                  the other home, or both, at 16-96 MiB\n"
    "  --tlb           also: one line per 2 MiB page, 8..16384 pages "
    "(as many as\n"
    "                  half the free memory holds), from SM 0\n"
    "  --format F      txt (default) or md\n"
    "  -o, --output F  append the rows to CSV file F (- = stdout)\n\n"
    "Exit status: 0 ok, 1 a walk ended off its chain or one half, 2 bad "
    "input, 3 no GPU,\n5 a CUDA error.\n";

int mp_cmd_l2map(int argc, char **argv)
{
    static const char *const formats[] = {"txt", "md", NULL};
    static const mp_param_def format_def = {
        "format", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, formats,
        "txt or md", NULL, NULL, NULL};
    static const mp_param_def sm_def = {
        "sm", MP_PARAM_INT, 0, 0, 4095, NULL, 0, NULL, "an SM number",
        NULL, NULL, NULL};
    static const mp_param_def lines_def = {
        "lines", MP_PARAM_INT, 8192, 512, 1048576, NULL, 0, NULL,
        "lines of the buffer", NULL, NULL, NULL};
    mp_l2map_options o;
    memset(&o, 0, sizeof o);
    long long format = 0, lines = 8192;
    mp_value_list *sms = NULL;
    const mp_opt opts[] = {
        {.name = "sm", .kind = MP_OPT_LIST, .dest = &sms, .once = 1,
         .def = &sm_def},
        {.name = "lines", .kind = MP_OPT_VALUE, .dest = &lines, .once = 1,
         .def = &lines_def},
        {.name = "plateau", .kind = MP_OPT_FLAG, .dest = &o.plateau,
         .value_error = 1},
        {.name = "tlb", .kind = MP_OPT_FLAG, .dest = &o.tlb,
         .value_error = 1},
        {.name = "format", .kind = MP_OPT_VALUE, .dest = &format,
         .once = 1, .def = &format_def},
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &o.output, .once = 1, .empty = "empty file name"},
    };
    const mp_opts_spec spec = {
        .cmd = "l2map", .opts = opts, .nopts = (int)(sizeof opts
                                                     / sizeof *opts),
        .dashes = MP_OPTS_DASH_ONE,
        .unknown_tail = " (see memprobe l2map --help)",
        .usage = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
    o.lines = lines;
    o.md = format == 1;
    if (sms) {
        for (int i = 0; i < sms->n; i++) {
            long long v = sms->v[i];
            for (int k = 0; k < o.nsms; k++)
                if (o.sms[k] == v) {
                    free(sms);
                    mp_usage_error("--sm: %lld given twice", v);
                }
            o.sms[o.nsms++] = (int)v;
        }
        free(sms);
    }
    char why[512];
    if (o.output && strcmp(o.output, "-")
        && mp_l2map_check_output(o.output, why, sizeof why))
        mp_usage_error("-o: %s", why);
    int rc = mp_l2map_run(&o, stdout, why, sizeof why);
    if (rc == MP_EXIT_NOGPU) {
        fflush(stdout);
        fprintf(stderr, "memprobe: l2map: %s; nothing run\n", why);
    }
    return rc;
}
