/*
 * asan_dlopen.h - for the CPU tests that call the CUPTI host API
 * (test_metrics.c, test_chips.c); include it once per test program.
 */
#ifndef MP_ASAN_DLOPEN_H
#define MP_ASAN_DLOPEN_H

#include <dlfcn.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
/* `make test SANITIZE=1`: the CUPTI host API dlopens libnvperf_host.so
 * with RTLD_DEEPBIND, which AddressSanitizer refuses (it would let the
 * library bypass the sanitizer's malloc). This dlopen, found before libc's
 * by libcupti, drops the flag: the library then binds to the process's
 * symbols, which is all the validator needs. Only in the sanitized test. */
void *dlopen(const char *file, int mode)
{
    static void *(*next)(const char *, int);
    if (!next) {
        void *sym = dlsym(RTLD_NEXT, "dlopen");
        memcpy(&next, &sym, sizeof next);
    }
    return next(file, mode & ~RTLD_DEEPBIND);
}

/* CUPTI 13 keeps what cuptiProfilerHostInitialize allocated when it
 * refuses a chip it lists but cannot profile (GV11B): its leak, not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libcupti.so\n";
}
#endif

#endif
