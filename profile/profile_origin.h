/*
 * profile_origin.h - the program's own kernels or a vendor library's:
 * the one rule that decides it from where a kernel's module came from
 * (its origin, as the injection library recorded it in modules.PID.csv,
 * inject/raw.h). The program's own kernels are judged by --check and
 * --baseline; a library's are counted and reported under their own
 * heading, and judged only with --check-libraries (docs/profile.md, "In
 * CI", says the rule and the list). A line of CUB's, Thrust's or
 * libcu++'s headers is a library's too (mp_prof_toolkit_file).
 */
#ifndef MP_PROFILE_ORIGIN_H
#define MP_PROFILE_ORIGIN_H

/* 1 when origin is a vendor library: a shared object (its file name has
 * ".so" at its end or before a version, ".so.13") whose file name starts
 * with one of the prefixes below (libcublas covers libcublasLt, libtorch
 * covers libtorch_cuda). 0 for the program's own: the executable, any
 * other shared object, code compiled at run time (MP_ORIGIN_RUNTIME),
 * a module nothing placed (MP_ORIGIN_UNKNOWN: never hide what cannot be
 * placed) and an origin not recorded (NULL or "": a profile from before
 * origins). */
int mp_prof_origin_library(const char *origin);

/* 1 when a source line's file is a header of the CUDA toolkit's
 * header-only libraries: CUB, Thrust or libcu++ (a path with
 * "include/cub/", "include/thrust/", "include/nv/", "include/cccl/", or
 * "include/cuda/" and then "std/", "__..." or a header without an
 * extension). Code the program compiled in but did not write, as CUB's
 * radix sort inside Thrust's sort: a library's line. The toolkit's other
 * headers (sm_30_intrinsics.hpp, the atomic functions, cuda_fp16.hpp)
 * wrap one instruction each where the program calls them: their lines
 * stay the program's. */
int mp_prof_toolkit_file(const char *path);

/* 1 when a source line's file is any header of a CUDA toolkit: one of
 * mp_prof_toolkit_file's, or a file under ROOT/include/ or
 * ROOT/targets/ARCH/include/ where ROOT/bin/nvcc exists on this machine
 * (sm_30_intrinsics.hpp, the atomic functions). A kernel all of whose
 * lines are such (CUB's, Thrust's) is a library's kernel: the program
 * wrote none of it. */
int mp_prof_toolkit_header(const char *path);

/* The prefixes, in the order docs/profile.md lists them. */
int mp_prof_library_nprefixes(void);
const char *mp_prof_library_prefix(int i);

#endif
