/*
 * test_options.c - the one option parser (runtime/options.c) on tables
 * made up here: values in both spellings, aliases, flags, given twice,
 * missing and empty values, unknown options and positional arguments by
 * each dash rule, --help, the ARGV and FN kinds, and the word splitter. The commands' own
 * messages are tested through ./memprobe by the CLI tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const mp_param_def count_def = {
    "count", MP_PARAM_INT, 1, 1, 8, NULL, 0, NULL, "a count", NULL, NULL,
    NULL};

typedef struct {
    const char *out, *format;
    long long count;
    int verbose;
    const char *rest[4];
    int nrest;
    int given[8];
    char err[256];
} parsed;

static int upper_fn(const char *value, void *dest, char *err, size_t errlen)
{
    if (!value[0] || value[0] < 'A' || value[0] > 'Z') {
        snprintf(err, errlen, "--mode: '%s' is not upper case", value);
        return -1;
    }
    *(const char **)dest = value;
    return 0;
}

/* --pair A B: takes the two words after it. */
static int pair_fn(int argc, char **argv, int *i, void *dest, char *err,
                   size_t errlen)
{
    if (*i + 2 >= argc) {
        snprintf(err, errlen, "--pair: needs two words");
        return -1;
    }
    const char **d = dest;
    d[0] = argv[++*i];
    d[1] = argv[++*i];
    return 0;
}

static const char *mode, *pair[2];

static int run(parsed *p, mp_opts_dashes dashes, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->count = count_def.def;
    mode = pair[0] = pair[1] = NULL;
    const mp_opt opts[] = {
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &p->out, .once = 1, .empty = "needs a file name"},
        {.name = "format", .kind = MP_OPT_TEXT, .dest = &p->format},
        {.name = "count", .kind = MP_OPT_VALUE, .dest = &p->count,
         .once = 1, .def = &count_def},
        {.name = "verbose", .alias = "-v", .kind = MP_OPT_FLAG,
         .dest = &p->verbose, .value_error = 1},
        {.name = "mode", .kind = MP_OPT_FN, .dest = &mode, .fn = upper_fn},
        {.name = "pair", .kind = MP_OPT_ARGV, .dest = pair,
         .argv_fn = pair_fn},
    };
    mp_opts_spec spec = {
        .cmd = "try", .opts = opts, .nopts = 6, .dashes = dashes,
        .unknown_tail = " (see try --help)", .unexpected_tail = "",
        .rest = p->rest, .nrest = &p->nrest, .max_rest = 2,
        .usage = "usage: try\n",
    };
    return mp_opts_read(&spec, argc, argv, p->given, p->err, sizeof p->err);
}

#define ARGS(...) ((char *[]){__VA_ARGS__, NULL})
#define NARGS(...) ((int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)))
#define RUN(p, dashes, ...) run(p, dashes, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__))

static void test_values_and_aliases(void **state)
{
    (void)state;
    parsed p;
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--output", "a.csv",
                         "--count=4", "-v", "x", "--format=", "-v"),
                     MP_OPTS_OK);
    assert_string_equal(p.out, "a.csv");
    assert_int_equal(p.count, 4);
    assert_int_equal(p.verbose, 2);   /* a flag counts its uses */
    assert_string_equal(p.format, "");   /* no .empty: allowed */
    assert_int_equal(p.nrest, 1);
    assert_string_equal(p.rest[0], "x");
    assert_int_equal(p.given[0], 1);
    assert_int_equal(p.given[2], 1);
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "-o", "b.csv"), MP_OPTS_OK);
    assert_string_equal(p.out, "b.csv");
    assert_int_equal(p.count, 1);   /* the default stays */
}

static void test_errors_name_the_option(void **state)
{
    (void)state;
    parsed p;
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--output"), MP_OPTS_ERROR);
    assert_string_equal(p.err, "--output: needs a value");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--output", ""),
                     MP_OPTS_ERROR);
    assert_string_equal(p.err, "--output: needs a file name");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "-o", "a", "--output=b"),
                     MP_OPTS_ERROR);
    assert_string_equal(p.err, "--output: given twice");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--count", "9"),
                     MP_OPTS_ERROR);
    assert_non_null(strstr(p.err, "--count"));
    assert_non_null(strstr(p.err, "1..8"));
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--verbose=1"),
                     MP_OPTS_ERROR);
    assert_string_equal(p.err, "--verbose: takes no value");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--nope"), MP_OPTS_ERROR);
    assert_string_equal(p.err, "try: unknown option '--nope' (see try --help)");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "a", "b", "c"), MP_OPTS_ERROR);
    assert_string_equal(p.err, "try: unexpected argument 'c'");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--mode", "low"),
                     MP_OPTS_ERROR);
    assert_string_equal(p.err, "--mode: 'low' is not upper case");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--pair", "x"), MP_OPTS_ERROR);
    assert_string_equal(p.err, "--pair: needs two words");
}

/* Which arguments are options, by the dash rule. */
static void test_dash_rules(void **state)
{
    (void)state;
    parsed p;
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ANY, "-"), MP_OPTS_ERROR);
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "-"), MP_OPTS_OK);
    assert_string_equal(p.rest[0], "-");
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "-x"), MP_OPTS_ERROR);
    assert_int_equal(RUN(&p, MP_OPTS_DASH_TWO, "-x"), MP_OPTS_OK);
    assert_string_equal(p.rest[0], "-x");
    assert_int_equal(RUN(&p, MP_OPTS_ALL, "x"), MP_OPTS_ERROR);
    assert_string_equal(p.err, "try: unknown option 'x' (see try --help)");
    assert_int_equal(RUN(&p, MP_OPTS_NONE, "--nope"), MP_OPTS_OK);
    assert_string_equal(p.rest[0], "--nope");
}

/* mp_split_words: words at any run of spaces, none for an empty text,
 * -1 past max (the first max kept). */
static void test_split_words(void **state)
{
    (void)state;
    char *w[3], *buf;
    assert_int_equal(mp_split_words("  --stride 1,2   --width 4 ", w, 3,
                                    &buf), -1);
    assert_string_equal(w[2], "--width");
    free(buf);
    assert_int_equal(mp_split_words("--stride  1,2", w, 3, &buf), 2);
    assert_string_equal(w[0], "--stride");
    assert_string_equal(w[1], "1,2");
    free(buf);
    assert_int_equal(mp_split_words("   ", w, 3, &buf), 0);
    free(buf);
    const char *four = "a b c d";
    assert_int_equal(mp_split_words(four + 2, w, 3, &buf), 3);
    assert_string_equal(w[2], "d");
    assert_string_equal(four, "a b c d");   /* the text is not written */
    free(buf);
}

static void test_help_fn_and_argv(void **state)
{
    (void)state;
    parsed p;
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--count", "2", "-h", "--x"),
                     MP_OPTS_HELP);
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--help"), MP_OPTS_HELP);
    assert_int_equal(RUN(&p, MP_OPTS_DASH_ONE, "--mode=UP", "--pair", "a",
                         "b", "c"),
                     MP_OPTS_OK);
    assert_string_equal(mode, "UP");
    assert_string_equal(pair[0], "a");
    assert_string_equal(pair[1], "b");
    assert_int_equal(p.nrest, 1);
    assert_string_equal(p.rest[0], "c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_and_aliases),
        cmocka_unit_test(test_errors_name_the_option),
        cmocka_unit_test(test_dash_rules),
        cmocka_unit_test(test_help_fn_and_argv),
        cmocka_unit_test(test_split_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
