/*
 * test_cli_transfer.c - the transfer probe on the CPU: the link model's
 * numbers, bad input (exit 2, one line naming the parameter), p2p refused
 * on a node of one GPU and accepted on two (through the fake-device hook
 * MEMPROBE_FAKE_DEVICE / MEMPROBE_FAKE_DEVICES, runtime/device.h), the
 * prediction, and the sweep file's configurations.
 */
#include "cli_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include "link_model.h"

/* The directory the test starts in: the repository (make test). */
static char repo[PATH_MAX];

static const cli_bad_case bad_cases[] = {
    {{"transfer", "--bytes", "100"}, "--bytes"},
    {{"transfer", "--bytes", "8"}, "--bytes"},
    {{"transfer", "--bytes", "17179869184"}, "--bytes"},
    {{"transfer", "--direction", "h2h"}, "--direction"},
    {{"transfer", "--host-memory", "shared"}, "--host-memory"},
    {{"transfer", "--direction", "d2d", "--host-memory", "pageable"},
     "--host-memory"},
    {{"transfer", "--direction", "h2d", "--src", "1"}, "--src"},
    {{"transfer", "--direction", "d2h", "--peer-access", "off"},
     "--peer-access"},
    {{"transfer", "--host-memory", "pinned", "--prefetch", "on"},
     "--prefetch"},
    {{"transfer", "--direction", "d2h", "--host-memory", "managed",
      "--prefetch", "on"}, "--prefetch"},
    {{"transfer", "--method", "kernel"}, "--method"},
    {{"transfer", "--direction", "bidir", "--host-memory", "pageable",
      "--method", "kernel"}, "--method"},
    {{"transfer", "--direction", "p2p", "--src", "1", "--dst", "1"},
     "--src"},
    {{"transfer", "--blocks", "64"}, "--blocks"},
    {{"transfer", "--method", "dma"}, "--method"},
    {{"predict", "transfer", "--bytes", "24"}, "--bytes"},
    {{"predict", "transfer", "--direction", "d2d", "--method", "kernel",
      "--host-memory", "mapped"}, "--host-memory"},
};

/* Per-direction ceilings by hand: gen5 x16 = 32 GT/s x 16 x 128/130 / 8,
 * gen 1 and 2 lose 20% to 8b/10b, NVLink 4.0 x 18 = 450 GB/s. */
static void test_link_model(void **state)
{
    (void)state;
    assert_true(fabs(mp_pcie_gbs(5, 16) - 63.0154) < 1e-3);
    assert_true(fabs(mp_pcie_gbs(4, 16) - 31.5077) < 1e-3);
    assert_true(fabs(mp_pcie_gbs(3, 8) - 7.8769) < 1e-3);
    assert_true(fabs(mp_pcie_gbs(2, 16) - 8.0) < 1e-9);
    assert_true(fabs(mp_pcie_gbs(1, 1) - 0.25) < 1e-9);
    assert_true(mp_pcie_gbs(6, 16) > 2 * mp_pcie_gbs(5, 16) * 0.95);
    assert_true(mp_pcie_gbs(0, 16) == 0 && mp_pcie_gbs(7, 16) == 0);
    assert_true(mp_pcie_gbs(5, 0) == 0);
    assert_true(mp_nvlink_gbs(6, 18) == 450);
    assert_true(mp_nvlink_gbs(7, 18) == 900);
    assert_true(mp_nvlink_gbs(1, 4) == 80);
    assert_true(mp_nvlink_gbs(8, 18) == 0 && mp_nvlink_gbs(6, 0) == 0);
    assert_string_equal(mp_nvlink_name(6), "4.0");
    assert_string_equal(mp_nvlink_name(0), "?");
}

/* bytes moved, the H200's ceiling and the time it bounds. */
static void check_predict(const char *const *args, double moved,
                          double ceiling)
{
    cli_csv_row c;
    cli_predict_row(args, "transfer", &c);
    assert_true(cli_csv_number(&c, "bytes_moved") == moved);
    double got = cli_csv_number(&c, "h200_ceiling_gbs");
    assert_true(fabs(got - ceiling) < 1e-3 * ceiling);
    assert_true(fabs(cli_csv_number(&c, "min_time_us")
                     - moved / ceiling / 1e3) < 1e-3 * moved / ceiling / 1e3);
    cli_result_free(&c.r);
}

static void test_predict(void **state)
{
    (void)state;
    const char *h2d[] = {"predict", "transfer", "--bytes", "1073741824",
                         "--format", "csv", NULL};
    check_predict(h2d, 1073741824.0, 63.0154);
    const char *bidir[] = {"predict", "transfer", "--direction", "bidir",
                           "--bytes", "4096", "--format", "csv", NULL};
    check_predict(bidir, 8192, 2 * 63.0154);
    /* d2d: DRAM peak (3201 MHz x 2 x 752 bytes) over read + write. */
    const char *d2d[] = {"predict", "transfer", "--direction", "d2d",
                         "--format", "csv", NULL};
    check_predict(d2d, 67108864, 3201e6 * 2 * 752 / 1e9 / 2);
    /* Without a GPU the device count is unknown: predict p2p works. */
    cli_skip_if_gpu();
    const char *p2p[] = {"predict", "transfer", "--direction", "p2p-bidir",
                         "--peer-access", "off", "--format", "csv", NULL};
    check_predict(p2p, 2 * 67108864.0, 2 * 63.0154);
    const char *nvl[] = {"predict", "transfer", "--direction", "p2p",
                         "--format", "csv", NULL};
    check_predict(nvl, 67108864.0, 450);
}

/* p2p on a node of one GPU: exit 2 with a message, before any GPU work. */
static void test_p2p_one_gpu(void **state)
{
    (void)state;
    setenv("MEMPROBE_FAKE_DEVICE", "0", 1);
    unsetenv("MEMPROBE_FAKE_DEVICES");
    const char *args[] = {"transfer", "--direction", "p2p", NULL};
    cli_expect_usage_error(args, "needs two GPUs, 1 visible");
    setenv("MEMPROBE_FAKE_DEVICES", "2", 1);
    const char *dst[] = {"transfer", "--direction", "p2p", "--dst", "2",
                         NULL};
    cli_expect_usage_error(dst, "--dst: device 2 is not visible (2 GPUs");
    unsetenv("MEMPROBE_FAKE_DEVICES");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

/* Two fake GPUs: the p2p rows are written, with their device columns. */
static void test_p2p_two_gpus(void **state)
{
    (void)state;
    setenv("MEMPROBE_FAKE_DEVICE", "0", 1);
    setenv("MEMPROBE_FAKE_DEVICES", "2", 1);
    const char *args[] = {"transfer", "--direction", "p2p,p2p-bidir",
                          "--src", "1", "--dst", "0", "--peer-access",
                          "on,off", "--device", "1", "-o", "p2p.csv", NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    size_t len;
    char *csv = cli_read_file("p2p.csv", &len);
    assert_int_equal(cli_count_char(csv, '\n'), 5);   /* header + 4 */
    char *line = strchr(csv, '\n') + 1;
    /* The last 11 columns: device_id .. link. */
    const char *want[] = {"transfer/p2p/d1-d0/peer-on/memcpy/b67108864",
                          "transfer/p2p/d1-d0/peer-off/memcpy/b67108864",
                          "transfer/p2p-bidir/d1-d0/peer-on/memcpy/b67108864",
                          "transfer/p2p-bidir/d1-d0/peer-off/memcpy/b67108864"};
    for (int i = 0; i < 4; i++) {
        char *end = strchr(line, '\n');
        *end = '\0';
        cli_must_contain("row", line, want[i]);
        cli_must_contain("row", line, i % 2 ? ",1,0,off," : ",1,0,on,");
        line = end + 1;
    }
    free(csv);
    unsetenv("MEMPROBE_FAKE_DEVICES");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

static void test_sweep_list(void **state)
{
    (void)state;
    char conf[PATH_MAX + 64];
    snprintf(conf, sizeof conf, "%s/configs/transfer.conf", repo);
    const char *args[] = {"sweep", conf, "--list", NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("--list", r.out, "155 configurations in 5 sections");
    cli_must_contain("--list", r.out, "transfer/bidir/managed/memcpy/b4096");
    cli_must_contain("--list", r.out, "transfer/h2d/managed-pf/memcpy/b1073741824");
    cli_result_free(&r);
}

int main(void)
{
    if (!getcwd(repo, sizeof repo))
        return 1;
    const struct CMUnitTest extra[] = {
        cmocka_unit_test(test_link_model),
        cmocka_unit_test(test_predict),
        cmocka_unit_test(test_p2p_one_gpu),
        cmocka_unit_test(test_p2p_two_gpus),
        cmocka_unit_test(test_sweep_list),
    };
    return cli_run_group("transfer", NULL, 0, bad_cases,
                         sizeof bad_cases / sizeof bad_cases[0], extra,
                         sizeof extra / sizeof extra[0]);
}
