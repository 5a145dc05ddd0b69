/*
 * explain_pattern.c - the access pattern of an instruction's executions in
 * the probes' words (base, stride, group, period; the 2D tile row; the
 * n-way conflict; the misalignment) and the bank or coalesce probe
 * command that measures the same pattern (see explain.h).
 */
#include "explain.h"

#include <stdio.h>
#include <string.h>

#include "bank_model.h"
#include "pattern.h"

/* 1 when e's active lanes sit at base + stride * ((lane % p) / g) for
 * some base and stride (bytes), which it sets. */
static int fit(const mp_explain_exec *e, long long p, long long g,
               long long *base, long long *stride)
{
    int n = 0;
    long long k0 = 0, a0 = 0, k1 = 0, a1 = 0;
    for (int l = 0; l < MP_WARP_SIZE && n < 2; l++) {
        if (!(e->active >> l & 1u))
            continue;
        long long k = (l % p) / g;
        if (n == 0) {
            k0 = k;
            a0 = e->addr[l];
            n = 1;
        } else if (k != k0) {
            k1 = k;
            a1 = e->addr[l];
            n = 2;
        }
    }
    long long s = 0;
    if (n == 2) {
        if ((a1 - a0) % (k1 - k0))
            return 0;
        s = (a1 - a0) / (k1 - k0);
    }
    long long b = a0 - s * k0;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if ((e->active >> l & 1u) && e->addr[l] != b + s * ((l % p) / g))
            return 0;
    *base = b;
    *stride = s;
    return 1;
}

/* The first active lane, or -1. */
static int first_lane(uint32_t active)
{
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if (active >> l & 1u)
            return l;
    return -1;
}

/* 1 when executions x and y have the same mask and the same addresses
 * relative to their first active lane. */
static int same_shape(const mp_explain_exec *x, const mp_explain_exec *y)
{
    if (x->active != y->active)
        return 0;
    int f = first_lane(x->active);
    for (int l = 0; f >= 0 && l < MP_WARP_SIZE; l++)
        if ((x->active >> l & 1u)
            && x->addr[l] - x->addr[f] != y->addr[l] - y->addr[f])
            return 0;
    return 1;
}

/* The index of the first execution of the most common shape (among the
 * first 64 shapes seen) and how many executions have it. */
static int common_shape(const mp_explain_acc *acc, long long *count)
{
    enum { MAX_SHAPES = 64 };
    int rep[MAX_SHAPES];
    long long n[MAX_SHAPES] = {0};
    int nshapes = 0;
    for (int i = 0; i < acc->nexec; i++) {
        int s = 0;
        while (s < nshapes && !same_shape(&acc->exec[rep[s]], &acc->exec[i]))
            s++;
        if (s == nshapes && nshapes < MAX_SHAPES) {
            rep[nshapes] = i;
            n[nshapes++] = 0;
        }
        if (s < nshapes)
            n[s]++;
    }
    int best = 0;
    for (int s = 1; s < nshapes; s++)
        if (n[s] > n[best])
            best = s;
    *count = n[best];
    return rep[best];
}

/* Finds the simplest period and group (longest period first, then the
 * smallest group) the execution follows; sets p->regular. */
static void fit_pattern(const mp_explain_exec *e, mp_explain_pattern *p)
{
    for (long long per = MP_WARP_SIZE; per >= 1 && !p->regular; per--)
        for (long long g = 1; g <= per && !p->regular; g++)
            if (fit(e, per, g, &p->base_bytes, &p->stride_bytes)) {
                p->regular = 1;
                p->period = per;
                p->group = g;
            }
    if (p->regular && p->stride_bytes == 0) {
        p->group = MP_WARP_SIZE;   /* one address: a broadcast */
        p->period = MP_WARP_SIZE;
    }
    if (!p->regular)
        p->base_bytes = e->addr[first_lane(e->active)];
}

int mp_explain_infer(const mp_explain_acc *acc, mp_explain_pattern *p)
{
    memset(p, 0, sizeof *p);
    if (acc->nexec == 0)
        return -1;
    p->exec_index = common_shape(acc, &p->shape_execs);
    const mp_explain_exec *e = &acc->exec[p->exec_index];
    p->space = e->space;
    p->width = e->width;
    p->is_store = e->is_store;
    p->atomic = acc->atomic;
    p->matrices = e->matrices;
    p->copy = e->src != NULL;
    if (p->copy) {
        mp_warp_access a = {e->width, 1, e->active, {0}};
        mp_copy_prediction c;
        memcpy(a.offset, e->addr, sizeof a.offset);
        mp_bank_predict_copy(&a, e->src, &c);
        p->src_lines = c.src_lines;
        p->src_sectors = c.src_sectors;
        p->place_waits = c.place_waits;
    }
    p->active = e->active;
    p->full = e->active == 0xffffffffu;
    if (e->active)
        fit_pattern(e, p);
    int w = p->width;
    p->whole_elements = p->regular && p->base_bytes % w == 0
                        && p->stride_bytes % w == 0;
    p->base = p->base_bytes / w;
    p->stride = p->stride_bytes / w;
    p->ways = acc->ideal ? (double)acc->count / (double)acc->ideal : 0.0;
    if (p->space == MP_SPACE_SHARED) {
        p->stride_words = p->stride_bytes / 4;
        if (p->regular && p->stride_bytes % 4 == 0 && p->group < p->period
            && p->stride_words > w / 4)
            p->row_words = p->stride_words;
    } else {
        p->misalign = p->base_bytes % 32;
        p->misalign_line = p->base_bytes % 128;
        p->sectors_per_request =
            acc->requests ? (double)acc->count / (double)acc->requests : 0.0;
    }
    return 0;
}

/* " --group G --period P" when they are not the defaults. */
static void group_period(const mp_explain_pattern *p, char *out, size_t n)
{
    out[0] = '\0';
    if (p->group != 1 || p->period != MP_WARP_SIZE)
        snprintf(out, n, " --group %lld --period %lld", p->group, p->period);
}

/* The bank probe's command: the pattern, or --offsets for irregular
 * lanes; 0 when none replays it. */
static int bank_command(const mp_explain_pattern *p, const mp_explain_exec *e,
                        char *out, size_t n)
{
    const char *op = p->is_store ? "st" : "ld";
    char gp[64];
    if (p->matrices) {   /* the matrix mode: each lane's row, as captured */
        long long lo = -1;
        for (int l = 0; l < 8 * p->matrices; l++)
            if (lo < 0 || e->addr[l] < lo)
                lo = e->addr[l];
        lo -= lo % 128;   /* keeps every row's banks */
        int len = snprintf(out, n, "memprobe bank --op %s --matrices %d "
                           "--offsets '", p->is_store ? "stsm" : "ldsm",
                           p->matrices);
        for (int l = 0; l < MP_WARP_SIZE && (size_t)len < n; l++) {
            long long o = l < 8 * p->matrices ? e->addr[l] - lo : 0;
            if (o >= 10000000) {
                snprintf(out, n, "no probe replays this pattern: the rows "
                         "span more than the bank probe's 10^7-byte "
                         "offsets");
                return 0;
            }
            len += snprintf(out + len, n - (size_t)len, "%s%lld",
                            l ? ";" : "", o);
        }
        if ((size_t)len < n)
            snprintf(out + len, n - (size_t)len, "'");
        return 1;
    }
    if (!p->full) {
        snprintf(out, n, "no probe replays this pattern: the bank probe "
                 "runs all 32 lanes, this warp has active mask 0x%08x",
                 (unsigned)p->active);
        return 0;
    }
    /* Only the banks matter: the base within one 128-byte row of banks
     * (a tile 281 words into the shared window is at --base 25). */
    long long base = p->base;
    if (base > 0)
        base %= 128 / p->width;
    if (p->regular && p->whole_elements && p->stride >= 0
        && p->stride <= 4096 && base >= 0) {
        group_period(p, gp, sizeof gp);
        int len = snprintf(out, n, "memprobe bank --op %s --width %d", op,
                           p->width);
        if (p->group < p->period)
            len += snprintf(out + len, n - (size_t)len, " --stride %lld",
                            p->stride);
        len += snprintf(out + len, n - (size_t)len, "%s", gp);
        if (base && (size_t)len < n)
            snprintf(out + len, n - (size_t)len, " --base %lld", base);
        return 1;
    }
    long long lo = e->addr[0];
    for (int l = 1; l < MP_WARP_SIZE; l++)
        if (e->addr[l] < lo)
            lo = e->addr[l];
    lo -= lo % 128;   /* keeps every lane's bank */
    int len = snprintf(out, n, "memprobe bank --op %s --width %d --offsets '",
                       op, p->width);
    for (int l = 0; l < MP_WARP_SIZE && (size_t)len < n; l++) {
        if (e->addr[l] - lo >= 10000000) {
            snprintf(out, n, "no probe replays this pattern: the lanes span "
                     "more than the bank probe's 10^7-byte offsets");
            return 0;
        }
        len += snprintf(out + len, n - (size_t)len, "%s%lld", l ? ";" : "",
                        e->addr[l] - lo);
    }
    if ((size_t)len < n)
        snprintf(out + len, n - (size_t)len, "'");
    return 1;
}

/* The coalesce probe's command; 0 (and why) when it cannot replay it. */
static int coalesce_command(const mp_explain_pattern *p, char *out, size_t n)
{
    const char *why = NULL;
    if (!p->full)
        why = "the coalesce probe runs all 32 lanes";
    else if (!p->regular)
        why = "the lanes follow no base + stride pattern (the coalesce "
              "probe has no per-lane offsets)";
    else if (p->width != 4 && p->width != 8 && p->width != 16)
        why = "the coalesce probe's widths are 4, 8 and 16 bytes";
    else if (!p->whole_elements || p->stride < 0 || p->stride > 1024)
        why = "the stride is not 0..1024 whole elements";
    if (why) {
        snprintf(out, n, "no probe replays this pattern: %s", why);
        return 0;
    }
    char gp[64];
    group_period(p, gp, sizeof gp);
    int len = snprintf(out, n, "memprobe coalesce --op %s --width %d",
                       p->is_store ? "st" : "ld", p->width);
    if (p->base_bytes % 256)
        len += snprintf(out + len, n - (size_t)len, " --offset %lld",
                        p->base_bytes % 256);
    if (p->group < p->period)
        len += snprintf(out + len, n - (size_t)len, " --stride %lld",
                        p->stride);
    snprintf(out + len, n - (size_t)len, "%s", gp);
    return 1;
}

/* The lowest of the active lanes' values v[] (sources: those that read),
 * down to a multiple of 128 (every lane keeps its bank or place in a
 * line); -1 when none. */
static long long line_base(const long long *v, uint32_t active)
{
    long long lo = -1;
    for (int l = 0; l < MP_WARP_SIZE; l++)
        if (active >> l & 1u && v[l] >= 0 && (lo < 0 || v[l] < lo))
            lo = v[l];
    return lo < 0 ? lo : lo - lo % 128;
}

/* One lane list of the async probe's replay into out at *len: value - lo,
 * '-' for an inactive lane, 'z' for a source that reads nothing; 0, or -1
 * past the probe's 10^7-byte offsets. */
static int copy_lanes(const long long *v, uint32_t active, long long lo,
                      char *out, size_t n, int *len)
{
    for (int l = 0; l < MP_WARP_SIZE && (size_t)*len < n; l++) {
        const char *sep = l ? ";" : "";
        if (!(active >> l & 1u))
            *len += snprintf(out + *len, n - (size_t)*len, "%s-", sep);
        else if (v[l] == MP_COPY_NO_SOURCE)
            *len += snprintf(out + *len, n - (size_t)*len, "%sz", sep);
        else if (v[l] - lo >= 10000000)
            return -1;
        else
            *len += snprintf(out + *len, n - (size_t)*len, "%s%lld", sep,
                             v[l] - lo);
    }
    return 0;
}

/* The async probe's replay of a copy: its destinations and sources as
 * captured, each moved down to a 128-byte boundary. */
static int copy_command(const mp_explain_exec *e, char *out, size_t n)
{
    int len = snprintf(out, n, "memprobe async --method cpasync --width %d "
                       "--offsets '", e->width);
    int ok = copy_lanes(e->addr, e->active, line_base(e->addr, e->active),
                        out, n, &len) == 0;
    if (ok && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "' --src-offsets '");
    ok = ok && copy_lanes(e->src, e->active, line_base(e->src, e->active),
                          out, n, &len) == 0;
    if (!ok) {
        snprintf(out, n, "no probe replays this copy: its lanes span more "
                 "than the async probe's 10^7-byte offsets");
        return 0;
    }
    if ((size_t)len < n)
        snprintf(out + len, n - (size_t)len, "'");
    return 1;
}

int mp_explain_probe_command(const mp_explain_pattern *p,
                             const mp_explain_acc *acc, char *out,
                             size_t outlen)
{
    if (acc->nexec == 0 || p->active == 0) {
        snprintf(out, outlen, "no probe replays this pattern: no lane "
                 "took part");
        return 0;
    }
    if (p->copy)
        return copy_command(&acc->exec[p->exec_index], out, outlen);
    if (p->space == MP_SPACE_SHARED)
        return bank_command(p, &acc->exec[p->exec_index], out, outlen);
    return coalesce_command(p, out, outlen);
}
