/*
 * test_gpu_profile_names.c - what `memprobe profile` says of a C++
 * program built with the toolkit's libraries, on the GPU:
 * build/tests/profile/thrust_sort (tests/profile/real/thrust_sort.cu:
 * Thrust's sort, a kernel template instantiated twice, NVTX ranges named
 * by registered strings).
 *
 * Runs (files in $GPU_TEST_DIR/profile-names/, default results/gpu-test):
 *   memprobe profile --check 'shared<=1.0,global<=1.0' -o thrust.csv --
 *       thrust_sort
 * and asserts:
 *   - the program's template kernels are named by the template arguments
 *     that tell them apart, tile_t<float, 32> and tile_t<int, 16>, each
 *     judged an offender of shared loads (its tile read by columns), and
 *     no offender is a CUB or Thrust kernel: their lines lie in the
 *     toolkit's headers, a library's;
 *   - in thrust.csv, CUB's kernels (cub in the mangled name) have
 *     library 1, tile_t's library 0, and the nvtx column reads the
 *     registered strings, pushed before the program's first CUDA call:
 *     "sort keys" for CUB's (with CUB's own range inside it, as
 *     "sort keys/cub::DeviceRadixSort"), "transpose tiles" for tile_t's.
 * Skips without a GPU or the program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../mp_skip.h"
#include "gpu_util.h"
#include "readfile.h"
#include "subprocess.h"

static char dir[1024], prog[1024], skip_why[1200];
static int rc_profile = -1;
static char *err_text;
static mp_csv_table launches;
static int have_launches;

#define NEED_RUN()                                                        \
    do {                                                                  \
        if (skip_why[0])                                                  \
            MP_SKIP("%s", skip_why);                                      \
    } while (0)

static void run_profile(void)
{
    char out[1200], log[1200];
    snprintf(out, sizeof out, "%s/thrust.csv", dir);
    snprintf(log, sizeof log, "%s/thrust.log", dir);
    char *argv[] = {(char *)gpu_memprobe(), "profile", "--check",
                    "shared<=1.0,global<=1.0", "-o", out, "--", prog, NULL};
    rc_profile = mp_spawn_wait_timeout(argv, log, 120);
    printf("# memprobe profile --check ... -o %s -- %s -> exit %d (log %s)\n",
           out, prog, rc_profile, log);
    char why[256];
    size_t n;
    err_text = mp_read_file(log, &n, why, sizeof why);
    have_launches = gpu_read_csv(dir, "thrust.csv", &launches);
}

static void test_runs(void **state)
{
    (void)state;
    NEED_RUN();
    assert_int_equal(rc_profile, 1);   /* tile_t's offenders */
    assert_non_null(err_text);
    assert_true(have_launches);
    assert_true(launches.nrows > 0);
}

/* The offenders: both instantiations by their template arguments, none
 * of CUB's or Thrust's. */
static void test_offenders_named(void **state)
{
    (void)state;
    NEED_RUN();
    assert_non_null(err_text);
    static const char *const want[] = {
        " tile_t<float, 32> shared load", " tile_t<int, 16> shared load"};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        if (!strstr(err_text, want[k]))
            fail_msg("no offender '%s' in:\n%s", want[k], err_text);
    for (const char *p = strstr(err_text, "memprobe: check: "); p;
         p = strstr(p + 1, "memprobe: check: ")) {
        size_t n = strcspn(p, "\n");
        if (memmem(p, n, "cub::", 5) || memmem(p, n, "thrust::", 8)
            || memmem(p, n, "/include/", 9))
            fail_msg("a library's line judged: %.*s", (int)n, p);
    }
    if (strstr(err_text, "tile_t#"))
        fail_msg("numbered names: %s", err_text);
}

/* CUB's kernels a library's, the program's its own; each range by its
 * registered string. */
static void test_library_and_ranges(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(have_launches);
    int cub = 0, tile = 0;
    for (int r = 0; r < launches.nrows; r++) {
        const char *m = gpu_cell(&launches, r, "mangled");
        const char *nvtx = gpu_cell(&launches, r, "nvtx");
        const char *lib = gpu_cell(&launches, r, "library");
        printf("# %s library %s nvtx '%s'\n", m, lib, nvtx);
        if (strstr(m, "cub")) {
            cub++;
            assert_string_equal(lib, "1");
            /* inside CUB's own range, when its version pushes one */
            if (strncmp(nvtx, "sort keys", 9) || (nvtx[9] && nvtx[9] != '/'))
                fail_msg("%s: nvtx '%s', not in 'sort keys'", m, nvtx);
        } else if (strstr(m, "tile_t")) {
            tile++;
            assert_string_equal(lib, "0");
            assert_string_equal(nvtx, "transpose tiles");
        }
    }
    assert_true(cub > 0);
    assert_int_equal(tile, 2);
}

int main(void)
{
    gpu_test_subdir("profile-names", dir, sizeof dir);
    snprintf(prog, sizeof prog, "%s/tests/profile/thrust_sort",
             gpu_build_dir());
    if (access("/dev/nvidiactl", F_OK))
        snprintf(skip_why, sizeof skip_why, "no NVIDIA GPU here "
                 "(/dev/nvidiactl missing)");
    else if (access(prog, X_OK))
        snprintf(skip_why, sizeof skip_why, "%s not built (make real-cpp)",
                 prog);
    else {
        gpu_make_test_dirs(dir);
        run_profile();
    }
    static const struct CMUnitTest tests[] = {
        GPU_TEST("profile_runs", test_runs),
        GPU_TEST("offenders_named_apart", test_offenders_named),
        GPU_TEST("library_kernels_and_ranges", test_library_and_ranges),
    };
    int rc = cmocka_run_group_tests_name("gpu_profile_names", tests, NULL,
                                         NULL);
    if (have_launches)
        mp_csv_free(&launches);
    free(err_text);
    return rc;
}
