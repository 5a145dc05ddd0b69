/*
 * profile_names.h - the names memprobe profile prints kernels by
 * (profile_names.c): the demangled name, its short name, and names that
 * tell apart kernels whose short names are the same.
 */
#ifndef MP_PROFILE_NAMES_H
#define MP_PROFILE_NAMES_H

/* The demangled name of a kernel (malloc'd); a name that is not mangled
 * as it is. */
char *mp_prof_demangle(const char *mangled);

/* The short name of a demangled kernel (malloc'd, whole): its qualified
 * name, namespaces kept ("(anonymous namespace)" too), without the return
 * type, the parameter list, every template argument list and ABI tags
 * ("[abi:cxx11]", Numba's "[abi:v1,...]"): "void ns::f<32, g<int>(float)>
 * (float*)" -> "ns::f"; a name without any of them as it is. */
char *mp_prof_short_name(const char *demangled);

/* Names for n kernels whose short names are the same (out[k] malloc'd,
 * for demangled[k]): the short name with the template argument lists
 * where the kernels' template arguments differ ("tile_t<float, 32>",
 * "tile_t<int, 16>"), each argument that all share shown as "..." unless
 * the list is short (at most MP_PROF_ARGS_SHOWN characters), an argument
 * longer than MP_PROF_ARG_MAX cut to its start and "..."; where those
 * are still the same, the parameter list after it likewise
 * ("k(Array<float, 1, C, mutable, aligned>)"); names still alike get
 * "#N" after them, N from 1 in the order given. */
#define MP_PROF_ARGS_SHOWN 40
#define MP_PROF_ARG_MAX 60
void mp_prof_tell_apart(const char *const *demangled, int n, char **out);

#endif
