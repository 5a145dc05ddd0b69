/*
 * explain_fix.c - the fixes of `memprobe explain` (see explain.h): each
 * transforms the SAME captured addresses of every execution (padding,
 * XOR swizzle, another width, sequential addressing, a private copy per
 * lane for atomics, alignment, vector width, structure of arrays,
 * staging through shared memory) and counts
 * them again with the
 * bank or sector model; ranked by the predicted count.
 */
#include "explain.h"
#include "bank_model.h"

#include <stdio.h>
#include <string.h>

/* A transform of one execution: 0, or -1 when it does not apply. */
typedef int (*xform_fn)(const mp_explain_exec *in, mp_explain_exec *out,
                        const void *ctx);

/* The lowest active address of e (0 with no active lane). */
static long long lowest(const mp_explain_exec *e)
{
    long long lo = -1;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if ((e->active >> l & 1u) && (lo < 0 || e->addr[l] < lo))
            lo = e->addr[l];
    return lo < 0 ? 0 : lo;
}

/* The model's count (and ideal) over acc's executions transformed by fn;
 * -1 when fn refuses one. */
static long long count_with(const mp_explain_acc *acc, xform_fn fn,
                            const void *ctx, long long *ideal)
{
    long long count = 0, id = 0;
    for (int i = 0; i < acc->nexec; i++) {
        mp_explain_exec t;
        if (fn(&acc->exec[i], &t, ctx))
            return -1;
        if (!t.active)
            continue;
        long long one = 0;
        count += mp_explain_exec_count(&t, &one);
        id += one;
    }
    if (ideal)
        *ideal = id;
    return count;
}

/* ---- shared: padding and the XOR swizzle ------------------------------ */

typedef struct {
    long long row, pad;   /* words */
    int rebase;           /* offsets from the execution's lowest first,
                             counted as shared memory (staging) */
} pad_ctx;

/* Word w of row w / row moves on by (w / row) * pad words. */
static int pad_xform(const mp_explain_exec *in, mp_explain_exec *out,
                     const void *ctx)
{
    const pad_ctx *c = ctx;
    long long lo = c->rebase ? lowest(in) : 0;
    *out = *in;
    if (c->rebase)
        out->space = MP_SPACE_SHARED;
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        if (!(in->active >> l & 1u))
            continue;
        long long a = in->addr[l] - lo;
        out->addr[l] = a + a / 4 / c->row * c->pad * 4;
        if (out->addr[l] % in->width)
            return -1;
    }
    return 0;
}

/* The smallest pad (words: 0 when from is 0, then multiples of the
 * width's words up to 32) whose count reaches its ideal, else the one
 * with the least count; sets *count and *ideal. */
static long long best_pad(const mp_explain_acc *acc, long long row,
                          int rebase, long long from, long long *count,
                          long long *ideal)
{
    long long step = acc->width / 4, best = -1;
    *count = -1;
    for (long long p = from; p <= 32; p = p ? p + step : step) {
        pad_ctx c = {row, p, rebase};
        long long id = 0, n = count_with(acc, pad_xform, &c, &id);
        if (n >= 0 && (*count < 0 || n < *count)) {
            *count = n;
            *ideal = id;
            best = p;
        }
        if (n >= 0 && n <= id)
            break;
    }
    return best;
}

/* In each row of ctx's words, element column e becomes e ^ (row % k),
 * k = the elements of 32 banks. */
static int xor_xform(const mp_explain_exec *in, mp_explain_exec *out,
                     const void *ctx)
{
    long long row = *(const long long *)ctx;
    long long w4 = in->width / 4, k = MP_WARP_SIZE / w4;
    *out = *in;
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        if (!(in->active >> l & 1u))
            continue;
        long long word = in->addr[l] / 4, r = word / row, c = word % row;
        long long e = (c / w4) ^ (r % k);
        out->addr[l] = (r * row + e * w4 + c % w4) * 4 + in->addr[l] % 4;
    }
    return 0;
}

/* Sequential addressing: the k-th active lane (in lane order) takes the
 * k-th element from the execution's lowest address, as a reduction
 * indexed `c[tid] += c[tid + s]` does where `c[2 s tid]` spread the
 * same threads 2s words apart. */
static int compact_xform(const mp_explain_exec *in, mp_explain_exec *out,
                         const void *ctx)
{
    (void)ctx;
    long long lo = lowest(in), k = 0;
    *out = *in;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if (in->active >> l & 1u)
            out->addr[l] = lo + k++ * in->width;
    return 0;
}

/* ---- a private copy per lane (atomics) ------------------------------------ */

/* Word k of the array (counted from the instruction's lowest address
 * over all executions, *ctx) moves to word k * 32 + lane: each lane
 * updates its own copy, in its own bank. */
static int private_xform(const mp_explain_exec *in, mp_explain_exec *out,
                         const void *ctx)
{
    long long base = *(const long long *)ctx;
    *out = *in;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if (in->active >> l & 1u)
            out->addr[l] = base + (((in->addr[l] - base) / in->width)
                                   * MP_WARP_SIZE + l) * in->width;
    return 0;
}

/* ---- another width ------------------------------------------------------ */

typedef struct {
    int w, j;   /* bytes of a part, which part */
} split_ctx;

/* Part j of every lane's access: its w bytes from j * w on. */
static int split_xform(const mp_explain_exec *in, mp_explain_exec *out,
                       const void *ctx)
{
    const split_ctx *c = ctx;
    *out = *in;
    out->width = c->w;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if (in->active >> l & 1u)
            out->addr[l] += (long long)c->j * c->w;
    return 0;
}

/* The count of acc's executions each split into width / w accesses of w
 * bytes (the same bytes: instruction j takes bytes j*w .. j*w+w-1 of
 * every lane's access). */
static long long split_count(const mp_explain_acc *acc, int w,
                             long long *ideal)
{
    long long count = 0, id = 0;
    for (int j = 0; j < acc->width / w; j++) {
        split_ctx c = {w, j};
        long long one = 0;
        count += count_with(acc, split_xform, &c, &one);
        id += one;
    }
    *ideal = id;
    return count;
}

/* ---- global: alignment, vector width, SoA ------------------------------- */

/* Every lane shifted down to put the lowest address on a sector. */
static int align_xform(const mp_explain_exec *in, mp_explain_exec *out,
                       const void *ctx)
{
    (void)ctx;
    long long shift = lowest(in) % 32;
    *out = *in;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if (in->active >> l & 1u)
            out->addr[l] -= shift;
    return 0;
}

/* A contiguous warp's bytes read by 32 * width / w lanes of w bytes. */
static int vector_xform(const mp_explain_exec *in, mp_explain_exec *out,
                        const void *ctx)
{
    int w = *(const int *)ctx, n = MP_WARP_SIZE * in->width / w;
    if (in->active != 0xffffffffu || in->addr[0] % w)
        return -1;
    for (int l = 1; l < MP_WARP_SIZE; l++)
        if (in->addr[l] != in->addr[0] + (long long)l * in->width)
            return -1;
    *out = *in;
    out->width = w;
    out->active = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        out->addr[l] = l < n ? in->addr[0] + (long long)l * w : 0;
    return 0;
}

/* Structure of arrays: the field of struct (a - lowest) / size of the
 * warp moves to its own array, the warp's first element at the start of
 * the lowest address's 128-byte line (an aligned array, a warp's first
 * element a multiple of 32). */
static int soa_xform(const mp_explain_exec *in, mp_explain_exec *out,
                     const void *ctx)
{
    long long size = *(const long long *)ctx, lo = lowest(in);
    *out = *in;
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        if (!(in->active >> l & 1u))
            continue;
        long long a = in->addr[l] - lo;
        if (a % size)
            return -1;
        out->addr[l] = lo - lo % 128 + a / size * in->width;
    }
    return 0;
}

/* ---- the list ------------------------------------------------------------ */

/* Appends a fix with its count (nothing when count < 0). */
static mp_explain_fix *add_fix(mp_explain_fixes *f, const mp_explain_acc *acc,
                               int kind, long long param, long long count)
{
    if (count < 0 || f->n >= MP_EXPLAIN_MAX_FIXES)
        return NULL;
    mp_explain_fix *x = &f->fix[f->n++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->param = param;
    x->count = count;
    x->ideal = acc->ideal;
    x->reaches_ideal = count <= acc->ideal;
    x->instructions = acc->executions;
    f->any_ideal |= x->reaches_ideal;
    return x;
}

/* Padding, the XOR swizzle and narrower widths. */
static void shared_fixes(const mp_explain_acc *acc,
                         const mp_explain_pattern *p, mp_explain_fixes *f)
{
    long long row = p->row_words, n, id;
    mp_explain_fix *x;
    if (row <= 0 && acc->exec[0].src && !f->already_ideal)
        row = MP_SHARED_BANKS;   /* a copy's lanes with no row of their
                                    own: the banks' 32-word rows */
    if (row > 0) {
        long long pad = best_pad(acc, row, 0, acc->width / 4, &n, &id);
        if ((x = add_fix(f, acc, MP_FIX_PAD, pad, n)))
            snprintf(x->what, sizeof x->what, "pad each %lld-word row by "
                     "%lld word%s", row, pad, pad == 1 ? "" : "s");
    }
    if (row > 0 && row % 32 == 0
        && (x = add_fix(f, acc, MP_FIX_XOR, row,
                        count_with(acc, xor_xform, &row, NULL))))
        snprintf(x->what, sizeof x->what, "XOR swizzle: column ^ (row %% "
                 "%d) in each %lld-word row", MP_WARP_SIZE / (acc->width / 4),
                 row);
    if (acc->exec[0].matrices || acc->exec[0].src)
        return;   /* a matrix load or store, or a copy, stays one: its
                     rows padded or swizzled only */
    /* not for a full warp down a column of 32 words or more: a tile's
     * column, whose fixes are the padding and the swizzle above (its
     * consecutive words would be reading rows, another algorithm) */
    int column = p->full && p->stride_bytes >= 128;
    if (acc->atomic) {
        /* an atomic stays one: no other width, no other lanes; the
         * privatised copies (a histogram's bins per lane) instead */
        long long base = -1;
        for (int i = 0; i < acc->nexec; i++)
            if (acc->exec[i].active
                && (base < 0 || lowest(&acc->exec[i]) < base))
                base = lowest(&acc->exec[i]);
        if (!f->already_ideal && acc->width == 4 && base >= 0
            && (x = add_fix(f, acc, MP_FIX_PRIVATE, 0,
                            count_with(acc, private_xform, &base, NULL))))
            snprintf(x->what, sizeof x->what, "a private copy per lane: "
                     "word k of the array at k * 32 + lane (32 times the "
                     "memory; the copies summed after)");
        return;
    }
    if (!f->already_ideal && p->regular && p->group == 1 && !column
        && p->stride_bytes > acc->width
        && (x = add_fix(f, acc, MP_FIX_COMPACT, 0,
                        count_with(acc, compact_xform, NULL, NULL))))
        snprintf(x->what, sizeof x->what, "sequential addressing: the "
                 "active lanes on consecutive %d-byte elements (not %lld "
                 "bytes apart)", acc->width, p->stride_bytes);
    for (int w = acc->width / 2; w >= 4; w /= 2) {
        if ((x = add_fix(f, acc, MP_FIX_WIDTH, w, split_count(acc, w, &id)))) {
            x->instructions = acc->executions * (acc->width / w);
            snprintf(x->what, sizeof x->what, "%d-byte accesses (the same "
                     "bytes, %d instructions for one)", w, acc->width / w);
        }
    }
}

/* Staging: the global side coalesced (its ideal), the shared reads of
 * the staged tile padded by the smallest pad reaching their ideal. */
static void stage_fix(const mp_explain_acc *acc, const mp_explain_pattern *p,
                      mp_explain_fixes *f)
{
    mp_explain_fix *x = add_fix(f, acc, MP_FIX_STAGE, 0, acc->ideal);
    if (!x)
        return;
    long long row = 1LL << 40;   /* no row: padding changes nothing */
    int rows = 0;
    if (p->regular && p->stride_bytes % 4 == 0 && p->group < p->period
        && p->stride_bytes / 4 > acc->width / 4)
        row = p->stride_bytes / 4, rows = 1;
    if (acc->width == 4 || acc->width == 8 || acc->width == 16)
        x->param = best_pad(acc, row, 1, 0, &x->shared_count,
                            &x->shared_ideal);
    if (rows && x->param > 0)
        snprintf(x->what, sizeof x->what, "stage through shared memory "
                 "(coalesced copy; %lld-word tile rows padded by %lld)", row,
                 x->param);
    else
        snprintf(x->what, sizeof x->what, "stage through shared memory "
                 "(coalesced copy)");
}

/* Alignment, vector widths and structure of arrays. */
static void global_fixes(const mp_explain_acc *acc,
                         const mp_explain_pattern *p, mp_explain_fixes *f)
{
    mp_explain_fix *x;
    int misaligned = 0;
    for (int i = 0; i < acc->nexec; i++)
        misaligned |= acc->exec[i].active && lowest(&acc->exec[i]) % 32;
    if (misaligned
        && (x = add_fix(f, acc, MP_FIX_ALIGN, p->misalign,
                        count_with(acc, align_xform, NULL, NULL))))
        snprintf(x->what, sizeof x->what, "align to a 32-byte sector (the "
                 "first lane %lld bytes off)", p->misalign);
    for (int w = 2 * acc->width; w <= 16 && acc->width >= 4 && !acc->atomic;
         w *= 2)
        if ((x = add_fix(f, acc, MP_FIX_VECTOR, w,
                         count_with(acc, vector_xform, &w, NULL)))) {
            x->instructions = (acc->executions * acc->width + w - 1) / w;
            snprintf(x->what, sizeof x->what, "%d-byte vector accesses "
                     "(the same bytes, 1 instruction for %d)", w,
                     w / acc->width);
        }
    if (p->regular && p->group == 1 && p->stride_bytes > acc->width) {
        long long size = p->stride_bytes;
        if ((x = add_fix(f, acc, MP_FIX_SOA, acc->width,
                         count_with(acc, soa_xform, &size, NULL))))
            snprintf(x->what, sizeof x->what, "structure of arrays (the "
                     "%d-byte field of a %lld-byte struct in its own array)",
                     acc->width, p->stride_bytes);
    }
    if (!acc->atomic)   /* staging would not make it one atomic */
        stage_fix(acc, p, f);
}

/* Sorts the fixes by count, keeping the listed order on ties. */
static void rank(mp_explain_fixes *f)
{
    for (int i = 1; i < f->n; i++) {
        mp_explain_fix x = f->fix[i];
        int j = i;
        for (; j > 0 && f->fix[j - 1].count > x.count; j--)
            f->fix[j] = f->fix[j - 1];
        f->fix[j] = x;
    }
}

void mp_explain_fixes_for(const mp_explain_acc *acc,
                          const mp_explain_pattern *p, mp_explain_fixes *f)
{
    memset(f, 0, sizeof *f);
    if (acc->nexec == 0)
        return;
    f->already_ideal = acc->count <= acc->ideal;
    if (acc->space == MP_SPACE_SHARED)
        shared_fixes(acc, p, f);
    else
        global_fixes(acc, p, f);
    rank(f);
}
