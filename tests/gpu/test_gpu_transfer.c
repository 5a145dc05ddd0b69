/*
 * test_gpu_transfer.c - GPU tests of the transfer probe (`make test-gpu`,
 * scripts/gpu-check.sh transfer and multigpu).
 *
 * Sweeps (counters on: the copy-kernel rows are profiled, memcpy rows say
 * there is no kernel to profile):
 *   host    pinned, pageable, mapped, managed x h2d, d2h, bidir x 4 KiB,
 *           1 MiB, 64 MiB, and managed with prefetch
 *   kernel  the copy kernel over mapped and managed host memory
 *   d2d     copy engine and copy kernel within the device
 *   peer    (two GPUs) p2p and p2p-bidir both ways, peer access on and off,
 *           and the copy kernel storing into the peer; on one GPU,
 *           where memprobe must refuse p2p (exit 2), a passing skip
 *           "one GPU: peer copies need two"
 * Every row: verified (the destination read back and compared word by
 * word), a bandwidth, a latency; counters read for the d2d copy kernel
 * (memcpy rows: "no kernel to profile"); where the driver named the link, its
 * ceiling and a fraction of it no greater than 1.05 (5% for timing noise
 * on the smallest copies; the copy cannot beat its link). Numbers are
 * printed as "# " tables; no performance target is asserted.
 *
 * Expected run time on the H200: about 20 s (1 GiB never appears here).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../mp_skip.h"

#include "device.h"
#include "gpu_util.h"
#include "metrics.h"
#include "subprocess.h"

enum { HOST, KERNEL, D2D, PEER, NSWEEPS };

static const gpu_sweep sweep_def[NSWEEPS] = {
    [HOST] = {"transfer-host",
              "--direction h2d,d2h,bidir --host-memory "
              "pinned,pageable,mapped,managed --bytes 4096,1048576,67108864 "
              "--runs 5"},
    [KERNEL] = {"transfer-kernel",
                "--direction h2d,d2h,bidir --host-memory mapped,managed "
                "--method kernel --bytes 65536,16777216 --runs 5"},
    [D2D] = {"transfer-d2d",
             "--direction d2d --method memcpy,kernel "
             "--bytes 4096,1048576,268435456 --runs 5"},
    [PEER] = {"transfer-peer",
              "--direction p2p,p2p-bidir --src 0 --dst 1 --peer-access on,off "
              "--bytes 4096,1048576,67108864 --runs 5"},
};

static const gpu_col cols[] = {
    GPU_COL("configuration", "%-52s", "config"),
    GPU_COL("link", "%-34s", "link"),
    GPU_COL("GB/s", "%9.2f", "bandwidth_gbs"),
    GPU_COL_FLAGS("ceiling", "%8.1f", "ceiling_gbs", GPU_COL_OPTIONAL),
    GPU_COL_FLAGS("fraction", "%8.3f", "bandwidth_fraction",
                  GPU_COL_OPTIONAL),
    GPU_COL("latency_us", "%10.2f", "latency_us"),
    GPU_COL_END,
};

/* Every row of a sweep verified, with sane numbers. */
static void check_rows(const mp_csv_table *t, int want_rows)
{
    assert_int_equal(t->nrows, want_rows);
    gpu_print_table(cols, t);
    for (int i = 0; i < t->nrows; i++) {
        assert_string_equal(gpu_cell(t, i, "verified"), "yes");
        assert_string_equal(gpu_cell(t, i, "probe"), "transfer");
        double gbs = gpu_number(t, i, "bandwidth_gbs");
        double us = gpu_number(t, i, "latency_us");
        double bytes = gpu_number(t, i, "bytes");
        assert_true(gbs > 0 && us > 0);
        /* bandwidth = bytes moved / median time, latency = median time. */
        int both = strstr(gpu_cell(t, i, "direction"), "bidir") != NULL;
        assert_true(fabs(gbs - bytes * (both ? 2 : 1) / (us * 1e3))
                    <= 2e-3 * gbs + 1e-3);
        assert_true(gpu_cell(t, i, "link")[0] != '\0');
        const char *ceiling = gpu_cell(t, i, "ceiling_gbs");
        if (ceiling[0]) {
            double f = gpu_number(t, i, "bandwidth_fraction");
            assert_true(f > 0 && f <= 1.05);
        } else {
            printf("# %s: no ceiling: %s\n", gpu_cell(t, i, "config"),
                   gpu_cell(t, i, "link"));
        }
        /* Managed memory goes back to the host before every launch: one
         * launch per sample. Every other copy of under 0.4 ms runs
         * several launches per sample (the automatic 1-ms sample). */
        int per_sample = (int)gpu_number(t, i, "launches_per_sample");
        if (!strcmp(gpu_cell(t, i, "host_memory"), "managed"))
            assert_int_equal(per_sample, 1);
        else if (us < 400)
            assert_true(per_sample > 1);
        const char *method = gpu_cell(t, i, "method");
        const char *counters = gpu_cell(t, i, "counters_status");
        /* The copy kernel within the device is profiled like any probe's
         * kernel; over host or peer memory the profiler's replay may
         * refuse it (said, not failed: the copy was verified). */
        if (!strcmp(method, "kernel")) {
            if (!strcmp(gpu_cell(t, i, "direction"), "d2d"))
                assert_true(mp_counters_status_ok(counters));
            else if (!mp_counters_status_ok(counters))
                printf("# %s: counters: %s\n", gpu_cell(t, i, "config"),
                       counters);
        } else {
            assert_non_null(strstr(counters, "no kernel"));
        }
    }
}

/* Runs the extra transfer sweep `name` with args; check_rows on it. */
static void sweep_rows(const char *name, const char *args, int want_rows)
{
    mp_csv_table t;
    assert_int_equal(gpu_run_sweep("transfer", name, args, &t), 0);
    check_rows(&t, want_rows);
    mp_csv_free(&t);
}

static void run_and_check(int s, int rows)
{
    mp_csv_table t;
    int rc = gpu_run_sweep("transfer", sweep_def[s].name, sweep_def[s].args,
                           &t);
    assert_int_equal(rc, 0);
    check_rows(&t, rows);
    mp_csv_free(&t);
}

static void test_host(void **state)
{
    (void)state;
    run_and_check(HOST, 3 * 4 * 3);
    sweep_rows("transfer-prefetch",
               "--direction h2d,bidir --host-memory managed --prefetch "
               "off,on --bytes 1048576,67108864 --runs 5", 8);
}

static void test_kernel(void **state)
{
    (void)state;
    run_and_check(KERNEL, 3 * 2 * 2);
}

static void test_d2d(void **state)
{
    (void)state;
    run_and_check(D2D, 2 * 3);
}

static void test_peer(void **state)
{
    (void)state;
    int n = mp_device_count();
    if (n < 2) {
        /* One GPU: p2p is refused as bad input. */
        char *argv[] = {(char *)gpu_memprobe(), "transfer", "--direction",
                        "p2p", NULL};
        char log[1024];
        snprintf(log, sizeof log, "%s/transfer-p2p-one-gpu.log",
                 gpu_test_dir());
        assert_int_equal(mp_spawn_wait(argv, log), 2);
        MP_SKIP("%s: peer copies need two", n == 1 ? "one GPU" : "no GPU");
    }
    run_and_check(PEER, 2 * 2 * 3);
    sweep_rows("transfer-peer-back",
               "--direction p2p --src 1 --dst 0 --peer-access on,off "
               "--method memcpy --bytes 1048576,67108864 --runs 5", 4);
    sweep_rows("transfer-peer-kernel",
               "--direction p2p,p2p-bidir --method kernel --bytes "
               "1048576,67108864 --runs 5", 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_kernel),
        cmocka_unit_test(test_d2d),
        cmocka_unit_test(test_peer),
    };
    return cmocka_run_group_tests_name("gpu_transfer", tests, NULL, NULL);
}
