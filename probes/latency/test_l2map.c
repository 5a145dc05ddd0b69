/*
 * test_l2map.c - `memprobe l2map` without a GPU: the sort of lines by
 * home half (margin, counts, the two-halves rule), the per-half summary
 * (median of odd and even counts, least, greatest, the half filter), and
 * the command line: bad input exits 2 naming the option, no GPU exits 3
 * and writes nothing.
 */
#include "cli_util.h"
#include "l2map.h"

#include <stdlib.h>
#include <string.h>

static void test_sort(void **state)
{
    (void)state;
    /* SM a near, SM b near, within the margin either way, exactly the
     * margin (not sorted), and a far tail on both. */
    const unsigned a[] = {590, 780, 600, 660, 590, 1200};
    const unsigned b[] = {780, 590, 640, 600, 670, 1390};
    signed char home[6];
    unsigned count[2];
    mp_l2map_sort(a, b, 6, 80, home, count);
    assert_int_equal(home[0], 0);
    assert_int_equal(home[1], 1);
    assert_int_equal(home[2], -1);
    assert_int_equal(home[3], -1);
    assert_int_equal(home[4], -1);      /* 590 + 80 = 670: not below */
    assert_int_equal(home[5], 0);
    assert_int_equal(count[0], 2);
    assert_int_equal(count[1], 1);
    /* a margin of 0: every unequal pair sorted */
    mp_l2map_sort(a, b, 6, 0, home, count);
    assert_int_equal(count[0] + count[1], 6);
}

static void test_two_halves(void **state)
{
    (void)state;
    unsigned c[2] = {25, 25};
    assert_true(mp_l2map_two_halves(c, 100));
    c[1] = 24;
    assert_false(mp_l2map_two_halves(c, 100));   /* one home too small */
    c[0] = 0;
    c[1] = 100;
    assert_false(mp_l2map_two_halves(c, 100));
    assert_false(mp_l2map_two_halves(c, 0));
}

static void test_summary(void **state)
{
    (void)state;
    mp_l2map_row r[5];
    memset(r, 0, sizeof r);
    const double near[] = {290, 280, 300, 310, 270};
    for (int i = 0; i < 5; i++) {
        r[i].sm = i;
        r[i].half = i % 2;
        r[i].near_hit = near[i];
        r[i].far_hit = 450 + i;
    }
    double med = -1, lo = -1, hi = -1;
    /* every row: 270 280 290 300 310 */
    assert_int_equal(mp_l2map_summary(r, 5, -1, MP_L2MAP_NEAR_HIT, &med,
                                      &lo, &hi), 5);
    assert_true(med == 290 && lo == 270 && hi == 310);
    /* half 0: rows 0, 2, 4 = 290 300 270 */
    assert_int_equal(mp_l2map_summary(r, 5, 0, MP_L2MAP_NEAR_HIT, &med,
                                      &lo, &hi), 3);
    assert_true(med == 290 && lo == 270 && hi == 300);
    /* half 1: rows 1, 3 = 280 310: the mean of the middle two */
    assert_int_equal(mp_l2map_summary(r, 5, 1, MP_L2MAP_NEAR_HIT, &med,
                                      &lo, &hi), 2);
    assert_true(med == 295 && lo == 280 && hi == 310);
    assert_int_equal(mp_l2map_summary(r, 5, 1, MP_L2MAP_FAR_HIT, &med, &lo,
                                      &hi), 2);
    assert_true(med == 452 && lo == 451 && hi == 453);
    /* no rows: nothing touched */
    med = -7;
    assert_int_equal(mp_l2map_summary(r, 0, -1, MP_L2MAP_FAR_HIT, &med, &lo,
                                      &hi), 0);
    assert_true(med == -7);
    assert_string_equal(mp_l2map_field_name(MP_L2MAP_COPY_HIT), "copy_hit");
    assert_null(mp_l2map_field_name(MP_L2MAP_FIELDS));
}

static void test_no_gpu(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *args[] = {"l2map", "--sm", "0,1", "-o", "map.csv", NULL};
    cli_result r;
    assert_int_equal(cli_run(args, &r), 3);
    assert_int_equal(r.outlen, 0);
    cli_must_contain("stderr", r.err, "memprobe: l2map: ");
    cli_must_contain("stderr", r.err, "nothing run");
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    assert_false(cli_path_exists("map.csv"));
    cli_result_free(&r);
}

static const cli_bad_case bad_cases[] = {
    {{"l2map", "--sm", "5,5"}, "--sm"},
    {{"l2map", "--sm", "-1"}, "--sm"},
    {{"l2map", "--sm", "4096"}, "--sm"},
    {{"l2map", "--lines", "100"}, "--lines"},
    {{"l2map", "--lines", "2000000"}, "--lines"},
    {{"l2map", "--lines", "x"}, "--lines"},
    {{"l2map", "--plateau=1"}, "--plateau"},
    {{"l2map", "--format", "html"}, "--format"},
    {{"l2map", "-o", ""}, "-o"},
    {{"l2map", "-o", "no-such-dir/map.csv"}, "-o"},
    {{"l2map", "--bogus"}, "--bogus"},
    {{"l2map", "extra"}, "extra"},
};

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_two_halves),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_no_gpu),
    };
    return CLI_RUN_BAD("l2map", bad_cases, fixed);
}
