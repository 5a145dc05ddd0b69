/*
 * texture.h - the C side of the texture probe's CUDA launcher.
 *
 * Kernels live in texture.cu. Allocation, the cudaArray and the texture
 * objects are made in texture.c through the C runtime API.
 */
#ifndef MP_PROBES_TEXTURE_H
#define MP_PROBES_TEXTURE_H

#include "const_model.h"   /* mp_tex_access, MP_TEX_WALK */

#ifdef __cplusplus
extern "C" {
#endif

/* Where the reads come from (the `source` parameter, in this order). */
enum { MP_TEX_SOURCE_TEX1D, MP_TEX_SOURCE_TEX2D, MP_TEX_SOURCE_GLOBAL,
       MP_TEX_SOURCE_LDG };

/* Threads per block of every texture-probe kernel: 32 x 8 for the
 * stencil, 256 in a row for the walks. */
#include "const_model.h"   /* MP_TEX_STENCIL, MP_TEX_WALK */

#define MP_TEX_THREADS 256

typedef struct {
    int source;                  /* MP_TEX_SOURCE_* */
    int access;                  /* mp_tex_access (model/const_model.h) */
    int n;                       /* the grid is n x n floats */
    const float *in;             /* device, row-major (not for tex2d) */
    unsigned long long tex;      /* cudaTextureObject_t (tex1d, tex2d) */
    float *out;                  /* device output */
} mp_tex_launch;

/* Blocks of the launch (x and y). */
static inline void mp_tex_grid(const mp_tex_launch *l, int *blocks_x, int *blocks_y)
{
    if (l->access == MP_TEX_STENCIL) {
        *blocks_x = l->n / 32;
        *blocks_y = l->n / (MP_TEX_THREADS / 32);
    } else {
        *blocks_x = (l->n + MP_TEX_THREADS - 1) / MP_TEX_THREADS;
        *blocks_y = l->n / MP_TEX_WALK;
    }
}

/* Outputs the launch writes (floats). */
unsigned long long mp_tex_outputs(const mp_tex_launch *l);
/* Launches the kernel once on the default stream. cudaError_t. */
int mp_tex_launch_kernel(const mp_tex_launch *l);

#ifdef __cplusplus
}
#endif

/* Global-load sectors per request differ a little from the model when L1
 * reuse is heavy: measured on the H200
 * (results/h200/texture/texture-4096*.csv) from -0.0001 to +0.0101 per
 * request for the column walk (87% L1 hits), -0.0001 to +0.0001 for the
 * stencil; a run profiled in groups -0.0212 for the global column walk
 * (31.9788 for 32); the GPU gate's run at 1582c40 -0.0478 (31.9522, the
 * texture test after the whole GPU suite), while eight runs of the same
 * configuration, four of this code and four of the code before it, stayed
 * within 0.014 (results/h200/texture/noise-2026-12-02/). Allowed 0.08
 * either way (1.6 times the largest). */
#define MP_TEX_SECTOR_NOISE 0.08

#endif
