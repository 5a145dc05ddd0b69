/*
 * expect.c - the expected counts of each marked line of the profiler's
 * test program (see expect.h): the line's accesses, the address each
 * thread of a launch touches, and the models' wavefronts or sectors for
 * every warp, summed. Nothing here states a ratio: 32x for the naive
 * transpose, 5/4 for the shifted load and the rest come out of the
 * models (tests/test_profile_expect.c checks that they do).
 */
#include "expect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "reduce_model.h"
#include "sector_model.h"

/* Accesses (is_store, width, form, red, p, q). */
#define LD(w, f, p, q) {0, (w), (f), 0, (p), (q)}
#define ST(w, f, p, q) {1, (w), (f), 0, (p), (q)}
#define RLD(kind, p, q) {0, 4, MP_FORM_RED, (kind), (p), (q)}
#define RST(kind, p, q) {1, 4, MP_FORM_RED, (kind), (p), (q)}

/* A reduction step `c[x] += c[x + s]`: two loads, one store, one line. */
#define RSTEP(name, k, kind, s) \
    {name, k, MP_EXPECT_SHARED, 3, \
     {RLD(kind, s, 0), RLD(kind, s, s), RST(kind, s, 0)}}

#define TR(k, pfx, pitch)                                                 \
    {pfx "_in", k, MP_EXPECT_GLOBAL, 1, {LD(4, MP_FORM_TR_IN, 0, 0)}},    \
    {pfx "_sts", k, MP_EXPECT_SHARED, 1,                                  \
     {ST(4, MP_FORM_TILE_ROW, pitch, 0)}},                                \
    {pfx "_lds", k, MP_EXPECT_SHARED, 1,                                  \
     {LD(4, MP_FORM_TILE_COL, pitch, 0)}},                                \
    {pfx "_out", k, MP_EXPECT_GLOBAL, 1, {ST(4, MP_FORM_TR_OUT, 0, 0)}}

#define RED(k, pfx, kind)                                                 \
    {pfx "_in", k, MP_EXPECT_GLOBAL, 1, {LD(4, MP_FORM_LINEAR, 4, 0)}},   \
    {pfx "_sts", k, MP_EXPECT_SHARED, 1, {RST(MP_RED_ACC_ALL, 0, 0)}},    \
    RSTEP(pfx "_s1", k, kind, 1), RSTEP(pfx "_s2", k, kind, 2),           \
    RSTEP(pfx "_s4", k, kind, 4), RSTEP(pfx "_s8", k, kind, 8),           \
    RSTEP(pfx "_s16", k, kind, 16), RSTEP(pfx "_s32", k, kind, 32),       \
    RSTEP(pfx "_s64", k, kind, 64), RSTEP(pfx "_s128", k, kind, 128),     \
    {pfx "_lds", k, MP_EXPECT_SHARED, 1, {RLD(MP_RED_ACC_THREAD0, 0, 0)}}, \
    {pfx "_out", k, MP_EXPECT_GLOBAL, 1, {ST(4, MP_FORM_BLOCK0, 4, 0)}}

/* The sequential tree: the same lines, its steps from s = T/2 down. */
#define RED_DOWN(k, pfx, kind)                                            \
    {pfx "_in", k, MP_EXPECT_GLOBAL, 1, {LD(4, MP_FORM_LINEAR, 4, 0)}},   \
    {pfx "_sts", k, MP_EXPECT_SHARED, 1, {RST(MP_RED_ACC_ALL, 0, 0)}},    \
    RSTEP(pfx "_s128", k, kind, 128), RSTEP(pfx "_s64", k, kind, 64),     \
    RSTEP(pfx "_s32", k, kind, 32), RSTEP(pfx "_s16", k, kind, 16),       \
    RSTEP(pfx "_s8", k, kind, 8), RSTEP(pfx "_s4", k, kind, 4),           \
    RSTEP(pfx "_s2", k, kind, 2), RSTEP(pfx "_s1", k, kind, 1),           \
    {pfx "_lds", k, MP_EXPECT_SHARED, 1, {RLD(MP_RED_ACC_THREAD0, 0, 0)}}, \
    {pfx "_out", k, MP_EXPECT_GLOBAL, 1, {ST(4, MP_FORM_BLOCK0, 4, 0)}}

static const mp_expect_line lines[] = {
    TR(APP_K_TR_NAIVE, "tr_naive", APP_TILE),
    TR(APP_K_TR_PADDED, "tr_padded", APP_TILE + 1),
    {"ld_aligned_in", APP_K_LD_ALIGNED, MP_EXPECT_GLOBAL, 1,
     {LD(4, MP_FORM_LINEAR, 4, 0)}},
    {"ld_aligned_out", APP_K_LD_ALIGNED, MP_EXPECT_GLOBAL, 1,
     {ST(4, MP_FORM_LINEAR, 4, 0)}},
    {"ld_shifted_in", APP_K_LD_SHIFTED, MP_EXPECT_GLOBAL, 1,
     {LD(4, MP_FORM_LINEAR, 4, 4)}},
    {"ld_shifted_out", APP_K_LD_SHIFTED, MP_EXPECT_GLOBAL, 1,
     {ST(4, MP_FORM_LINEAR, 4, 0)}},
    {"ld_stride2_in", APP_K_LD_STRIDE2, MP_EXPECT_GLOBAL, 1,
     {LD(8, MP_FORM_LINEAR, 16, 0)}},
    {"ld_stride2_out", APP_K_LD_STRIDE2, MP_EXPECT_GLOBAL, 1,
     {ST(4, MP_FORM_LINEAR, 4, 0)}},
    RED(APP_K_RED_INTERLEAVED, "red_il", MP_RED_ACC_INTERLEAVED),
    RED(APP_K_RED_STRIDED, "red_si", MP_RED_ACC_STRIDED),
    RED_DOWN(APP_K_RED_SEQUENTIAL, "red_sq", MP_RED_ACC_SEQUENTIAL),
};

#define NLINES ((int)(sizeof lines / sizeof lines[0]))

const mp_expect_line *mp_expect_lines(int *n)
{
    *n = NLINES;
    return lines;
}

const mp_expect_line *mp_expect_find(const char *marker)
{
    for (int i = 0; i < NLINES; i++)
        if (!strcmp(lines[i].marker, marker))
            return &lines[i];
    return NULL;
}

int mp_expect_kernel(const char *name)
{
    for (int k = 0; k < APP_KERNELS; k++)
        if (!strcmp(app_kernel_names[k], name))
            return k;
    return -1;
}

/* Byte address (from its array's aligned start) that thread (tx, ty) of
 * block (bx, by) touches in access a, or -1 when it takes no part. */
static long long address(const mp_expect_access *a, const int *shape,
                         long long bx, long long by, long long tx,
                         long long ty)
{
    const long long tid = tx + ty * shape[2];
    const long long gid = bx * shape[2] * shape[3] + tid;
    switch (a->form) {
    case MP_FORM_TR_IN:
        return 4 * ((by * APP_TILE + ty) * APP_TR_N + bx * APP_TILE + tx);
    case MP_FORM_TR_OUT:
        return 4 * ((bx * APP_TILE + ty) * APP_TR_N + by * APP_TILE + tx);
    case MP_FORM_TILE_ROW:
        return 4 * (ty * a->p + tx);
    case MP_FORM_TILE_COL:
        return 4 * (tx * a->p + ty);
    case MP_FORM_LINEAR:
        return a->p * gid + a->q;
    case MP_FORM_BLOCK0:
        return tid == 0 ? a->p * bx : -1;
    case MP_FORM_RED: {
        mp_red_access r = {(mp_red_access_kind)a->red, a->p, a->q};
        long long w = mp_red_access_word(&r, shape[2] * shape[3], (int)tid);
        return w < 0 ? -1 : 4 * w;
    }
    }
    return -1;
}

/* Adds one warp's access (lanes first .. first+31 of the block, linear
 * ids) to c. */
static void add_warp(const mp_expect_line *l, const mp_expect_access *a,
                     const int *shape, long long bx, long long by,
                     long long first, mp_expect_counts *c)
{
    long long addr[MP_WARP_SIZE];
    uint32_t active = 0;
    const long long threads = (long long)shape[2] * shape[3];
    for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
        long long t = first + lane;
        addr[lane] = t < threads
                         ? address(a, shape, bx, by, t % shape[2], t / shape[2])
                         : -1;
        if (addr[lane] >= 0)
            active |= 1u << lane;
    }
    if (!active)
        return;   /* the warp branches around it: no instruction */
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        if (addr[lane] < 0)
            addr[lane] = 0;   /* an idle lane (not in active) */
    long long measured, ideal;
    if (l->space == MP_EXPECT_SHARED) {
        mp_warp_access w = {.width = a->width, .is_store = a->is_store,
                            .active = active};
        memcpy(w.offset, addr, sizeof addr);
        mp_bank_prediction p;
        mp_bank_predict(&w, &p);
        measured = p.wavefronts;
        ideal = p.ideal;
    } else {
        mp_global_access g = {.width = a->width, .is_store = a->is_store,
                              .active = active};
        memcpy(g.addr, addr, sizeof addr);
        mp_sector_prediction p;
        mp_sector_predict(&g, &p);
        measured = p.sectors;
        ideal = p.ideal_sectors;
    }
    c->requests++;
    c->measured += measured;
    c->ideal += ideal;
    if (a->is_store) {
        c->st_measured += measured;
        c->st_ideal += ideal;
    } else {
        c->ld_measured += measured;
        c->ld_ideal += ideal;
    }
}

void mp_expect_compute(const mp_expect_line *l, mp_expect_counts *c)
{
    memset(c, 0, sizeof *c);
    const int *shape = app_kernel_shape[l->kernel];
    const long long threads = (long long)shape[2] * shape[3];
    for (long long by = 0; by < shape[1]; by++)
        for (long long bx = 0; bx < shape[0]; bx++)
            for (long long first = 0; first < threads; first += MP_WARP_SIZE)
                for (int i = 0; i < l->naccess; i++)
                    add_warp(l, &l->access[i], shape, bx, by, first, c);
}

long long mp_expect_launches(int kernel, int mode, long long passes,
                             long long *graph_launches)
{
    long long all = 0, graph = 0;
    for (int s = 0; s < APP_STEPS; s++)
        if (app_sequence[s].kernel == kernel && (app_sequence[s].modes & mode)) {
            all += passes;
            if (app_sequence[s].graph)
                graph += passes;
        }
    if (graph_launches)
        *graph_launches = graph;
    return all;
}

int mp_expect_marker_lines(const char *path, int *out, char *err,
                           size_t errlen)
{
    static const char tag[] = "// MP_EXPECT ";
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    for (int i = 0; i < NLINES; i++)
        out[i] = 0;
    char buf[1024];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(buf, sizeof buf, f)) {
        lineno++;
        const char *m = strstr(buf, tag);
        if (!m)
            continue;
        m += sizeof tag - 1;
        size_t len = strcspn(m, " \t\r\n");
        int found = -1;
        for (int i = 0; i < NLINES; i++)
            if (strlen(lines[i].marker) == len
                && !strncmp(lines[i].marker, m, len))
                found = i;
        if (found < 0) {
            snprintf(err, errlen, "%s:%d: marker '%.*s' is not in expect.c",
                     path, lineno, (int)len, m);
            rc = -1;
        } else if (out[found]) {
            snprintf(err, errlen, "%s:%d: marker '%s' also on line %d", path,
                     lineno, lines[found].marker, out[found]);
            rc = -1;
        } else {
            out[found] = lineno;
        }
    }
    fclose(f);
    for (int i = 0; rc == 0 && i < NLINES; i++)
        if (!out[i]) {
            snprintf(err, errlen, "%s: no marker '%s'", path,
                     lines[i].marker);
            rc = -1;
        }
    return rc;
}

int *mp_expect_marker_table(const char *root, char *err, size_t errlen)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/profile/app.cu", root);
    int *out = calloc((size_t)NLINES, sizeof *out);
    if (!out)
        snprintf(err, errlen, "out of memory");
    else if (mp_expect_marker_lines(path, out, err, errlen) == 0)
        err[0] = '\0';
    return out;
}
