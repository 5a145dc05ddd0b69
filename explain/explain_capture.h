/*
 * explain_capture.h - reader of the lane-address captures that `memprobe
 * explain` analyses (docs/explain-design.md): CSV, one row per warp
 * execution of a memory instruction, grouped into instructions (kernel
 * and pc offset) whose executions go into a explain/explain.h accumulator.
 *
 *   # comment lines and blank lines are skipped
 *   kernel,pc_offset,launch,warp,space,opcode,width,is_store,active,lane0,...,lane31
 *   transpose,0x1a0,0,3,shared,LDS,4,0,0xffffffff,0,128,256,...
 *
 * kernel: the kernel's name (quoted when it holds a comma); pc_offset: the
 * instruction's offset in the kernel (decimal or 0x hex); launch and warp:
 * integers >= 0 (which launch, which warp of it); space: shared or global;
 * opcode: the SASS opcode (LDS, LDG.E.64, ...; explain/explain.h's
 * mp_explain_opcode decides which are explained); width: bytes per lane;
 * is_store: 0 or 1; active: the lane mask in hex; lane0..lane31: each
 * lane's byte address (global) or shared-window offset (shared), decimal
 * or 0x hex, empty for an inactive lane. Not explained opcodes are kept
 * (rows counted) without their addresses.
 */
#ifndef MP_EXPLAIN_CAPTURE_H
#define MP_EXPLAIN_CAPTURE_H

#include <stddef.h>

#include "explain.h"

typedef struct {
    char *kernel;
    long long pc;
    char opcode[48];
    int explained;          /* mp_explain_opcode's verdict */
    const char *why;        /* what it is when not explained */
    long long rows;         /* warp executions captured */
    mp_explain_acc acc;     /* explained: the executions */
    int nlaunches;          /* distinct launch numbers of its rows */
    int caplaunches;
    long long *launch;      /* those numbers, in the order first seen */
    int copy;               /* LDGSTS: a destination row, then its
                               source row, make one execution */
    int has_pending;        /* a destination row waits for its source */
    mp_explain_exec pending;
    long long unpaired;     /* destination rows with no source row (a
                               capture made before sources were kept) */
} mp_capture_inst;

typedef struct {
    int n, cap;
    mp_capture_inst *inst;  /* in the order of their first row */
    long long rows;
} mp_capture;

/* Parses len bytes; name stands for the file in messages. 0, or -1 with
 * one line in err ("x.csv:12: active: ..."); on error *c is empty. */
int mp_capture_parse(const char *buf, size_t len, const char *name,
                     mp_capture *c, char *err, size_t errlen);

/* The same from a file. */
int mp_capture_read(const char *path, mp_capture *c, char *err,
                    size_t errlen);

/* Frees *c and leaves it empty; safe twice. */
void mp_capture_free(mp_capture *c);

/* ---- the status file beside a capture (FILE.status) ---------------- */

/* One "captured MANGLED 0xOFF launch L executions N" or "dropped ..."
 * line of the capture library, or "left MANGLED 0xOFF: WHY" for an
 * instruction it did not follow. */
typedef struct {
    char *kernel;
    long long pc, launch, executions;
    int dropped;            /* 1: executions past the cap, not kept */
    char *left;             /* a left instruction: why; else NULL */
} mp_capture_note;

typedef struct {
    int n, cap;
    mp_capture_note *note;
    int nerrors;
    char **error;           /* the text of each "error TEXT" line */
} mp_capture_status;

/* Reads a status file: its captured, dropped and error lines (other
 * lines are the library's own notes and skipped). 0, or -1 with one line
 * in err when it cannot be read or a captured/dropped line is malformed;
 * on error *s is empty. */
int mp_capture_status_read(const char *path, mp_capture_status *s, char *err,
                           size_t errlen);

/* The executions of instruction (kernel, pc) that the status says were
 * dropped past the cap, over its launches (0: none). */
long long mp_capture_dropped(const mp_capture_status *s, const char *kernel,
                             long long pc);

/* Why the library left instruction (kernel, pc) unfollowed, or NULL. */
const char *mp_capture_left(const mp_capture_status *s, const char *kernel,
                            long long pc);

/* Frees *s and leaves it empty; safe twice. */
void mp_capture_status_free(mp_capture_status *s);

#endif
