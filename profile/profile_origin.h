/*
 * profile_origin.h - the program's own kernels or a vendor library's:
 * the one rule that decides it from where a kernel's module came from
 * (its origin, as the injection library recorded it in modules.PID.csv,
 * inject/raw.h). The program's own kernels are judged by --check and
 * --baseline; a library's are counted and reported under their own
 * heading, and judged only with --check-libraries (docs/profile.md, "In
 * CI", says the rule and the list).
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

/* The prefixes, in the order docs/profile.md lists them. */
int mp_prof_library_nprefixes(void);
const char *mp_prof_library_prefix(int i);

#endif
