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
#include "row.h"
#include <sys/stat.h>

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
}

/* Without a GPU the device count is unknown: predict p2p works. */
static void test_predict_p2p_no_gpu(void **state)
{
    (void)state;
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
    cli_run_ok(args, &r);
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
    cli_run_expect(args, -1,
                   "155 configurations in 5 sections",
                   "transfer/bidir/managed/memcpy/b4096",
                   "transfer/h2d/managed-pf/memcpy/b1073741824",
                   NULL);
}

/* One CSV row of the transfer probe with the given cells (others empty),
 * in the schema's order. */
typedef struct {
    const char *dir, *host, *src, *peer, *bytes, *gbs, *frac, *us, *link;
} fake_row;

static void write_rows(const char *path, const fake_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int nc = mp_schema_columns();
    for (int c = 0; c < nc; c++)
        fprintf(f, "%s%s", c ? "," : "", mp_schema_name(c));
    fprintf(f, "\r\n");
    for (int i = 0; i < n; i++) {
        const fake_row *r = &rows[i];
        char config[128];
        snprintf(config, sizeof config, "transfer/%s/%s/%s/%s/memcpy/b%s",
                 r->dir, r->host, r->src ? r->src : "", r->peer ? r->peer
                 : "", r->bytes);
        for (int c = 0; c < nc; c++) {
            const char *name = mp_schema_name(c), *v = "";
            int p2p = !strncmp(r->dir, "p2p", 3);
            if (!strcmp(name, "device_name")) v = "NVIDIA H200";
            else if (!strcmp(name, "device_id")) v = "0";
            else if (!strcmp(name, "probe")) v = "transfer";
            else if (!strcmp(name, "config")) v = config;
            else if (!strcmp(name, "direction")) v = r->dir;
            else if (!strcmp(name, "host_memory")) v = r->host;
            else if (!strcmp(name, "method")) v = "memcpy";
            else if (!strcmp(name, "bytes")) v = r->bytes;
            else if (!strcmp(name, "src_device") && p2p) v = r->src;
            else if (!strcmp(name, "dst_device") && p2p)
                v = !strcmp(r->src, "0") ? "1" : "0";
            else if (!strcmp(name, "peer_access") && p2p) v = r->peer;
            else if (!strcmp(name, "verified")) v = "yes";
            else if (!strcmp(name, "bandwidth_gbs")) v = r->gbs;
            else if (!strcmp(name, "bandwidth_fraction")) v = r->frac;
            else if (!strcmp(name, "latency_us")) v = r->us;
            else if (!strcmp(name, "link")) v = r->link;
            fprintf(f, "%s%s", c ? "," : "", v);
        }
        fprintf(f, "\r\n");
    }
    fclose(f);
}

#define PCIE "pcie gen5 x16 (max gen5 x16)"

/* The study's transfer section and the tables from hand-made CSVs: the
 * numbers in the text are the CSVs' (ratios computed from them). */
static void test_study_section(void **state)
{
    (void)state;
    static const fake_row host[] = {
        {"h2d", "pinned", NULL, NULL, "4096", "0.4", "0.0063", "10.2", PCIE},
        {"h2d", "pageable", NULL, NULL, "4096", "0.2", "0.0032", "20.5", PCIE},
        {"h2d", "pinned", NULL, NULL, "1073741824", "55.2", "0.8760", "19452", PCIE},
        {"h2d", "pageable", NULL, NULL, "1073741824", "27.6", "0.4380", "38904", PCIE},
        {"d2h", "pinned", NULL, NULL, "1073741824", "50.0", "0.7935", "21475", PCIE},
        {"d2h", "pageable", NULL, NULL, "1073741824", "12.5", "0.1984", "85899", PCIE},
        {"h2d", "mapped", NULL, NULL, "1073741824", "54.0", "0.8569", "19884", PCIE},
    };
    static const fake_row peers[] = {
        {"p2p", "", "0", "on", "1073741824", "360.0", "0.8", "2983", "nvlink 4.0 x18"},
        {"p2p", "", "0", "off", "1073741824", "45.0", "0.7141", "23861", PCIE},
        {"p2p", "", "1", "on", "1073741824", "350.0", "0.7778", "3068", "nvlink 4.0 x18"},
        {"p2p", "", "1", "off", "1073741824", "43.75", "0.6943", "24542", PCIE},
    };
    assert_int_equal(mkdir("res", 0777), 0);
    assert_int_equal(mkdir("res/h200", 0777), 0);
    assert_int_equal(mkdir("res/h200/transfer", 0777), 0);
    assert_int_equal(mkdir("res/h200x2", 0777), 0);
    write_rows("res/h200/transfer/transfer.csv", host, 7);
    write_rows("res/h200x2/transfer-p2p.csv", peers, 4);
    const char *args[] = {"report", "--study", "study.md", "--results",
                          "res/h200", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    cli_result_free(&r);
    size_t len;
    char *md = cli_read_file("study.md", &len);
    cli_must_contain("study", md, "## Host transfers and peer access");
    cli_must_contain("study", md, "- **h2d**: pinned 55.2 GB/s (87.6% of "
                     PCIE "), pageable 27.6 GB/s (43.8% of " PCIE
                     "): pinned memory moves 2.00x as much per second.");
    cli_must_contain("study", md, "d2h**: pinned 50.0 GB/s (79.3% of");
    cli_must_contain("study", md, "moves 4.00x as much");
    cli_must_contain("study", md, "one h2d copy takes 10.2 us from pinned "
                     "and 20.5 us from pageable memory");
    cli_must_contain("study", md, "- **GPU 0 to GPU 1**: peer access on "
                     "360.0 GB/s (80.0% of nvlink 4.0 x18); off (staged "
                     "through the host) 45.0 GB/s (71.4% of " PCIE
                     "): direct access moves 8.0x as much.");
    cli_must_contain("study", md, "direct access moves 8.0x as much.");
    cli_must_contain("study", md, "| p2p | off | memcpy | 1073741824 | GPU 1 |");
    free(md);
    /* The tables and the plot data from the same CSVs. */
    const char *tab[] = {"report", "res/h200/transfer/transfer.csv",
                         "--table", "transfers", "--format", "csv", NULL};
    cli_run_expect(tab, -1,
                   "h2d,memcpy,1073741824,55.2,87.6,"
                   "19452,27.6,43.8,38904,54,85.7,19884",
                   NULL);
    const char *plot[] = {"report", "res/h200/transfer/transfer.csv",
                          "--plot-data", "pd", NULL};
    cli_run_ok(plot, &r);
    cli_result_free(&r);
    char *dat = cli_read_file("pd/transfer-bandwidth.dat", &len);
    cli_must_contain("plot data", dat, "\"x\" \"h2d pinned\"\n4096 0.4\n"
                     "1073741824 55.2\n");
    free(dat);
}

int main(void)
{
    if (!getcwd(repo, sizeof repo))
        return 1;
    const struct CMUnitTest extra[] = {
        cmocka_unit_test(test_link_model),
        cmocka_unit_test(test_predict),
        cmocka_unit_test(test_predict_p2p_no_gpu),
        cmocka_unit_test(test_p2p_one_gpu),
        cmocka_unit_test(test_p2p_two_gpus),
        cmocka_unit_test(test_sweep_list),
        cmocka_unit_test(test_study_section),
    };
    return CLI_RUN_BAD("transfer", bad_cases, extra);
}
