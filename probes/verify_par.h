/*
 * verify_par.h - the host side of verification split across CPU threads:
 * a parallel for over an index range, a parallel search for the first
 * wrong index, and the word compares the probes use (against an array,
 * against a periodic reference, against one value). Pure CPU code (no
 * CUDA), so the CPU tests exercise it; the pinned staging buffers the
 * probes copy through are in launch.h.
 *
 * Threads: one per online CPU (sysconf), at most MP_PAR_MAX_THREADS, and
 * never more than one per MP_PAR_MIN_ITEMS items of work, so that small
 * outputs are compared on the calling thread with no thread started.
 * Every helper starts its threads and joins them before it returns.
 */
#ifndef MP_VERIFY_PAR_H
#define MP_VERIFY_PAR_H

#include <stddef.h>

#define MP_PAR_MAX_THREADS 16
/* Items (words compared or generated) below which one more thread does
 * not pay for its start (~20-50 us). */
#define MP_PAR_MIN_ITEMS ((size_t)1 << 18)

/* Threads to use for `items` items of work: 1 for fewer than
 * 2 x MP_PAR_MIN_ITEMS, else min(CPUs, MP_PAR_MAX_THREADS,
 * items / MP_PAR_MIN_ITEMS); or the count forced by mp_par_force_threads.
 */
int mp_par_threads(size_t items);

/* Tests and benchmarks: every later mp_par_threads() returns n (1 to
 * MP_PAR_MAX_THREADS), whatever the work; 0 restores the automatic
 * choice. Not for use while helpers run on other threads. */
void mp_par_force_threads(int n);

/* fn(ctx, from, to) over `threads` contiguous parts of [0, n) (part k
 * starts at mp_par_part_start(n, threads, k)), part 0 on the calling
 * thread; returns when all are done. threads < 1 counts as 1; empty parts
 * are not run. */
typedef void (*mp_par_fn)(void *ctx, size_t from, size_t to);
void mp_par_for(size_t n, int threads, mp_par_fn fn, void *ctx);

/* Where part k of [0, n) split in `threads` parts starts (k = threads:
 * n). Parts differ by at most one item. */
size_t mp_par_part_start(size_t n, int threads, int k);

/* The first wrong index of [0, n): find(ctx, from, to) returns the first
 * wrong index of [from, to), or `to` when there is none; each part is
 * searched on its own thread and the smallest answer wins. Returns n when
 * no index is wrong. */
typedef size_t (*mp_par_find_fn)(void *ctx, size_t from, size_t to);
size_t mp_par_first(size_t n, int threads, mp_par_find_fn find, void *ctx);

/* First t in [0, n) with got[t] != want[t], or n. */
size_t mp_first_diff(const unsigned *got, const unsigned *want, size_t n,
                     int threads);

/* First t in [0, n) with got[t] != want[(phase + t) % period], or n
 * (period >= 1); no division per word. */
size_t mp_first_diff_periodic(const unsigned *got, const unsigned *want,
                              size_t period, size_t phase, size_t n,
                              int threads);

/* First t in [0, n) with got[t] != value, or n. */
size_t mp_first_not(const unsigned *got, unsigned value, size_t n,
                    int threads);

#endif
