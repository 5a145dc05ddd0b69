/*
 * params.h - table-driven probe parameters.
 *
 * Every probe declares its parameters in one table of mp_param_def. The
 * command line (--stride 4), make (STRIDE=4) and sweep files all go through
 * the same parser, so a value is checked the same way wherever it comes
 * from. A value may be a list or a range, which makes a sweep:
 *
 *     4          one value
 *     4,8,16     a list
 *     0..64      every value from 0 to 64
 *     0..64:4    0, 4, 8, ... 64
 *     8..1024:x2 8, 16, 32, ... 1024 (each value times the factor)
 *
 * Choice parameters (op = ld|st) store the index of the choice. Text
 * parameters (a list of 32 offsets 'o0;o1;...') store a handle: 0 for the
 * default "none", else the index of the text in a table of the texts this
 * process has parsed (mp_param_text gives it back). A text never holds a
 * comma, so a list of texts is still comma-separated.
 */
#ifndef MP_PARAMS_H
#define MP_PARAMS_H

#include <stddef.h>

#define MP_MAX_PARAMS 24
#define MP_MAX_LIST 4096   /* values one parameter may take in one run */

typedef enum { MP_PARAM_INT, MP_PARAM_CHOICE, MP_PARAM_TEXT } mp_param_kind;

typedef struct {
    const char *name;             /* --name on the command line */
    mp_param_kind kind;
    long long def;                /* default (CHOICE: index into choices) */
    long long min, max;           /* INT: allowed range, inclusive */
    const long long *allowed;     /* INT: if non-NULL, the only values */
    int nallowed;
    const char *const *choices;   /* CHOICE: names, NULL-terminated */
    const char *help;             /* one line for `memprobe list` */
    /* CHOICE, optional: per choice, the compute capability times ten its
     * instruction needs (80 = 8.0; 0 = any GPU), constants from
     * probes/arch.h. A GPU below it refuses the value (exit 2). */
    const int *choice_cc;
    /* TEXT: what a value looks like ("o0;o1;...;o31"), and its check:
     * 0, or -1 with a one-line message (without the "--name: "). */
    const char *text_form;
    int (*text_check)(const char *text, char *err, size_t errlen);
} mp_param_def;

/* Table rows of the two common forms, naming only the fields that form
 * uses (the others 0 / NULL): an integer from min to max, and a choice
 * among names (NULL-terminated; def is an index into them). A row with
 * a list of allowed values, per-choice needs or a text form spells out
 * the struct. */
#define MP_INT_PARAM(name_, def_, min_, max_, help_)                     \
    {.name = (name_), .kind = MP_PARAM_INT, .def = (def_), .min = (min_), \
     .max = (max_), .help = (help_)}
#define MP_CHOICE_PARAM(name_, def_, choices_, help_)                     \
    {.name = (name_), .kind = MP_PARAM_CHOICE, .def = (def_),             \
     .choices = (choices_), .help = (help_)}

typedef struct {
    long long v[MP_MAX_LIST];
    int n;
} mp_value_list;

/* Parses one value. Returns 0, or -1 with a one-line message in err that
 * names the parameter and what is allowed. */
int mp_param_parse_value(const mp_param_def *d, const char *text,
                         long long *out, char *err, size_t errlen);

/* Parses a value, list or range (see top of file) into `out`. */
int mp_param_parse_list(const mp_param_def *d, const char *text,
                        mp_value_list *out, char *err, size_t errlen);

/* Writes what values are allowed ("0..4096", "4|8|16", "ld|st"). */
void mp_param_describe_range(const mp_param_def *d, char *buf, size_t len);

/* Writes a value as text ("4", "ld"). */
void mp_param_format(const mp_param_def *d, long long v, char *buf,
                     size_t len);

/* The compute capability (times ten) value v of d needs; 0: any GPU. */
int mp_param_value_cc(const mp_param_def *d, long long v);

/* Can a GPU of compute capability gpu_cc (times ten, 75 = 7.5) run the
 * values v[0..n) of the table defs? 0, or -1 with the one-line reason
 * ("--cache pf256 needs compute capability 8.0 or newer; this GPU is
 * 7.5") in err. */
int mp_param_check_cc(const mp_param_def *defs, int n, const long long *v,
                      int gpu_cc, char *err, size_t errlen);

/* The requirements of d's choices for `memprobe list` and --help
 * (" [pf256: compute capability 8.0+]"), or "" when there are none. */
void mp_param_describe_cc(const mp_param_def *d, char *buf, size_t len);
/* The text behind a TEXT parameter's value ("none" for 0). */
const char *mp_param_text(long long handle);

/* Index of the parameter called `name` in a table, or -1. */
int mp_param_find(const mp_param_def *defs, int n, const char *name);

/* A family's check that value v of --name is a multiple of m: 0, or -1
 * with "--NAME: V is not a multiple of M" in err. */
int mp_param_check_multiple(const char *name, long long v, long long m,
                            char *err, size_t errlen);

#endif
