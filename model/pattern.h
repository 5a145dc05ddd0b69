/*
 * pattern.h - the warp address patterns shared by probes and the model.
 *
 * A pattern says which element each lane of a warp touches:
 *
 *     k(lane)  = (lane % period) / group
 *     element  = base + stride * k(lane)                 (pad == 0)
 *
 * `group` consecutive lanes share one address (group = 32: broadcast) and
 * the addresses repeat every `period` lanes. With pad > 0 the elements are
 * laid out as a 2D tile whose rows hold `stride` elements followed by `pad`
 * unused ones (the seeds' 16 + 1 = 17 trick): logical element L is stored at
 * (L / stride) * (stride + pad) + L % stride.
 *
 * The probe kernel receives the lane offsets computed here, so the GPU, the
 * CPU reference and the model use the very same addresses.
 */
#ifndef MP_PATTERN_H
#define MP_PATTERN_H

#include <stdint.h>

#define MP_WARP_SIZE 32

typedef struct {
    long long base;    /* elements */
    long long stride;  /* elements between neighbouring address groups */
    long long group;   /* lanes sharing one address, 1..32 */
    long long period;  /* lanes after which addresses repeat, 1..32 */
    long long pad;     /* elements of padding per tile row of `stride` */
} mp_pattern;

/* Element index (not bytes) that `lane` touches. */
long long mp_pattern_element(const mp_pattern *p, int lane);

/* Byte offset of each lane for elements of `width` bytes; returns the
 * largest byte offset + width (the footprint of one warp). */
long long mp_pattern_offsets(const mp_pattern *p, int width,
                             long long offsets[MP_WARP_SIZE]);

/* A 2D thread block indexing a 2D __shared__ array, as the seeds' bitmap
 * kernel does. Thread t (linear id, x fastest: x = t % bx, y = t / bx; a
 * warp is 32 consecutive t, so with bx = 16 it spans two y rows) touches
 *
 *     XY         shared[x][y]   of shared[bx][by + pad]: x * (by + pad) + y
 *     YX         shared[y][x]   of shared[by][bx + pad]: y * (bx + pad) + x
 *     XY_MIRROR  shared[bx-1-x][by-1-y]  (the seed's read)
 *     YX_MIRROR  shared[by-1-y][bx-1-x]
 *
 * (MP_INDEX_LANE = the 1D lane pattern above, not a 2D form.) */
enum { MP_INDEX_LANE, MP_INDEX_XY, MP_INDEX_YX, MP_INDEX_XY_MIRROR,
       MP_INDEX_YX_MIRROR, MP_INDEX_COUNT };

typedef struct {
    int form;          /* MP_INDEX_XY .. MP_INDEX_YX_MIRROR */
    long long bx, by;  /* block shape, threads */
    long long pad;     /* elements of padding per row of the array */
} mp_block2d;

/* Element index thread t touches. */
long long mp_block2d_element(const mp_block2d *b, long long t);

/* Elements of the whole array (rows x (row length + pad)). */
long long mp_block2d_elements(const mp_block2d *b);

#endif
