/*
 * test_gpu_l2map.c - GPU tests of `memprobe l2map` and the partition
 * model (run on the GPU machine by `make test-gpu`).
 *
 * Maps five SMs (0, 2, 66, 124, 131: both halves, and 124, where a
 * one-block launch such as memprobe latency's chase lands on the H200)
 * and checks every row: verified, SM 0 in half 0, device memory far at
 * least 100 cycles above near and a far-partition hit at least 100 above
 * a near hit (the H200 measured 130-160 for both on every SM of two
 * dies), and a hit on a copy within 15 cycles above a near hit (measured
 * 5-6). Then the partition model built from these five rows (their least
 * and greatest, widened by the committed repeat spread) holds latency's
 * random cg chases at 16, 48 and 128 MiB: one per regime, on this die,
 * whatever its figures. GPU time: about 3 s.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "gpu_util.h"
#include "latency_model.h"

static char dir[1024];
static int rc_map = -1, rc_lat = -1;
static mp_csv_table map, lat;
static int have_map, have_lat;

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s > %s/l2map.log 2>&1", gpu_memprobe(),
             args, dir);
    int s = system(cmd);
    return s == -1 ? -1 : WEXITSTATUS(s);
}

static void measure(void)
{
    char args[2048], path[2048];
    snprintf(path, sizeof path, "%s/l2map.csv", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/latency.csv", dir);
    remove(path);
    snprintf(args, sizeof args, "l2map --sm 0,2,66,124,131 -o %s/l2map.csv",
             dir);
    rc_map = run(args);
    have_map = gpu_read_csv(dir, "l2map.csv", &map);
    snprintf(args, sizeof args, "latency --footprint "
             "16777216,50331648,134217728 --order random --cache cg "
             "--counters off -o %s/latency.csv", dir);
    rc_lat = run(args);
    have_lat = gpu_read_csv(dir, "latency.csv", &lat);
    printf("# l2map exit %d, latency exit %d\n", rc_map, rc_lat);
}

static void test_map_rows(void **state)
{
    (void)state;
    assert_int_equal(rc_map, 0);
    assert_true(have_map);
    assert_int_equal(map.nrows, 5);
    for (int r = 0; r < map.nrows; r++) {
        int sm = (int)gpu_number(&map, r, "sm");
        double dn = gpu_number(&map, r, "dram_near");
        double df = gpu_number(&map, r, "dram_far");
        double nh = gpu_number(&map, r, "near_hit");
        double ch = gpu_number(&map, r, "copy_hit");
        double fh = gpu_number(&map, r, "far_hit");
        printf("# SM %3d half %s: dram %.1f / %.1f, hit %.1f, copy %.1f, "
               "far partition %.1f\n", sm, gpu_cell(&map, r, "half"), dn,
               df, nh, ch, fh);
        assert_string_equal(gpu_cell(&map, r, "verified"), "yes");
        if (sm == 0)
            assert_string_equal(gpu_cell(&map, r, "half"), "0");
        if (df - dn < 100 || fh - nh < 100 || ch < nh || ch - nh > 15)
            fail_msg("SM %d: dram near %.1f far %.1f, near hit %.1f, copy "
                     "%.1f, far partition %.1f", sm, dn, df, nh, ch, fh);
        assert_true(gpu_number(&map, r, "lines_near") > 1024
                    && gpu_number(&map, r, "lines_far") > 1024);
    }
}

static void span_of(const char *col, mp_lat_span *s)
{
    s->lo = INFINITY;
    s->hi = -INFINITY;
    for (int r = 0; r < map.nrows; r++) {
        double x = gpu_number(&map, r, col);
        s->lo = x < s->lo ? x : s->lo;
        s->hi = x > s->hi ? x : s->hi;
    }
    s->med = (s->lo + s->hi) / 2;
}

static void test_model_holds_the_chase(void **state)
{
    (void)state;
    assert_true(have_map && map.nrows == 5);
    assert_int_equal(rc_lat, 0);
    assert_true(have_lat);
    assert_int_equal(lat.nrows, 3);
    mp_lat_partitions p;
    mp_lat_partitions_h200(&p);   /* repeat spread, half, TLB */
    span_of("near_hit", &p.near_hit);
    span_of("copy_hit", &p.copy_hit);
    span_of("far_hit", &p.far_hit);
    span_of("dram_near", &p.dram_near);
    span_of("dram_far", &p.dram_far);
    for (int r = 0; r < lat.nrows; r++) {
        double f = gpu_number(&lat, r, "footprint_bytes");
        double c = gpu_number(&lat, r, "cycles_per_load"), lo, hi;
        assert_int_equal(mp_lat_cycles(&p, (long long)f, 128, &lo, &hi), 0);
        printf("# %s: %.1f cycles, model %.1f..%.1f\n",
               gpu_cell(&lat, r, "config"), c, lo, hi);
        assert_string_equal(gpu_cell(&lat, r, "verified"), "yes");
        if (c < lo || c > hi)
            fail_msg("%s: %.1f cycles, the model from this die's map "
                     "%.1f..%.1f", gpu_cell(&lat, r, "config"), c, lo, hi);
    }
}

int main(void)
{
    gpu_test_subdir("l2map", dir, sizeof dir);
    gpu_make_test_dirs(dir);
    measure();
    static const struct CMUnitTest tests[] = {
        GPU_TEST("map_rows", test_map_rows),
        GPU_TEST("model_holds_the_chase", test_model_holds_the_chase),
    };
    int rc = cmocka_run_group_tests_name("gpu_l2map", tests, NULL, NULL);
    if (have_map)
        mp_csv_free(&map);
    if (have_lat)
        mp_csv_free(&lat);
    return rc;
}
