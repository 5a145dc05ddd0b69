/*
 * pattern.c - lane -> element mapping of mp_pattern (see pattern.h).
 */
#include "pattern.h"

long long mp_pattern_element(const mp_pattern *p, int lane)
{
    long long k = (lane % p->period) / p->group;
    long long logical = p->base + p->stride * k;
    if (p->pad == 0 || p->stride == 0)
        return logical;
    return (logical / p->stride) * (p->stride + p->pad)
           + logical % p->stride;
}

long long mp_pattern_offsets(const mp_pattern *p, int width,
                             long long offsets[MP_WARP_SIZE])
{
    long long end = 0;
    for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
        offsets[lane] = mp_pattern_element(p, lane) * width;
        if (offsets[lane] + width > end)
            end = offsets[lane] + width;
    }
    return end;
}

long long mp_block2d_element(const mp_block2d *b, long long t)
{
    long long x = t % b->bx, y = t / b->bx;
    if (b->form == MP_INDEX_XY_MIRROR || b->form == MP_INDEX_YX_MIRROR) {
        x = b->bx - 1 - x;
        y = b->by - 1 - y;
    }
    if (b->form == MP_INDEX_YX || b->form == MP_INDEX_YX_MIRROR)
        return y * (b->bx + b->pad) + x;
    return x * (b->by + b->pad) + y;
}

long long mp_block2d_elements(const mp_block2d *b)
{
    if (b->form == MP_INDEX_YX || b->form == MP_INDEX_YX_MIRROR)
        return b->by * (b->bx + b->pad);
    return b->bx * (b->by + b->pad);
}
