/*
 * check.c - the error-check helpers declared in check.h.
 *
 * CUDA failures during a measurement are fatal: a result computed after a
 * failed call cannot be trusted, so we say where it failed and exit.
 * CUPTI failures are reported to the caller, which decides whether to
 * degrade to timing-only measurement (--counters auto) or to stop.
 */
#include "check.h"

#include <cuda_runtime_api.h>
#include <cupti_result.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mp_check_cuda(int code, const char *call, const char *file, int line)
{
    if (code == 0)
        return;
    cudaError_t e = (cudaError_t)code;
    fprintf(stderr, "memprobe: CUDA error %s (%s) in %s at %s:%d\n",
            cudaGetErrorName(e), cudaGetErrorString(e), call, file, line);
    fflush(stdout);
    exit(MP_EXIT_CUDA);
}

int mp_check_cupti(int code, const char *call, char *why, size_t whylen)
{
    if (code == 0)
        return 0;
    if (why && whylen) {
        const char *name = NULL;
        if (cuptiGetResultString((CUptiResult)code, &name) != CUPTI_SUCCESS
            || !name)
            name = "unknown CUPTI error";
        snprintf(why, whylen, "%s: %s (%d)", call, name, code);
    }
    return code;
}

static void out_of_memory(void)
{
    fflush(stdout);
    fputs("memprobe: out of memory\n", stderr);
    exit(MP_EXIT_FAIL);
}

void *mp_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *mp_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *mp_xrealloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        out_of_memory();
    return q;
}

char *mp_xstrdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    return memcpy(mp_xmalloc(n), s ? s : "", n);
}

void mp_reason(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    if (!why || whylen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

void mp_usage_error(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("memprobe: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(MP_EXIT_USAGE);
}
