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
