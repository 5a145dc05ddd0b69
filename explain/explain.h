/*
 * explain.h - the analysis core of `memprobe explain`: from the
 * lane addresses of one instruction's warp executions to the model's
 * counts, the access pattern in the probes' words, the probe command that
 * measures the same pattern, and fixes ranked by the count the model
 * predicts for the SAME addresses transformed. Pure: no I/O.
 *
 * Shared memory: byte offsets in the shared window, counted in wavefronts
 * by mp_bank_predict. Global: byte addresses, counted in sectors by
 * mp_sector_predict. Accesses of 1 or 2 bytes to shared memory are
 * counted as the 4-byte word that holds them (a bank serves words).
 */
#ifndef MP_EXPLAIN_H
#define MP_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"

enum { MP_SPACE_SHARED, MP_SPACE_GLOBAL };

/* One warp execution of one instruction. */
typedef struct {
    int space;                        /* MP_SPACE_* */
    int width;                        /* bytes per lane */
    int is_store;
    uint32_t active;                  /* bit i: lane i takes part */
    long long addr[MP_WARP_SIZE];     /* byte offset/address per lane */
    int matrices;                     /* LDSM/STSM: the 8x8 matrices it
                                         moves, lanes 8m..8m+7 the 16-byte
                                         rows of matrix m; 0 otherwise */
    long long *src;                   /* LDGSTS (addr its shared
                                         destinations): each lane's global
                                         source, MP_COPY_NO_SOURCE where it
                                         read nothing; NULL otherwise. An
                                         added execution's is the
                                         accumulator's own copy */
} mp_explain_exec;

/* The executions of one instruction and the model's totals over them. */
typedef struct {
    int space, width, is_store;       /* of the first execution */
    long long executions;
    long long count;                  /* wavefronts or sectors */
    long long ideal;
    long long requests;               /* global: L1TEX requests */
    int atomic;                       /* an atomic or reduction (set by
                                         the caller): counted as a store of
                                         the same addresses, its fixes
                                         those that keep it one atomic */
    int nexec, cap;
    mp_explain_exec *exec;            /* every execution added */
} mp_explain_acc;

void mp_explain_init(mp_explain_acc *acc);
void mp_explain_free(mp_explain_acc *acc);

/* Adds one execution. -1 with a reason in err: another space, width or
 * direction than the first execution's, a width the model does not take
 * (shared 1, 2, 4, 8, 16; global 1..16), a shared offset not a multiple
 * of the width, a negative address, out of memory. */
int mp_explain_add(mp_explain_acc *acc, const mp_explain_exec *e,
                   char *err, size_t errlen);

/* The model's count for one execution; *ideal its ideal (may be NULL). */
long long mp_explain_exec_count(const mp_explain_exec *e, long long *ideal);

/* ---- opcodes ----------------------------------------------------------- */

/* Classifies a SASS opcode ("LDS.U.128", "LDG.E.64", "STG.E", "LD.E",
 * "LDGSTS.E.BYPASS.128", "UTMALDG.2D", "ATOMS.ADD", ...): 1 when the
 * model explains it (plain LDS, STS, LDG, STG, LD, ST; the matrix loads
 * and stores LDSM and STSM, 16 bytes a lane, each matrix's 8 rows a
 * phase (the bank probe's matrix mode, docs/findings.md); the atomics and
 * reductions ATOMS, ATOMG, ATOM, REDG, RED, counted as stores of the same
 * addresses: measured so on the H200, docs/findings.md), with *space
 * (shared, global, or -1 for generic LD/ST/ATOM/RED) and *width (bytes,
 * from .U8, .S16, .64, .128 ...; 4 by default; 0 for an atomic: its
 * modifiers name an operation, the capture says its width) when not
 * NULL; 0 when not explained, with *why saying what it is ("matrix load
 * LDSM (ldmatrix)"). */
int mp_explain_opcode(const char *opcode, int *space, int *width,
                      const char **why);

/* 1 when opcode is an asynchronous copy (LDGSTS): explained by the copy
 * rule of model/bank_model.h (mp_bank_predict_copy) on its destinations
 * and sources. */
int mp_explain_opcode_copy(const char *opcode);

/* 1 when the opcode is an atomic or a reduction (ATOMS, ATOMG, ATOM,
 * REDG, RED, with any modifiers). */
int mp_explain_opcode_atomic(const char *opcode);

/* The 8x8 matrices a matrix load or store moves (LDSM.16.M88.4: 4,
 * LDSM.16.MT88.2: 2, STSM.16.M88: 1), or 0 for any other opcode. */
int mp_explain_opcode_matrices(const char *opcode);

/* ---- the pattern ------------------------------------------------------ */

typedef struct {
    int regular;            /* active lanes follow base + stride * k(lane),
                               k = (lane % period) / group */
    int full;               /* all 32 lanes active */
    int space, width, is_store;
    int atomic;             /* the instruction is an atomic (acc->atomic) */
    int matrices;           /* LDSM/STSM: its matrices; 0 otherwise */
    int copy;               /* LDGSTS: addresses are its destinations */
    int src_lines;          /* copy: 128-byte lines its sources read */
    int src_sectors;        /* copy: 32-byte sectors they read */
    int place_waits;        /* copy: the most writes from other places in
                               their lines that one write waited for */
    uint32_t active;
    long long base_bytes;   /* lane k = 0's address */
    long long stride_bytes; /* between neighbouring address groups */
    long long group, period;
    int whole_elements;     /* base and stride are whole elements */
    long long base, stride; /* elements of `width` bytes */
    long long stride_words; /* shared: stride in 4-byte words (bytes/4) */
    long long row_words;    /* shared: the implied 2D tile row, 0: none */
    double ways;            /* count / ideal over all executions */
    long long misalign;     /* global: base_bytes % 32 */
    long long misalign_line;/* global: base_bytes % 128 */
    double sectors_per_request; /* global */
    int exec_index;         /* the execution the pattern is read from */
    long long shape_execs;  /* executions of that shape */
} mp_explain_pattern;

/* The pattern of the most common warp shape (addresses relative to the
 * first active lane, and the mask; the first on ties). -1 when acc holds
 * no execution. */
int mp_explain_infer(const mp_explain_acc *acc, mp_explain_pattern *p);

/* The probe command that measures the pattern, or "no probe replays this
 * pattern: REASON". Returns 1 for a command, 0 otherwise. */
int mp_explain_probe_command(const mp_explain_pattern *p,
                             const mp_explain_acc *acc, char *out,
                             size_t outlen);

/* ---- fixes ------------------------------------------------------------- */

enum {
    MP_FIX_PAD,        /* shared: pad each tile row by `param` words */
    MP_FIX_XOR,        /* shared: XOR the column by the row (row % 32) */
    MP_FIX_WIDTH,      /* shared: `param`-byte accesses, same bytes */
    MP_FIX_COMPACT,    /* shared: the active lanes on consecutive
                          elements (sequential addressing) */
    MP_FIX_ALIGN,      /* global: shift down by `param` bytes */
    MP_FIX_VECTOR,     /* global: `param`-byte vector accesses */
    MP_FIX_SOA,        /* global: structure of arrays, field of `param` B */
    MP_FIX_STAGE,      /* global: staged through shared memory */
    MP_FIX_PRIVATE,    /* shared atomic: a private copy per lane, word w
                          of the array at w * 32 + lane */
};

#define MP_EXPLAIN_MAX_FIXES 12

typedef struct {
    int kind;                 /* MP_FIX_* */
    long long param;
    char what[160];           /* "pad each 32-word row by 1 word" */
    long long count;          /* predicted over all executions */
    long long ideal;          /* the instruction's ideal */
    int reaches_ideal;
    long long shared_count;   /* MP_FIX_STAGE: the staged reads' */
    long long shared_ideal;   /* wavefronts and ideal; pad in param */
    long long instructions;   /* predicted warp instructions */
} mp_explain_fix;

typedef struct {
    int n;
    mp_explain_fix fix[MP_EXPLAIN_MAX_FIXES];
    int any_ideal;            /* some fix reaches the ideal */
    int already_ideal;        /* the captured count is the ideal */
} mp_explain_fixes;

/* The applicable fixes for acc's executions, ranked by predicted count
 * (the listed order on ties). */
void mp_explain_fixes_for(const mp_explain_acc *acc,
                          const mp_explain_pattern *p,
                          mp_explain_fixes *f);

#endif
