/*
 * test_verify_par.c - verification compares split across CPU threads
 * (probes/verify_par.c) and the probes' compares built on them: the
 * parallel search finds the FIRST wrong word wherever it is (first word,
 * the block and thread boundaries, the last word), whatever the thread
 * count, and agrees with one thread; the bandwidth probe's write/copy
 * compare checks the guard words before and after the array; the periodic
 * compare matches the modulo definition; the bandwidth read reference and
 * the reduce inputs are the same on 1 and many threads. No GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "reduce.h"
#include "verify_par.h"

static const int thread_counts[] = {1, 2, 3, 7, 16};
#define NCOUNTS (sizeof thread_counts / sizeof *thread_counts)

/* Positions a wrong word is put at in n words split among t threads: the
 * first word, the scan block edges, every part's first and last word, and
 * the last word. Returns how many (at most 64). */
static size_t positions(size_t n, int t, size_t *pos)
{
    size_t k = 0;
    pos[k++] = 0;
    pos[k++] = 1;
    if (n > 1024) {
        pos[k++] = 1023;
        pos[k++] = 1024;
    }
    for (int p = 1; p < t; p++) {
        size_t s = mp_par_part_start(n, t, p);
        pos[k++] = s - 1;
        pos[k++] = s;
    }
    pos[k++] = n / 2;
    pos[k++] = n - 1;
    return k;
}

static void test_parts_cover_range(void **state)
{
    (void)state;
    const size_t ns[] = {0, 1, 5, 16, 17, 1000003};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int t = 1; t <= MP_PAR_MAX_THREADS; t++) {
            size_t n = ns[i];
            assert_int_equal(mp_par_part_start(n, t, 0), 0);
            assert_int_equal(mp_par_part_start(n, t, t), n);
            for (int k = 0; k < t; k++) {
                size_t a = mp_par_part_start(n, t, k);
                size_t b = mp_par_part_start(n, t, k + 1);
                assert_true(a <= b);
                assert_true(b - a == n / (size_t)t
                            || b - a == n / (size_t)t + 1);
            }
        }
}

static void mark(void *ctx, size_t from, size_t to)
{
    unsigned char *seen = ctx;
    for (size_t i = from; i < to; i++)
        seen[i]++;
}

static void test_for_visits_each_index_once(void **state)
{
    (void)state;
    const size_t ns[] = {1, 3, 15, 100000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t c = 0; c < NCOUNTS; c++) {
            unsigned char *seen = calloc(ns[i], 1);
            assert_non_null(seen);
            mp_par_for(ns[i], thread_counts[c], mark, seen);
            for (size_t k = 0; k < ns[i]; k++)
                assert_int_equal(seen[k], 1);
            free(seen);
        }
}

static void test_thread_count(void **state)
{
    (void)state;
    mp_par_force_threads(0);
    assert_int_equal(mp_par_threads(0), 1);
    assert_int_equal(mp_par_threads(1000), 1);
    assert_int_equal(mp_par_threads(2 * MP_PAR_MIN_ITEMS - 1), 1);
    int big = mp_par_threads((size_t)1 << 34);
    assert_true(big >= 1 && big <= MP_PAR_MAX_THREADS);
    /* Never more threads than MP_PAR_MIN_ITEMS-sized shares of work. */
    assert_true(mp_par_threads(3 * MP_PAR_MIN_ITEMS) <= 3);
    mp_par_force_threads(5);
    assert_int_equal(mp_par_threads(10), 5);
    mp_par_force_threads(1000);
    assert_int_equal(mp_par_threads(10), MP_PAR_MAX_THREADS);
    mp_par_force_threads(0);
    assert_int_equal(mp_par_threads(10), 1);
}

/* The first index where a and b differ, on one thread, the plain way. */
static size_t naive_first(const unsigned *a, const unsigned *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

static void test_first_diff_positions(void **state)
{
    (void)state;
    const size_t n = 100003;
    unsigned *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++)
        want[i] = (unsigned)(i * 2654435761u);
    for (size_t c = 0; c < NCOUNTS; c++) {
        int t = thread_counts[c];
        size_t pos[64];
        size_t np = positions(n, t, pos);
        memcpy(got, want, n * sizeof *got);
        assert_int_equal(mp_first_diff(got, want, n, t), n);
        for (size_t k = 0; k < np; k++) {
            got[pos[k]] ^= 0x100u;
            assert_int_equal(mp_first_diff(got, want, n, t), pos[k]);
            assert_int_equal(mp_first_diff(got, want, n, 1), pos[k]);
            got[pos[k]] ^= 0x100u;
        }
        /* Several wrong words, one per part: the first one wins, whichever
         * thread finishes first. */
        for (size_t k = np; k-- > 2;)
            got[pos[k]] ^= 1u;
        size_t first = naive_first(got, want, n);
        assert_int_equal(first, pos[2]);
        assert_int_equal(mp_first_diff(got, want, n, t), first);
    }
    free(want);
    free(got);
}

static void test_first_diff_random_agrees(void **state)
{
    (void)state;
    const size_t n = 65537;
    unsigned *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    srand(12345);
    for (size_t i = 0; i < n; i++)
        want[i] = (unsigned)rand();
    for (int trial = 0; trial < 200; trial++) {
        memcpy(got, want, n * sizeof *got);
        int wrong = rand() % 4;   /* 0 to 3 wrong words */
        for (int w = 0; w < wrong; w++)
            got[(size_t)rand() % n] ^= 1u << (rand() % 32);
        size_t single = naive_first(got, want, n);
        for (size_t c = 0; c < NCOUNTS; c++)
            assert_int_equal(mp_first_diff(got, want, n, thread_counts[c]),
                             single);
    }
    free(want);
    free(got);
}

static void test_periodic(void **state)
{
    (void)state;
    const size_t periods[] = {1, 7, 32, 256, 1000};
    const size_t n = 270336 + 5;   /* not a multiple of any period */
    unsigned *got = malloc(n * sizeof *got);
    assert_non_null(got);
    for (size_t p = 0; p < sizeof periods / sizeof *periods; p++) {
        size_t period = periods[p];
        unsigned *want = malloc(period * sizeof *want);
        assert_non_null(want);
        for (size_t i = 0; i < period; i++)
            want[i] = (unsigned)(i * 40503u + 7u);
        for (size_t i = 0; i < n; i++)
            got[i] = want[i % period];
        for (size_t c = 0; c < NCOUNTS; c++) {
            int t = thread_counts[c];
            size_t pos[64];
            size_t np = positions(n, t, pos);
            assert_int_equal(mp_first_diff_periodic(got, want, period, 0, n, t),
                             n);
            for (size_t k = 0; k < np; k++) {
                got[pos[k]] ^= 0x80000000u;
                assert_int_equal(
                    mp_first_diff_periodic(got, want, period, 0, n, t), pos[k]);
                got[pos[k]] ^= 0x80000000u;
            }
        }
        /* A phase: got[t] against want[(phase + t) % period], as a
         * staged chunk from the middle of the output is compared. */
        size_t phase = period / 2 + 1, m = n - phase;
        assert_int_equal(mp_first_diff_periodic(got + phase, want, period,
                                                phase, m, 3), m);
        got[n - 1] ^= 4u;
        assert_int_equal(mp_first_diff_periodic(got + phase, want, period,
                                                phase, m, 7), m - 1);
        got[n - 1] ^= 4u;
        if (period > 1)
            assert_int_equal(mp_first_diff_periodic(got + phase, want, period,
                                                    phase + 1, m, 1), 0);
        /* A word that is right for another thread of the period is
         * wrong here. */
        if (period > 1) {
            got[period + 1] = want[0];
            assert_int_equal(mp_first_diff_periodic(got, want, period, 0, n, 3),
                             period + 1);
            got[period + 1] = want[1];
        }
        free(want);
    }
    free(got);
}

static void test_first_not(void **state)
{
    (void)state;
    const size_t n = 50000;
    unsigned *got = malloc(n * sizeof *got);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++)
        got[i] = 0xfeedfaceu;
    for (size_t c = 0; c < NCOUNTS; c++) {
        int t = thread_counts[c];
        size_t pos[64];
        size_t np = positions(n, t, pos);
        assert_int_equal(mp_first_not(got, 0xfeedfaceu, n, t), n);
        for (size_t k = 0; k < np; k++) {
            got[pos[k]] = 0;
            assert_int_equal(mp_first_not(got, 0xfeedfaceu, n, t), pos[k]);
            got[pos[k]] = 0xfeedfaceu;
        }
    }
    assert_int_equal(mp_first_not(got, 0, n, 4), 0);
    free(got);
}

/* ---- the bandwidth probe's write/copy compare -------------------------- */

/* A destination allocation as a right launch leaves it: guard words of
 * poison before lo and from hi on, the pattern in between. */
static unsigned *right_destination(size_t words, size_t lo, size_t hi,
                                   int kernel)
{
    unsigned *d = malloc(words * sizeof *d);
    assert_non_null(d);
    for (size_t w = 0; w < words; w++)
        d[w] = w < lo || w >= hi ? MP_BW_POISON
               : kernel == MP_BW_WRITE ? mp_bw_write_word((unsigned)(w - lo))
                                       : mp_bw_src_word((unsigned)(w - lo));
    return d;
}

static void test_written_compare(void **state)
{
    (void)state;
    /* offset 128 bytes, 64 guard words after the array */
    const size_t lo = 32, hi = lo + 200000, words = hi + 64;
    for (int kernel = MP_BW_WRITE; kernel <= MP_BW_COPY; kernel++) {
        unsigned *d = right_destination(words, lo, hi, kernel);
        for (size_t c = 0; c < NCOUNTS; c++) {
            int t = thread_counts[c];
            assert_int_equal(
                mp_bw_written_first(d, 0, words, lo, hi, kernel, t), words);
            size_t pos[64];
            size_t np = positions(words, t, pos);
            /* the guards' edges and the array's first and last words */
            size_t extra[] = {lo - 1, lo, hi - 1, hi, words - 1};
            for (size_t k = 0; k < np + 5; k++) {
                size_t p = k < np ? pos[k] : extra[k - np];
                d[p] ^= 2u;
                assert_int_equal(
                    mp_bw_written_first(d, 0, words, lo, hi, kernel, t), p);
                d[p] ^= 2u;
            }
            /* A guard word left as the pattern would be (a kernel that
             * writes one element too many) is caught; an array word left
             * poisoned (never written) too. */
            d[hi] = mp_bw_src_word((unsigned)(hi - lo));
            d[lo - 1] = MP_BW_POISON;
            assert_int_equal(
                mp_bw_written_first(d, 0, words, lo, hi, kernel, t), hi);
            d[hi] = MP_BW_POISON;
            d[lo + 5] = MP_BW_POISON;
            assert_int_equal(
                mp_bw_written_first(d, 0, words, lo, hi, kernel, t), lo + 5);
            d[lo + 5] = kernel == MP_BW_WRITE ? mp_bw_write_word(5)
                                              : mp_bw_src_word(5);
        }
        /* A staged chunk from the middle of the allocation: indices are
         * chunk-relative, the pattern absolute. */
        size_t first = 100000, n = words - first;
        assert_int_equal(mp_bw_written_first(d + first, first, n, lo, hi,
                                             kernel, 5), n);
        d[words - 2] ^= 1u;
        assert_int_equal(mp_bw_written_first(d + first, first, n, lo, hi,
                                             kernel, 5), words - 2 - first);
        /* The write pattern is not the copy pattern. */
        int other = kernel == MP_BW_WRITE ? MP_BW_COPY : MP_BW_WRITE;
        assert_int_equal(mp_bw_written_first(d, 0, words, lo, hi, other, 3),
                         lo);
        free(d);
    }
}

/* ---- the references: 1 thread = many ---------------------------------- */

static void test_read_reference_threads_agree(void **state)
{
    (void)state;
    const size_t T = 1000;
    unsigned *one = malloc(2 * T * sizeof *one), *many = malloc(2 * T * sizeof *many);
    assert_non_null(one);
    assert_non_null(many);
    const int strides[] = {1, 3, 32};
    for (size_t s = 0; s < 3; s++) {
        mp_par_force_threads(1);
        mp_bw_read_reference(8, strides[s], 123457, T, one);
        for (size_t c = 1; c < NCOUNTS; c++) {
            mp_par_force_threads(thread_counts[c]);
            memset(many, 0xab, 2 * T * sizeof *many);
            mp_bw_read_reference(8, strides[s], 123457, T, many);
            assert_memory_equal(one, many, 2 * T * sizeof *one);
        }
    }
    mp_par_force_threads(0);
    free(one);
    free(many);
}

static void test_reduce_fill_threads_agree(void **state)
{
    (void)state;
    enum { n = 100001 };
    float *a1 = malloc(n * sizeof *a1), *b1 = malloc(n * sizeof *b1);
    float *a2 = malloc(n * sizeof *a2), *b2 = malloc(n * sizeof *b2);
    int *x1 = malloc(n * sizeof *x1), *x2 = malloc(n * sizeof *x2);
    assert_true(a1 && b1 && a2 && b2 && x1 && x2);
    mp_par_force_threads(1);
    mp_red_sum s1 = {0, 0};
    mp_red_fill(MP_RED_DOT, 77, n, a1, b1, &s1);
    mp_red_fill(MP_RED_CUBES, 77, n, x1, NULL, &s1);
    for (size_t c = 1; c < NCOUNTS; c++) {
        mp_par_force_threads(thread_counts[c]);
        mp_red_sum s2 = {0, 0};
        mp_red_fill(MP_RED_DOT, 77, n, a2, b2, &s2);
        mp_red_fill(MP_RED_CUBES, 77, n, x2, NULL, &s2);
        assert_memory_equal(a1, a2, n * sizeof *a1);
        assert_memory_equal(b1, b2, n * sizeof *b1);
        assert_memory_equal(x1, x2, n * sizeof *x1);
        assert_true(s1.dot == s2.dot);
        assert_true(s1.cubes == s2.cubes);
    }
    mp_par_force_threads(0);
    /* Each float is its mantissa x 2^-24 (the generation's shortcut for
     * ldexpf is exact). */
    for (size_t i = 0; i < n; i += 997)
        assert_true(a1[i] == (float)mp_red_dot_mantissa(77 + i, 0)
                                 / 16777216.0f);
    free(a1);
    free(b1);
    free(a2);
    free(b2);
    free(x1);
    free(x2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_cover_range),
        cmocka_unit_test(test_for_visits_each_index_once),
        cmocka_unit_test(test_thread_count),
        cmocka_unit_test(test_first_diff_positions),
        cmocka_unit_test(test_first_diff_random_agrees),
        cmocka_unit_test(test_periodic),
        cmocka_unit_test(test_first_not),
        cmocka_unit_test(test_written_compare),
        cmocka_unit_test(test_read_reference_threads_agree),
        cmocka_unit_test(test_reduce_fill_threads_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
