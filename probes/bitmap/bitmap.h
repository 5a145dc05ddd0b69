/*
 * bitmap.h - the seeds' 2D shared-memory bitmap kernel (seed 004, main2.cu):
 * its CUDA launcher (bitmap.cu) and the image value the kernel and the CPU
 * reference (bitmap.c) share.
 *
 * A dim x dim greyscale image, blocks of 16 x 16 threads. Thread (x, y)
 * computes 255 (sin(2 pi x / 128) + 1)(sin(2 pi y / 128) + 1) / 4, writes it
 * into a __shared__ float[16][16], synchronises, and stores the value of
 * the mirrored thread (15 - tx, 15 - ty) as its pixel. Layouts:
 *   seed  shared[tx][ty], read shared[15-tx][15-ty]   (as the seed has it)
 *   yx    shared[ty][tx], read shared[15-ty][15-tx]   (the index fix)
 *   pad   seed's indexing, rows of 16 + 1 floats       (the padding fix)
 * All three produce the same image.
 */
#ifndef MP_PROBES_BITMAP_H
#define MP_PROBES_BITMAP_H

#include "hd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MP_BITMAP_SEED, MP_BITMAP_YX, MP_BITMAP_PAD, MP_BITMAP_COUNT };

#define MP_BITMAP_TILE 16

typedef struct {
    int layout;               /* MP_BITMAP_* */
    int dim;                  /* image side, a multiple of 16 */
    unsigned char *image;     /* device: dim x dim pixels */
} mp_bitmap_launch;

/* One launch on the default stream. cudaError_t. */
int mp_bitmap_launch_kernel(const mp_bitmap_launch *l);

#ifdef __cplusplus
}
#endif

/* The seed's pixel value, written as the seed writes it: x * 2.0f * PI is
 * a double (PI is a double literal), sinf takes it as a float. The same
 * expression on the CPU, so only sinf's last bits may differ. */
#define MP_BITMAP_PI 3.1415926
static inline MP_HD float mp_bitmap_value(int x, int y)
{
    const float period = 128.0f;
    return 255 * (sinf(x * 2.0f * MP_BITMAP_PI / period) + 1.0f)
           * (sinf(y * 2.0f * MP_BITMAP_PI / period) + 1.0f) / 4.0f;
}

#endif
