/*
 * coalesce_study.c - the study's global-memory claims (caching, alignment,
 * access widths, the struct layouts and their fixes) and its coalescing,
 * layout and DRAM bandwidth table sections. report/claims.h says what
 * a claim group holds; report/study.c writes the document.
 */
#include "claims.h"

static verdict global_cache(ctx *c, char *m, char *why, size_t len)
{
    const char *st = "texture/global/stencil/n4096";
    const char *col = "texture/global/column/n4096";
    double hs = ratio(c, st, MP_F_LSU_HITS, MP_F_LSU_SECTORS);
    double hc = ratio(c, col, MP_F_LSU_HITS, MP_F_LSU_SECTORS);
    say(m, len, "Plain global loads of a 5-point stencil over 4096 x 4096 "
        "floats hit the L1 cache for %s%% of their sectors; a walk down "
        "columns, for %s%%.", F1(100 * hs), F1(100 * hc));
    return OUTCOMES(c, why, len,
        {hs > 0, FAILS,
         "Global loads go through the L1 data cache (and the L2 behind "
         "it), so neighbouring threads' reads come from cache."},
        {1, HOLDS, "No global load hit a cache."});
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
    int sector_rule = s32 == s0 && s4 > s0;
    int line_rule = b64 < 0.95 * b0 && b128 >= 0.95 * b0;
    char both[512];
    say(both, sizeof both, "Requests are counted in 32-byte sectors, so "
        "32-byte alignment already gives the fewest (a misaligned start "
        "costs one more), but DRAM bandwidth wants the 128-byte line: "
        "offsets 32 and 64 lose %s%% and %s%%, more than the sector count "
        "shows.", F1(100 * (1 - b32 / b0)), F1(100 * (1 - b64 / b0)));
    return OUTCOMES(c, why, len,
        {sector_rule && line_rule, PARTLY, both},
        {sector_rule, FAILS,
         "Only 32-byte (sector) alignment matters, far less than 16 x the "
         "access size."},
        {1, PARTLY, "The sector counts do not follow the sector rule."});
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
    return verdict_of(c,
        rb[0] >= rb[1] && rb[0] >= rb[2] && wb[0] >= wb[1] && wb[0] >= wb[2],
        why, len,
        "32-bit accesses are the fastest.",
        "All three widths coalesce fully; the wider ones need "
        "fewer instructions for the same bytes and are as fast or faster, "
        "most of all for writes.");
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
    char cached[512];
    say(cached, sizeof cached, "The loads are scattered (%sx the sectors), "
        "but the L1 cache keeps the lines for the struct's other two "
        "fields, so the time barely suffers.", N2(a / s));
    return OUTCOMES(c, why, len,
        {a > s && ta <= 1.1 * ts, PARTLY, cached},
        {a > s, HOLDS, "The scattered loads cost both sectors and time."},
        {1, FAILS,
         "The struct's loads cost no more sectors than an array's."});
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
    return verdict_of(c, t16 < t12, why, len,
        "One full-width load per element beats three "
        "scattered ones.",
        "The loads coalesce, but the padding adds a third more "
        "bytes to move, and with the cache absorbing the 12-byte struct's "
        "scatter that costs more than it saves.");
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
    return OUTCOMES(c, why, len,
        {s == ideal && t <= 1.05 * best, HOLDS,
         "Every load uses whole sectors and no byte is wasted, so nothing "
         "here beats it by more than the noise."},
        {s == ideal, PARTLY,
         "The loads are ideal, but another layout was faster."},
        {1, FAILS, "The arrays' loads are not ideal."});
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
    return OUTCOMES(c, why, len,
        {s == ideal && t < t12, HOLDS,
         "Whole-sector loads and a faster kernel."},
        {s == ideal, PARTLY,
         "The global loads become whole-sector ones, but the extra pass "
         "through shared memory and the barrier cost more time than the "
         "cache-absorbed scatter they remove."},
        {1, FAILS, "The staged loads are still scattered."});
}

/* ---- table excerpts ---- */

/* coalesce: cache, op, width, offset */
static int keep_coalesce(char *const *k, void *ctx_)
{
    static const char *const offsets[] = {"0", "4", "8", "16", "32", "64",
                                          "128", NULL};
    (void)ctx_;
    return !strcmp(k[0], "default") && !strcmp(k[1], "ld")
           && in_list(k[3], offsets);
}

static const claim claims[] = {
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
};

static const section sections[] = {
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
};

const mp_study_group mp_study_global = {claims, N_OF(claims), sections,
    N_OF(sections)};
