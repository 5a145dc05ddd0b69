/*
 * inject_say.c - what the injection library says: status lines in
 * status.PID, written at once; MEMPROBE_DEBUG lines on stderr; the cost
 * counters; and the one place a failed CUDA or CUPTI call is noted
 * (cu_ok, cupti_ok). inject_say.h is the interface.
 */
#include "inject_say.h"

#include <stdio.h>
#include <time.h>

#include "inject_state.h"

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Adds the time since t0 to cost field i (MP_RAW_KEY_COST). */
void cost(int i, double t0)
{
    g.status.cost_n[i]++;
    g.status.cost_s[i] += now_s() - t0;
}

void dbg(const char *fmt, ...)
{
    if (!g.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* seconds since InitializeInjection: where the time goes */
    fprintf(stderr, "memprobe-inject: %9.6f %s\n", now_s() - g.t_start,
            line);
}

void write_status(const char *end)
{
    if (!g.dir[0])
        return;
    if (ic_write_status(g.dir, g.pid, &g.status, end) && !g.write_failed) {
        g.write_failed = 1;
        fprintf(stderr, "memprobe-inject: cannot write %s/" MP_RAW_STATUS_FMT
                "\n", g.dir, g.pid);
    }
}

/* A status line, written at once. */
void vsay(const char *key, const char *fmt, va_list ap)
{
    char value[768];
    vsnprintf(value, sizeof value, fmt, ap);
    dbg("status: %s %s", key, value);
    if (ic_status_event(&g.status, key, value) == 1)
        write_status("flush");
}

void say(const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(key, fmt, ap);
    va_end(ap);
}

/* The debug line of a va_list (for inject_range.c). */
void vdbg(const char *fmt, va_list ap)
{
    if (!g.debug)
        return;
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    dbg("%s", line);
}

/* The one place a failed CUDA or CUPTI call is noted: FATAL as an
 * `error` status line (profiling cannot be done), WARN as a `warning`
 * (some data lost), QUIET on stderr under MEMPROBE_DEBUG only. */
static void note_failure(int sev, const char *what, int code,
                         const char *name, const char *hint)
{
    if (sev == QUIET)
        dbg("%s failed: %d%s%s", what, code, name ? " " : "",
            name ? name : "");
    else
        say(sev == FATAL ? MP_RAW_KEY_ERROR : MP_RAW_KEY_WARNING,
            "%s failed: %d%s%s%s", what, code, name ? " " : "",
            name ? name : "", hint);
}

int cupti_ok(CUptiResult r, const char *what, int sev)
{
    if (r == CUPTI_SUCCESS)
        return 1;
    const char *name = NULL;
    if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS)
        name = NULL;
    const char *hint = "";
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        hint = " (GPU profiling needs root, CAP_SYS_ADMIN or the driver "
               "option NVreg_RestrictProfilingToAdminUsers=0)";
    note_failure(sev, what, (int)r, name, hint);
    return 0;
}

int cu_ok(CUresult r, const char *what, int sev)
{
    if (r == CUDA_SUCCESS)
        return 1;
    const char *name = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    note_failure(sev, what, (int)r, name, "");
    return 0;
}
