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

long long mp_swizzle(int swizzle, long long offset)
{
    long long mask = (1LL << swizzle) - 1;   /* B = 0, 1, 2, 3 */
    return offset ^ (((offset >> 7) & mask) << 4);
}

long long mp_matrix_row_offset(const mp_matrix_rows *m, int lane)
{
    if (lane >= 8 * m->matrices)
        return 0;
    int mat = lane / 8, row = lane % 8;
    long long off = (long long)row * m->pitch;
    if (m->rows == MP_ROWS_PLAIN)
        off = (long long)lane * m->pitch;
    else
        off = (row + 8LL * (mat & 1)) * m->pitch + 16LL * (mat >> 1);
    return mp_swizzle(m->swizzle, off);
}
