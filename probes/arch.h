/*
 * arch.h - which GPU architectures an instruction needs: the one place a
 * kernel says "this needs compute capability X.Y", shared by the kernels
 * (.cu) and the host's parameter tables (.c).
 *
 * ./memprobe carries SASS for every architecture nvcc supports (Makefile
 * ARCH), so every kernel is compiled once per architecture. A kernel that
 * uses an instruction older GPUs lack is written like this:
 *
 *     #if MP_ARCH_HAS(MP_CC_L2_PREFETCH)
 *         asm("ld.global.L2::256B ...");   // the real instruction
 *     #else
 *         MP_ARCH_MISSING();               // never runs: see below
 *     #endif
 *
 * and the option that selects it carries the same constant in its
 * parameter table (mp_param_def.choice_cc, or mp_probe.cc for a whole
 * probe), so the host refuses it with exit 2 on an older GPU, naming the
 * compute capability, before any launch. The kernel compiled for an older
 * architecture traps instead of running a different instruction, so a row
 * can never be measured with something other than what it says.
 *
 * Constants are compute capabilities times ten (80 = 8.0).
 */
#ifndef MP_ARCH_H
#define MP_ARCH_H

#define MP_CC_L2_PREFETCH 80  /* ld.global.L2::64B/128B/256B prefetch hint */
#define MP_CC_CP_ASYNC    80  /* cp.async (global -> shared, no registers) */
#define MP_CC_LDMATRIX    75  /* ldmatrix */
#define MP_CC_STMATRIX    90  /* stmatrix */
#define MP_CC_TMA         90  /* cp.async.bulk.tensor (TMA) */
#define MP_CC_CLUSTER     90  /* thread-block clusters, distributed shared memory */

/* In device code, the architecture being compiled (__CUDA_ARCH__, e.g. 800);
 * in the host pass every branch is visible (the host pass compiles no
 * device instruction). */
#if defined(__CUDA_ARCH__)
#define MP_CUDA_ARCH __CUDA_ARCH__
#else
#define MP_CUDA_ARCH 9990
#endif
#define MP_ARCH_HAS(cc) (MP_CUDA_ARCH >= (cc) * 10)

/* The body of a guarded path on an architecture without the instruction:
 * stops the kernel with an error instead of measuring something else. */
#define MP_ARCH_MISSING() __trap()

#endif
