/*
 * cmd_device.c - `memprobe device [--device N | --all]` and `memprobe
 * version`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "options.h"
#include "runner.h"
#include "version.h"

int mp_cmd_device(int argc, char **argv)
{
    long long ordinal = 0;
    int all = 0;
    char err[256];
    const mp_opt opts[] = {
        {.name = "all", .kind = MP_OPT_FLAG, .dest = &all},
        {.name = "device", .kind = MP_OPT_VALUE, .dest = &ordinal,
         .def = &mp_run_option_defs[MP_OPT_DEVICE]},
    };
    const mp_opts_spec spec = {
        .cmd = "device", .opts = opts, .nopts = 2, .dashes = MP_OPTS_ALL,
        .usage = "usage: memprobe device [--device N | --all]\n\nPrints "
                 "the GPU's properties that matter for memory studies;\n"
                 "--all: every GPU in short, its links and the peer "
                 "matrix.\n"};
    mp_opts_parse(&spec, argc, argv, NULL);
    if (all) {
        if (mp_device_available(err, sizeof err)) {
            fprintf(stderr, "memprobe: %s\n", err);
            return MP_EXIT_NOGPU;
        }
        int n = mp_device_count();
        mp_device_print_all(n, stdout);
        return MP_EXIT_OK;
    }
    mp_device d;
    if (mp_device_open((int)ordinal, &d, err, sizeof err)) {
        fprintf(stderr, "memprobe: %s\n", err);
        return MP_EXIT_NOGPU;
    }
    mp_device_print(&d, stdout);
    return MP_EXIT_OK;
}

int mp_cmd_version(int argc, char **argv)
{
    mp_cli_no_options("version", "usage: memprobe version", argc, argv);
    printf("memprobe %s\n", MP_VERSION);
    return MP_EXIT_OK;
}
