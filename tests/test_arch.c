/*
 * test_arch.c - memprobe on GPUs other than the H200, without a GPU:
 *   - features by architecture: every parameter value whose instruction
 *     needs a newer GPU (choice_cc in the tables, probes/arch.h) is refused
 *     with exit 2, a message naming the compute capability, and no CSV, on
 *     a fake GPU below it; accepted on one at or above it; `predict` (no
 *     device) refuses nothing; `memprobe list` shows the requirement;
 *   - ceilings from the device: the fake A100, RTX 4090, B200 and T4
 *     (MEMPROBE_FAKE_DEVICE=NAME, runtime/device.c) give the ceilings of
 *     their own figures, and every probe's rows on them carry their SM
 *     count, clock and compute capability and none of the H200's numbers.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "device.h"
#include "probe.h"

static void fake(const char *spec)
{
    assert_int_equal(setenv(MP_FAKE_DEVICE_ENV, spec, 1), 0);
}

/* The message of params.c, on the bandwidth table itself. */
static void test_check_cc(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("bandwidth");
    assert_non_null(p);
    int k = mp_param_find(p->params, p->nparams, "cache");
    assert_true(k >= 0);
    long long v[MP_MAX_PARAMS];
    for (int i = 0; i < p->nparams; i++)
        v[i] = p->params[i].def;
    v[k] = 3;   /* pf256 */
    assert_string_equal(p->params[k].choices[3], "pf256");
    char err[256];
    assert_int_equal(mp_param_check_cc(p->params, p->nparams, v, 75, err,
                                       sizeof err), -1);
    assert_string_equal(err, "--cache pf256 needs compute capability 8.0 "
                        "or newer; this GPU is 7.5");
    assert_int_equal(mp_param_check_cc(p->params, p->nparams, v, 80, err,
                                       sizeof err), 0);
    v[k] = 2;   /* na: any GPU */
    assert_int_equal(mp_param_check_cc(p->params, p->nparams, v, 75, err,
                                       sizeof err), 0);
    char cc[256];
    mp_param_describe_cc(&p->params[k], cc, sizeof cc);
    assert_string_equal(cc, " [pf256: compute capability 8.0+]");
}

/* Every value with a requirement, on the fake GPUs below and above it. */
static void test_refused_below(void **state)
{
    (void)state;
    static const char *const gpus[] = {"t4", "a100", "rtx4090", "h200",
                                       "b200"};
    int refused = 0, accepted = 0;
    cli_result list;
    const char *list_args[] = {"list", NULL};
    assert_int_equal(cli_run(list_args, &list), 0);
    for (int i = 0; mp_probe_at(i); i++) {
        const mp_probe *p = mp_probe_at(i);
        for (int k = 0; k < p->nparams; k++) {
            const mp_param_def *d = &p->params[k];
            if (d->kind != MP_PARAM_CHOICE || !d->choice_cc)
                continue;
            for (int c = 0; d->choices[c]; c++) {
                int need = d->choice_cc[c];
                if (!need)
                    continue;
                char opt[64], want[160], shown[128];
                snprintf(opt, sizeof opt, "--%s", d->name);
                snprintf(shown, sizeof shown, "[%s: compute capability "
                         "%d.%d+]", d->choices[c], need / 10, need % 10);
                cli_must_contain("memprobe list", list.out, shown);
                for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
                    mp_device dev;
                    assert_int_equal(mp_device_describe(gpus[g], &dev), 0);
                    int have = 10 * dev.cc_major + dev.cc_minor;
                    fake(gpus[g]);
                    unlink("arch.csv");
                    const char *args[] = {p->name, opt, d->choices[c], "-o",
                                          "arch.csv", NULL};
                    cli_result r;
                    cli_run(args, &r);
                    if (have < need) {
                        snprintf(want, sizeof want, "memprobe: %s %s needs "
                                 "compute capability %d.%d or newer; this "
                                 "GPU is %d.%d", opt, d->choices[c],
                                 need / 10, need % 10, have / 10, have % 10);
                        if (r.status != 2)
                            fail_msg("%s %s %s on %s: exit %d, want 2",
                                     p->name, opt, d->choices[c], gpus[g],
                                     r.status);
                        cli_must_contain("stderr", r.err, want);
                        assert_false(cli_path_exists("arch.csv"));
                        refused++;
                    } else {
                        if (r.status != 0)
                            fail_msg("%s %s %s on %s: exit %d: %s", p->name,
                                     opt, d->choices[c], gpus[g], r.status,
                                     r.err);
                        assert_true(cli_path_exists("arch.csv"));
                        accepted++;
                    }
                    cli_result_free(&r);
                }
                /* predict has no device and refuses nothing */
                unsetenv(MP_FAKE_DEVICE_ENV);
                const char *pargs[] = {"predict", p->name, opt,
                                       d->choices[c], NULL};
                cli_result r;
                assert_int_equal(cli_run(pargs, &r), 0);
                cli_result_free(&r);
            }
        }
    }
    unsetenv(MP_FAKE_DEVICE_ENV);
    cli_result_free(&list);
    /* pf256, cpasync, bulk, tensor at least */
    assert_true(refused >= 4);
    assert_true(accepted >= 4);
    printf("# %d refusals, %d acceptances\n", refused, accepted);
}

/* Ceilings of the fake GPUs, from their own figures. */
static void test_ceilings(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        double dram_gbs, shared_gbs;
    } want[] = {
        /* 2 x clock x bus bytes; 32 banks x 4 B x SMs x SM clock */
        {"h200", 2 * 3201e6 * 752 / 1e9, 128.0 * 132 * 1.980},
        {"a100", 2 * 1215e6 * 640 / 1e9, 128.0 * 108 * 1.410},
        {"rtx4090", 2 * 10501e6 * 48 / 1e9, 128.0 * 128 * 2.520},
        {"b200", 2 * 3996e6 * 1024 / 1e9, 128.0 * 148 * 1.965},
        {"t4", 2 * 5001e6 * 32 / 1e9, 128.0 * 40 * 1.590},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        mp_device d;
        assert_int_equal(mp_device_describe(want[i].key, &d), 0);
        assert_float_equal(mp_device_dram_peak_gbs(&d), want[i].dram_gbs,
                           1e-6);
        assert_float_equal(mp_device_shared_ceiling_gbs(&d),
                           want[i].shared_gbs, 1e-6);
        fake(want[i].key);
        const char *args[] = {"device", NULL};
        cli_result r;
        assert_int_equal(cli_run(args, &r), 0);
        char line[128];
        snprintf(line, sizeof line, "DRAM peak                 %.1f GB/s",
                 want[i].dram_gbs);
        cli_must_contain("memprobe device", r.out, line);
        cli_result_free(&r);
    }
    mp_device h;
    mp_device_default(&h);
    assert_int_equal(h.sm_count, 132);   /* predict's default: the H200 */
    assert_int_equal(mp_device_describe("nosuch", &h), -1);
    unsetenv(MP_FAKE_DEVICE_ENV);
}

/* The cells of row 1 of a CSV file, in place; returns how many. */
static int split(char *line, char **cell, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        cell[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* Every probe's default configuration on the fake A100, RTX 4090 and
 * B200: the device columns are theirs, and no cell holds an H200 number. */
static void test_no_h200_in_rows(void **state)
{
    (void)state;
    static const char *const gpus[] = {"a100", "rtx4090", "b200"};
    static const char *const h200[] = {"132", "1980", "3201", "6016",
        "62914560", "232448", "233472", "4814.3", "33454.1", "9.0",
        "150754820096"};
    int rows = 0;
    for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
        mp_device dev;
        assert_int_equal(mp_device_describe(gpus[g], &dev), 0);
        fake(gpus[g]);
        for (int i = 0; mp_probe_at(i); i++) {
            const mp_probe *p = mp_probe_at(i);
            if (p->cc > 10 * dev.cc_major + dev.cc_minor)
                continue;
            unlink("rows.csv");
            const char *args[] = {p->name, "-o", "rows.csv", NULL};
            cli_result r;
            if (cli_run(args, &r) != 0)
                fail_msg("%s on %s: exit %d: %s", p->name, gpus[g], r.status,
                         r.err);
            cli_result_free(&r);
            size_t len;
            char *text = cli_read_file("rows.csv", &len);
            char *nl = strchr(text, '\n');
            assert_non_null(nl);
            *nl = '\0';
            char *h[512], *v[512];
            int nh = split(text, h, 512);
            char *row = nl + 1;
            char *end = strchr(row, '\n');
            if (end)
                *end = '\0';
            int nv = split(row, v, 512);
            assert_int_equal(nh, nv);
            for (int c = 0; c < nh; c++) {
                char want[64] = "";
                if (!strcmp(h[c], "sm_count"))
                    snprintf(want, sizeof want, "%d", dev.sm_count);
                else if (!strcmp(h[c], "sm_clock_mhz"))
                    snprintf(want, sizeof want, "%d",
                             dev.sm_clock_khz / 1000);
                else if (!strcmp(h[c], "cc"))
                    snprintf(want, sizeof want, "%d.%d", dev.cc_major,
                             dev.cc_minor);
                if (*want && strcmp(v[c], want))
                    fail_msg("%s on %s: %s = %s, want %s", p->name, gpus[g],
                             h[c], v[c], want);
                for (size_t k = 0; k < sizeof h200 / sizeof h200[0]; k++)
                    if (!strcmp(v[c], h200[k]))
                        fail_msg("%s on %s: column %s holds the H200's %s",
                                 p->name, gpus[g], h[c], v[c]);
            }
            free(text);
            rows++;
        }
    }
    unsetenv(MP_FAKE_DEVICE_ENV);
    printf("# %d rows on fake GPUs checked\n", rows);
    assert_true(rows >= 3 * 8);
}

int main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_cc),
        cmocka_unit_test(test_refused_below),
        cmocka_unit_test(test_ceilings),
        cmocka_unit_test(test_no_h200_in_rows),
    };
    return CLI_RUN_TESTS("arch", tests);
}
