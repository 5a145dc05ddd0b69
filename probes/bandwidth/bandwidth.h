/*
 * bandwidth.h - the DRAM bandwidth probe: its CUDA launcher (bandwidth.cu),
 * the data patterns the kernels and the CPU reference share; it includes
 * the traffic model (bandwidth_model.h) that `memprobe predict bandwidth`
 * prints.
 *
 * The probe streams one or two large arrays of N = bytes / width elements
 * through the GPU once per launch. With stride s the launch makes s passes:
 * pass p (0 <= p < s) touches the elements p, p + s, p + 2s, ... that lie
 * below N, with a grid-stride loop in which consecutive threads are s
 * elements apart. Every element is touched exactly once per launch, so the
 * bytes a launch moves are known for every stride. In every pass, element
 * i of the pass belongs to thread i % T (T = threads in the grid), and the
 * 32 consecutive elements 32g .. 32g+31 of a pass are one warp-level
 * request. See docs/bandwidth.md.
 */
#ifndef MP_PROBES_BANDWIDTH_H
#define MP_PROBES_BANDWIDTH_H

#include <stddef.h>

#include "bandwidth_model.h"
#include "hd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MP_BW_CACHE_DEFAULT, MP_BW_CACHE_CS, MP_BW_CACHE_NA, MP_BW_CACHE_PF256 };

/* The grid (mp_bw_launch.grid): PERSISTENT is one full wave whose threads
 * walk the arrays with the grid-stride loop (the default); ONESHOT has
 * enough blocks that each thread makes at most one unrolled step per pass
 * (many waves), and the read kernel leaves one {XOR, count} per BLOCK, so
 * that its output adds no traffic worth counting. */
enum { MP_BW_GRID_PERSISTENT, MP_BW_GRID_ONESHOT };

/* How the copy kernel moves bytes (mp_bw_launch.method): LDST, loads and
 * stores through registers (every kernel's default); BULK (copy only,
 * sm_90; `--kernel copy-bulk`), lane 0 of every warp runs its own pipeline of `inflight`
 * shared-memory stages of `tile` bytes: cp.async.bulk global -> shared
 * completing on an mbarrier, then cp.async.bulk shared -> global. */
enum { MP_BW_METHOD_LDST, MP_BW_METHOD_BULK };

typedef struct {
    int kernel;                   /* MP_BW_READ, _WRITE or _COPY */
    int width;                    /* 4, 8 or 16 bytes per element */
    int cache;                    /* MP_BW_CACHE_*: PTX cache operators */
    int inflight;                 /* 1, 2, 4 or 8 accesses per thread per
                                     step of the unrolled loop */
    int stride;                   /* elements between neighbouring threads */
    int threads, blocks;
    unsigned long long elements;  /* N */
    const void *src;              /* device, already + offset (read, copy) */
    void *dst;                    /* device, already + offset (write, copy) */
    unsigned *out;                /* device: 2 words per thread (read) */
    /* Walks of the array per launch (1: the plain kernels). More than 1
     * (cache default only) repeats the whole walk with the same threads
     * on the same elements, so a small array is read from L1 or L2; the
     * read kernel rotates its XOR left by one bit after each walk. */
    int repeat;
    unsigned repeat_mask;         /* 0; opaque to the compiler (.cu) */
    int grid;                     /* MP_BW_GRID_* */
    int method;                   /* MP_BW_METHOD_* */
    int tile;                     /* bulk: bytes per stage, a multiple of 16 */
} mp_bw_launch;

/* 32-bit word k of the source array (read and copy). Always odd. */
static inline MP_HD unsigned mp_bw_src_word(unsigned k)
{
    return (k * 2654435761u + 12345u) | 1u;
}

/* 32-bit word k the write kernel stores. Always odd, and not the source
 * pattern, so a write kernel that copied would be caught. */
static inline MP_HD unsigned mp_bw_write_word(unsigned k)
{
    return (k * 2246822519u + 0x2545f491u) | 1u;
}

/* What outputs and guard bytes hold before a launch writes them. Even, so
 * it never equals a pattern word, and far above any per-thread element
 * count (the second word of a read thread's output). */
#define MP_BW_POISON 0xfeedfaceu

/* Dynamic shared memory a block of launch l needs: bulk, the stages of
 * every warp and their mbarriers; 0 otherwise. */
static inline MP_HD size_t mp_bw_shared_bytes(const mp_bw_launch *l)
{
    if (l->method != MP_BW_METHOD_BULK)
        return 0;
    size_t stages = (size_t)(l->threads / 32) * (size_t)l->inflight;
    /* the barriers first, the stages from the next 128 bytes */
    return (stages * 8 + 127) / 128 * 128 + stages * (size_t)l->tile;
}

/* Blocks of this kernel that fit on one SM. cudaError_t. */
int mp_bw_occupancy(const mp_bw_launch *l, int *blocks_per_sm);
/* One launch on the default stream. cudaError_t. */
int mp_bw_launch_kernel(const mp_bw_launch *l);

/* What each of `threads` threads of the read kernel must leave in its two
 * output words: the XOR of the 32-bit words of its elements (the source
 * pattern), and how many elements it loaded. ref holds 2 x threads. */
void mp_bw_read_reference(int width, int stride, unsigned long long elements,
                          size_t threads, unsigned *ref);
/* The same summed over groups of `group` consecutive threads (the
 * one-shot grid's per-block output: group = threads per block): entry g
 * holds the XOR of threads [g group, (g + 1) group) and their element
 * count; ref holds 2 x ceil(threads / group). Walks each group's runs of
 * consecutive pass elements, so that a grid of a billion threads costs
 * one pass over the source words. */
void mp_bw_read_reference_grouped(int width, int stride,
                                  unsigned long long elements, size_t threads,
                                  size_t group, unsigned *ref);
/* The same after `repeat` walks (mp_bw_launch.repeat > 1): each walk XORs
 * the walk's words into the thread's value and rotates it left by one
 * bit; the element count is repeat times one walk's. In place. */
void mp_bw_repeat_reference(unsigned *ref, size_t threads, int repeat);

/* The write or copy verification's compare of n words read back from the
 * destination allocation, c[i] being word first + i of it: array words
 * [lo, hi) must hold the kernel's pattern (mp_bw_write_word or
 * mp_bw_src_word of w - lo), every other word MP_BW_POISON. Returns the
 * index i of the first wrong word, or n; split across `threads` CPU
 * threads (verify_par.h). */
size_t mp_bw_written_first(const unsigned *c, size_t first, size_t n,
                           size_t lo, size_t hi, int kernel, int threads);

#ifdef __cplusplus
}
#endif

#endif
