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

#endif
