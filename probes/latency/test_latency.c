/*
 * test_latency.c - the latency probe without a GPU: the chain builder
 * (every element once per cycle, random order one single cycle, seeded
 * and reproducible), the level model against the H200's capacities, and
 * the command line: bad input exits 2 naming the parameter, predict
 * prints model_level, no GPU exits 3 with the prediction.
 */
#include "cli_util.h"
#include "latency_model.h"

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
    assert_int_equal(h.tlb_reach_bytes, 1024LL * 2 * 1024 * 1024);
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
        cmocka_unit_test(test_no_gpu),
    };
    return CLI_RUN_BAD("latency", bad_cases, fixed);
}
