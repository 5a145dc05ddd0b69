/*
 * bitmap_study.c - the study's claim on seed 004's 2D shared buffer (the
 * bitmap probe). report/claims.h says what a claim group holds;
 * report/study.c writes the document.
 */
#include "claims.h"
#include "probe.h"

/* Appends to buf (say() writes from its start). */
static void add(char *buf, size_t len, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *f, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf + used, len - used, f, ap);
    va_end(ap);
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
        blk[i] = v(c, a, MP_F_TIME_NS) / 1000;
    }
    say(m, len, "Wavefronts per instruction, measured (model), write and "
        "mirrored read, 16 x 16 block, 1024 x 1024 image: as written `shared[tx][ty]` %s (%s) and %s (%s); `shared[ty][tx]` "
        "%s (%s) and %s (%s); rows of 17 floats %s (%s) and %s (%s). The "
        "kernel's median time, timed from outside (CUDA events): %s, %s and "
        "%s us.", F2(st[0]), F2(mst[0]),
        F2(ld[0]), F2(mld[0]), F2(st[1]), F2(mst[1]), F2(ld[1]),
        F2(mld[1]), F2(st[2]), F2(mst[2]), F2(ld[2]), F2(mld[2]),
        F2(blk[0]), F2(blk[1]), F2(blk[2]));
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
    /* The counters behind each figure, write / read: wavefronts, STS /
     * LDS, conflicts; the read's excess = measured - model per LDS. */
    char cnt[3][160];
    for (int i = 0; i < 3; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "bitmap/%s/st/d1024", lay[i]);
        snprintf(b, sizeof b, "bitmap/%s/ld/d1024", lay[i]);
        snprintf(cnt[i], sizeof cnt[i],
                 "%s %s / %s wavefronts on %s STS / %s LDS, %s / %s conflicts",
                 lay[i], fmt(v(c, a, MP_F_ST_WF), 0, 0),
                 fmt(v(c, b, MP_F_LD_WF), 0, 0), fmt(v(c, a, MP_F_ST_INST), 0, 0),
                 fmt(v(c, b, MP_F_LD_INST), 0, 0),
                 fmt(v(c, a, MP_F_ST_CONFLICTS), 0, 0),
                 fmt(v(c, b, MP_F_LD_CONFLICTS), 0, 0));
    }
    add(m, len, " Counters, write / read: %s; %s; %s.", cnt[0], cnt[1], cnt[2]);
    /* Stores: measured equal to the model when the difference is below
     * the CSV's printing precision (4 decimals). */
    int st_exact = 1;
    double worst = 0;
    for (int i = 0; i < 3; i++) {
        st_exact &= fabs(st[i] - mst[i]) < 5e-5;
        if (ld[i] - mld[i] > worst)
            worst = ld[i] - mld[i];
    }
    if (worst > 5e-5)
        add(m, len, " The read exceeds the model by %s, %s and %s wavefronts "
            "per LDS (reported as measured; the model is kept).",
            fmt(ld[0] - mld[0], 4, 0), fmt(ld[1] - mld[1], 4, 0),
            fmt(ld[2] - mld[2], 4, 0));
    if (st[0] > 1.5 && ld[0] > 1.5) {
        say(why, len, "A warp of a 16 x 16 block is two rows of threadIdx.x, "
            "so `shared[threadIdx.x][...]` walks it down the array's columns "
            "(16 words apart): the write costs %sx and the read %sx the "
            "conflict-free wavefronts. Swapping the indices makes both 1; "
            "padding rows to 17 floats leaves %s and %s, because the warp's "
            "second row wraps onto the first row's bank 0. The write equals "
            "the model %s; the read is at most %s wavefronts per LDS above "
            "it.", F2(st[0] / st[1]), F2(ld[0] / ld[1]), F2(st[2]),
            F2(ld[2]), st_exact ? "in every layout" : "not in every layout",
            fmt(worst, 4, 0));
        return FAILS;
    }
    say(why, len, "The buffer as written costs no more than its fixes.");
    return HOLDS;
}

static const claim claims[] = {
    {"The 2D shared buffer of the bitmap example", "004 (shared memory)",
     "The bitmap kernel's `__shared__ float shared[16][16]`, written as "
     "`shared[threadIdx.x][threadIdx.y]` by a 16 x 16 block and read back "
     "mirrored, is a cheap way to share values within a block (the seed "
     "says nothing of banks).",
     "bitmap.csv", bitmap2d},
};

const mp_study_group mp_study_bitmap = {claims, N_OF(claims), NULL, 0};
