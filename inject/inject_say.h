/*
 * inject_say.h - what the injection library says (inject_say.c): status
 * lines written at once, MEMPROBE_DEBUG lines, the cost counters, and the
 * one helper every CUDA and CUPTI return code goes through.
 */
#ifndef MP_INJECT_SAY_H
#define MP_INJECT_SAY_H

#include <cuda.h>
#include <cupti_result.h>
#include <stdarg.h>

/* Seconds, monotonic. */
double now_s(void);
/* Adds the time since t0 to cost field i (MP_RAW_KEY_COST). */
void cost(int i, double t0);
/* A MEMPROBE_DEBUG line on stderr (nothing without it). */
void dbg(const char *fmt, ...);
/* The same of a va_list (for inject_range.c). */
void vdbg(const char *fmt, va_list ap);
/* Rewrites status.PID, ending it with "end END". */
void write_status(const char *end);
/* A status line "key value", written at once (said once). */
void say(const char *key, const char *fmt, ...);
void vsay(const char *key, const char *fmt, va_list ap);
/* 1 when r is success; else the failure noted as sev says (QUIET, WARN,
 * FATAL: inject_state.h): the library's one CUPTI and CUDA helpers. */
int cupti_ok(CUptiResult r, const char *what, int sev);
int cu_ok(CUresult r, const char *what, int sev);

#endif
