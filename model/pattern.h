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

/* ---- ldmatrix / stmatrix rows ------------------------------------------
 *
 * An .m8n8 .xN matrix instruction moves N matrices of 8 rows x 16 bytes;
 * lane i (i < 8N) gives the shared address of row i % 8 of matrix i / 8.
 * Row layouts:
 *   PLAIN  lane i's row is row i of the tile: i * pitch
 *   MMA    the 16 x 16 (b16) tile an MMA fragment uses: matrix m is the
 *          quadrant (m & 1 = lower half, m >> 1 = right half) - matrices
 *          0..3 are rows 0-7 / 8-15 of columns 0-7, then rows 0-7 / 8-15 of
 *          columns 8-15: (i % 8 + 8 (m & 1)) * pitch + 16 (m >> 1)
 * then the swizzle (TMA's modes = CUTLASS Swizzle<B, 4, 3>) maps each byte
 * offset a of the tile (the tile starts 1024-byte aligned) to
 *     a ^ (((a >> 7) & (2^B - 1)) << 4)
 * i.e. the 16-byte chunk index (bits 4..4+B-1) XOR the 128-byte row index
 * (bits 7..7+B-1) inside each 2^(7+B)-byte period:
 *     none: B = 0 (no change), 32: B = 1 (period 256 bytes),
 *     64: B = 2 (512 bytes), 128: B = 3 (1024 bytes). */
enum { MP_ROWS_PLAIN, MP_ROWS_MMA, MP_ROWS_COUNT };
enum { MP_SWIZZLE_NONE, MP_SWIZZLE_32, MP_SWIZZLE_64, MP_SWIZZLE_128,
       MP_SWIZZLE_COUNT };

typedef struct {
    int matrices;      /* 1, 2 or 4 */
    long long pitch;   /* bytes between tile rows, a multiple of 16 */
    int rows;          /* MP_ROWS_* */
    int swizzle;       /* MP_SWIZZLE_* */
} mp_matrix_rows;

/* The swizzled byte offset (a multiple of 16 stays one). */
long long mp_swizzle(int swizzle, long long offset);

/* Row address (byte offset) lane `lane` gives; lanes >= 8 x matrices give
 * 0 (the instruction ignores them). */
long long mp_matrix_row_offset(const mp_matrix_rows *m, int lane);

#endif
