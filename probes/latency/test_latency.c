/*
 * test_latency.c - the latency probe without a GPU: the chain builder
 * (every element once per cycle, random order one single cycle, seeded
 * and reproducible), the level model against the H200's capacities, and
 * the command line: bad input exits 2 naming the parameter, predict
 * prints model_level, no GPU exits 3 with the prediction. The partition
 * model: its H200 figures are the committed L2 map's, and the latency
 * sweep measured in the same run lies in its bands.
 */
#include "cli_util.h"
#include "latency_model.h"
#include "csv_table.h"

#include <stdlib.h>
#include <string.h>

/* ---- chain builder ---------------------------------------------------- */

/* next[] is one cycle through all n elements, and order[] walks it from
 * element 0: order[k + 1] = next[order[k]], each element exactly once. */
static void expect_single_cycle(const uint32_t *next, const uint32_t *order,
                                long long n)
{
    unsigned char *seen = calloc((size_t)n, 1);
    assert_non_null(seen);
    assert_int_equal(order[0], 0);
    uint32_t e = 0;
    for (long long k = 0; k < n; k++) {
        assert_true(e < n);
        assert_int_equal(order[k], e);
        assert_int_equal(seen[e], 0);    /* visited once per cycle */
        seen[e] = 1;
        e = next[e];
    }
    assert_int_equal(e, 0);              /* and back at the start */
    free(seen);
}

static void test_chain_sequential(void **state)
{
    (void)state;
    uint32_t next[5], order[5];
    assert_int_equal(mp_lat_build_chain(next, order, 5, 0, 1), 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(next[i], (i + 1) % 5);
        assert_int_equal(order[i], i);
    }
    assert_int_equal(mp_lat_build_chain(next, order, 1, 0, 1), 0);
    assert_int_equal(next[0], 0);
}

static void test_chain_random_single_cycle(void **state)
{
    (void)state;
    static const long long sizes[] = {1, 2, 3, 7, 64, 1000, 65536, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        long long n = sizes[i];
        uint32_t *next = malloc((size_t)n * 4), *order = malloc((size_t)n * 4);
        assert_int_equal(mp_lat_build_chain(next, order, n, 1, MP_LAT_SEED),
                         0);
        expect_single_cycle(next, order, n);
        /* Random, not sequential: few elements point to their neighbour
         * (1/n each by chance). */
        if (n >= 64) {
            long long neighbours = 0;
            for (long long e = 0; e < n; e++)
                neighbours += next[e] == (uint32_t)((e + 1) % n);
            assert_true(neighbours < n / 16);
        }
        free(next);
        free(order);
    }
}

static void test_chain_seeded(void **state)
{
    (void)state;
    enum { N = 4096 };
    static uint32_t a[N], b[N], c[N], oa[N], ob[N];
    assert_int_equal(mp_lat_build_chain(a, oa, N, 1, 42), 0);
    assert_int_equal(mp_lat_build_chain(b, ob, N, 1, 42), 0);
    assert_memory_equal(a, b, sizeof a);    /* same seed, same chain */
    assert_memory_equal(oa, ob, sizeof oa);
    assert_int_equal(mp_lat_build_chain(c, NULL, N, 1, 43), 0);
    assert_memory_not_equal(a, c, sizeof a);
    /* next alone, order alone, or neither: the same chain. */
    assert_int_equal(mp_lat_build_chain(NULL, ob, N, 1, 42), 0);
    assert_memory_equal(oa, ob, sizeof oa);
    assert_int_equal(mp_lat_build_chain(NULL, NULL, N, 1, 42), 0);
}

static void test_chain_bad_sizes(void **state)
{
    (void)state;
    uint32_t x[1];
    assert_int_equal(mp_lat_build_chain(x, x, 0, 1, 1), -1);
    assert_int_equal(mp_lat_build_chain(x, x, -5, 0, 1), -1);
    assert_int_equal(mp_lat_build_chain(x, x, 1LL << 32, 0, 1), -1);
}

/* ---- level model ------------------------------------------------------ */

static void test_caps(void **state)
{
    (void)state;
    mp_lat_caps h, d;
    mp_lat_caps_h200(&h);
    assert_int_equal(h.l1_bytes, 256 * 1024);
    assert_int_equal(h.l2_bytes, 62914560);
    assert_int_equal(h.l2_reach_bytes, 62914560 / 2);   /* two partitions */
    assert_int_equal(h.tlb_reach_bytes, 128LL * 2 * 1024 * 1024);
    /* The H200 as results/h200/device/device.txt reports it. */
    mp_lat_caps_of(9, 0, 233472, 62914560, &d);
    assert_int_equal(d.l1_bytes, h.l1_bytes);
    assert_int_equal(d.l2_bytes, h.l2_bytes);
    mp_lat_caps_of(8, 0, 167936, 41943040, &d);   /* A100 */
    assert_int_equal(d.l1_bytes, 192 * 1024);
    assert_int_equal(d.l2_reach_bytes, 41943040 / 2);
    mp_lat_caps_of(8, 9, 102400, 75497472, &d);   /* RTX 4090: one L2 */
    assert_int_equal(d.l2_reach_bytes, 75497472);
    assert_int_equal(d.tlb_reach_bytes, 0);
    mp_lat_caps_of(12, 0, 102400, 1 << 20, &d);   /* unknown: smem + 32K */
    assert_int_equal(d.l1_bytes, 102400 + 32768);
}

static void test_cached_bytes(void **state)
{
    (void)state;
    assert_int_equal(mp_lat_elements(65536, 128), 512);
    assert_int_equal(mp_lat_elements(100, 128), 0);
    assert_int_equal(mp_lat_elements(200, 128), 1);
    /* One line per element at 128 bytes and beyond... */
    assert_int_equal(mp_lat_cached_bytes(65536, 128), 65536);
    assert_int_equal(mp_lat_cached_bytes(1 << 30, 4096), (1 << 18) * 128);
    /* ...the array's lines below. */
    assert_int_equal(mp_lat_cached_bytes(65536, 8), 65536);
    assert_int_equal(mp_lat_cached_bytes(1000, 8), 1024);
}

/* The level, or the two of an edge, as mp_lat_expect_text writes them. */
static const char *expected(const mp_lat_caps *c, mp_lat_space space, int cg,
                            int random, long long footprint, long long stride)
{
    static char buf[32];
    mp_lat_expect_text(mp_lat_expected(c, space, cg, random, footprint,
                                       stride), buf, sizeof buf);
    return buf;
}

/* Each case is a row of results/h200/latency/latency.csv, its
 * counter_level in the comment. */
static void test_levels(void **state)
{
    (void)state;
    mp_lat_caps c;
    mp_lat_caps_h200(&c);
    const mp_lat_space G = MP_LAT_SPACE_GLOBAL;
    const long long K = 1024, M = 1024 * 1024;
    /* footprint against the L1 (256 KiB; edge 230.4 .. 281.6 KiB) */
    assert_string_equal(expected(&c, G, 0, 1, 8 * K, 128), "L1");     /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 224 * K, 128), "L1");   /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 240 * K, 128), "L1|L2"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 1, 240 * K, 128), "L1|L2"); /* L1 */
    assert_string_equal(expected(&c, G, 0, 1, 256 * K, 128), "L1|L2"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 1, 272 * K, 128), "L1|L2"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 1, 288 * K, 128), "L2");   /* L2 */
    assert_string_equal(expected(&c, G, 1, 1, 8 * K, 128), "L2");     /* cg */
    /* against the 30 MiB of L2 one SM reaches (edge 27 .. 33 MiB) */
    assert_string_equal(expected(&c, G, 0, 1, 24 * M, 128), "L2");    /* L2 */
    assert_string_equal(expected(&c, G, 1, 1, 28 * M, 128), "L2|DRAM"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 0, 32 * M, 128), "L2|DRAM"); /* DRAM */
    assert_string_equal(expected(&c, G, 0, 1, 36 * M, 128), "DRAM");  /* DRAM */
    assert_string_equal(expected(&c, G, 1, 1, 60 * M, 128), "DRAM");  /* DRAM */
    assert_string_equal(expected(&c, G, 1, 0, 1024 * M, 128), "DRAM"); /* DRAM */
    /* sequential strides under a sector: the sector's other loads hit L1;
     * under 64 bytes beyond the L2: device memory's 64-byte fills hit L2 */
    assert_string_equal(expected(&c, G, 0, 0, 2 * M, 8), "L1");       /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 2 * M, 16), "L1");      /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 2 * M, 32), "L2");      /* L2 */
    assert_string_equal(expected(&c, G, 0, 0, 256 * M, 8), "L1");     /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 256 * M, 16), "L1");    /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 256 * M, 32), "L2");    /* L2 */
    assert_string_equal(expected(&c, G, 0, 0, 256 * M, 64), "DRAM");  /* DRAM */
    assert_string_equal(expected(&c, G, 0, 0, 256 * M, 256), "DRAM"); /* DRAM */
    assert_string_equal(expected(&c, G, 0, 1, 256 * M, 32), "DRAM");  /* random */
    assert_string_equal(expected(&c, G, 1, 0, 256 * M, 16), "L2");    /* cg */
    /* page strides: one line per element */
    assert_string_equal(expected(&c, G, 0, 0, 2048 * M, 2 * M), "L1"); /* L1 */
    assert_string_equal(expected(&c, G, 0, 0, 4096 * M, 2 * M), "L1|L2"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 1, 16384 * M, 2 * M), "L2"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 0, 1024 * M, 512 * K), "L1|L2"); /* L2 */
    assert_string_equal(expected(&c, G, 0, 0, 1024 * M, 256 * K), "L2"); /* L2 */
    assert_string_equal(expected(&c, MP_LAT_SPACE_SHARED, 0, 1, M, 4),
                        "shared");
    assert_string_equal(expected(&c, MP_LAT_SPACE_CONSTANT, 0, 1, M, 4),
                        "constant");
    /* matching: either side of an edge, nothing else */
    mp_lat_expect e = mp_lat_expected(&c, G, 0, 1, 256 * K, 128);
    assert_true(mp_lat_expect_matches(e, MP_LEVEL_L1));
    assert_true(mp_lat_expect_matches(e, MP_LEVEL_L2));
    assert_false(mp_lat_expect_matches(e, MP_LEVEL_DRAM));
    e = mp_lat_expected(&c, G, 0, 1, 36 * M, 128);
    assert_false(mp_lat_expect_matches(e, MP_LEVEL_L2));
    mp_level l;
    for (int i = 0; i < MP_LEVEL_COUNT; i++) {
        assert_int_equal(mp_level_from_name(mp_level_name((mp_level)i), &l),
                         0);
        assert_int_equal(l, i);
    }
    assert_int_equal(mp_level_from_name("l1", &l), -1);
    assert_int_equal(mp_level_from_name(NULL, &l), -1);
    assert_null(mp_level_name(MP_LEVEL_COUNT));
    assert_string_equal(mp_level_name(MP_LEVEL_DRAM), "DRAM");
}

/* ---- command line ----------------------------------------------------- */

static const cli_bad_case bad_cases[] = {
    /* Footprints it refuses: below one element, not a multiple, zero. */
    {{"latency", "--footprint", "64"}, "--footprint"},
    {{"latency", "--footprint", "7", "--stride", "8"}, "--footprint"},
    {{"latency", "--stride", "12"}, "--stride"},
    {{"latency", "--stride", "4"}, "--stride"},        /* global: 8 B */
    {{"latency", "--footprint", "0"}, "--footprint"},
    {{"latency", "--stride", "0"}, "--stride"},
    {{"latency", "--loads", "0"}, "--loads"},
    {{"latency", "--loads", "100"}, "--loads"},
    {{"latency", "--stride", "6", "--space", "shared"}, "--stride"},
    /* Shared beyond the opt-in limit, constant beyond its 64 KiB. */
    {{"latency", "--space", "shared", "--footprint", "262144"},
     "--footprint"},
    {{"latency", "--space", "constant", "--footprint", "65540",
      "--stride", "4"}, "--footprint"},
    {{"latency", "--space", "constant", "--cache", "cg"}, "--cache"},
    {{"latency", "--order", "reverse"}, "--order"},
    {{"latency", "--space", "texture"}, "--space"},
    /* 2^34 / 128 = 2^27 elements, more than 2^25. */
    {{"latency", "--footprint", "17179869184"}, "--footprint"},
    {{"latency", "--footprint", "8192..1073741824:x1"}, "--footprint"},
    {{"predict", "latency", "--footprint", "100"}, "--footprint"},
    {{"predict", "latency", "--footprint", "8192..65536:x2",
      "--stride", "20"}, "--stride"},
};

/* The brief's command: footprints doubling from 8 KiB to 1 GiB, the
 * level from the H200's capacities. */
static void test_predict_levels(void **state)
{
    (void)state;
    const char *args[] = {"predict", "latency", "--footprint",
                          "8192..1073741824:x2", "--format", "csv", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    assert_int_equal(r.errlen, 0);
    char *h[32], *v[32];
    int nh = cli_csv_header(r.out, 18, h, 32);
    int c_f = cli_column(h, nh, "footprint");
    int c_l = cli_column(h, nh, "model_level");
    int c_e = cli_column(h, nh, "elements");
    for (int i = 0; i < 18; i++) {
        cli_csv_next(v, 32, nh);
        long long f = 8192LL << i;
        assert_true(cli_number(v[c_f]) == (double)f);
        assert_true(cli_number(v[c_e]) == (double)(f / 128));
        /* 256 KiB sits on the L1's edge, 32 MiB on the edge of the 30
         * MiB of L2 one SM reaches. */
        const char *want = f < 262144 ? "L1" : f == 262144 ? "L1|L2"
                           : f < 32 * 1048576LL ? "L2"
                           : f == 32 * 1048576LL ? "L2|DRAM" : "DRAM";
        assert_string_equal(v[c_l], want);
    }
    cli_result_free(&r);
}

static void test_predict_spaces(void **state)
{
    (void)state;
    const char *args[] = {"predict", "latency", "--footprint", "16384",
                          "--stride", "64", "--space",
                          "shared,constant", "--format", "csv", NULL};
    cli_run_expect(args, -1,
                   "\r\nlatency,16384,64,random,default,shared,4096,shared,",
                   "\r\nlatency,16384,64,random,default,constant,4096,"
                   "constant,",
                   NULL);
}

/* ---- the partition model ---------------------------------------------- */

#define PART_DIR "results/h200/latency/partitions/"

static void read_table(const char *rel, mp_csv_table *t)
{
    char err[512];
    if (mp_csv_table_read(cli_in_repo(rel), t, err, sizeof err))
        fail_msg("%s", err);
}

static double cell(const mp_csv_table *t, int row, const char *col)
{
    double x;
    int c = mp_csv_column(t, col);
    assert_true(c >= 0);
    assert_int_equal(mp_csv_number(t, row, c, &x), 0);
    return x;
}

static int is_kind(const mp_csv_table *t, int row, const char *kind)
{
    return strcmp(t->cells[row][mp_csv_column(t, "kind")], kind) == 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each figure's median, least and greatest over the map's rows, the
 * repeat spread and the TLB's reach and rise: the model's own. */
static void test_partitions_are_the_map(void **state)
{
    (void)state;
    mp_lat_partitions p;
    mp_lat_partitions_h200(&p);
    mp_csv_table t, rep;
    read_table(PART_DIR "l2map.csv", &t);
    read_table(PART_DIR "l2map-repeat.csv", &rep);
    static const char *const names[] = {"near_hit", "copy_hit", "far_hit",
                                        "dram_near", "dram_far"};
    const mp_lat_span *spans[] = {&p.near_hit, &p.copy_hit, &p.far_hit,
                                  &p.dram_near, &p.dram_far};
    double *v = malloc((size_t)t.nrows * sizeof *v), spread = 0;
    for (int f = 0; f < 5; f++) {
        int n = 0;
        for (int r = 0; r < t.nrows; r++)
            if (is_kind(&t, r, "map")) {
                assert_string_equal(
                    t.cells[r][mp_csv_column(&t, "verified")], "yes");
                v[n++] = cell(&t, r, names[f]);
            }
        assert_int_equal(n, 132);           /* every SM of the H200 */
        qsort(v, (size_t)n, sizeof *v, cmp_dbl);
        double med = (v[n / 2 - 1] + v[n / 2]) / 2;
        assert_float_equal(spans[f]->med, med, 0.006);
        assert_float_equal(spans[f]->lo, v[0], 0.006);
        assert_float_equal(spans[f]->hi, v[n - 1], 0.006);
        /* the repeats: each SM's figure in every run, the full map's too */
        for (int a = 0; a < rep.nrows; a++) {
            double sm = cell(&rep, a, "sm"), lo = cell(&rep, a, names[f]);
            double hi = lo;
            for (int b = 0; b < rep.nrows; b++)
                if (cell(&rep, b, "sm") == sm) {
                    double x = cell(&rep, b, names[f]);
                    lo = x < lo ? x : lo;
                    hi = x > hi ? x : hi;
                }
            for (int r = 0; r < t.nrows; r++)
                if (is_kind(&t, r, "map") && cell(&t, r, "sm") == sm) {
                    double x = cell(&t, r, names[f]);
                    lo = x < lo ? x : lo;
                    hi = x > hi ? x : hi;
                }
            spread = hi - lo > spread ? hi - lo : spread;
        }
    }
    assert_float_equal(p.repeat, spread, 0.006);
    /* TLB: the rise is the last row's over the median of 32..128 pages;
     * the reach the most pages still within a quarter of it */
    double base[3], last = 0, reach = 0;
    int nb = 0;
    for (int r = 0; r < t.nrows; r++)
        if (is_kind(&t, r, "tlb")) {
            double pages = cell(&t, r, "lines");
            if (pages >= 32 && pages <= 128)
                base[nb++] = cell(&t, r, "cycles_per_load");
            last = cell(&t, r, "cycles_per_load");
        }
    assert_int_equal(nb, 3);
    qsort(base, 3, sizeof *base, cmp_dbl);
    double rise = last - base[1];
    assert_float_equal(p.tlb_cycles, rise, 0.006);
    for (int r = 0; r < t.nrows; r++)
        if (is_kind(&t, r, "tlb") && cell(&t, r, "lines") >= 32
            && cell(&t, r, "cycles_per_load") - base[1] < rise / 4)
            reach = cell(&t, r, "footprint_bytes");
    assert_true(p.tlb_reach_bytes == (long long)reach);
    free(v);
    mp_csv_free(&t);
    mp_csv_free(&rep);
}

/* The bands tell the regimes apart (else the next test could not fail),
 * and refuse what they do not model. */
static void test_partition_bands(void **state)
{
    (void)state;
    mp_lat_partitions p;
    mp_lat_partitions_h200(&p);
    double lo[3], hi[3], a, b;
    const long long mib = 1 << 20, f[3] = {16 * mib, 48 * mib, 128 * mib};
    for (int i = 0; i < 3; i++)
        assert_int_equal(mp_lat_cycles(&p, f[i], 128, &lo[i], &hi[i]), 0);
    assert_true(hi[0] < lo[1] && hi[1] < lo[2]);
    /* an edge holds both neighbours */
    assert_int_equal(mp_lat_cycles(&p, 32 * mib, 128, &a, &b), 0);
    assert_true(a <= lo[0] && b >= hi[1]);
    /* beyond four times the TLB reach: the rise on both ends */
    assert_int_equal(mp_lat_cycles(&p, 1024 * mib, 128, &a, &b), 0);
    assert_float_equal(a, lo[2] + p.tlb_cycles, 1e-9);
    assert_float_equal(b, hi[2] + p.tlb_cycles, 1e-9);
    assert_int_equal(mp_lat_cycles(&p, 16 * mib, 64, &a, &b), -1);
    assert_int_equal(mp_lat_cycles(&p, mib / 2, 128, &a, &b), -1);
}

/* Every global chase of a sweep, one element per line, 1 MiB .. 1 GiB,
 * random and sequential, through L1 or not, inside the model's band: 70
 * chases, each regime met. */
static void check_sweep(const char *path)
{
    mp_lat_partitions p;
    mp_lat_partitions_h200(&p);
    mp_csv_table t;
    read_table(path, &t);
    int checked = 0, regimes[3] = {0, 0, 0};
    for (int r = 0; r < t.nrows; r++) {
        if (strcmp(t.cells[r][mp_csv_column(&t, "space")], "global"))
            continue;
        double fp = cell(&t, r, "footprint_bytes");
        double stride = cell(&t, r, "stride_bytes");
        if (stride != 128 || fp < 1048576 || fp > 1073741824.0)
            continue;
        double lo, hi, c = cell(&t, r, "cycles_per_load");
        assert_int_equal(mp_lat_cycles(&p, (long long)fp, 128, &lo, &hi),
                         0);
        if (c < lo || c > hi)
            fail_msg("%s %s: %.1f cycles, the model %.1f..%.1f", path,
                     t.cells[r][mp_csv_column(&t, "config")], c, lo, hi);
        checked++;
        regimes[fp <= 24 * 1048576.0 ? 0 : fp < 64 * 1048576.0 ? 1 : 2]++;
    }
    assert_int_equal(checked, 70);
    assert_true(regimes[0] > 0 && regimes[1] > 0 && regimes[2] > 0);
    mp_csv_free(&t);
}

/* The sweep measured beside the map (the die the constants come from)
 * and the main sweep, measured on another H200 (its device.txt): the
 * chasing SM's figures hold on both. */
static void test_partition_model_on_sweep(void **state)
{
    (void)state;
    check_sweep(PART_DIR "latency.csv");
    check_sweep("results/h200/latency/latency.csv");
}

static void test_no_gpu(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *args[] = {"latency", "--footprint", "1048576", "-o",
                          "out.csv", NULL};
    cli_expect_no_gpu_nothing_written(args, "model_level", NULL);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_chain_sequential),
        cmocka_unit_test(test_chain_random_single_cycle),
        cmocka_unit_test(test_chain_seeded),
        cmocka_unit_test(test_chain_bad_sizes),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_cached_bytes),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_predict_levels),
        cmocka_unit_test(test_predict_spaces),
        cmocka_unit_test(test_partitions_are_the_map),
        cmocka_unit_test(test_partition_bands),
        cmocka_unit_test(test_partition_model_on_sweep),
        cmocka_unit_test(test_no_gpu),
    };
    return CLI_RUN_BAD("latency", bad_cases, fixed);
}
