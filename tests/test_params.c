/*
 * test_params.c - CPU tests of runtime/params.c: strict value parsing,
 * lists and ranges, the describe/format helpers and the multiple-of
 * check, on the bank probe's real parameter table (probes/bank/bank.c)
 * plus two tables made up here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "probe.h"

extern const mp_probe mp_probe_bank;

/* A bank parameter by name; fails the test if it is missing. */
static const mp_param_def *bank_param(const char *name)
{
    int i = mp_param_find(mp_probe_bank.params, mp_probe_bank.nparams, name);
    if (i < 0)
        fail_msg("bank has no parameter '%s'", name);
    return &mp_probe_bank.params[i];
}

/* An INT parameter with a range wider than MP_MAX_LIST. */
static const mp_param_def wide = {"wide", MP_PARAM_INT, 0, 0, 10000000,
                                  NULL, 0, NULL, "test", NULL, NULL, NULL};
/* An INT parameter that allows negative values. */
static const mp_param_def signed_def = {"offset", MP_PARAM_INT, 0, -5, 5,
                                        NULL, 0, NULL, "test", NULL, NULL, NULL};

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("'%s' does not contain '%s'", hay, needle);
}

/* The value parses to `want`. */
static void value_ok(const mp_param_def *d, const char *text, long long want)
{
    long long v = -12345;
    char err[256] = "";
    if (mp_param_parse_value(d, text, &v, err, sizeof err) != 0)
        fail_msg("--%s '%s' refused: %s", d->name, text, err);
    assert_int_equal(v, want);
}

/* The value is refused; the message has one line naming --NAME, the
 * allowed range and `also` (if not NULL); *out is left alone. */
static void value_bad(const mp_param_def *d, const char *text,
                      const char *also)
{
    long long v = -12345;
    char err[256] = "";
    char name[64], range[128];
    int rc = mp_param_parse_value(d, text, &v, err, sizeof err);
    if (rc != -1)
        fail_msg("--%s '%s' accepted (rc %d, value %lld)", d->name, text,
                 rc, v);
    assert_int_equal(v, -12345);
    snprintf(name, sizeof name, "--%s", d->name);
    assert_contains(err, name);
    mp_param_describe_range(d, range, sizeof range);
    assert_contains(err, range);
    if (also)
        assert_contains(err, also);
    assert_null(strchr(err, '\n'));
}

static void list_bad(const mp_param_def *d, const char *text,
                     const char *also)
{
    static mp_value_list l;
    char err[256] = "";
    char name[64];
    if (mp_param_parse_list(d, text, &l, err, sizeof err) != -1)
        fail_msg("--%s list '%s' accepted (%d values)", d->name, text, l.n);
    snprintf(name, sizeof name, "--%s", d->name);
    assert_contains(err, name);
    if (also)
        assert_contains(err, also);
    assert_null(strchr(err, '\n'));
}

static mp_value_list *list_ok(const mp_param_def *d, const char *text)
{
    static mp_value_list l;
    char err[256] = "";
    if (mp_param_parse_list(d, text, &l, err, sizeof err) != 0)
        fail_msg("--%s list '%s' refused: %s", d->name, text, err);
    return &l;
}

static void test_find(void **state)
{
    (void)state;
    const mp_param_def *p = mp_probe_bank.params;
    int n = mp_probe_bank.nparams;
    assert_int_equal(n, 19);
    assert_int_equal(mp_param_find(p, n, "op"), 0);
    assert_int_equal(mp_param_find(p, n, "width"), 1);
    assert_int_equal(mp_param_find(p, n, "stride"), 2);
    assert_int_equal(mp_param_find(p, n, "iterations"), 9);
    assert_int_equal(mp_param_find(p, n, "block-x"), 11);
    assert_int_equal(mp_param_find(p, n, "strid"), -1);
    assert_int_equal(mp_param_find(p, n, "strides"), -1);
    assert_int_equal(mp_param_find(p, n, ""), -1);
    assert_int_equal(mp_param_find(p, n, "--stride"), -1);
}

static void test_parse_good_values(void **state)
{
    (void)state;
    const mp_param_def *stride = bank_param("stride");
    value_ok(stride, "0", 0);
    value_ok(stride, "4", 4);
    value_ok(stride, "4096", 4096);   /* max is inclusive */
    value_ok(stride, "007", 7);       /* leading zeros are decimal */
    value_ok(bank_param("width"), "4", 4);
    value_ok(bank_param("width"), "8", 8);
    value_ok(bank_param("width"), "16", 16);
    value_ok(bank_param("group"), "1", 1);    /* min is inclusive */
    value_ok(bank_param("group"), "32", 32);
    value_ok(bank_param("iterations"), "1048576", 1048576);
    value_ok(&signed_def, "-5", -5);
    value_ok(&signed_def, "-1", -1);
    value_ok(&signed_def, "5", 5);
}

static void test_parse_not_a_number(void **state)
{
    (void)state;
    const mp_param_def *stride = bank_param("stride");
    static const char *const bad[] = {
        "abc", "4x", "", " 4", "4 ", "+4", "0x10", "-", "1e3", "4.0", "4,",
        "--4", "\t4",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char quoted[32];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        value_bad(stride, bad[i], quoted);
    }
    /* Exact wording for one case. */
    char err[256];
    long long v;
    assert_int_equal(mp_param_parse_value(stride, "abc", &v, err, sizeof err),
                     -1);
    assert_string_equal(err,
                        "--stride: 'abc' is not a whole number (allowed: "
                        "0..4096)");
}

static void test_parse_out_of_range(void **state)
{
    (void)state;
    const mp_param_def *stride = bank_param("stride");
    value_bad(stride, "-1", "-1");                /* min is 0 */
    value_bad(stride, "4097", "4097");            /* above max */
    value_bad(stride, "99999999999999999999", "99999999999999999999");
    value_bad(stride, "-99999999999999999999", NULL);
    value_bad(stride, "9223372036854775807", NULL);   /* fits, > max */
    value_bad(stride, "9223372036854775808", NULL);   /* LLONG_MAX + 1 */
    value_bad(bank_param("group"), "0", "0");
    value_bad(bank_param("group"), "33", "33");
    value_bad(&signed_def, "-6", "-6");
    value_bad(&signed_def, "6", "6");

    char err[256];
    long long v;
    assert_int_equal(mp_param_parse_value(stride, "-1", &v, err, sizeof err),
                     -1);
    assert_string_equal(err, "--stride: -1 is out of range (allowed: "
                             "0..4096)");
}

static void test_parse_allowed_list(void **state)
{
    (void)state;
    const mp_param_def *width = bank_param("width");
    value_bad(width, "12", "12");   /* in 4..16 but not 4|8|16 */
    value_bad(width, "5", "5");
    value_bad(width, "2", "2");     /* below min */
    value_bad(width, "32", "32");   /* above max */
    char err[256];
    long long v;
    assert_int_equal(mp_param_parse_value(width, "12", &v, err, sizeof err),
                     -1);
    assert_string_equal(err, "--width: 12 is not allowed (allowed: 4|8|16)");
}

static void test_parse_choices(void **state)
{
    (void)state;
    const mp_param_def *op = bank_param("op");
    value_ok(op, "ld", 0);
    value_ok(op, "st", 1);
    value_ok(op, "ldsm", 2);
    value_ok(op, "stsm", 3);
    value_bad(op, "xx", "'xx'");
    value_bad(op, "LD", NULL);      /* case matters */
    value_bad(op, "", NULL);
    value_bad(op, "ld ", NULL);
    value_bad(op, "0", NULL);       /* not an index */
    char err[256];
    long long v;
    assert_int_equal(mp_param_parse_value(op, "xx", &v, err, sizeof err), -1);
    assert_string_equal(err, "--op: 'xx' is not one of ld|st|ldsm|stsm");
}

/* A TEXT parameter (--offsets): "none" is 0, a good text gets a handle
 * that gives the text back (the same text, the same handle), and the
 * probe's check refuses a bad one with a message naming the option. */
static void test_parse_text(void **state)
{
    (void)state;
    const mp_param_def *d = bank_param("offsets");
    char good[512] = "", err[256];
    for (int i = 0; i < 32; i++) {
        size_t n = strlen(good);
        snprintf(good + n, sizeof good - n, "%s%d", i ? ";" : "", 16 * i);
    }
    long long a = -1, b = -1;
    value_ok(d, "none", 0);
    assert_int_equal(mp_param_parse_value(d, good, &a, err, sizeof err), 0);
    assert_true(a >= 1);
    assert_string_equal(mp_param_text(a), good);
    assert_int_equal(mp_param_parse_value(d, good, &b, err, sizeof err), 0);
    assert_int_equal(a, b);
    char buf[512];
    mp_param_format(d, a, buf, sizeof buf);
    assert_string_equal(buf, good);
    mp_param_format(d, 0, buf, sizeof buf);
    assert_string_equal(buf, "none");
    value_bad(d, "1;2", "2 offsets, want 32");
    value_bad(d, "", NULL);
    value_bad(d, "abc", "--offsets");
    /* A list of two texts is two values; ';' never splits. */
    char two[1100];
    snprintf(two, sizeof two, "%s,none", good);
    const mp_value_list *l = list_ok(d, two);
    assert_int_equal(l->n, 2);
    assert_int_equal(l->v[0], a);
    assert_int_equal(l->v[1], 0);
    mp_param_describe_range(d, buf, sizeof buf);
    assert_string_equal(buf, "none or 'o0;o1;...;o31'");
}

static void test_parse_short_error_buffer(void **state)
{
    (void)state;
    char err[8];
    long long v;
    memset(err, 'x', sizeof err);
    assert_int_equal(mp_param_parse_value(bank_param("stride"), "abc", &v,
                                          err, sizeof err), -1);
    assert_string_equal(err, "--strid");   /* truncated, terminated */
}

static void test_lists_and_ranges(void **state)
{
    (void)state;
    const mp_param_def *stride = bank_param("stride");
    mp_value_list *l;

    l = list_ok(stride, "4,8,16");
    assert_int_equal(l->n, 3);
    assert_int_equal(l->v[0], 4);
    assert_int_equal(l->v[1], 8);
    assert_int_equal(l->v[2], 16);

    l = list_ok(stride, "7");
    assert_int_equal(l->n, 1);
    assert_int_equal(l->v[0], 7);

    l = list_ok(stride, "0..64");           /* 0, 1, ..., 64: 65 values */
    assert_int_equal(l->n, 65);
    for (int i = 0; i < 65; i++)
        assert_int_equal(l->v[i], i);

    l = list_ok(stride, "0..64:4");         /* 0, 4, ..., 64: 17 values */
    assert_int_equal(l->n, 17);
    for (int i = 0; i < 17; i++)
        assert_int_equal(l->v[i], 4 * i);

    l = list_ok(stride, "0..0");
    assert_int_equal(l->n, 1);
    assert_int_equal(l->v[0], 0);

    l = list_ok(stride, "0..10:3");         /* 0, 3, 6, 9: stops below hi */
    assert_int_equal(l->n, 4);
    assert_int_equal(l->v[3], 9);

    l = list_ok(stride, "4090..4096:100");  /* step past the end: just lo */
    assert_int_equal(l->n, 1);
    assert_int_equal(l->v[0], 4090);

    l = list_ok(stride, "1,3..5,0");        /* items mix: 1, 3, 4, 5, 0 */
    assert_int_equal(l->n, 5);
    assert_int_equal(l->v[0], 1);
    assert_int_equal(l->v[1], 3);
    assert_int_equal(l->v[3], 5);
    assert_int_equal(l->v[4], 0);

    l = list_ok(&signed_def, "-5..5:5");    /* -5, 0, 5 */
    assert_int_equal(l->n, 3);
    assert_int_equal(l->v[0], -5);
    assert_int_equal(l->v[1], 0);
    assert_int_equal(l->v[2], 5);

    l = list_ok(&wide, "8..1024:x2");
    assert_int_equal(l->n, 8);              /* 8, 16, ..., 1024 */
    for (int i = 0; i < 8; i++)
        assert_int_equal(l->v[i], 8LL << i);

    l = list_ok(&wide, "3..100:x3");        /* 3, 9, 27, 81: stops below */
    assert_int_equal(l->n, 4);
    assert_int_equal(l->v[3], 81);

    l = list_ok(&wide, "1..10000000:x10,5"); /* 1 .. 1e7 by ten, then 5 */
    assert_int_equal(l->n, 9);
    assert_int_equal(l->v[7], 10000000);
    assert_int_equal(l->v[8], 5);

    l = list_ok(&wide, "7..7:x2");
    assert_int_equal(l->n, 1);
    assert_int_equal(l->v[0], 7);

    l = list_ok(bank_param("width"), "4,16");
    assert_int_equal(l->n, 2);
    assert_int_equal(l->v[1], 16);

    l = list_ok(bank_param("op"), "st,ld,st");   /* choice indices */
    assert_int_equal(l->n, 3);
    assert_int_equal(l->v[0], 1);
    assert_int_equal(l->v[1], 0);
    assert_int_equal(l->v[2], 1);
}

static void test_bad_lists_and_ranges(void **state)
{
    (void)state;
    const mp_param_def *stride = bank_param("stride");
    list_bad(stride, "5..1", "5..1");       /* empty range */
    list_bad(stride, "1..", NULL);
    list_bad(stride, "..3", NULL);
    list_bad(stride, "1..4:0", "step");
    list_bad(stride, "1..4:", "step");
    list_bad(stride, "1..4:x", "step");
    list_bad(stride, "1..4:-1", "step");
    list_bad(stride, "1..4:x1", "factor");  /* a factor must grow */
    list_bad(stride, "1..4:x0", "factor");
    list_bad(stride, "1..4:x-2", "factor");
    list_bad(stride, "1..4:xx2", "factor");
    list_bad(stride, "0..64:x2", "start");  /* 0 never grows */
    list_bad(&wide, "1..20000000:x4", "20000000");
    list_bad(stride, "1...4", NULL);
    list_bad(stride, "1,,2", "empty");
    list_bad(stride, "1,2,", "empty");      /* trailing comma */
    list_bad(stride, ",1", "empty");
    list_bad(stride, ",", "empty");
    list_bad(stride, "", "empty");
    list_bad(stride, "4,8,5000", "5000");   /* one item out of range */
    list_bad(stride, "-1,4", "-1");
    list_bad(stride, "4,abc", "'abc'");
    list_bad(stride, "0..5000", "5000");    /* range end out of range */
    list_bad(bank_param("width"), "4,12", "12");
    list_bad(bank_param("width"), "4..16:4", "12");  /* 4, 8, 12: no */
    list_bad(bank_param("op"), "ld,xx", "'xx'");
    list_bad(bank_param("op"), "ld..st", NULL);   /* no ranges of choices */
}

static void test_max_list(void **state)
{
    (void)state;
    mp_value_list *l;
    char err[256];

    /* Exactly MP_MAX_LIST values is fine... */
    char text[32];
    snprintf(text, sizeof text, "0..%d", MP_MAX_LIST - 1);
    l = list_ok(&wide, text);
    assert_int_equal(l->n, MP_MAX_LIST);
    assert_int_equal(l->v[MP_MAX_LIST - 1], MP_MAX_LIST - 1);

    /* ...one more is an error, from a range or from a list. */
    snprintf(text, sizeof text, "0..%d", MP_MAX_LIST);
    snprintf(err, sizeof err, "more than %d values", MP_MAX_LIST);
    list_bad(&wide, text, err);
    list_bad(&wide, "0..9999999", err);
    list_bad(bank_param("stride"), "0..4096", err);   /* 4097 values */

    size_t cap = (MP_MAX_LIST + 1) * 3 + 1;
    char *many = malloc(cap);
    assert_non_null(many);
    size_t used = 0;
    for (int i = 0; i <= MP_MAX_LIST; i++)
        used += (size_t)snprintf(many + used, cap - used, "%s%d", i ? "," : "",
                                 i % 10);
    list_bad(&wide, many, err);
    many[used - 2] = '\0';    /* drop the last item: MP_MAX_LIST values */
    l = list_ok(&wide, many);
    assert_int_equal(l->n, MP_MAX_LIST);
    free(many);
}

static void test_describe_range(void **state)
{
    (void)state;
    char buf[128];
    mp_param_describe_range(bank_param("stride"), buf, sizeof buf);
    assert_string_equal(buf, "0..4096");
    mp_param_describe_range(bank_param("width"), buf, sizeof buf);
    assert_string_equal(buf, "4|8|16");
    mp_param_describe_range(bank_param("op"), buf, sizeof buf);
    assert_string_equal(buf, "ld|st|ldsm|stsm");
    mp_param_describe_range(bank_param("iterations"), buf, sizeof buf);
    assert_string_equal(buf, "1..1048576");
    mp_param_describe_range(&signed_def, buf, sizeof buf);
    assert_string_equal(buf, "-5..5");
    /* Truncation keeps the string terminated. */
    char small[5];
    mp_param_describe_range(bank_param("width"), small, sizeof small);
    assert_string_equal(small, "4|8|");
    mp_param_describe_range(bank_param("op"), small, 3);
    assert_string_equal(small, "ld");
}

static void test_format(void **state)
{
    (void)state;
    char buf[64];
    mp_param_format(bank_param("op"), 0, buf, sizeof buf);
    assert_string_equal(buf, "ld");
    mp_param_format(bank_param("op"), 1, buf, sizeof buf);
    assert_string_equal(buf, "st");
    mp_param_format(bank_param("stride"), 4, buf, sizeof buf);
    assert_string_equal(buf, "4");
    mp_param_format(bank_param("width"), 16, buf, sizeof buf);
    assert_string_equal(buf, "16");
    mp_param_format(&signed_def, -3, buf, sizeof buf);
    assert_string_equal(buf, "-3");
    mp_param_format(&wide, 1234567, buf, 4);
    assert_string_equal(buf, "123");
}

/* The families' multiple-of checks: silent on a multiple, else one line
 * naming the option, the value and the step. */
static void test_check_multiple(void **state)
{
    (void)state;
    char err[128] = "";
    assert_int_equal(mp_param_check_multiple("threads", 64, 32, err,
                                             sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(mp_param_check_multiple("threads", 48, 32, err,
                                             sizeof err), -1);
    assert_string_equal(err, "--threads: 48 is not a multiple of 32");
    assert_int_equal(mp_param_check_multiple("dim", 1000, 16, err,
                                             sizeof err), -1);
    assert_string_equal(err, "--dim: 1000 is not a multiple of 16");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_parse_good_values),
        cmocka_unit_test(test_parse_not_a_number),
        cmocka_unit_test(test_parse_out_of_range),
        cmocka_unit_test(test_parse_allowed_list),
        cmocka_unit_test(test_parse_choices),
        cmocka_unit_test(test_parse_text),
        cmocka_unit_test(test_parse_short_error_buffer),
        cmocka_unit_test(test_lists_and_ranges),
        cmocka_unit_test(test_bad_lists_and_ranges),
        cmocka_unit_test(test_max_list),
        cmocka_unit_test(test_describe_range),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_check_multiple),
    };
    return cmocka_run_group_tests_name("params", tests, NULL, NULL);
}
