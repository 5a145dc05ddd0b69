/*
 * study.c - docs/study.md, generated from the committed H200 CSVs
 * (`make study-report`, `memprobe report --study`; see report.h).
 *
 * The document has three parts: the seeds' classic rules, each beside what
 * was measured and a verdict; links to the plots (`make study-report` draws
 * them into docs/plots); and the report's tables (excerpts where the full
 * table is long: `make report` prints them whole). Every number and every
 * verdict is computed here from the CSVs, none is typed in: the verdict
 * rules are the `if`s in the claim functions below, so a new measurement
 * that breaks a rule changes the verdict.
 *
 * Which row is used: the first row with counters of each configuration, in
 * the order of mp_study_files (study.csv, the full study sweep of `make
 * study`, first; then the families' own CSVs), so a new sweep replaces the
 * older measurements without any change here. Each claim names the files
 * its numbers came from.
 *
 * The output is deterministic (no time, no absolute path), so that
 * tests/test_study.c can regenerate it and compare it byte for byte with
 * the committed docs/study.md.
 */
#include "report.h"
#include "study_latency.h"
#include "check.h"
#include "probe.h"
#include "plotdata_transfer.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const mp_study_files[] = {
    "study.csv",
    "bank-sweep.csv",       "bank-pads.csv",
    "coalesce-w4.csv",      "coalesce-w8.csv",
    "coalesce-w16.csv",     "coalesce-cg.csv",
    "coalesce-layouts.csv", "bandwidth-offset.csv",
    "bandwidth-stride.csv", "bandwidth-table.csv",
    "bandwidth-dram.csv",   "const-sweep.csv",
    "const-sources.csv",    "const-interleaved2.csv",
    "const-interleaved16.csv", "texture-4096.csv",
    "texture-small.csv",    "reduce-ladder.csv",
    "bitmap.csv",
    "transfer.csv",         "latency.csv",
    NULL,
};

/* Text files of the same runs that the claims read besides the CSVs. */
#define DEVICE_TXT "device.txt"
#define GPU_TESTS_TXT "gpu-test-probes-summary.txt"

static const char *dir_or_default(const char *dir)
{
    return dir ? dir : "results/h200";
}

int mp_study_load(mp_rep_data *d, const char *results_dir, char *err,
                  size_t errlen)
{
    const char *dir = dir_or_default(results_dir);
    int n = 0, have = 0;
    while (mp_study_files[n])
        n++;
    char **paths = mp_xcalloc((size_t)n, sizeof *paths);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(mp_study_files[i]) + 2;
        char *path = mp_xmalloc(len);
        snprintf(path, len, "%s/%s", dir, mp_study_files[i]);
        if (access(path, F_OK) == 0)
            paths[have++] = path;   /* the files that exist, in order */
        else
            free(path);
    }
    int rc = -1;
    if (have == 0)
        mp_reason(err, errlen, "%s: none of the study's CSVs (%s, %s, ...) "
                  "is there", dir, mp_study_files[0], mp_study_files[1]);
    else
        rc = mp_rep_load(d, have, (const char *const *)paths, NULL, NULL,
                         err, errlen);
    for (int i = 0; i < have; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Reading values for the claims                                      */

#define MAX_SOURCES 8

typedef struct {
    const mp_rep_data *d;
    const char *dir;
    const char *prefer;                /* file to take rows from first */
    char missing[256];                 /* first value not found */
    const char *sources[MAX_SOURCES];  /* files the claim's numbers are from */
    int nsources;
} ctx;

static void note_source(ctx *c, const char *file)
{
    for (int i = 0; i < c->nsources; i++)
        if (!strcmp(c->sources[i], file))
            return;
    if (c->nsources < MAX_SOURCES)
        c->sources[c->nsources++] = file;
}

/* Field f of configuration `config` on the (first) device; NAN, and a
 * note in c->missing, when there is no such row or no value. The row comes
 * from study.csv if it has one, else from the claim's preferred file (so
 * that values compared with each other come from one run), else it is the
 * kept row of any file. */
static double v(ctx *c, const char *config, int f)
{
    const mp_rep_row *r = mp_rep_find(c->d, mp_study_files[0], config, 0);
    if (!r && c->prefer)
        r = mp_rep_find(c->d, c->prefer, config, 0);
    if (!r)
        r = mp_rep_find(c->d, NULL, config, 0);
    double x;
    if (r && mp_rep_num(c->d, r, f, &x) == 0) {
        note_source(c, c->d->files[r->file].base);
        return x;
    }
    if (!c->missing[0])
        snprintf(c->missing, sizeof c->missing, "no %s for `%s`",
                 mp_rep_field_name(f), config);
    return NAN;
}

/* A number in text: `dec` decimals, trailing zeros kept (trim = 0) or
 * dropped (trim = 1). Returns one of 32 rotating buffers. */
static const char *fmt(double x, int dec, int trim)
{
    static char ring[32][48];
    static int next;
    char *b = ring[next++ % 32];
    if (isnan(x))
        return "?";
    if (trim)
        mp_rep_fmt(b, sizeof ring[0], x, dec);
    else
        snprintf(b, sizeof ring[0], "%.*f", dec, x);
    return b;
}

#define N0(x) fmt((x), 0, 1)    /* counts: "16" */
#define N2(x) fmt((x), 2, 1)    /* "31.9999" -> "32" */
#define F1(x) fmt((x), 1, 0)    /* times, GB/s, percent */
#define F2(x) fmt((x), 2, 0)    /* cycles */

/* Opens a text file of the results directory; notes it as a source. */
static FILE *open_text(ctx *c, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", c->dir, file);
    FILE *f = fopen(path, "r");
    if (f)
        note_source(c, file);
    return f;
}

/* The rest of the line after `key` in a text file of the results
 * directory, blanks trimmed; "" if absent. */
static void text_after(ctx *c, const char *file, const char *key, char *out,
                       size_t len)
{
    char line[512];
    out[0] = '\0';
    FILE *f = open_text(c, file);
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *k = strstr(line, key);
        if (!k)
            continue;
        char *p = k + strlen(key);
        while (*p == ' ')
            p++;
        snprintf(out, len, "%s", p);
        out[strcspn(out, "\r\n")] = '\0';
        break;
    }
    fclose(f);
}

/* The number that starts the text after `key` (device.txt: "  constant
 * memory  65536 bytes"); NAN if absent. */
static double text_number(ctx *c, const char *file, const char *key)
{
    char buf[256], *end;
    text_after(c, file, key, buf, sizeof buf);
    double x = strtod(buf, &end);
    return end == buf ? NAN : x;
}

/* ------------------------------------------------------------------ */
/* The claims                                                         */

typedef enum { HOLDS, PARTLY, FAILS, UNMEASURED } verdict;

static const char *const verdict_text[] = {
    "holds", "holds partly", "does not hold", "not measured",
};

typedef struct {
    const char *title;   /* short name */
    const char *seed;    /* which seed says it */
    const char *claim;   /* the claim, in our words */
    const char *prefer;  /* CSV to take its rows from first, or NULL */
    /* Writes what was measured (m) and why the verdict, returns it. */
    verdict (*check)(ctx *c, char *m, char *why, size_t len);
} claim;

static void say(char *buf, size_t len, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, len, f, ap);
    va_end(ap);
}

static double wf(ctx *c, const char *config)
{
    return v(c, config, MP_F_WF);
}

static double cyc(ctx *c, const char *config)
{
    return v(c, config, MP_F_CYCLES);
}

static verdict banks16(ctx *c, char *m, char *why, size_t len)
{
    double s1 = wf(c, "bank/ld/w4/s1/b0/g1/p32");
    double s16 = wf(c, "bank/ld/w4/s16/b0/g1/p32");
    double s32 = wf(c, "bank/ld/w4/s32/b0/g1/p32");
    say(m, len, "4-byte loads cost %s wavefront per request at stride 1 (%s "
        "cycles), %s at stride 16 (%s cycles) and %s at stride 32 (%s "
        "cycles).", N0(s1), F2(cyc(c, "bank/ld/w4/s1/b0/g1/p32")), N0(s16),
        F2(cyc(c, "bank/ld/w4/s16/b0/g1/p32")), N0(s32),
        F2(cyc(c, "bank/ld/w4/s32/b0/g1/p32")));
    if (c->missing[0])
        return UNMEASURED;
    if (round(s1) == 1 && round(s32) == 2 * round(s16)) {
        say(why, len, "The banks repeat every 32 words, not 16: stride 16 "
            "puts the 32 lanes into 2 banks (16-way) and stride 32 into one "
            "(32-way), where 16 banks would make both equally bad, and one "
            "wavefront serves 32 lanes x 4 bytes.");
        return FAILS;
    }
    if (round(s16) == round(s32)) {
        say(why, len, "Strides 16 and 32 conflict alike, as 16 banks "
            "would.");
        return HOLDS;
    }
    say(why, len, "The wavefront counts fit neither 16 nor 32 banks.");
    return PARTLY;
}

static verdict half_warps(ctx *c, char *m, char *why, size_t len)
{
    double w4 = wf(c, "bank/ld/w4/s1/b0/g1/p32");
    double w8 = wf(c, "bank/ld/w8/s1/b0/g1/p32");
    double w16 = wf(c, "bank/ld/w16/s1/b0/g1/p32");
    double s32 = wf(c, "bank/ld/w4/s32/b0/g1/p32");
    say(m, len, "Conflict-free loads at stride 1 cost %s wavefront per "
        "request at 4 bytes, %s at 8 bytes and %s at 16 bytes; 4-byte loads "
        "at stride 32 cost %s.", N0(w4), N0(w8), N0(w16), N0(s32));
    if (c->missing[0])
        return UNMEASURED;
    if (round(w4) == 1 && round(w8) == 2) {
        say(why, len, "A whole warp of 4-byte accesses is served at once "
            "and its lanes conflict across the halves (stride 32: all %s "
            "lanes queue on one bank); only wider accesses are split, into "
            "half-warps at 8 bytes and quarter-warps at 16, because one "
            "wavefront carries at most 128 bytes.", N0(s32));
        return PARTLY;
    }
    if (round(w4) == 2) {
        say(why, len, "Even 4-byte accesses take one wavefront per "
            "half-warp.");
        return HOLDS;
    }
    say(why, len, "The counts show no half-warp split.");
    return FAILS;
}

static verdict width_shared(ctx *c, char *m, char *why, size_t len)
{
    double f4 = v(c, "bank/ld/w4/s1/b0/g1/p32", MP_F_FRACTION);
    double f8 = v(c, "bank/ld/w8/s1/b0/g1/p32", MP_F_FRACTION);
    double f16 = v(c, "bank/ld/w16/s1/b0/g1/p32", MP_F_FRACTION);
    say(m, len, "Conflict-free loads at stride 1 move %s%% (4 bytes), %s%% "
        "(8 bytes) and %s%% (16 bytes) of the shared-memory ceiling (32 "
        "banks x 4 bytes x SMs x clock).", F1(100 * f4), F1(100 * f8),
        F1(100 * f16));
    if (c->missing[0])
        return UNMEASURED;
    if (f4 >= f8 && f4 >= f16) {
        say(why, len, "4-byte accesses move the most bytes per cycle.");
        return HOLDS;
    }
    say(why, len, "A wider access fills the same 128-byte wavefronts with "
        "fewer instructions, so 8 and 16 bytes per lane move at least as "
        "many bytes per cycle as 4.");
    return FAILS;
}

static verdict padding(ctx *c, char *m, char *why, size_t len)
{
    double p0 = wf(c, "bank/ld/w4/s16/b0/g1/p32");
    double c0 = cyc(c, "bank/ld/w4/s16/b0/g1/p32");
    double p1 = wf(c, "bank/ld/w4/s16/b0/g1/p32/pad1");
    double c1 = cyc(c, "bank/ld/w4/s16/b0/g1/p32/pad1");
    double ideal = wf(c, "bank/ld/w4/s1/b0/g1/p32");
    double w8 = wf(c, "bank/ld/w8/s16/b0/g1/p32/pad1");
    double w16 = wf(c, "bank/ld/w16/s16/b0/g1/p32/pad1");
    double odd = wf(c, "bank/ld/w4/s17/b0/g1/p32/pad1");
    say(m, len, "4-byte loads down a column of a 16-wide tile cost %s "
        "wavefronts (%s cycles) per request; with rows of 16 + 1 they cost "
        "%s (%s cycles). The same padding gives %s at 8 bytes and %s at 16 "
        "bytes; padding a 17-wide row to 18 costs %s.", N0(p0), F2(c0),
        N0(p1), F2(c1), N0(w8), N0(w16), N0(odd));
    if (c->missing[0])
        return UNMEASURED;
    if (round(p1) == round(ideal) && p0 > p1) {
        say(why, len, "A row of 17 words is odd, so 32 rows start in 32 "
            "different banks: the column walk becomes conflict-free, for "
            "wider elements too; what matters is that the row length is "
            "odd, not the + 1.");
        return HOLDS;
    }
    say(why, len, "The padded column walk still conflicts.");
    return p1 < p0 ? PARTLY : FAILS;
}

static verdict broadcast(ctx *c, char *m, char *why, size_t len)
{
    double s0 = wf(c, "bank/ld/w4/s0/b0/g1/p32");
    double c0 = cyc(c, "bank/ld/w4/s0/b0/g1/p32");
    double c1 = cyc(c, "bank/ld/w4/s1/b0/g1/p32");
    double st8 = wf(c, "bank/st/w8/s0/b0/g1/p32");
    double st16 = wf(c, "bank/st/w16/s0/b0/g1/p32");
    say(m, len, "All 32 lanes loading one 4-byte word (stride 0) cost %s "
        "wavefront and %s cycles per request, the same as stride 1 (%s "
        "cycles). Stores of one address cost %s wavefronts at 8 bytes and "
        "%s at 16.", N0(s0), F2(c0), F2(c1), N0(st8), N0(st16));
    if (c->missing[0])
        return UNMEASURED;
    if (round(s0) == 1) {
        say(why, len, "Lanes reading the same word share one bank access; "
            "stores get no such merging.");
        return HOLDS;
    }
    say(why, len, "A common address still conflicts.");
    return FAILS;
}

static verdict global_cache(ctx *c, char *m, char *why, size_t len)
{
    const char *st = "texture/global/stencil/n4096";
    const char *col = "texture/global/column/n4096";
    double hs = v(c, st, MP_F_LSU_HITS) / v(c, st, MP_F_LSU_SECTORS);
    double hc = v(c, col, MP_F_LSU_HITS) / v(c, col, MP_F_LSU_SECTORS);
    say(m, len, "Plain global loads of a 5-point stencil over 4096 x 4096 "
        "floats hit the L1 cache for %s%% of their sectors; a walk down "
        "columns, for %s%%.", F1(100 * hs), F1(100 * hc));
    if (c->missing[0])
        return UNMEASURED;
    if (hs > 0) {
        say(why, len, "Global loads go through the L1 data cache (and the "
            "L2 behind it), so neighbouring threads' reads come from cache.");
        return FAILS;
    }
    say(why, len, "No global load hit a cache.");
    return HOLDS;
}

static verdict alignment(ctx *c, char *m, char *why, size_t len)
{
    double s0 = v(c, "coalesce/pattern/ld/w4/o0/s1/g1/p32/default",
                  MP_F_SECTORS);
    double s4 = v(c, "coalesce/pattern/ld/w4/o4/s1/g1/p32/default",
                  MP_F_SECTORS);
    double s32 = v(c, "coalesce/pattern/ld/w4/o32/s1/g1/p32/default",
                   MP_F_SECTORS);
    double s64 = v(c, "coalesce/pattern/ld/w4/o64/s1/g1/p32/default",
                   MP_F_SECTORS);
    double b0 = v(c, "bandwidth/read/w4/o0/s1/b1073741824", MP_F_BANDWIDTH);
    double b4 = v(c, "bandwidth/read/w4/o4/s1/b1073741824", MP_F_BANDWIDTH);
    double b32 = v(c, "bandwidth/read/w4/o32/s1/b1073741824",
                   MP_F_BANDWIDTH);
    double b64 = v(c, "bandwidth/read/w4/o64/s1/b1073741824",
                   MP_F_BANDWIDTH);
    double b128 = v(c, "bandwidth/read/w4/o128/s1/b1073741824",
                    MP_F_BANDWIDTH);
    say(m, len, "A warp's 4-byte loads of consecutive words touch %s sectors "
        "per request starting at offset 0, %s at offset 4, %s at 32 and %s "
        "at 64 bytes. Reading 1 GiB that way runs at %s GB/s from offset "
        "0, %s from 4, %s from 32, %s from 64 and %s from 128.", N0(s0),
        N0(s4), N0(s32), N0(s64), F1(b0), F1(b4), F1(b32), F1(b64),
        F1(b128));
    if (c->missing[0])
        return UNMEASURED;
    int sector_rule = s32 == s0 && s4 > s0;
    int line_rule = b64 < 0.95 * b0 && b128 >= 0.95 * b0;
    if (sector_rule && line_rule) {
        say(why, len, "Requests are counted in 32-byte sectors, so 32-byte "
            "alignment already gives the fewest (a misaligned start costs "
            "one more), but DRAM bandwidth wants the 128-byte line: offsets "
            "32 and 64 lose %s%% and %s%%, more than the sector count shows.",
            F1(100 * (1 - b32 / b0)), F1(100 * (1 - b64 / b0)));
        return PARTLY;
    }
    if (sector_rule) {
        say(why, len, "Only 32-byte (sector) alignment matters, far less "
            "than 16 x the access size.");
        return FAILS;
    }
    say(why, len, "The sector counts do not follow the sector rule.");
    return PARTLY;
}

static verdict widths_global(ctx *c, char *m, char *why, size_t len)
{
    const char *r[3] = {"bandwidth/read/w4/o0/s1/b1073741824",
                        "bandwidth/read/w8/o0/s1/b1073741824",
                        "bandwidth/read/w16/o0/s1/b1073741824"};
    const char *w[3] = {"bandwidth/write/w4/o0/s1/b1073741824",
                        "bandwidth/write/w8/o0/s1/b1073741824",
                        "bandwidth/write/w16/o0/s1/b1073741824"};
    double rb[3], wb[3], sec[3];
    for (int i = 0; i < 3; i++) {
        rb[i] = v(c, r[i], MP_F_BANDWIDTH);
        wb[i] = v(c, w[i], MP_F_BANDWIDTH);
        sec[i] = v(c, r[i], MP_F_SECTORS);
    }
    say(m, len, "Reading 1 GiB with 4-, 8- and 16-byte loads: %s, %s and %s "
        "GB/s; writing: %s, %s and %s GB/s. The loads touch %s, %s and %s "
        "sectors per request: every byte of every sector is used.",
        F1(rb[0]), F1(rb[1]), F1(rb[2]), F1(wb[0]), F1(wb[1]), F1(wb[2]),
        N0(sec[0]), N0(sec[1]), N0(sec[2]));
    if (c->missing[0])
        return UNMEASURED;
    if (rb[0] >= rb[1] && rb[0] >= rb[2] && wb[0] >= wb[1] && wb[0] >= wb[2]) {
        say(why, len, "32-bit accesses are the fastest.");
        return HOLDS;
    }
    say(why, len, "All three widths coalesce fully; the wider ones need "
        "fewer instructions for the same bytes and are as fast or faster, "
        "most of all for writes.");
    return FAILS;
}

static double layout(ctx *c, const char *name, int f)
{
    char cfg[64];
    snprintf(cfg, sizeof cfg, "coalesce/%s", name);
    return v(c, cfg, f);
}

static verdict struct12(ctx *c, char *m, char *why, size_t len)
{
    double a = layout(c, "aos12", MP_F_SECTORS);
    double s = layout(c, "soa", MP_F_SECTORS);
    double ta = layout(c, "aos12", MP_F_TIME_NS) / 1e3;
    double ts = layout(c, "soa", MP_F_TIME_NS) / 1e3;
    say(m, len, "Each of the three 4-byte loads of the 12-byte struct "
        "touches %s sectors per request, against %s for an array of floats; "
        "the struct kernel ran in %s us, the three-array one in %s us.",
        N0(a), N0(s), F1(ta), F1(ts));
    if (c->missing[0])
        return UNMEASURED;
    if (a > s && ta <= 1.1 * ts) {
        say(why, len, "The loads are scattered (%sx the sectors), but the "
            "L1 cache keeps the lines for the struct's other two fields, so "
            "the time barely suffers.", N2(a / s));
        return PARTLY;
    }
    if (a > s) {
        say(why, len, "The scattered loads cost both sectors and time.");
        return HOLDS;
    }
    say(why, len, "The struct's loads cost no more sectors than an array's.");
    return FAILS;
}

static verdict align16(ctx *c, char *m, char *why, size_t len)
{
    double s = layout(c, "aos16", MP_F_SECTORS);
    double r16 = layout(c, "aos16", MP_F_REQUESTS);
    double r12 = layout(c, "aos12", MP_F_REQUESTS);
    double t16 = layout(c, "aos16", MP_F_TIME_NS) / 1e3;
    double t12 = layout(c, "aos12", MP_F_TIME_NS) / 1e3;
    say(m, len, "The `__align__(16)` struct is read with one 16-byte load "
        "per element: %s load requests per launch against %s, %s sectors "
        "per request, %s us against %s us for the 12-byte struct.", N0(r16),
        N0(r12), N0(s), F1(t16), F1(t12));
    if (c->missing[0])
        return UNMEASURED;
    if (t16 < t12) {
        say(why, len, "One full-width load per element beats three "
            "scattered ones.");
        return HOLDS;
    }
    say(why, len, "The loads coalesce, but the padding adds a third more "
        "bytes to move, and with the cache absorbing the 12-byte struct's "
        "scatter that costs more than it saves.");
    return FAILS;
}

static verdict soa(ctx *c, char *m, char *why, size_t len)
{
    double s = layout(c, "soa", MP_F_SECTORS);
    double ideal = layout(c, "soa", MP_F_MODEL_IDEAL_SECTORS);
    double t = layout(c, "soa", MP_F_TIME_NS) / 1e3;
    double best = fmin(fmin(layout(c, "aos12", MP_F_TIME_NS),
                            layout(c, "aos16", MP_F_TIME_NS)),
                       layout(c, "aos12-staged", MP_F_TIME_NS)) / 1e3;
    say(m, len, "Three arrays of floats: %s sectors per request (the fewest "
        "possible: %s), %s us; the fastest other layout took %s us.", N0(s),
        N0(ideal), F1(t), F1(best));
    if (c->missing[0])
        return UNMEASURED;
    if (s == ideal && t <= 1.05 * best) {
        say(why, len, "Every load uses whole sectors and no byte is wasted, "
            "so nothing here beats it by more than the noise.");
        return HOLDS;
    }
    if (s == ideal) {
        say(why, len, "The loads are ideal, but another layout was faster.");
        return PARTLY;
    }
    say(why, len, "The arrays' loads are not ideal.");
    return FAILS;
}

static verdict staged(ctx *c, char *m, char *why, size_t len)
{
    double s = layout(c, "aos12-staged", MP_F_SECTORS);
    double ideal = layout(c, "aos12-staged", MP_F_MODEL_IDEAL_SECTORS);
    double t = layout(c, "aos12-staged", MP_F_TIME_NS) / 1e3;
    double t12 = layout(c, "aos12", MP_F_TIME_NS) / 1e3;
    say(m, len, "Copying the structs through shared memory with consecutive "
        "4-byte loads: %s sectors per request (fewest possible: %s), %s us "
        "against %s us for the plain 12-byte struct.", N0(s), N0(ideal),
        F1(t), F1(t12));
    if (c->missing[0])
        return UNMEASURED;
    if (s == ideal && t < t12) {
        say(why, len, "Whole-sector loads and a faster kernel.");
        return HOLDS;
    }
    if (s == ideal) {
        say(why, len, "The global loads become whole-sector ones, but the "
            "extra pass through shared memory and the barrier cost more "
            "time than the cache-absorbed scatter they remove.");
        return PARTLY;
    }
    say(why, len, "The staged loads are still scattered.");
    return FAILS;
}

static verdict const_broadcast(ctx *c, char *m, char *why, size_t len)
{
    double r1 = v(c, "const/constant/s1/sp4/g32/p32", MP_F_REPLAYS);
    double c1 = v(c, "const/constant/s1/sp4/g32/p32", MP_F_CYCLES);
    double rb = v(c, "const/constant/s2/sp4/g16/p32", MP_F_REPLAYS);
    double cb = v(c, "const/constant/s2/sp4/g16/p32", MP_F_CYCLES);
    double ri = v(c, "const/constant/s2/sp4/g1/p2", MP_F_REPLAYS);
    double ci = v(c, "const/constant/s2/sp4/g1/p2", MP_F_CYCLES);
    double r16 = v(c, "const/constant/s16/sp4/g2/p32", MP_F_REPLAYS);
    double r32 = v(c, "const/constant/s32/sp4/g1/p32", MP_F_REPLAYS);
    double c32 = v(c, "const/constant/s32/sp4/g1/p32", MP_F_CYCLES);
    say(m, len, "A warp-level constant load of one address: %s replays, %s "
        "cycles. Two addresses, one per half-warp: %s replay (%s cycles); "
        "the same two alternating lane by lane: %s replay (%s cycles). 16 "
        "addresses: %s replays; 32: %s replays (%s cycles).", N0(r1), F2(c1),
        N0(rb), F2(cb), N0(ri), F2(ci), N0(r16), N0(r32), F2(c32));
    if (c->missing[0])
        return UNMEASURED;
    if (r1 == 0 && rb == 1 && ri == 1) {
        say(why, len, "One read serves the whole warp (31 reads saved, not "
            "15), and every further distinct address costs one more pass "
            "wherever its lanes sit: the half-warp plays no part.");
        return PARTLY;
    }
    if (r1 == 0 && rb == 0) {
        say(why, len, "Each half-warp gets its own broadcast.");
        return HOLDS;
    }
    say(why, len, "A single address is not served in one pass.");
    return FAILS;
}

static verdict const_size(ctx *c, char *m, char *why, size_t len)
{
    char fits[128], over[128];
    double total = text_number(c, DEVICE_TXT, "constant memory");
    double arr = v(c, "const/constant/s1/sp4/g32/p32", MP_F_ARRAY_BYTES);
    text_after(c, GPU_TESTS_TXT, "cudaMemcpyToSymbol of 65536 bytes", fits,
               sizeof fits);
    text_after(c, GPU_TESTS_TXT, "cudaMemcpyToSymbol of 65537 bytes", over,
               sizeof over);
    say(m, len, "The device reports %s bytes of constant memory; the "
        "probe's `__constant__` array holds %s bytes; filling 65536 bytes "
        "with cudaMemcpyToSymbol returned %s, 65537 bytes %s.", N0(total),
        N0(arr), fits[0] ? fits : "?", over[0] ? over : "?");
    if (isnan(total) && !c->missing[0])
        snprintf(c->missing, sizeof c->missing, "`%s` has no constant "
                 "memory line", DEVICE_TXT);
    if (c->missing[0])
        return UNMEASURED;
    if (total == 65536 && strstr(fits, "Success") && strstr(over, "Invalid")) {
        say(why, len, "Exactly 64 KB: one byte more is refused.");
        return HOLDS;
    }
    if (total == 65536) {
        say(why, len, "The device reports 64 KB.");
        return HOLDS;
    }
    say(why, len, "The device reports another size.");
    return FAILS;
}

static verdict const_cached(ctx *c, char *m, char *why, size_t len)
{
    const char *one = "const/constant/s1/sp4/g32/p32";
    const char *wide = "const/constant/s32/sp128/g1/p32";
    double h1 = v(c, one, MP_F_IDC_HITS) / v(c, one, MP_F_IDC_REQUESTS);
    double hw = v(c, wide, MP_F_IDC_HITS) / v(c, wide, MP_F_IDC_REQUESTS);
    say(m, len, "Repeated constant loads of one address hit the constant "
        "cache for %s%% of their requests; 32 addresses 128 bytes apart, "
        "for %s%%.", F2(100 * h1), F1(100 * hw));
    if (c->missing[0])
        return UNMEASURED;
    if (h1 > 0.99) {
        say(why, len, "Repeated reads are served by the constant cache, not "
            "by memory.");
        return HOLDS;
    }
    say(why, len, "Repeated reads miss the cache.");
    return FAILS;
}

static verdict const_faster(ctx *c, char *m, char *why, size_t len)
{
    double k1 = v(c, "const/constant/s1/sp4/g32/p32", MP_F_CYCLES);
    double g1 = v(c, "const/global/s1/sp4/g32/p32", MP_F_CYCLES);
    double l1 = v(c, "const/ldg/s1/sp4/g32/p32", MP_F_CYCLES);
    double k8 = v(c, "const/constant/s8/sp4/g4/p32", MP_F_CYCLES);
    double g8 = v(c, "const/global/s8/sp4/g4/p32", MP_F_CYCLES);
    say(m, len, "One address for the whole warp: constant %s cycles per "
        "warp load, global %s, `__ldg` %s. Eight addresses 4 bytes apart: "
        "constant %s, global %s.", F2(k1), F2(g1), F2(l1), F2(k8), F2(g8));
    if (c->missing[0])
        return UNMEASURED;
    if (k1 < g1 && k1 < l1) {
        say(why, len, "The broadcast through the constant cache is the "
            "fastest path.");
        return HOLDS;
    }
    say(why, len, "A uniform global load through L1 is faster than LDC on "
        "this GPU, and any divergence makes constant memory slower still "
        "(one pass per distinct address).");
    return FAILS;
}

static double tex_us(ctx *c, const char *source, const char *access)
{
    char cfg[64];
    snprintf(cfg, sizeof cfg, "texture/%s/%s/n4096", source, access);
    return v(c, cfg, MP_F_TIME_NS) / 1e3;
}

static verdict texture2d(ctx *c, char *m, char *why, size_t len)
{
    double col2 = tex_us(c, "tex2d", "column");
    double colg = tex_us(c, "global", "column");
    double coll = tex_us(c, "ldg", "column");
    double st1 = tex_us(c, "tex1d", "stencil");
    double st2 = tex_us(c, "tex2d", "stencil");
    double stg = tex_us(c, "global", "stencil");
    double row2 = tex_us(c, "tex2d", "row");
    double rowg = tex_us(c, "global", "row");
    double sec2 = v(c, "texture/tex2d/column/n4096", MP_F_SECTORS);
    double secg = v(c, "texture/global/column/n4096", MP_F_SECTORS);
    say(m, len, "4096 x 4096 floats. Walking down columns: tex2D %s us, "
        "global loads %s us, `__ldg` %s us; the tiled cudaArray costs %s "
        "sectors per texture request where a global load costs %s. 5-point "
        "stencil: tex1Dfetch %s us, tex2D %s us, global %s us. Along rows: "
        "tex2D %s us, global %s us.", F1(col2), F1(colg), F1(coll),
        N2(sec2), N2(secg), F1(st1), F1(st2), F1(stg), F1(row2), F1(rowg));
    if (c->missing[0])
        return UNMEASURED;
    int wins2d = col2 < colg && col2 < coll;
    int loses = stg < st1 && stg < st2 && rowg < row2;
    if (wins2d && loses) {
        say(why, len, "Where the access really is two-dimensional (down "
            "columns) the 2D texture's tiled layout wins %sx; for the "
            "stencil and row walks that L1 already serves well, plain loads "
            "win.", F1(colg / col2));
        return PARTLY;
    }
    if (wins2d) {
        say(why, len, "The texture paths win where locality is 2D.");
        return HOLDS;
    }
    say(why, len, "No texture path beats plain loads here.");
    return FAILS;
}

/* Median time in us of reduction `variant` at the seeds' 32 blocks or a
 * full GPU (b0), 256 threads, on the seeds' workload sizes. */
static double red_us(ctx *c, const char *variant, const char *work,
                     const char *blocks)
{
    char cfg[96];
    snprintf(cfg, sizeof cfg, "reduce/%s/%s/n%s/t256/%s", variant, work,
             strcmp(work, "dot") ? "1048576" : "33792", blocks);
    return v(c, cfg, MP_F_TIME_NS) / 1e3;
}

static verdict reduction(ctx *c, char *m, char *why, size_t len)
{
    double s32 = red_us(c, "thread0-serial", "dot", "b32");
    double t32 = red_us(c, "tree-sequential", "dot", "b32");
    double w32 = red_us(c, "warp-shuffle", "dot", "b32");
    double sc = red_us(c, "thread0-serial", "cubes", "b32");
    double tc = red_us(c, "tree-sequential", "cubes", "b32");
    double sf = red_us(c, "thread0-serial", "cubes", "b0");
    double tf = red_us(c, "tree-sequential", "cubes", "b0");
    double wf = red_us(c, "warp-shuffle", "cubes", "b0");
    double big_s = v(c, "reduce/thread0-serial/dot/n67108864/t256/b0",
                     MP_F_TIME_NS) / 1e3;
    double big_t = v(c, "reduce/tree-sequential/dot/n67108864/t256/b0",
                     MP_F_TIME_NS) / 1e3;
    say(m, len, "Dot product of 33792 floats on the seeds' 32 blocks of "
        "256 threads: thread 0 adding the block's 256 partials %s us, the "
        "halving tree %s us, warp shuffles %s us. Sum of 2^20 cubes: %s "
        "against %s us on 32 blocks, %s against %s us (shuffles %s us) on "
        "a full GPU. A 2^26-float dot product: %s against %s us.", F1(s32),
        F1(t32), F1(w32), F1(sc), F1(tc), F1(sf), F1(tf), F1(wf),
        F1(big_s), F1(big_t));
    if (c->missing[0])
        return UNMEASURED;
    if (t32 < s32 && tc < sc && tf < sf) {
        say(why, len, "The tree's log2(256) = 8 steps beat 255 serial "
            "additions (%sx on the seeds' dot product), and warp shuffles, "
            "which need no shared memory for 31 of every 32 partials, beat "
            "the tree; once the input is large the loads dominate and every "
            "way of combining the partials costs within %s%% of the others.",
            F1(s32 / t32), F1(100 * fabs(big_s - big_t) / big_t));
        return HOLDS;
    }
    say(why, len, "Thread 0 alone is as fast as the tree here.");
    return FAILS;
}

static verdict clock_timing(ctx *c, char *m, char *why, size_t len)
{
    const char *cfg = "reduce/tree-sequential/cubes/n1048576/t256/b32";
    double span = v(c, cfg, MP_F_CLOCK_SPAN);
    double block = v(c, cfg, MP_F_CLOCK_BLOCK);
    double ns = v(c, cfg, MP_F_TIME_NS);
    double mhz = v(c, cfg, MP_F_SM_CLOCK);
    double event = ns * mhz / 1e3;   /* the event time in SM cycles */
    say(m, len, "Sum of 2^20 cubes on 32 blocks: CUDA events time the "
        "launch at %s us, %s SM cycles at %s MHz; clock64() from the "
        "earliest block start to the latest block end spans %s cycles, the "
        "median block %s.", F1(ns / 1e3), N0(event), N0(mhz), N0(span),
        N0(block));
    if (c->missing[0])
        return UNMEASURED;
    if (span > 1.5 * event || span < 0.5 * event) {
        say(why, len, "Each SM counts its own clock and the counters are "
            "not in step, so a span across blocks on different SMs is "
            "%sx the real time; a single block's own start and end are "
            "meaningful (%s%% of the event time here, blocks overlap), "
            "but the kernel's time needs CUDA events.",
            N0(span / event), N0(100 * block / event));
        return FAILS;
    }
    say(why, len, "The span agrees with the event time.");
    return HOLDS;
}

/* The hazard catalogue's CSV (`memprobe hazards`, committed from make
 * test-gpu): one row per hazard, block size and tool. */
#define HAZARDS_CSV "hazards/hazards.csv"

static verdict divergent_barrier(ctx *c, char *m, char *why, size_t len)
{
    static const char *const tools[] = {"memcheck", "racecheck",
                                        "synccheck", "initcheck"};
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", c->dir, HAZARDS_CSV);
    mp_ncu_table t;
    if (mp_csv_table_read(path, &t, err, sizeof err)) {
        snprintf(c->missing, sizeof c->missing, "%.200s", err);
        return UNMEASURED;
    }
    note_source(c, HAZARDS_CSV);
    int hz = mp_ncu_column(&t, "hazard"), tool = mp_ncu_column(&t, "tool");
    int outcome = mp_ncu_column(&t, "outcome");
    int result = mp_ncu_column(&t, "result");
    int threads = mp_ncu_column(&t, "threads");
    int blocks = mp_ncu_column(&t, "blocks");
    const char *plain = NULL, *said[4] = {NULL, NULL, NULL, NULL};
    const char *nthreads = "?", *nblocks = "?";
    int caught = 0, timeouts = 0;
    for (int r = 0; hz >= 0 && tool >= 0 && outcome >= 0 && result >= 0
                    && threads >= 0 && blocks >= 0 && r < t.nrows; r++) {
        char *const *row = t.cells[r];
        if (strcmp(row[hz], "sync-in-divergent-if"))
            continue;
        nthreads = row[threads];
        nblocks = row[blocks];
        timeouts += !strcmp(row[outcome], "timeout");
        if (!strcmp(row[tool], "none"))
            plain = row[result];
        for (int k = 0; k < 4; k++)
            if (!strcmp(row[tool], tools[k])) {
                said[k] = strcmp(row[outcome], "caught") ? "not caught"
                                                         : "CAUGHT";
                caught += !strcmp(row[outcome], "caught");
            }
    }
    verdict vd = UNMEASURED;
    if (!plain || !said[0] || !said[1] || !said[2] || !said[3]) {
        snprintf(c->missing, sizeof c->missing, "no complete "
                 "sync-in-divergent-if rows in `%s`", HAZARDS_CSV);
    } else {
        say(m, len, "The seed's kernel with `__syncthreads()` inside `if "
            "(cacheIndex < i)`, %s threads per block, %s blocks: %d of its "
            "5 runs hit the time limit; the plain run's sum was %s; "
            "memcheck %s, racecheck %s, synccheck %s, initcheck %s.",
            nthreads, nblocks, timeouts, plain, said[0], said[1], said[2],
            said[3]);
        if (!strcmp(plain, "right") && caught == 0 && timeouts == 0) {
            say(why, len, "The compiler turned the barrier into a predicated "
                "`@!P BAR.SYNC` (results/h200/sass-reduce-hazards.txt); "
                "warps whose threads all skip it run on to their exit, and "
                "threads that have exited do not hold a barrier up, so the "
                "block completes. The code is still wrong (a barrier in "
                "divergent code is undefined behaviour in CUDA), but on this "
                "GPU nothing shows it, not even synccheck.");
            vd = FAILS;
        } else {
            say(why, len, "The divergent barrier shows: it hangs, a tool "
                "reports it, or the result is wrong.");
            vd = HOLDS;
        }
    }
    mp_ncu_free(&t);
    return vd;
}


/* Seed 004's bitmap kernel (the bitmap probe): the write and the mirrored
 * read of its 16 x 16 shared buffer, as written and with each fix. */
static verdict bitmap2d(ctx *c, char *m, char *why, size_t len)
{
    static const char *const lay[] = {"seed", "yx", "pad"};
    double st[3], ld[3], mst[3], mld[3], blk[3];
    for (int i = 0; i < 3; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "bitmap/%s/st/d1024", lay[i]);
        snprintf(b, sizeof b, "bitmap/%s/ld/d1024", lay[i]);
        st[i] = wf(c, a);
        ld[i] = wf(c, b);
        mst[i] = v(c, a, MP_F_MODEL_WF);
        mld[i] = v(c, b, MP_F_MODEL_WF);
        blk[i] = v(c, a, MP_F_CLOCK_BLOCK);
    }
    say(m, len, "Wavefronts per instruction, measured (model) for the write "
        "and the mirrored read of a 16 x 16 block on a 1024 x 1024 image: "
        "as written `shared[tx][ty]` %s (%s) and %s (%s); `shared[ty][tx]` "
        "%s (%s) and %s (%s); rows of 17 floats %s (%s) and %s (%s). Median "
        "clock64 cycles per block: %s, %s, %s.", F2(st[0]), F2(mst[0]),
        F2(ld[0]), F2(mld[0]), F2(st[1]), F2(mst[1]), F2(ld[1]),
        F2(mld[1]), F2(st[2]), F2(mst[2]), F2(ld[2]), F2(mld[2]),
        F1(blk[0]), F1(blk[1]), F1(blk[2]));
    if (c->missing[0]) {
        /* The model's figures without a GPU (memprobe predict bitmap). */
        const mp_probe *pr = mp_probe_find("bitmap");
        double w[3][2];
        for (int i = 0; i < 3; i++)
            for (int op = 0; op < 2; op++) {
                long long cfg[3] = {i, op, 1024};   /* layout, op, dim */
                mp_prediction p;
                pr->predict(cfg, &p);
                w[i][op] = p.value[0];
            }
        say(m, len, "No H200 measurement is committed yet (`bitmap.csv`). "
            "The model predicts, for the write and the mirrored read: "
            "%s and %s wavefronts per instruction as written, %s and %s "
            "with `shared[ty][tx]`, %s and %s with rows of 17 floats "
            "(`memprobe predict bitmap`).", F2(w[0][1]), F2(w[0][0]),
            F2(w[1][1]), F2(w[1][0]), F2(w[2][1]), F2(w[2][0]));
        return UNMEASURED;
    }
    if (st[0] > 1.5 && ld[0] > 1.5) {
        say(why, len, "A warp of a 16 x 16 block is two rows of threadIdx.x, "
            "so `shared[threadIdx.x][...]` walks it down the array's columns "
            "(16 words apart): the write costs %sx and the read %sx the "
            "conflict-free wavefronts. Swapping the indices makes both 1; "
            "padding rows to 17 floats leaves %s and %s, because the warp's "
            "second row wraps onto the first row's bank 0. Measured minus "
            "model: write %s, read %s (as written).", F2(st[0] / st[1]),
            F2(ld[0] / ld[1]), F2(st[2]), F2(ld[2]), F2(st[0] - mst[0]),
            F2(ld[0] - mld[0]));
        return FAILS;
    }
    say(why, len, "The buffer as written costs no more than its fixes.");
    return HOLDS;
}

/* Seed 000's latency claims: report/study_latency.c. */
static verdict latency_claim(ctx *c, int shared, char *m, char *why,
                             size_t len)
{
    const char *src = NULL;
    int v = (shared ? mp_study_latency_shared : mp_study_latency_global)(
        c->dir, m, why, len, c->missing, sizeof c->missing, &src);
    if (src)
        note_source(c, src);
    return (verdict)v;
}

static verdict global_latency(ctx *c, char *m, char *why, size_t len)
{
    return latency_claim(c, 0, m, why, len);
}

static verdict shared_latency(ctx *c, char *m, char *why, size_t len)
{
    return latency_claim(c, 1, m, why, len);
}

static const claim claims[] = {
    {"Sixteen banks", "000 (shared memory)",
     "Shared memory is divided into 16 banks of 4 bytes: `data[0]` to "
     "`data[15]` lie in banks 0 to 15 and `data[16]` is in bank 0 again.",
     NULL, banks16},
    {"Half-warps", "000 (shared memory)",
     "A warp accesses shared memory as two half-warps, so threads in "
     "different half-warps never conflict with each other.",
     NULL, half_warps},
    {"32-bit words are the most efficient (shared memory)",
     "000 (said of global loads; checked on shared memory)",
     "Accesses of 32 bits per thread are the most efficient; wider ones are "
     "slower.",
     NULL, width_shared},
    {"The padding trick", "000 (shared memory)",
     "`data[16 * tid]` conflicts badly; storing the 16-wide rows with a "
     "stride of 17 (`data[row * 17 + column]`) removes the conflict.",
     NULL, padding},
    {"Broadcast", "000 (shared memory)",
     "When several threads read the same shared-memory address, the word is "
     "broadcast to them and there is no bank conflict.",
     NULL, broadcast},
    {"Global memory is not cached", "000 (global memory)",
     "Global memory has no cache, so every access pays the full latency of "
     "hundreds of cycles.",
     NULL, global_cache},
    {"Start address a multiple of 16 x the access size", "000 (coalescing)",
     "An access is coalesced only if it is contiguous and the first "
     "thread's address is a multiple of 16 times the size each thread "
     "reads: 64 bytes for 32-bit words.",
     NULL, alignment},
    {"32-bit best, 64-bit a little worse, 128-bit clearly worse",
     "000 (coalescing)",
     "Each thread may read 32, 64 or 128 bits; 32 bits is the most "
     "efficient, 64 bits slightly less, 128 bits markedly less (though "
     "still better than an uncoalesced access).",
     "bandwidth-table.csv", widths_global},
    {"A 12-byte struct does not coalesce", "000 (coalescing)",
     "An array of `struct { float x, y, z; }` (12 bytes) cannot be read in "
     "a coalesced way.",
     NULL, struct12},
    {"`__align__(16)` fixes it", "000 (coalescing)",
     "Declaring the struct `__align__(16)` pads it to 16 bytes and makes "
     "the access coalesced.",
     NULL, align16},
    {"Structure of arrays fixes it", "000 (coalescing)",
     "Storing x, y and z in three separate arrays makes every access "
     "coalesced.",
     NULL, soa},
    {"Staging through shared memory fixes it", "000 (coalescing)",
     "If the layout cannot change, copy the structs into shared memory with "
     "consecutive accesses first, then read the fields from there.",
     NULL, staged},
    {"Constant broadcast saves 15 of 16 reads", "004 (constant memory)",
     "A read of constant memory is broadcast to the neighbouring threads, a "
     "half-warp, which saves 15 reads out of 16.",
     NULL, const_broadcast},
    {"64 KB of constant memory", "004 (constant memory)",
     "NVIDIA hardware provides 64 KB of constant memory, filled with "
     "cudaMemcpyToSymbol.",
     NULL, const_size},
    {"Constant memory is cached", "004 (constant memory)",
     "Constant memory is cached, so consecutive reads of the same address "
     "cause no extra memory traffic.",
     "const-sources.csv", const_cached},
    {"Constant instead of global memory is faster", "004 (constant memory)",
     "Replacing global memory with constant memory for read-only data can "
     "reduce the memory bandwidth needed and so improve performance.",
     "const-sources.csv", const_faster},
    {"Texture memory for 2D locality", "004 (texture memory)",
     "Texture memory is designed for access patterns with strong 2D spatial "
     "locality (threads reading addresses near each other) and reduces "
     "memory requests for them.",
     NULL, texture2d},
    {"Tree reduction in shared memory", "003 and 000 (reductions)",
     "Summing a block's values by halving the active threads each step in "
     "shared memory beats letting one thread add them all.",
     NULL, reduction},
    {"Timing with clock() in the kernel", "000 (reductions)",
     "Each block's thread 0 records clock() at its start and end; the "
     "latest end minus the earliest start is the kernel's running time.",
     NULL, clock_timing},
    {"`__syncthreads()` inside an `if` deadlocks", "003 (reductions)",
     "If `__syncthreads()` is placed inside an `if` that some threads skip, "
     "the threads that entered wait for the others forever: a deadlock.",
     NULL, divergent_barrier},
    {"The 2D shared buffer of the bitmap example", "004 (shared memory)",
     "The bitmap kernel's `__shared__ float shared[16][16]`, written as "
     "`shared[threadIdx.x][threadIdx.y]` by a 16 x 16 block and read back "
     "mirrored, is a cheap way to share values within a block (the seed "
     "says nothing of banks).",
     "bitmap.csv", bitmap2d},
    {"A global load costs hundreds of cycles", "000 (global memory)",
     "Global memory has no cache (a cache per multiprocessor would need a "
     "coherence protocol), so the latency of a load from it is very long, "
     "usually hundreds of cycles.",
     "latency.csv", global_latency},
    {"Shared memory has no latency to worry about", "000 (shared memory)",
     "Shared memory is on the GPU chip and shared by a block, so access is "
     "fast and latency need not be worried about.",
     "latency.csv", shared_latency},
};

#define NCLAIMS ((int)(sizeof claims / sizeof *claims))

/* ------------------------------------------------------------------ */
/* Table excerpts                                                     */

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(s, list[i]))
            return 1;
    return 0;
}

/* bank: op, stride */
static int keep_bank(char *const *k, void *ctx_)
{
    static const char *const strides[] = {"0", "1", "2", "3", "4", "8",
                                          "16", "17", "31", "32", "33",
                                          "64", NULL};
    (void)ctx_;
    return in_list(k[1], strides);
}

/* padding: op, width, stride, base */
static int keep_padding(char *const *k, void *ctx_)
{
    (void)ctx_;
    return !strcmp(k[0], "ld") && !strcmp(k[3], "0");
}

/* coalesce: cache, op, width, offset */
static int keep_coalesce(char *const *k, void *ctx_)
{
    static const char *const offsets[] = {"0", "4", "8", "16", "32", "64",
                                          "128", NULL};
    (void)ctx_;
    return !strcmp(k[0], "default") && !strcmp(k[1], "ld")
           && in_list(k[3], offsets);
}

/* const: source, spread, group, period */
static int keep_const(char *const *k, void *ctx_)
{
    static const char *const spreads[] = {"1", "2", "4", "8", "16", "32",
                                          NULL};
    (void)ctx_;
    return in_list(k[1], spreads);
}

/* The rows of `probe` that the CSVs flag as differing from the model
 * (model_match "no"), and the largest difference: one sentence, or nothing
 * when there is none. */
static void mismatch_note(const mp_rep_data *d, const char *probe, FILE *out)
{
    int meas = MP_F_SECTORS, model = MP_F_MODEL_SECTORS;
    const char *unit = "sectors";
    if (!strcmp(probe, "bank")) {
        meas = MP_F_WF;
        model = MP_F_MODEL_WF;
        unit = "wavefronts";
    } else if (!strcmp(probe, "const")) {
        meas = MP_F_REPLAYS;
        model = MP_F_MODEL_REPLAYS;
        unit = "replays";
    }
    int n = 0;
    double worst = 0, worst_model = 0;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double x, y;
        if (strcmp(mp_rep_text(d, r, MP_F_PROBE), probe)
            || strcmp(mp_rep_text(d, r, MP_F_MATCH), "no"))
            continue;
        n++;
        if (mp_rep_num(d, r, meas, &x) == 0
            && mp_rep_num(d, r, model, &y) == 0 && fabs(x - y) > worst) {
            worst = fabs(x - y);
            worst_model = y;
        }
    }
    if (n)
        fprintf(out, "\nThe CSVs flag %d %s row%s as differing from the "
                "model; the largest difference is %s %s per request (%s%% "
                "of the model's %s).\n", n, probe, n == 1 ? "" : "s",
                fmt(worst, 4, 1), unit,
                fmt(worst_model ? 100 * worst / worst_model : 0, 4, 1),
                fmt(worst_model, 4, 1));
}

typedef struct {
    const char *name;       /* table */
    const char *probe;      /* its probe family */
    const char *heading;
    const char *intro;      /* one paragraph before the table */
    int (*keep)(char *const *keys, void *ctx);
    const char *excerpt;    /* what the excerpt leaves out */
} section;

static const section sections[] = {
    {"bank", "bank", "Shared memory: bank conflicts",
     "Each lane of a warp reads (`ld`) or writes (`st`) the element "
     "`stride x lane` of a shared tile with one instruction of the given "
     "width. A wavefront is one pass through the 32 banks; the model counts "
     "them exactly (`model/bank_model.c`). Cycles are the time one SM "
     "spends per warp-level request.",
     keep_bank,
     "strides 0-4, 8, 16, 17, 31-33 and 64; `make report` prints all 65"},
    {"padding", "bank", "Shared memory: padding",
     "The tile is stored in rows of `stride` elements followed by `pad` "
     "unused ones, and the warp walks down a column: the seeds' "
     "`data[row * 17 + column]` is stride 16, pad 1.",
     keep_padding, "loads at base 0; `make report` adds stores and base 3"},
    {"coalesce", "coalesce", "Global memory: coalescing",
     "Lane `l` of a warp loads element `stride x l` of an array that starts "
     "`offset` bytes past a 256-byte boundary. A sector is 32 bytes; the "
     "model counts the distinct sectors the lanes touch "
     "(`model/sector_model.c`).",
     keep_coalesce,
     "loads through L1 at offsets 0, 4, 8, 16, 32, 64 and 128; `make "
     "report` adds every offset, stores and `cache=cg`"},
    {"layouts", "coalesce", "Global memory: the struct layouts",
     "The seeds' `struct vec3d { float x, y, z; }` read as an array of "
     "structs (aos12), as the `__align__(16)` struct (aos16), as three "
     "arrays (soa), and staged through shared memory (aos12-staged). "
     "Sectors are per load request.",
     NULL, NULL},
    {"bandwidth", "bandwidth", "DRAM bandwidth",
     "Large arrays read, written or copied by every SM, against the "
     "device's peak (memory clock x bus width) and against cudaMemcpy in "
     "the same run.",
     NULL, NULL},
    {"const", "const", "Constant memory",
     "A warp-level load whose lanes read `spread` distinct words, `group` "
     "lanes per word, repeating every `period` lanes; the words are "
     "`spacing` bytes apart. Replays are the constant cache's extra passes "
     "per load.",
     keep_const,
     "spreads 1, 2, 4, 8, 16 and 32; `make report` prints all 32"},
    {"texture", "texture", "Texture memory",
     "An n x n float array read through a texture object over linear "
     "memory (tex1d: tex1Dfetch), a cudaArray (tex2d: tex2D), plain global "
     "loads and `__ldg`: a 5-point stencil, a walk down columns (each warp "
     "load reads 32 rows of one column) and along rows.",
     NULL, NULL},
    {"reduction", "reduction", "Reductions", "The seeds' shared-memory reduction ladder.",
     NULL, NULL},
};

/* ------------------------------------------------------------------ */
/* The document                                                       */

/* " " before a source list "(`a.csv`): ...", nothing before ": ...". */
static const char *c_space(const char *measured)
{
    return measured[0] == '(' ? " " : "";
}

static void device_line(const mp_rep_data *d, FILE *out)
{
    const mp_rep_row *r = d->nrows ? &d->rows[0] : NULL;
    if (!r) {
        fprintf(out, "No rows.\n");
        return;
    }
    fprintf(out, "Measured on %s (compute capability %s, %s SMs, %s MHz) "
            "by memprobe; every number below is read from the CSVs by the "
            "generator.\n", d->devices[0], mp_rep_text(d, r, MP_F_CC),
            mp_rep_text(d, r, MP_F_SM_COUNT), mp_rep_text(d, r, MP_F_SM_CLOCK));
}

/* Anchor of a heading as GitHub makes it: lower case, spaces to '-',
 * punctuation dropped. */
static void anchor(const char *heading, char *out, size_t len)
{
    size_t n = 0;
    for (const char *s = heading; *s && n + 1 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 'A' && ch <= 'Z')
            out[n++] = (char)(ch - 'A' + 'a');
        else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
                 || ch == '-' || ch == '_')
            out[n++] = (char)ch;
        else if (ch == ' ')
            out[n++] = '-';
    }
    out[n] = '\0';
}

int mp_study_write(const mp_rep_data *d, const char *results_dir, FILE *out,
                   char *err, size_t errlen)
{
    char measured[1536], why[1024], head[256], anc[256];
    /* The device as the text calls it: "H200" for "NVIDIA H200". */
    const char *gpu = d->ndev ? d->devices[0] : "GPU";
    if (!strncmp(gpu, "NVIDIA ", 7))
        gpu += 7;
    verdict verdicts[NCLAIMS];
    static char measured_all[NCLAIMS][2048], why_all[NCLAIMS][1024];

    for (int i = 0; i < NCLAIMS; i++) {
        ctx c = {d, dir_or_default(results_dir), claims[i].prefer, "", {NULL},
                 0};
        char src[512] = "";
        measured[0] = why[0] = '\0';
        verdicts[i] = claims[i].check(&c, measured, why, sizeof why);
        if (verdicts[i] == UNMEASURED && c.missing[0])
            snprintf(why, sizeof why, "Missing data: %s.", c.missing);
        /* "(`a.csv`, `b.csv`) " before the text: where it comes from. */
        for (int k = 0; k < c.nsources; k++) {
            size_t n = strlen(src);
            snprintf(src + n, sizeof src - n, "%s`%s`", k ? ", " : "(",
                     c.sources[k]);
        }
        snprintf(measured_all[i], sizeof measured_all[i], "%s%s%s", src,
                 c.nsources ? "): " : ": ", measured);
        snprintf(why_all[i], sizeof why_all[i], "%s", why);
    }
    const char *dir = dir_or_default(results_dir);

    fprintf(out, "# The study: the classic CUDA memory rules on the %s\n\n"
            "<!-- Generated by `make study-report` (`memprobe report "
            "--study docs/study.md`) from the CSVs in %s/. Do not edit: "
            "change report/study.c or the CSVs and regenerate; "
            "tests/test_study.c fails when this file is stale. -->\n\n",
            gpu, dir);
    device_line(d, out);
    fprintf(out, "\nThe seeds are three Chinese CUDA tutorials (numbered "
            "000, 003 and 004 in the project's seed set): 000 on shared "
            "memory, bank conflicts and coalescing, 003 on a dot product "
            "with a shared-memory reduction, 004 on constant and texture "
            "memory. Their claims are paraphrased below. How memprobe "
            "measures is in the README; the tables' columns are explained "
            "above each table.\n\n");

    fprintf(out, "## The classic rules, checked\n\n");
    fprintf(out, "| # | claim | seed | verdict |\n| ---: | --- | --- | --- |\n");
    for (int i = 0; i < NCLAIMS; i++) {
        snprintf(head, sizeof head, "%d. %s", i + 1, claims[i].title);
        anchor(head, anc, sizeof anc);
        fprintf(out, "| %d | [%s](#%s) | %s | %s |\n", i + 1, claims[i].title,
                anc, claims[i].seed, verdict_text[verdicts[i]]);
    }
    for (int i = 0; i < NCLAIMS; i++) {
        fprintf(out, "\n### %d. %s\n\n", i + 1, claims[i].title);
        fprintf(out, "- **Seed %s:** %s\n", claims[i].seed, claims[i].claim);
        fprintf(out, "- **%s**%s%s\n", gpu, c_space(measured_all[i]),
                measured_all[i]);
        fprintf(out, "- **Verdict: %s.** %s\n", verdict_text[verdicts[i]],
                why_all[i]);
    }

    mp_study_transfer(d, dir, out);

    fprintf(out, "\n## The plots\n\n"
            "Drawn by gnuplot from the same CSVs (`make study-report`; "
            "`scripts/plots/*.gp`); each also as PNG next to the SVG.\n\n"
            "- Wavefronts per request over stride and width, loads and "
            "stores: ![bank conflicts](plots/bank-heatmap.svg)\n"
            "- Time per request against the conflict degree: ![cycles "
            "against conflict ways](plots/bank-cycles.svg)\n"
            "- DRAM bandwidth against the start offset: ![bandwidth "
            "against offset](plots/bandwidth-offset.svg)\n"
            "- DRAM bandwidth against the stride: ![bandwidth against "
            "stride](plots/bandwidth-stride.svg)\n");

    mp_study_latency_section(dir, out);

    fprintf(out, "\n## The tables\n\n"
            "`*` marks a measured value that differs from the model (the "
            "row's `model_match` is `no`); `-` is a value not measured. "
            "`memprobe report %s/*.csv` prints every table in full.\n",
            dir);
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        const section *s = &sections[i];
        mp_rep_table *t = mp_rep_table_build(d, s->name);
        fprintf(out, "\n### %s\n\n%s\n\n", s->heading, s->intro);
        if (s->keep) {
            mp_rep_table_keep(t, s->keep, NULL);
            fprintf(out, "Excerpt: %s.\n\n", s->excerpt);
        }
        mp_rep_table_print(t, MP_REP_MD, 0, out);
        if (t->marks)
            mismatch_note(d, s->probe, out);
        mp_rep_table_free(t);
    }
    if (ferror(out)) {
        mp_reason(err, errlen, "write failed");
        return -1;
    }
    return 0;
}
