/*
 * check.h - the one place where CUDA and CUPTI return codes are checked,
 * and where memprobe's exit statuses are defined.
 *
 * Every CUDA runtime call goes through CHECK_CUDA(): on failure it prints
 * "memprobe: CUDA error <name> (<text>) in <call> at <file>:<line>" and
 * exits with MP_EXIT_CUDA, so no measurement of a failed launch is ever
 * reported. CUPTI calls go through CHECK_CUPTI(), which does NOT exit: it
 * returns nonzero and leaves a one-line reason in a caller's buffer, because
 * a missing or refused profiler must degrade to timing-only rows.
 */
#ifndef MP_CHECK_H
#define MP_CHECK_H

#include <stddef.h>

/* Exit statuses: part of the documented error contract (README). */
enum mp_exit {
    MP_EXIT_OK = 0,
    MP_EXIT_FAIL = 1,      /* a check failed: output wrong, model mismatch */
    MP_EXIT_USAGE = 2,     /* bad input: parameter, option, file */
    MP_EXIT_NOGPU = 3,     /* a measuring command found no usable GPU */
    MP_EXIT_COUNTERS = 4,  /* --counters on, but counters cannot be read */
    MP_EXIT_CUDA = 5       /* a CUDA call failed during a measurement */
};

/* Fatal check of a cudaError_t (passed as int so C callers need no
 * cuda_runtime.h). Returns only when code == 0. */
void mp_check_cuda(int code, const char *call, const char *file, int line);

/* Non-fatal check of a CUptiResult. Returns 0 when code is CUPTI_SUCCESS;
 * otherwise writes "<call>: <CUPTI error name> (<code>)" into why (if
 * non-NULL) and returns the code. */
int mp_check_cupti(int code, const char *call, char *why, size_t whylen);

#define CHECK_CUDA(call) mp_check_cuda((int)(call), #call, __FILE__, __LINE__)
#define CHECK_CUPTI(call, why, whylen) \
    mp_check_cupti((int)(call), #call, (why), (whylen))

/* Writes a one-line reason into why, which may be NULL (the buffers that
 * library functions fill for their callers). */
void mp_reason(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* malloc / calloc that end memprobe with "out of memory" (exit 1) rather
 * than return NULL. */
void *mp_xmalloc(size_t bytes);
void *mp_xcalloc(size_t count, size_t size);
void *mp_xrealloc(void *p, size_t bytes);
/* A copy of s (of "" for NULL), ending memprobe the same way. */
char *mp_xstrdup(const char *s);

/* One-line usage error naming the parameter: prints
 * "memprobe: <fmt...>" and exits with MP_EXIT_USAGE. */
void mp_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* Makes every way out of memprobe (a return from main, exit(), a --help
 * that exits 0) check standard output: where it would exit 0 but a write
 * to stdout failed, memprobe prints "memprobe: CMD: cannot write the
 * output: REASON" and exits MP_EXIT_FAIL instead. cmd names the command in
 * that line (NULL: none); called again, only the name changes. */
void mp_check_stdout_at_exit(const char *cmd);

#endif
