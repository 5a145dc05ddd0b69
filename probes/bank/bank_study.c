/*
 * bank_study.c - the study's shared-memory claims (sixteen banks,
 * half-warps, 32-bit words, padding, broadcast) and its bank and padding
 * table sections. report/claims.h says what a claim group holds;
 * report/study.c writes the document.
 */
#include "claims.h"

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
    return OUTCOMES(c, why, len,
        {round(s1) == 1 && round(s32) == 2 * round(s16), FAILS,
         "The banks repeat every 32 words, not 16: stride 16 puts the 32 "
         "lanes into 2 banks (16-way) and stride 32 into one (32-way), "
         "where 16 banks would make both equally bad, and one wavefront "
         "serves 32 lanes x 4 bytes."},
        {round(s16) == round(s32), HOLDS,
         "Strides 16 and 32 conflict alike, as 16 banks would."},
        {1, PARTLY, "The wavefront counts fit neither 16 nor 32 banks."});
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
    char wide_split[512];
    say(wide_split, sizeof wide_split, "A whole warp of 4-byte accesses is "
        "served at once and its lanes conflict across the halves (stride "
        "32: all %s lanes queue on one bank); only wider accesses are "
        "split, into half-warps at 8 bytes and quarter-warps at 16, because "
        "one wavefront carries at most 128 bytes.", N0(s32));
    return OUTCOMES(c, why, len,
        {round(w4) == 1 && round(w8) == 2, PARTLY, wide_split},
        {round(w4) == 2, HOLDS,
         "Even 4-byte accesses take one wavefront per half-warp."},
        {1, FAILS, "The counts show no half-warp split."});
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
    return verdict_of(c, f4 >= f8 && f4 >= f16, why, len,
        "4-byte accesses move the most bytes per cycle.",
        "A wider access fills the same 128-byte wavefronts with "
        "fewer instructions, so 8 and 16 bytes per lane move at least as "
        "many bytes per cycle as 4.");
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
    const char *still = "The padded column walk still conflicts.";
    return OUTCOMES(c, why, len,
        {round(p1) == round(ideal) && p0 > p1, HOLDS,
         "A row of 17 words is odd, so 32 rows start in 32 different "
         "banks: the column walk becomes conflict-free, for wider elements "
         "too; what matters is that the row length is odd, not the + 1."},
        {p1 < p0, PARTLY, still},
        {1, FAILS, still});
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
    return verdict_of(c, round(s0) == 1, why, len,
        "Lanes reading the same word share one bank access; "
        "stores get no such merging.",
        "A common address still conflicts.");
}

/* ---- table excerpts ---- */

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
};

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
};

const mp_study_group mp_study_shared = {claims, N_OF(claims), sections,
    N_OF(sections)};
