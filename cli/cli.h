/*
 * cli.h - the commands of memprobe's command line (cli/main.c's table):
 * each takes the arguments after its name and returns the exit status
 * (runtime/check.h: MP_EXIT_*); bad input exits 2 with one line.
 */
#ifndef MP_CLI_H
#define MP_CLI_H

#include <stdio.h>

#include "options.h"
#include "params.h"
#include "probe.h"

int mp_cmd_measure(const mp_probe *p, int argc, char **argv); /* cmd_probe.c */
int mp_cmd_predict(int argc, char **argv);                    /* cmd_probe.c */
int mp_cmd_list(int argc, char **argv);                       /* cmd_list.c */
int mp_cmd_columns(int argc, char **argv);                    /* cmd_columns.c */
int mp_cmd_device(int argc, char **argv);                     /* cmd_device.c */
int mp_cmd_version(int argc, char **argv);                    /* cmd_device.c */
int mp_cmd_ncu_check(int argc, char **argv);                  /* cmd_ncu_check.c */
int mp_cmd_sweep(int argc, char **argv);                      /* cmd_sweep.c */
int mp_cmd_report(int argc, char **argv);                     /* cmd_report.c */
int mp_cmd_compare(int argc, char **argv);                    /* cmd_compare.c */
int mp_cmd_hierarchy(int argc, char **argv);                  /* cmd_hierarchy.c */
int mp_cmd_hazards(int argc, char **argv);                    /* cmd_hazards.c */
int mp_cmd_l2map(int argc, char **argv);                      /* cmd_l2map.c */
int mp_cmd_profile(int argc, char **argv);                    /* cmd_profile.c */
int mp_cmd_explain(int argc, char **argv);                    /* cmd_explain.c */

/* Exits 2 with one line naming the parameter unless argv are parameters
 * of p (no run options) whose every configuration passes p's check: what
 * `ncu-check --args` runs. */
void mp_cli_check_params(const mp_probe *p, int argc, char **argv);

/* Parses a command whose usage is one fixed text and whose arguments are
 * only the options opts[0 .. nopts) (none: NULL, 0): --help prints the
 * usage and exits 0, anything else is one line and exit 2. */
void mp_cli_fixed_usage(const char *cmd, const char *usage,
                        const mp_opt *opts, int nopts, int argc, char **argv);

/* A command without options: prints usage and exits 0 on --help or -h,
 * exits 2 on any argument. */
int mp_cli_no_options(const char *cmd, const char *usage, int argc,
                      char **argv);

/* The widest line of memprobe's help and list texts. */
#define MP_CLI_WIDTH 100

/* Prints text, then a newline, on a line that already holds col columns:
 * its words wrapped to lines of at most MP_CLI_WIDTH columns, every line
 * after the first indented by indent spaces. A bracketed part ("[stsm:
 * compute capability 9.0+]") counts as one word; a word longer than a
 * line stands alone on its line. */
void mp_cli_wrap(FILE *out, int col, int indent, const char *text);

/* One parameter's line of a --help or of `memprobe list`: name, range,
 * default and its help, wrapped under the help's column. */
void mp_cli_param_help(const mp_param_def *d, FILE *out);

#endif
