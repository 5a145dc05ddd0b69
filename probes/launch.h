/*
 * launch.h - the launch shape every probe family shares, so that a family
 * writes only what is its own: how many blocks (the user's --blocks, or
 * one full wave from the occupancy API), the per-thread output buffer and
 * its host copy, the seeds' clock64 stamps, and their release and frees.
 *
 * The device pointers stay where the family's .cu launcher reads them (its
 * launch struct: l.out, l.clocks); the shape keeps their addresses, the
 * host copies and the sizes. A family's state holds one mp_launch_shape:
 *
 *   setup     MP_LAUNCH_BLOCKS(s->l.blocks, v[P_BLOCKS], dev,
 *                              mp_X_occupancy, &s->l);
 *             mp_launch_alloc(&s->shape, s->l.blocks,
 *                             (void **)&s->l.out, bytes, &s->l.clocks);
 *   verify    cudaDeviceSynchronize, mp_launch_fetch, compare
 *             s->shape.host_out with the CPU reference, mp_launch_poison
 *             (mp_poison_copy: from the host copy, with a byte of the
 *             family's choosing; or all in one, mp_launch_verify_words,
 *             where each thread leaves one word that repeats from warp to
 *             warp or block to block)
 *   clock64   mp_launch_clock64 (all of it: MP_LAUNCH_CLOCK64)
 *   release   mp_launch_release (device memory; host copies stay),
 *             MP_FREE_DEVICE for the family's own device buffers
 *   free_host mp_launch_free (both), MP_FREE_HOST for the family's own
 *             host buffers (none: MP_LAUNCH_FREE_HOST; mp_probe_teardown,
 *             runtime/probe.h, calls release and free_host, then frees
 *             the state)
 *
 * The row columns every family fills the same way are in probe.h
 * (mp_row_set_params, mp_row_set_launch, mp_row_set_bandwidth,
 * mp_row_set_per_request).
 */
#ifndef MP_LAUNCH_H
#define MP_LAUNCH_H

#include <stddef.h>

#include "check.h"
#include "probe.h"

typedef struct {
    int blocks;               /* of the launch (for the clock64 stamps) */
    void **out;               /* &l.out of the family's launch struct */
    size_t out_bytes;         /* of the device output and its host copy */
    void *host_out;           /* host copy of the output (out_bytes) */
    long long **clocks;       /* &l.clocks, or NULL: no clock64 stamps */
    long long *host_clocks;   /* 2 x blocks */
} mp_launch_shape;

/* Sets BLOCKS (an int lvalue) to GIVEN when it is positive, else to one
 * full wave of the kernel (mp_full_wave): OCCUPANCY(LAUNCH, &per_sm) is
 * the family's extern "C" occupancy query, checked by CHECK_CUDA, asked
 * only when it is needed. */
#define MP_LAUNCH_BLOCKS(blocks, given, dev, occupancy, launch)      \
    do {                                                             \
        if ((given) > 0) {                                           \
            (blocks) = (int)(given);                                 \
        } else {                                                     \
            int per_sm_ = 0;                                         \
            CHECK_CUDA(occupancy((launch), &per_sm_));               \
            (blocks) = mp_full_wave((dev), per_sm_);                 \
        }                                                            \
    } while (0)

/* Allocates the device output (*out, out_bytes; none when out is NULL or
 * out_bytes 0) with its host copy, and, when clocks is not NULL, the
 * clock64 stamps of `blocks` blocks with theirs. The output's contents are
 * left as the allocator gives them: poison them if verify needs it. */
void mp_launch_alloc(mp_launch_shape *sh, int blocks, void **out,
                     size_t out_bytes, long long **clocks);

/* Copies the device output into sh->host_out (the caller synchronises
 * first where the launch may still run). */
void mp_launch_fetch(mp_launch_shape *sh);

/* Fills the output with 0xff bytes by host->device copies from a pinned
 * buffer of them (mp_device_fill_words; not cudaMemset, which may run as a
 * kernel inside a profiled batch), so that the next launch must write it
 * again. The host copy is left as it is. */
void mp_launch_poison(mp_launch_shape *sh);

/* Fills `bytes` of the host buffer `host` with `byte` and copies them over
 * the device buffer dev (one cudaMemcpy; not cudaMemset, which may run as
 * a kernel inside a profiled batch), so that the next launch must write
 * it again: the poison of outputs whose host copy verify is done with. */
void mp_poison_copy(void *dev, void *host, int byte, size_t bytes);

/* The common verify of a one-word-per-thread output that repeats with
 * period nwant (32: it depends on the lane only; the block size: on the
 * thread of the block): waits for the launch, copies the output back
 * through the pinned staging (mp_fetch_first; the host copy is not
 * written) and compares thread t's word with want[t % nwant] (every word,
 * split across CPU threads for large outputs: verify_par.h). On a
 * mismatch -1 with
 * "thread T (block B) left X, the CPU reference says Y" in err (blocks of
 * `threads` threads); else 0, with the output poisoned for the next
 * launch. */
int mp_launch_verify_words(mp_launch_shape *sh, int threads,
                           const unsigned *want, size_t nwant, char *err,
                           size_t errlen);

/* Pinned host buffers kept for the whole process and shared by the
 * probes' verifications (one verification runs at a time): the staging
 * chunks that large outputs are copied back through, two so that one can
 * be compared while the other is filled (cudaMemcpyAsync). mp_pinned
 * returns slot's buffer of at least `bytes` bytes (contents undefined);
 * a larger request waits for the device, then replaces it. */
enum { MP_PIN_STAGE_A, MP_PIN_STAGE_B, MP_PIN_SLOTS };
void *mp_pinned(int slot, size_t bytes);

/* The staged chunk a mp_fetch_first search sees: c[i] is word first + i
 * of the device buffer; user is the caller's context. */
typedef struct {
    const unsigned *c;
    size_t first;
    void *user;
} mp_staged;

/* The first wrong word of a device buffer of `words` 32-bit words:
 * copies it back in chunks of MP_STAGE_BYTES through the two pinned
 * staging buffers (the next chunk's copy running while this one is
 * searched) and calls mp_par_first(n, threads, find, &staged) on each
 * chunk of n words (find gets chunk-relative [from, to) and an
 * mp_staged * as ctx). Returns the absolute index of the first wrong
 * word, with *staged describing the chunk that holds it (valid until the
 * next use of the staging buffers), or `words` when none is wrong. The
 * caller synchronises with the kernel first. */
#define MP_STAGE_BYTES ((size_t)32 << 20)
size_t mp_fetch_first(const void *dev, size_t words,
                      size_t (*find)(void *ctx, size_t from, size_t to),
                      void *user, mp_staged *staged);

/* Fills `words` device words at dev with generated data: gen(user, out,
 * first, count) writes words first .. first + count - 1 into out[0 ..
 * count). Each chunk of MP_STAGE_BYTES is generated by CPU threads
 * (verify_par.h; gen is called on parts of it, from several threads at
 * once) into one pinned staging buffer while the previous chunk is copied
 * from the other. Returns when the copies are done. */
void mp_upload_words(void *dev, size_t words,
                     void (*gen)(void *user, unsigned *out, size_t first,
                                 size_t count),
                     void *user);

/* Writes the 32-bit `word` over `bytes` device bytes at dev (a multiple
 * of 4 from a 4-byte-aligned dev keeps the words whole) by host->device
 * copies from a pinned buffer that holds the word repeated: no kernel, no
 * host fill per call. Returns when the copies are done. */
void mp_device_fill_words(void *dev, unsigned word, size_t bytes);

/* The clock64 figures of the last launch (probe.h's clock64). */
void mp_launch_clock64(mp_launch_shape *sh, long long *span,
                       double *block_median);

/* Frees the device output and stamps and clears the launch struct's
 * pointers; the host copies stay (for derive). Safe to call twice. */
void mp_launch_release(mp_launch_shape *sh);

/* The release and teardown of a family's own buffers, beside the shape's:
 * each argument is the address of a pointer (of any type) that is freed
 * when it is not NULL, then set to NULL, in the order given; safe to call
 * twice. MP_FREE_DEVICE frees device memory (cudaFree, checked),
 * MP_FREE_HOST host memory (free):
 *
 *   MP_FREE_DEVICE(&s->src, &s->l.sums);
 *   MP_FREE_HOST(&s->host_sums); */
#define MP_FREE_DEVICE(...) \
    mp_free_device_list((void *const[]){__VA_ARGS__, NULL})
#define MP_FREE_HOST(...) mp_free_host_list((void *const[]){__VA_ARGS__, NULL})
void mp_free_device_list(void *const *addrs);
void mp_free_host_list(void *const *addrs);

/* mp_launch_release, then frees the host copies. Safe to call twice. */
void mp_launch_free(mp_launch_shape *sh);

/* The probe hooks (probe.h) of a family whose clock64 stamps, or whose only
 * device or host memory, are its shape's; STATE is its state type, which
 * holds the shape as `shape`. MP_LAUNCH_CLOCK64(FN, STATE) defines the
 * clock64 hook FN: mp_launch_clock64; MP_LAUNCH_RELEASE(FN, STATE) the
 * release hook FN: mp_launch_release; MP_LAUNCH_FREE_HOST(FN, STATE) the
 * free_host hook FN: mp_launch_free. MP_LAUNCH_FREE_HOST_AND(FN, STATE,
 * FIELD) is the free_host hook of a family with one host buffer of its
 * own besides, the state's member FIELD: mp_launch_free, then free. */
#define MP_LAUNCH_CLOCK64(fn, STATE)                                      \
    static void fn(void *state, long long *span, double *block_median)  \
    {                                                                    \
        mp_launch_clock64(&((STATE *)state)->shape, span, block_median); \
    }
#define MP_LAUNCH_RELEASE(fn, STATE)                                      \
    static void fn(void *state)                                          \
    {                                                                    \
        mp_launch_release(&((STATE *)state)->shape);                     \
    }
#define MP_LAUNCH_FREE_HOST(fn, STATE)                                    \
    static void fn(void *state)                                          \
    {                                                                    \
        mp_launch_free(&((STATE *)state)->shape);                        \
    }
#define MP_LAUNCH_FREE_HOST_AND(fn, STATE, field)                         \
    static void fn(void *state)                                          \
    {                                                                    \
        mp_launch_free(&((STATE *)state)->shape);                        \
        free(((STATE *)state)->field);                                   \
    }

#endif
