/*
 * async_lanes.c - the replayed copy's lanes (async_lanes.h).
 */
#include "async_lanes.h"

#include <stdio.h>
#include <string.h>

#include "async_model.h"
#include "lane_offsets.h"

_Static_assert(MP_LANE_ZERO == MP_COPY_NO_SOURCE,
               "a zero-fill lane is the model's lane without a source");

/* The most bytes of source a replay may read (the array is allocated). */
#define MAX_SRC_BYTES (1LL << 32)

/* Alignment and '-' / 'z' consistency of the lanes. */
static int check_lanes(const mp_async_lanes *l, char *err, size_t errlen)
{
    int any = 0;
    for (int i = 0; i < 32; i++) {
        long long d = l->dst[i], s = l->src[i];
        if (d == MP_LANE_OFF) {
            if (s != MP_LANE_OFF) {
                snprintf(err, errlen, "--src-offsets: lane %d copies "
                         "nothing (--offsets gives '-'), so its source must "
                         "be '-'", i);
                return -1;
            }
            continue;
        }
        any = 1;
        if (s == MP_LANE_OFF) {
            snprintf(err, errlen, "--src-offsets: lane %d has a destination "
                     "but its source is '-' (give 'z' for a lane that "
                     "reads nothing)", i);
            return -1;
        }
        if (d % l->width || (s >= 0 && s % l->width)) {
            snprintf(err, errlen, "--%s: lane %d's offset %lld is not a "
                     "multiple of the %d-byte copy",
                     d % l->width ? "offsets" : "src-offsets", i,
                     d % l->width ? d : s, l->width);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (l->dst[j] == d && l->src[j] != s) {
                snprintf(err, errlen, "--offsets: lanes %d and %d both "
                         "write byte %lld from different sources; what "
                         "stays there would depend on the order", j, i, d);
                return -1;
            }
    }
    if (!any) {
        snprintf(err, errlen, "--offsets: every lane is '-'; the copy "
                 "would move nothing");
        return -1;
    }
    return 0;
}

int mp_async_lanes_read(const char *dst_text, const char *src_text,
                        int width, long long step, long long iterations,
                        mp_async_lanes *out, char *err, size_t errlen)
{
    char why[512];
    memset(out, 0, sizeof *out);
    out->width = width;
    out->step = step;
    out->iterations = iterations;
    if (mp_lane_offsets_parse(dst_text, MP_LANES_ALLOW_OFF, out->dst, why,
                              sizeof why)) {
        snprintf(err, errlen, "--offsets: %s", why);
        return -1;
    }
    if (!src_text) {
        memcpy(out->src, out->dst, sizeof out->src);
    } else if (mp_lane_offsets_parse(src_text,
                                     MP_LANES_ALLOW_OFF | MP_LANES_ALLOW_ZERO,
                                     out->src, why, sizeof why)) {
        snprintf(err, errlen, "--src-offsets: %s", why);
        return -1;
    }
    if (check_lanes(out, err, errlen))
        return -1;
    if (step % width) {
        snprintf(err, errlen, "--src-step: %lld is not a multiple of the "
                 "%d-byte copy", step, width);
        return -1;
    }
    if (mp_async_lanes_src_bytes(out) > MAX_SRC_BYTES) {
        snprintf(err, errlen, "--src-step: %lld bytes x %lld iterations "
                 "read past %lld bytes of source", step, iterations,
                 MAX_SRC_BYTES);
        return -1;
    }
    return 0;
}

long long mp_async_lanes_tile_bytes(const mp_async_lanes *l)
{
    long long end = 0;
    for (int i = 0; i < 32; i++)
        if (l->dst[i] >= 0 && l->dst[i] + l->width > end)
            end = l->dst[i] + l->width;
    return (end + 127) / 128 * 128;
}

long long mp_async_lanes_src_bytes(const mp_async_lanes *l)
{
    long long end = 0;
    for (int i = 0; i < 32; i++)
        if (l->src[i] >= 0 && l->src[i] + l->width > end)
            end = l->src[i] + l->width;
    end += l->step * (l->iterations - 1);
    return (end + 127) / 128 * 128;
}

void mp_async_lanes_predict(const mp_async_lanes *l, mp_copy_prediction *p)
{
    mp_warp_access a;
    memset(&a, 0, sizeof a);
    a.width = l->width;
    a.is_store = 1;
    for (int i = 0; i < 32; i++) {
        a.offset[i] = l->dst[i] >= 0 ? l->dst[i] : 0;
        if (l->dst[i] >= 0)
            a.active |= 1u << i;
    }
    mp_bank_predict_copy(&a, l->src, p);
}

unsigned mp_async_lanes_expected(const mp_async_lanes *l, int lane)
{
    long long s = l->src[lane];
    if (l->dst[lane] < 0 || s < 0)
        return 0;
    unsigned long long first = (unsigned long long)
        ((s + l->step * (l->iterations - 1)) / 4);
    unsigned sum = 0;
    for (int j = 0; j < l->width / 4; j++)
        sum += mp_async_word(first + (unsigned long long)j);
    return sum;
}
