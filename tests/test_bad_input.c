/*
 * test_bad_input.c - the error contract (docs/error-contract.md, "Bad
 * input"), tested as a table generated from the parameter tables
 * themselves, so a new probe or parameter is covered without a line here:
 *
 *   for every probe, every parameter and every run option: a non-number,
 *   an empty value, a fraction, an exponent, hex, blanks, a negative
 *   number, values beyond int64 and size_t, one below the minimum and one
 *   above the maximum, a value between the allowed ones, an empty range,
 *   a zero step, an empty list item, a missing value, the option twice;
 *   for every choice: an unknown name and a wrong case;
 *   for every probe: an unknown option, a stray argument, -o twice and
 *   empty; the same through `memprobe predict` and `make probe-NAME`;
 *   then conflicting values, and the other subcommands' bad arguments,
 *   missing files, folders given as files, malformed sweep files and CSVs.
 *
 * Each must exit 2 with nothing on stdout and exactly one stderr line
 * "memprobe: ..." naming the parameter (make: its recipe fails, and the
 * line is memprobe's), never create results/, and leave an existing output
 * file byte for byte as it was.
 */
#include "cli_util.h"
#include "probe.h"
#include "runner.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEPT "kept.csv"
static const char kept_text[] = "tool_version,config\r\nx,earlier row\r\n";
static char repo[PATH_MAX];
static int ncases;

/* An earlier output file, before a refused command... */
static void write_kept(void)
{
    cli_write_file(KEPT, kept_text);
}

/* ...and after it, byte for byte the same. */
static void expect_kept(void)
{
    size_t len;
    char *after = cli_read_file(KEPT, &len);
    if (len != strlen(kept_text) || memcmp(after, kept_text, len))
        fail_msg("%s was changed by a refused command", KEPT);
    free(after);
}

/* The contract, plus: an existing -o file is untouched. */
static void expect_refused(const char *const *args, const char *names)
{
    write_kept();
    cli_expect_usage_error(args, names);
    expect_kept();
    ncases++;
}

/* `memprobe [predict] PROBE --NAME VALUE [-o kept.csv]` is refused
 * naming --NAME. */
static void refuse_value(const mp_probe *p, const char *name,
                         const char *value, int predict)
{
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", name);
    if (predict) {
        const char *args[] = {"predict", p->name, opt, value, NULL};
        expect_refused(args, opt);
    } else {
        const char *args[] = {p->name, opt, value, "-o", KEPT, NULL};
        expect_refused(args, opt);
    }
}

/* The bad values of one parameter definition, into vals (each <64). */
static int bad_values(const mp_param_def *d, char vals[][64])
{
    int n = 0;
    if (d->kind == MP_PARAM_CHOICE) {
        snprintf(vals[n++], 64, "nosuch");
        snprintf(vals[n++], 64, "%s", "");
        char upper[64];
        snprintf(upper, sizeof upper, "%s", d->choices[0]);
        for (char *c = upper; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        if (strcmp(upper, d->choices[0]))
            snprintf(vals[n++], 64, "%s", upper);
        snprintf(vals[n++], 64, "%s,", d->choices[0]);
        return n;
    }
    if (d->kind == MP_PARAM_TEXT) {   /* the form is the probe's check */
        static const char *const texts[] = {"", "abc", "1", "1;2", "none;",
                                            "NONE", ";", "1,,2", NULL};
        for (int i = 0; texts[i]; i++)
            snprintf(vals[n++], 64, "%s", texts[i]);
        return n;
    }
    static const char *const fixed[] = {
        "abc", "", "1.5", "1e3", "0x10", " 4", "4 ", "-", "--", "+",
        "99999999999999999999", "18446744073709551616",
        "-9223372036854775809", "1,,2", "1..3:0", "..3", "1..", NULL,
    };
    for (int i = 0; fixed[i]; i++)
        snprintf(vals[n++], 64, "%s", fixed[i]);
    snprintf(vals[n++], 64, "%lld", d->min - 1);
    snprintf(vals[n++], 64, "%lld", d->max + 1);
    if (d->max > d->min)
        snprintf(vals[n++], 64, "%lld..%lld", d->max, d->min);
    if (d->allowed) {   /* a value in range but not allowed */
        for (long long v = d->min; v <= d->max; v++) {
            int ok = 0;
            for (int k = 0; k < d->nallowed; k++)
                ok |= d->allowed[k] == v;
            if (!ok) {
                snprintf(vals[n++], 64, "%lld", v);
                break;
            }
        }
    }
    return n;
}

static void test_every_parameter(void **state)
{
    (void)state;
    int before = ncases;
    for (int i = 0; mp_probe_at(i); i++) {
        const mp_probe *p = mp_probe_at(i);
        char vals[40][64];
        for (int k = 0; k < p->nparams; k++) {
            const mp_param_def *d = &p->params[k];
            int n = bad_values(d, vals);
            for (int j = 0; j < n; j++) {
                refuse_value(p, d->name, vals[j], 0);
                refuse_value(p, d->name, vals[j], 1);
            }
            /* No value, and the option twice. */
            char opt[64];
            snprintf(opt, sizeof opt, "--%s", d->name);
            const char *novalue[] = {p->name, "-o", KEPT, opt, NULL};
            expect_refused(novalue, opt);
            const char *good = d->kind == MP_PARAM_CHOICE ? d->choices[0]
                               : d->kind == MP_PARAM_TEXT ? "none"
                                                          : NULL;
            char num[32];
            if (!good) {
                snprintf(num, sizeof num, "%lld", d->def);
                good = num;
            }
            const char *twice[] = {p->name, opt, good, opt, good, "-o",
                                   KEPT, NULL};
            expect_refused(twice, opt);
        }
        for (int k = 0; k < MP_OPT_COUNT; k++) {
            const mp_param_def *d = &mp_run_option_defs[k];
            int n = bad_values(d, vals);
            for (int j = 0; j < n; j++)
                refuse_value(p, d->name, vals[j], 0);
        }
        const char *unknown[] = {p->name, "--nosuch", "1", "-o", KEPT, NULL};
        expect_refused(unknown, "--nosuch");
        const char *stray[] = {p->name, "stray", "-o", KEPT, NULL};
        expect_refused(stray, "stray");
        const char *o_twice[] = {p->name, "-o", KEPT, "-o", KEPT, NULL};
        expect_refused(o_twice, "--output");
        const char *o_empty[] = {p->name, "-o", "", NULL};
        expect_refused(o_empty, "--output");
    }
    printf("# %d refused command lines from the parameter tables\n",
           ncases - before);
}

/* Every parameter through make, once: `make probe-NAME VAR=abc`. */
static void test_make_targets(void **state)
{
    (void)state;
    int before = ncases;
    /* make runs in the repository: the output is named absolutely. */
    char cwd[PATH_MAX], out[PATH_MAX + 16];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, sizeof out, "OUT=%s/%s", cwd, KEPT);
    for (int i = 0; mp_probe_at(i); i++) {
        const mp_probe *p = mp_probe_at(i);
        for (int k = 0; k < p->nparams; k++) {
            char target[64], var[96], opt[64];
            snprintf(target, sizeof target, "probe-%s", p->name);
            snprintf(var, sizeof var, "%s=abc", p->params[k].name);
            for (char *c = var; *c != '='; c++)
                if (*c >= 'a' && *c <= 'z')
                    *c = (char)(*c - 'a' + 'A');
                else if (*c == '-')   /* BLOCK_X=... is --block-x */
                    *c = '_';
            snprintf(opt, sizeof opt, "memprobe: --%s: ", p->params[k].name);
            write_kept();
            char cmd[3 * PATH_MAX];
            snprintf(cmd, sizeof cmd, "make -s --no-print-directory -C '%s' "
                     "%s %s '%s' > make.out 2>&1", repo, target, var, out);
            int rc = system(cmd);
            size_t len;
            char *text = cli_read_file("make.out", &len);
            if (rc == 0)
                fail_msg("make %s %s succeeded:\n%s", target, var, text);
            cli_must_contain(cmd, text, opt);
            free(text);
            expect_kept();
            ncases++;
        }
    }
    printf("# %d make targets refused\n", ncases - before);
}

/* Values that are each allowed but not together, and the other commands. */
typedef struct {
    const char *args[12];
    const char *names;
} bad_line;

static const bad_line others[] = {
    /* Conflicting values. */
    {{"coalesce", "--width", "8", "--offset", "4"}, "--offset"},
    {{"bandwidth", "--width", "16", "--offset", "8"}, "--offset"},
    {{"reduce", "--variant", "tree-sequential", "--threads", "96"},
     "--threads"},
    {{"bank", "--width", "16", "--stride", "4096", "--pad", "64"}, "shared"},
    {{"bank", "--counters", "on", "--counters", "off"}, "--counters"},
    /* Other subcommands. */
    {{"predict"}, "predict"},
    {{"predict", "nosuch"}, "nosuch"},
    {{"predict", "bank", "--format", "xml"}, "--format"},
    {{"nosuch"}, "nosuch"},
    {{"list", "extra"}, "extra"},
    {{"columns", "extra"}, "extra"},
    {{"version", "extra"}, "extra"},
    {{"device", "--device", "abc"}, "--device"},
    {{"sweep"}, "sweep"},
    {{"sweep", "missing.conf"}, "missing.conf"},
    {{"sweep", "."}, "Is a directory"},
    {{"sweep", "bad.conf", "--list"}, "bad.conf:2"},
    {{"sweep", "empty.conf", "--list"}, "empty.conf"},
    {{"sweep", "CONF", "--resume", "-o", "malformed.csv"}, "malformed.csv"},
    {{"sweep", "CONF", "--nosuch"}, "--nosuch"},
    {{"report"}, "report"},
    {{"report", "missing.csv"}, "missing.csv"},
    {{"report", "."}, "."},
    {{"report", "malformed.csv"}, "malformed.csv"},
    {{"report", "--format", "xml", "malformed.csv"}, "--format"},
    {{"report", "--table", "nosuch", "CSV"}, "nosuch"},
    {{"ncu-check", "--probe", "nosuch"}, "nosuch"},
    {{"ncu-check", "--spread", "a.csv", "b.csv"}, "--spread"},
    {{"ncu-check", "--spread"}, "--spread"},
    {{"ncu-check", "--args", "--stride 1,x"}, "--stride"},
    {{"ncu-check", "--args", "--runs 3"}, "--runs"},
    {{"ncu-check", "--args", "--nosuch 1"}, "--nosuch"},
    {{"ncu-check", "--probe", "coalesce", "--args", "--width 8 --offset 4"},
     "--offset"},
    {{"ncu-check", "--args", "--stride 1", "--compare", "a.csv", "b.csv"},
     "--args"},
    {{"ncu-check", "--args", "--stride 1", "--args", "--stride 2"},
     "--args"},
    {{"ncu-check", "--level", "kernel++", "--profile", "true"}, "--level"},
    {{"ncu-check", "--level", "kernel+"}, "--level"},
    {{"ncu-check", "--level", "kernel+", "--level", "kernel"}, "--level"},
    {{"columns", "--probe", "nosuch"}, "nosuch"},
    {{"columns", "--probe", ""}, "--probe"},
    {{"columns", "--probe", "bank", "--probe", "bank"}, "--probe"},
    {{"list", "--make-vars", "x"}, "'x'"},
    {{"ncu-check", "--compare", "missing.csv", "missing2.csv"},
     "missing"},
    {{"hazards", "--timeout", "0"}, "--timeout"},
    {{"hazards", "--timeout", "abc"}, "--timeout"},
    {{"hazards", "--nosuch"}, "--nosuch"},
    {{"hazards", "-o"}, "--output"},
    /* memprobe profile: every option with a bad value, the program not
     * found or not executable, bad outputs and baselines: all before the
     * program starts. */
    {{"profile"}, "no program given"},
    {{"profile", "--"}, "no program after '--'"},
    {{"profile", "true"}, "'true'"},
    {{"profile", "--nosuch", "--", "true"}, "--nosuch"},
    {{"profile", "--kernel", "(", "--", "true"}, "--kernel"},
    {{"profile", "--kernel", "", "--", "true"}, "--kernel"},
    {{"profile", "--kernel", "a", "--kernel", "b", "--", "true"},
     "--kernel"},
    {{"profile", "--nvtx-include", "", "--", "true"}, "--nvtx-include"},
    {{"profile", "--launch-skip", "-1", "--", "true"}, "--launch-skip"},
    {{"profile", "--launch-skip", "abc", "--", "true"}, "--launch-skip"},
    {{"profile", "--launch-count", "0", "--", "true"}, "--launch-count"},
    {{"profile", "--launch-count", "1.5", "--", "true"}, "--launch-count"},
    {{"profile", "--per-kernel", "0", "--", "true"}, "--per-kernel"},
    {{"profile", "--per-kernel", "2x", "--", "true"}, "--per-kernel"},
    {{"profile", "--check", "shared<=1", "--per-kernel", "3", "--from",
      "p.csv"}, "--per-kernel"},
    {{"profile", "--check", "", "--", "true"}, "--check"},
    {{"profile", "--check", "shared<1", "--", "true"}, "--check"},
    {{"profile", "--check", "local<=1", "--", "true"}, "local"},
    {{"profile", "--check", "shared<=0.5", "--", "true"}, "--check"},
    {{"profile", "--check", "shared<=x", "--", "true"}, "--check"},
    {{"profile", "--check", "shared<=1,shared<=2", "--", "true"},
     "--check"},
    {{"profile", "--check", "shared<=1", "--min-count", "x", "--", "true"},
     "--min-count"},
    {{"profile", "--min-count", "1", "--", "true"}, "--min-count"},
    {{"profile", "--check-libraries", "--", "true"}, "--check-libraries"},
    {{"profile", "--check", "shared<=1", "--check-libraries=yes", "--",
      "true"}, "--check-libraries"},
    {{"profile", "--check", "shared<=1", "--check-libraries",
      "--check-libraries", "--", "true"}, "--check-libraries"},
    {{"profile", "--baseline", "missing.csv", "--", "true"},
     "missing.csv"},
    {{"profile", "--baseline", "timing.csv", "--", "true"}, "--baseline"},
    {{"profile", "--baseline", "x.csv", "--tolerance", "-1", "--",
      "true"}, "--tolerance"},
    {{"profile", "--baseline", "x.csv", "--tolerance", "nan", "--",
      "true"}, "--tolerance"},
    {{"profile", "--tolerance", "0.1", "--", "true"}, "--tolerance"},
    {{"profile", "--from", "timing.csv"}, "--from"},
    {{"profile", "--from", "timing.csv", "--check", "shared<=1", "--",
      "true"}, "--from"},
    {{"profile", "--from", "timing.csv", "--check", "shared<=1",
      "--kernel", "a"}, "--kernel"},
    {{"profile", "--from", "missing.csv", "--check", "shared<=1"},
     "missing.csv"},
    {{"profile", "--from", "timing.csv", "--check", "shared<=1"},
     "not a profile CSV"},
    {{"profile", "--fallback", "bogus", "--", "true"}, "--fallback"},
    {{"profile", "--fallback", "", "--", "true"}, "--fallback"},
    {{"profile", "--fallback", "Rerun", "--", "true"}, "--fallback"},
    {{"profile", "--fallback", "off", "--fallback", "rerun", "--", "true"},
     "--fallback"},
    {{"profile", "--from", "timing.csv", "--check", "shared<=1",
      "--fallback", "rerun"}, "--fallback"},
    {{"profile", "-o", "-", "--", "true"}, "-o"},
    {{"profile", "-o", "", "--", "true"}, "--output"},
    {{"profile", "-o", "no/such/folder/p.csv", "--", "true"},
     "-o: no/such/folder/p.csv"},
    {{"profile", "-o", KEPT, "--", "true"}, "-o: " KEPT},
    {{"profile", "--keep-raw", ".", "--", "true"}, "--keep-raw"},
    {{"profile", "--", "no-such-program-xyz"}, "no-such-program-xyz"},
    {{"profile", "--", "./bad.conf"}, "not executable"},
    {{"profile", "--", "/tmp"}, "not a regular file"},
    /* memprobe explain: its options, its files, its program */
    {{"explain"}, "no program given and no --capture"},
    {{"explain", "true"}, "'true'"},
    {{"explain", "--"}, "no program after '--'"},
    {{"explain", "--format", "txt", "--", "true"}, "--format"},
    {{"explain", "--max-warps", "-1", "--", "true"}, "--max-warps"},
    {{"explain", "--max-warps", "1e3", "--", "true"}, "--max-warps"},
    {{"explain", "--check", "global<=0.9", "--", "true"}, "--check"},
    {{"explain", "--capture", "x.csv", "--", "true"}, "--capture"},
    {{"explain", "--capture", "missing.csv"}, "--capture: missing.csv"},
    {{"explain", "--capture", "malformed.csv"}, "--capture: malformed.csv"},
    {{"explain", "--capture", "timing.csv"}, "--capture: timing.csv"},
    {{"explain", "--from", "timing.csv", "--", "true"}, "--from"},
    {{"explain", "-o", KEPT, "--", "true"}, "-o: " KEPT},
    {{"explain", "-o", "-", "--", "true"}, "-o"},
    {{"explain", "--", "no-such-program-xyz"}, "no-such-program-xyz"},
    {{"explain", "--", "./bad.conf"}, "not executable"},
    {{"columns", "--profile", "--probe", "bank"}, "--profile"},
    {{"columns", "--profile=x"}, "--profile"},
    /* A bad output, found before the GPU is looked for. */
    {{"bank", "-o", "no/such/folder/x.csv"}, "-o: no/such/folder/x.csv"},
    {{"sweep", "CONF", "-o", "bad.conf/x.csv"}, "-o: bad.conf/x.csv"},
    /* Impossible numbers in a CSV; nothing to report or compare. */
    {{"hierarchy", "negative.csv"},
     "negative.csv: data row 1, column cycles_per_load: '-5'"},
    {{"report", "negative.csv"}, "negative.csv: data row 1"},
    {{"report", "header.csv"}, "header.csv: no data rows"},
    {{"compare", "timing.csv", "timing.csv"}, "0 counter values compared"},
    {{"ncu-check", "--compare", "header.csv", "NCU"},
     "header.csv has no data rows"},
};

static void test_other_commands(void **state)
{
    (void)state;
    int before = ncases;
    cli_write_file("bad.conf", "[bank]\nstride = 1..\n");
    cli_write_file("empty.conf", "");
    cli_write_file("malformed.csv", "probe,config\r\n\"bank,x\r\n");
    cli_write_file("negative.csv",
                   "device_name,probe,config,verified,footprint_bytes,"
                   "stride_bytes,cycles_per_load\r\n"
                   "H200,latency,latency/x,yes,8192,128,-5\r\n");
    cli_write_file("header.csv", "device_name,probe,config\r\n");
    cli_write_file("timing.csv", "device_name,probe,config,time_ns_median\r\n"
                                 "H200,bank,bank/a,100\r\n");
    char conf[PATH_MAX + 32], csv[PATH_MAX + 32], ncu[PATH_MAX + 48];
    snprintf(conf, sizeof conf, "%s/configs/texture.conf", repo);
    snprintf(csv, sizeof csv, "%s/results/h200/study/study.csv", repo);
    snprintf(ncu, sizeof ncu, "%s/tests/data/ncu-bank-sample.csv", repo);
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        const char *args[16];
        int n = 0;
        for (int k = 0; others[i].args[k]; k++) {
            const char *a = others[i].args[k];
            args[n++] = !strcmp(a, "CONF") ? conf : !strcmp(a, "CSV") ? csv
                        : !strcmp(a, "NCU") ? ncu : a;
        }
        args[n] = NULL;
        expect_refused(args, others[i].names);
    }
    printf("# %d other command lines refused\n", ncases - before);
}

int main(void)
{
    if (!getcwd(repo, sizeof repo))
        return 1;
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_parameter),
        cmocka_unit_test(test_make_targets),
        cmocka_unit_test(test_other_commands),
    };
    int failed = cli_run_group("bad_input", NULL, 0, NULL, 0, tests,
                               sizeof tests / sizeof *tests);
    printf("# %d bad inputs in all\n", ncases);
    return failed;
}
