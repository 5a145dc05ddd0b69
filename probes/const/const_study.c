/*
 * const_study.c - the study's constant- and texture-memory claims
 * and their table sections. report/claims.h says what a claim group
 * holds; report/study.c writes the document.
 */
#include "claims.h"

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
    return OUTCOMES(c, why, len,
        {r1 == 0 && rb == 1 && ri == 1, PARTLY,
         "One read serves the whole warp (31 reads saved, not 15), and "
         "every further distinct address costs one more pass wherever its "
         "lanes sit: the half-warp plays no part."},
        {r1 == 0 && rb == 0, HOLDS, "Each half-warp gets its own broadcast."},
        {1, FAILS, "A single address is not served in one pass."});
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
    int refused = strstr(fits, "Success") && strstr(over, "Invalid");
    return OUTCOMES(c, why, len,
        {total == 65536 && refused, HOLDS,
         "Exactly 64 KB: one byte more is refused."},
        {total == 65536, HOLDS, "The device reports 64 KB."},
        {1, FAILS, "The device reports another size."});
}

static verdict const_cached(ctx *c, char *m, char *why, size_t len)
{
    const char *one = "const/constant/s1/sp4/g32/p32";
    const char *wide = "const/constant/s32/sp128/g1/p32";
    double h1 = ratio(c, one, MP_F_IDC_HITS, MP_F_IDC_REQUESTS);
    double hw = ratio(c, wide, MP_F_IDC_HITS, MP_F_IDC_REQUESTS);
    say(m, len, "Repeated constant loads of one address hit the constant "
        "cache for %s%% of their requests; 32 addresses 128 bytes apart, "
        "for %s%%.", F2(100 * h1), F1(100 * hw));
    return verdict_of(c, h1 > 0.99, why, len,
        "Repeated reads are served by the constant cache, not "
        "by memory.",
        "Repeated reads miss the cache.");
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
    return verdict_of(c, k1 < g1 && k1 < l1, why, len,
        "The broadcast through the constant cache is the "
        "fastest path.",
        "A uniform global load through L1 is faster than LDC on "
        "this GPU, and any divergence makes constant memory slower still "
        "(one pass per distinct address).");
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
    int wins2d = col2 < colg && col2 < coll;
    int loses = stg < st1 && stg < st2 && rowg < row2;
    char columns_only[512];
    say(columns_only, sizeof columns_only, "Where the access really is "
        "two-dimensional (down columns) the 2D texture's tiled layout wins "
        "%sx; for the stencil and row walks that L1 already serves well, "
        "plain loads win.", F1(colg / col2));
    return OUTCOMES(c, why, len,
        {wins2d && loses, PARTLY, columns_only},
        {wins2d, HOLDS, "The texture paths win where locality is 2D."},
        {1, FAILS, "No texture path beats plain loads here."});
}

/* Median time in us of reduction `variant` at the seeds' 32 blocks or a
 * full GPU (b0), 256 threads, on the seeds' workload sizes. */

/* ---- table excerpts ---- */

/* const: source, spread, group, period */
static int keep_const(char *const *k, void *ctx_)
{
    static const char *const spreads[] = {"1", "2", "4", "8", "16", "32",
                                          NULL};
    (void)ctx_;
    return in_list(k[1], spreads);
}

static const claim claims[] = {
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
};

static const section sections[] = {
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
};

const mp_study_group mp_study_const_texture = {claims, N_OF(claims), sections,
    N_OF(sections)};
