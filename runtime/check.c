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
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The command whose standard output check_stdout checks ("" for none). */
static const char *stdout_cmd = "";

/* At exit: a run that would end 0 but whose standard output was not all
 * written (a full disk, /dev/full, a closed descriptor) ends 1 with one
 * line instead. A run already ending otherwise has said why. */
static void check_stdout(int status, void *unused)
{
    (void)unused;
    errno = 0;
    int flushed = fflush(stdout) == 0;
    int err = errno;
    if (status != MP_EXIT_OK || (flushed && !ferror(stdout)))
        return;
    fprintf(stderr, "memprobe: %s%scannot write the output: %s\n",
            stdout_cmd, stdout_cmd[0] ? ": " : "",
            err ? strerror(err) : "a write failed");
    fflush(NULL);
    _exit(MP_EXIT_FAIL);
}

void mp_check_stdout_at_exit(const char *cmd)
{
    static int registered;
    stdout_cmd = cmd ? cmd : "";
    if (!registered++)
        on_exit(check_stdout, NULL);
}
