/*
 * hd.h - MP_HD: marks a function shared by the host (.c) and the kernels
 * (.cu), `static inline MP_HD unsigned f(...)` in a header both include.
 * __host__ __device__ under nvcc, nothing under the C compiler. The one
 * copy for the whole tree: model/ is the bottom room, so every room may
 * include it.
 */
#ifndef MP_HD_H
#define MP_HD_H

#ifdef __CUDACC__
#define MP_HD __host__ __device__
#else
#define MP_HD
#endif

#endif
