/*
 * test_cli_coalesce.c - the coalesce probe from the command line: runs the
 * built memprobe binary (env MEMPROBE, default ./memprobe) without a shell
 * and checks exit status, stdout and stderr; also the probe's label and
 * check functions called directly.
 *
 * Bad input must end with exit 2 and one stderr line naming the parameter,
 * before any GPU work and without creating results/. `predict coalesce
 * --format csv` must print a header and one row per configuration whose
 * numbers are exactly the sector model's (model/sector_model.c). Runs
 * happen in a fresh temporary directory.
 */
#include "cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "probe.h"
#include "sector_model.h"

/* ---- table 1: commands that work: exit 0, stdout contains each ------ */

static const cli_ok_case good_cases[] = {
    {{"coalesce", "--help"}, {"usage: memprobe coalesce", "--offset",
                              "aos12-staged"}},
    {{"predict", "coalesce", "--help"}, {"usage: memprobe predict coalesce",
                                         "--format"}},
    {{"list"}, {"coalesce", "--cache", "default|cg"}},
    {{"help"}, {"coalesce"}},
    {{"predict", "coalesce"}, {"sectors_per_request", "pattern"}},
    {{"predict", "coalesce", "--layout", "aos12"}, {"aos12", "sectors_per_iteration"}},
    /* Widths with offsets that suit all of them. */
    {{"predict", "coalesce", "--width", "4,8,16", "--offset", "0..128:16",
      "--op", "ld,st"}, {"coalesce"}},
    {{"predict", "coalesce", "--op", "ld", "--cache", "cg"}, {" cg "}},
    {{"predict", "coalesce", "--layout", "soa,aos12,aos16,aos12-staged",
      "--threads", "128", "--iterations", "8", "--blocks", "4"}, {"aos16"}},
};

/* ---- table 2: bad input: exit 2, one stderr line naming it ---------- */

static const cli_bad_case bad_cases[] = {
    /* Misaligned offsets: never a misaligned-address fault. */
    {{"coalesce", "--offset", "6"}, "--offset"},
    {{"coalesce", "--width", "8", "--offset", "4"}, "--offset"},
    {{"coalesce", "--width", "16", "--offset", "8"}, "--offset"},
    {{"coalesce", "--width", "16", "--offset", "4088"}, "--offset"},
    {{"predict", "coalesce", "--width", "8", "--offset", "12"}, "--offset"},
    /* A sweep with one invalid combination (width 8, offset 4). */
    {{"coalesce", "--width", "4,8", "--offset", "0,4"}, "--offset"},
    /* Values out of range or not allowed. */
    {{"coalesce", "--width", "12"}, "--width"},
    {{"coalesce", "--width", "2"}, "--width"},
    {{"coalesce", "--layout", "xx"}, "--layout"},
    {{"coalesce", "--layout", "aos"}, "--layout"},
    {{"coalesce", "--op", "rw"}, "--op"},
    {{"coalesce", "--cache", "cs"}, "--cache"},
    {{"coalesce", "--op", "st", "--cache", "cg"}, "--cache"},
    {{"predict", "coalesce", "--op", "ld,st", "--cache", "cg"}, "--cache"},
    {{"coalesce", "--offset", "-4"}, "--offset"},
    {{"coalesce", "--offset", "4100"}, "--offset"},
    {{"coalesce", "--offset", "99999999999999999999"}, "--offset"},
    {{"coalesce", "--stride", "-1"}, "--stride"},
    {{"coalesce", "--stride", "1025"}, "--stride"},
    {{"coalesce", "--group", "0"}, "--group"},
    {{"coalesce", "--group", "33"}, "--group"},
    {{"coalesce", "--period", "0"}, "--period"},
    {{"coalesce", "--threads", "48"}, "--threads"},
    {{"coalesce", "--threads", "2048"}, "--threads"},
    {{"coalesce", "--blocks", "16385"}, "--blocks"},
    {{"coalesce", "--blocks", "-1"}, "--blocks"},
    {{"coalesce", "--iterations", "0"}, "--iterations"},
    {{"coalesce", "--iterations", "4097"}, "--iterations"},
    {{"coalesce", "--width", "8", "--width", "4"}, "--width"},
    /* Layouts take threads, blocks and iterations only. */
    {{"coalesce", "--layout", "aos12", "--stride", "2"}, "--stride"},
    {{"coalesce", "--layout", "soa", "--width", "16"}, "--width"},
    {{"coalesce", "--layout", "aos16", "--offset", "16"}, "--offset"},
    {{"coalesce", "--layout", "aos12-staged", "--op", "st"}, "--op"},
    {{"coalesce", "--layout", "soa", "--cache", "cg"}, "--cache"},
    {{"coalesce", "--layout", "aos12", "--group", "2"}, "--group"},
    {{"coalesce", "--layout", "aos16", "--period", "16"}, "--period"},
    {{"predict", "coalesce", "--layout", "pattern,soa", "--stride", "2"},
     "--stride"},
};

/* ---- predict --format csv against the model ------------------------- */

typedef struct {
    const char *op, *width, *offset, *stride, *group, *period;
} predict_case;

static const predict_case predict_cases[] = {
    {"ld", "8", "8", "1", "1", "32"},      /* README's example */
    {"ld", "4", "0", "1", "1", "32"},
    {"st", "4", "4", "1", "1", "32"},
    {"ld", "16", "16", "1", "1", "32"},
    {"st", "16", "48", "3", "1", "32"},
    {"ld", "4", "64", "8", "1", "32"},
    {"ld", "8", "0", "0", "1", "32"},
    {"st", "4", "0", "32", "1", "4"},
    {"ld", "16", "0", "2", "4", "16"},
    {"ld", "8", "120", "1", "3", "32"},
    {"st", "8", "4088", "1024", "1", "32"},
};

static void check_pattern_csv(const predict_case *pc)
{
    const char *args[] = {"predict", "coalesce", "--op", pc->op, "--width",
                          pc->width, "--offset", pc->offset, "--stride",
                          pc->stride, "--group", pc->group, "--period",
                          pc->period, "--format", "csv", NULL};
    cli_csv_row c;
    cli_predict_row(args, "coalesce", &c);
    assert_string_equal(cli_csv_text(&c, "layout"), "pattern");
    assert_string_equal(cli_csv_text(&c, "op"), pc->op);
    assert_string_equal(cli_csv_text(&c, "width"), pc->width);
    assert_string_equal(cli_csv_text(&c, "offset"), pc->offset);
    assert_string_equal(cli_csv_text(&c, "stride"), pc->stride);
    assert_string_equal(cli_csv_text(&c, "group"), pc->group);
    assert_string_equal(cli_csv_text(&c, "period"), pc->period);
    assert_string_equal(cli_csv_text(&c, "cache"), "default");

    mp_pattern p = {0, atoll(pc->stride), atoll(pc->group),
                    atoll(pc->period), 0};
    mp_sector_prediction s;
    mp_sector_predict_pattern(&p, atoll(pc->offset), atoi(pc->width),
                              !strcmp(pc->op, "st"), &s);
    print_message("# %s w%s o%s s%s g%s p%s: %d sectors, ideal %d, %d "
                  "lines\n", pc->op, pc->width, pc->offset, pc->stride,
                  pc->group, pc->period, s.sectors, s.ideal_sectors,
                  s.lines);
    assert_true(cli_csv_number(&c, "sectors_per_request")
                == s.sectors_per_request);
    assert_true(cli_csv_number(&c, "ideal_sectors_per_request")
                == (double)s.ideal_sectors / s.requests);
    assert_true(cli_csv_number(&c, "requests_per_instruction")
                == s.requests);
    assert_true(cli_csv_number(&c, "sectors_per_instruction") == s.sectors);
    assert_true(cli_csv_number(&c, "lines_per_instruction") == s.lines);
    assert_true(cli_csv_number(&c, "distinct_addresses")
                == s.distinct_addresses);
    assert_true(cli_csv_number(&c, "instructions_per_iteration") == 1);
    assert_true(cli_csv_number(&c, "sectors_per_iteration") == s.sectors);
    cli_result_free(&c.r);
}

static void test_predict_csv_pattern(void **state)
{
    (void)state;
    /* The example command of README and docs/coalesce.md, checked by
     * hand: 8-byte lanes from byte 8: bytes 8..263 -> sectors 0..8 = 9,
     * ideal 256/32 = 8, lines 0..2 = 3. */
    const char *args[] = {"predict", "coalesce", "--width", "8", "--offset",
                          "8", "--stride", "1", "--format", "csv", NULL};
    cli_csv_row c;
    cli_predict_row(args, "coalesce", &c);
    /* The header names both (column() fails the test otherwise). */
    cli_column(c.h, c.n, "sectors_per_request");
    cli_column(c.h, c.n, "ideal_sectors_per_request");
    assert_true(cli_csv_number(&c, "sectors_per_request") == 9);
    assert_true(cli_csv_number(&c, "ideal_sectors_per_request") == 8);
    assert_true(cli_csv_number(&c, "lines_per_instruction") == 3);
    cli_result_free(&c.r);

    for (size_t i = 0; i < sizeof predict_cases / sizeof predict_cases[0];
         i++)
        check_pattern_csv(&predict_cases[i]);
}

static void test_predict_csv_layouts(void **state)
{
    (void)state;
    for (int layout = MP_LAYOUT_SOA; layout < MP_LAYOUT_COUNT; layout++) {
        const char *args[] = {"predict", "coalesce", "--layout",
                              mp_layout_names[layout], "--format", "csv",
                              NULL};
        cli_csv_row c;
        cli_predict_row(args, "coalesce", &c);
        assert_string_equal(cli_csv_text(&c, "layout"),
                            mp_layout_names[layout]);
        mp_layout_prediction p;
        assert_int_equal(mp_layout_predict((mp_layout)layout, &p), 0);
        print_message("# %s: %d loads, %d sectors, ideal %d\n",
                      mp_layout_names[layout], p.ld_instructions,
                      p.ld_sectors, p.ld_ideal_sectors);
        assert_true(cli_csv_number(&c, "sectors_per_request")
                    == (double)p.ld_sectors / p.ld_requests);
        assert_true(cli_csv_number(&c, "ideal_sectors_per_request")
                    == (double)p.ld_ideal_sectors / p.ld_requests);
        assert_true(cli_csv_number(&c, "instructions_per_iteration")
                    == p.ld_instructions);
        assert_true(cli_csv_number(&c, "sectors_per_iteration")
                    == p.ld_sectors);
        cli_result_free(&c.r);
    }
    /* By hand (test_sector_model.c derives them): sectors per element
     * warp soa 12, aos12 36, aos16 16, staged 12. */
    const char *args[] = {"predict", "coalesce", "--layout", "aos12",
                          "--format", "csv", NULL};
    cli_csv_row c;
    cli_predict_row(args, "coalesce", &c);
    assert_true(cli_csv_number(&c, "sectors_per_iteration") == 36);
    assert_true(cli_csv_number(&c, "sectors_per_request") == 12);
    assert_true(cli_csv_number(&c, "ideal_sectors_per_request") == 4);
    cli_result_free(&c.r);
}

/* A sweep: one row per configuration, op slowest (table order: layout,
 * op, width, offset, stride, ...). */
static void test_predict_csv_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "coalesce", "--op", "ld,st", "--width",
                          "4", "--offset", "0,4", "--stride", "1,2",
                          "--format", "csv", NULL};
    cli_run_expect(args, 1 + 8,
                   /* o0 s1: 4 sectors; o0 s2: bytes 0..251 -> 8; o4 s1:
                    * 4..131 -> 5; o4 s2: 4..255 -> 8 (ideal 4 each). */
        "\r\ncoalesce,pattern,ld,4,0,1,1,32,default,4,4,1,4,1,32,1,4\r\n"
        "coalesce,pattern,ld,4,0,2,1,32,default,8,4,1,8,2,32,1,8\r\n"
        "coalesce,pattern,ld,4,4,1,1,32,default,5,4,1,5,2,32,1,5\r\n"
        "coalesce,pattern,ld,4,4,2,1,32,default,8,4,1,8,2,32,1,8\r\n"
        "coalesce,pattern,st,4,0,1,1,32,default,4,4,1,4,1,32,1,4\r\n",
                   NULL);
}

/* ---- the probe's functions, called directly ------------------------- */

static void test_labels(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("coalesce");
    assert_non_null(p);
    long long v[MP_MAX_PARAMS];
    char buf[128];
    cli_param_values(p, v, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/pattern/ld/w4/o0/s1/g1/p32/default");
    cli_param_values(p, v, "op", 0LL, "width", 8LL, "offset", 8LL, "stride", 1LL,
           NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/pattern/ld/w8/o8/s1/g1/p32/default");
    cli_param_values(p, v, "op", 1LL, "width", 16LL, "offset", 128LL, "stride", 32LL,
           "group", 2LL, "period", 16LL, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf,
                        "coalesce/pattern/st/w16/o128/s32/g2/p16/default");
    cli_param_values(p, v, "cache", 1LL, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/pattern/ld/w4/o0/s1/g1/p32/cg");
    cli_param_values(p, v, "layout", (long long)MP_LAYOUT_AOS12, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/aos12");
    cli_param_values(p, v, "layout", (long long)MP_LAYOUT_AOS12_STAGED, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/aos12-staged");
}

/* The probe's check on configurations the CLI cannot reach one by one:
 * the full sweep (widths 4, 8, 16, offsets 0..128, strides 1, 2, 3, 4, 8,
 * 32) is valid where aligned, every misaligned offset is not. */
static void test_check_sweep(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("coalesce");
    long long v[MP_MAX_PARAMS];
    char err[256];
    static const int strides[] = {1, 2, 3, 4, 8, 32};
    int valid = 0;
    for (int w = 4; w <= 16; w *= 2)
        for (int off = 0; off <= 128; off++)
            for (int s = 0; s < 6; s++)
                for (int op = 0; op < 2; op++) {
                    cli_param_values(p, v, "op", (long long)op, "width", (long long)w,
                           "offset", (long long)off, "stride",
                           (long long)strides[s], NULL);
                    int rc = p->check(v, MP_SM90_SMEM_OPTIN, err, sizeof err);
                    if (off % w == 0) {
                        if (rc)
                            fail_msg("w%d o%d: %s", w, off, err);
                        valid++;
                    } else {
                        assert_int_equal(rc, -1);
                        cli_must_contain("error", err, "--offset");
                    }
                }
    /* Offsets 0..128 step w: 33 + 17 + 9 = 59, x 6 strides x 2 ops. */
    assert_int_equal(valid, 59 * 6 * 2);
    /* The largest window: stride 1024 x 31 lanes x 16 B + 16 + 4096. */
    cli_param_values(p, v, "width", 16LL, "stride", 1024LL, "offset", 4096LL, NULL);
    assert_int_equal(p->check(v, MP_SM90_SMEM_OPTIN, err, sizeof err), 0);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_csv_pattern),
        cmocka_unit_test(test_predict_csv_layouts),
        cmocka_unit_test(test_predict_csv_sweep),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_check_sweep),
    };
    return CLI_RUN_ALL("cli_coalesce", good_cases, bad_cases, fixed);
}
