/*
 * options.h - the one option parser of every memprobe command:
 * a command declares a table of its options and where each value goes,
 * and mp_opts_parse reads argv: --help / -h, "--name value" and
 * "--name=value", short aliases ("-o"), unknown options, missing values,
 * options given twice and positional arguments, each with the one-line
 * message memprobe has always printed, and exit status 2.
 *
 * The messages: "--NAME: needs a value", "--NAME: given twice",
 * "--NAME: <empty>" (an option's own words for an empty value),
 * "CMD: unknown option 'ARG'<unknown_tail>" and
 * "CMD: unexpected argument 'ARG'<unexpected_tail>".
 */
#ifndef MP_OPTIONS_H
#define MP_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "params.h"

typedef enum {
    MP_OPT_FLAG,    /* no value; dest: int, counts the uses */
    MP_OPT_TEXT,    /* dest: const char *, the value as given */
    MP_OPT_VALUE,   /* dest: long long, parsed by def (mp_param_parse_value) */
    MP_OPT_LIST,    /* dest: mp_value_list *, allocated, parsed by def
                       (mp_param_parse_list); free()d by the caller */
    MP_OPT_FN,      /* the value goes to fn(value, dest, ...) */
    MP_OPT_ARGV     /* takes what it needs of argv itself: argv_fn */
} mp_opt_kind;

typedef struct mp_opt {
    const char *name;    /* long name, without "--" */
    const char *alias;   /* a short form matched exactly ("-o"), or NULL */
    mp_opt_kind kind;
    void *dest;
    int once;            /* a second use is "--NAME: given twice" */
    const char *empty;   /* TEXT: an empty value is "--NAME: <empty>";
                            NULL: allowed */
    const mp_param_def *def;   /* VALUE and LIST */
    /* FN: parses value into dest; 0, or -1 with a message in err. */
    int (*fn)(const char *value, void *dest, char *err, size_t errlen);
    /* ARGV (matched only as "--NAME" exactly): argv[*i] is the option;
     * moves *i past what it takes; 0, or -1 with a message in err. */
    int (*argv_fn)(int argc, char **argv, int *i, void *dest, char *err,
                   size_t errlen);
    int value_error;     /* FLAG: "--NAME=..." is matched, and refused
                            with "--NAME: takes no value"; 0: an unknown
                            option */
} mp_opt;

/* What "--" took: the rest of argv, a program and its arguments. */
typedef struct {
    int seen;      /* "--" was given */
    char **argv;   /* its first word (argv's NULL-terminated tail) */
    int n;         /* how many words */
} mp_opt_program;

/* The argv_fn of a row {.name = "", .kind = MP_OPT_ARGV} for "--": the
 * rest of argv into dest, an mp_opt_program. */
int mp_opt_take_program(int argc, char **argv, int *i, void *dest,
                        char *err, size_t errlen);

/* Which unmatched arguments are unknown options; the others are
 * positional arguments. */
typedef enum {
    MP_OPTS_DASH_ANY,     /* "-x" and "-"; "x" is positional */
    MP_OPTS_DASH_ONE,     /* "-x"; "-" (stdin, a file) and "x" positional */
    MP_OPTS_DASH_TWO,     /* "--x"; "-x", "-" and "x" positional */
    MP_OPTS_ALL,          /* every argument is an option */
    MP_OPTS_NONE          /* no argument is an option */
} mp_opts_dashes;

typedef struct {
    const char *cmd;             /* the name in messages ("report") */
    const mp_opt *opts;
    int nopts;
    mp_opts_dashes dashes;
    const char *option_too;      /* one more argument that is an option
                                    when no row takes it ("-o"), or NULL */
    const char *unknown_tail;    /* after "unknown option 'ARG'", or NULL */
    const char *unexpected_tail; /* after "unexpected argument 'ARG'" */
    /* Positional arguments go to rest[0..max_rest-1] (rest may be argv
     * itself: they gather at its front); *nrest counts them. rest NULL or
     * full: "unexpected argument". */
    const char **rest;
    int *nrest;
    int max_rest;
    /* stop reading once rest is full (a command's first word, with the
     * arguments after it left to the next table) */
    int stop_when_full;
    /* "given twice" is checked before the value is read (else after) */
    int twice_first;
    /* --help / -h: prints this (fputs), or calls usage_fn(stdout, ctx) */
    const char *usage;
    void (*usage_fn)(FILE *out, const void *ctx);
    const void *usage_ctx;
} mp_opts_spec;

#define MP_OPTS_MAX 64

enum { MP_OPTS_OK = 0, MP_OPTS_HELP = 1, MP_OPTS_ERROR = -1 };

/* Reads argv by spec: MP_OPTS_OK, MP_OPTS_HELP (--help or -h seen; the
 * rest is not read) or MP_OPTS_ERROR with the message in err. given
 * (nopts ints, or NULL) counts the uses of each option. Exits nothing. */
int mp_opts_read(const mp_opts_spec *spec, int argc, char **argv,
                 int *given, char *err, size_t errlen);

/* mp_opts_read for a command: on --help prints the usage and exits 0; on
 * an error exits 2 with "memprobe: <message>" (mp_usage_error). */
void mp_opts_parse(const mp_opts_spec *spec, int argc, char **argv,
                   int *given);

/* Splits text at spaces into words[0..max), pointing into *buf, a copy
 * the caller frees: an argv of the words of an option's value (ncu-check
 * --args). Returns how many, or -1 when there are more than max. */
int mp_split_words(const char *text, char **words, int max, char **buf);

#endif
