/*
 * test_fuzz_corpus.c - replays the fuzzers' committed inputs through the
 * three fuzz targets (tests/fuzz/), in the normal build and under
 * `make test SANITIZE=1`: the seed corpus (tests/fuzz/corpus/NAME) and
 * every input a fuzzer once crashed on (tests/fuzz/regress/NAME, the
 * regression tests). A target aborts on a finding, so a regression kills
 * this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

typedef struct {
    const char *name;
    int (*one)(const uint8_t *data, size_t size);
    int min_seeds;   /* the committed corpus has at least this many */
} target;

static const target targets[] = {
    {"ncu_csv", fuzz_ncu_csv, 4},
    {"results_csv", fuzz_results_csv, 4},
    {"sweep_file", fuzz_sweep_file, 8},
};

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* Runs every regular file of dir through the target; returns how many. */
static int replay_dir(const target *t, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        unsigned char *data = slurp(path, &size);
        assert_int_equal(t->one(data, size), 0);
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

static void test_target(void **state)
{
    const target *t = *state;
    char dir[256];
    snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", t->name);
    int seeds = replay_dir(t, dir);
    snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", t->name);
    int regress = replay_dir(t, dir);
    printf("# %s: %d seed inputs, %d regression inputs replayed\n", t->name,
           seeds, regress);
    assert_true(seeds >= t->min_seeds);
}

/* The targets with no input at all, and with one byte of each value. */
static void test_tiny_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        assert_int_equal(targets[i].one((const uint8_t *)"", 0), 0);
        for (int b = 0; b < 256; b++) {
            uint8_t byte = (uint8_t)b;
            assert_int_equal(targets[i].one(&byte, 1), 0);
        }
    }
}

int main(void)
{
    struct CMUnitTest tests[] = {
        {"replay ncu_csv", test_target, NULL, NULL, (void *)&targets[0]},
        {"replay results_csv", test_target, NULL, NULL, (void *)&targets[1]},
        {"replay sweep_file", test_target, NULL, NULL, (void *)&targets[2]},
        cmocka_unit_test(test_tiny_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
