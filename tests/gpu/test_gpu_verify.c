/*
 * test_gpu_verify.c - the verifications that run on CPU threads through
 * the pinned staging (probes/verify_par.c, probes/launch.c) still catch a
 * launch that wrote nothing: for each family whose verification changed
 * (bandwidth read/write/copy over several staging chunks, coalesce stores
 * and layouts, bank, reduce, texture, const), in this process, without
 * the runner:
 *
 *   setup, before_launch, launch, verify          must pass
 *   before_launch, NO launch, verify              must FAIL (the poison or
 *                                                 restored image is there)
 *   before_launch, launch, verify                 must pass again
 *   launch without before_launch, verify          must pass
 *
 * and prints each failure's message. Needs a GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "device.h"
#include "params.h"
#include "probe.h"

static mp_device dev;

typedef struct {
    const char *probe;
    const char *const params[16];   /* name, value, ..., NULL */
} verify_case;

static const verify_case cases[] = {
    /* 96 MiB + 48 bytes from offset 64: three staging chunks, guards on
     * both sides */
    {"bandwidth", {"kernel", "write", "width", "16", "offset", "64", "bytes",
                   "100663344", NULL}},
    {"bandwidth", {"kernel", "copy", "width", "4", "offset", "4", "bytes",
                   "100663344", NULL}},
    {"bandwidth", {"kernel", "read", "width", "8", "bytes", "67108864",
                   NULL}},
    {"coalesce", {"op", "st", "width", "4", "stride", "32", "blocks", "132",
                  "iterations", "4", NULL}},
    {"coalesce", {"op", "st", "width", "16", "offset", "16", "stride", "3",
                  "blocks", "132", "iterations", "4", NULL}},
    {"coalesce", {"layout", "soa", "iterations", "8", NULL}},
    {"coalesce", {"layout", "aos16", "iterations", "8", NULL}},
    {"bank", {"op", "ld", "stride", "3", "iterations", "256", NULL}},
    {"bank", {"op", "st", "width", "8", "stride", "2", "iterations", "256",
              NULL}},
    {"reduce", {"variant", "host-partials", "workload", "dot", "size",
                "16777216", NULL}},
    {"reduce", {"variant", "tree-sequential", "workload", "cubes", NULL}},
    /* 4096 x 4096 outputs: two staging chunks */
    {"texture", {"source", "tex2d", "access", "stencil", NULL}},
    {"texture", {"source", "global", "access", "row", NULL}},
    {"const", {"spread", "4", NULL}},
};

static void config(const mp_probe *p, const verify_case *c, long long *v)
{
    char err[256];
    for (int i = 0; i < p->nparams; i++)
        v[i] = p->params[i].def;
    for (int k = 0; c->params[k]; k += 2) {
        int i = mp_param_find(p->params, p->nparams, c->params[k]);
        assert_true(i >= 0);
        if (mp_param_parse_value(&p->params[i], c->params[k + 1], &v[i], err,
                                 sizeof err))
            fail_msg("%s", err);
    }
    if (p->check && p->check(v, dev.smem_per_block_optin, err, sizeof err))
        fail_msg("%s", err);
}

static void launch(const mp_probe *p, void *st, int before)
{
    if (before && p->before_launch)
        p->before_launch(st);
    p->launch(st);
}

static void test_case(void **state)
{
    const verify_case *c = *state;
    const mp_probe *p = mp_probe_find(c->probe);
    assert_non_null(p);
    long long v[MP_MAX_PARAMS];
    char label[128], err[512] = "";
    config(p, c, v);
    p->label(v, label, sizeof label);
    void *st = NULL;
    p->setup(v, &dev, &st);

    launch(p, st, 1);
    if (p->verify(st, err, sizeof err))
        fail_msg("%s: first launch: %s", label, err);

    /* No launch since the last verification: what is there is the
     * poison (or the restored initial image), which must not pass. */
    if (p->before_launch)
        p->before_launch(st);
    err[0] = 0;
    int skipped = p->verify(st, err, sizeof err);
    printf("# %-44s without a launch: %s\n", label,
           skipped ? err : "PASSED (wrong)");
    assert_int_equal(skipped, -1);
    assert_true(err[0] != 0);

    launch(p, st, 1);
    if (p->verify(st, err, sizeof err))
        fail_msg("%s: launch after the failed check: %s", label, err);
    launch(p, st, 0);
    if (p->verify(st, err, sizeof err))
        fail_msg("%s: launch without before_launch: %s", label, err);
    p->release(st);
    mp_probe_teardown(p, st);
}

int main(void)
{
    char why[256];
    if (mp_device_open(0, &dev, why, sizeof why)) {
        fprintf(stderr, "test_gpu_verify: %s\n", why);
        return 1;
    }
    enum { N = sizeof cases / sizeof *cases };
    struct CMUnitTest tests[N];
    char names[N][64];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%s_%d", cases[i].probe, i);
        tests[i] = (struct CMUnitTest){names[i], test_case, NULL, NULL,
                                       (void *)&cases[i]};
    }
    return _cmocka_run_group_tests("gpu_verify", tests, N, NULL, NULL);
}
