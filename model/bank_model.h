/*
 * bank_model.h - exact model of shared-memory wavefronts for one warp-level
 * request (one LDS/STS instruction executed by a warp).
 *
 * Shared memory has 32 banks of 4 bytes; word w lives in bank w % 32. One
 * wavefront serves at most one distinct word per bank; lanes that touch the
 * same word share it (broadcast on loads, one write on stores). Accesses
 * wider than 4 bytes cover width/4 consecutive banks, and the hardware splits
 * the warp into phases that move at most 128 bytes. How phases are formed and
 * merged for 8- and 16-byte loads and stores on the H200 was measured, not
 * assumed: the rule table in bank_model.c says what was found and where.
 */
#ifndef MP_BANK_MODEL_H
#define MP_BANK_MODEL_H

#include <stdint.h>

#include "pattern.h"

#define MP_SHARED_BANKS 32
#define MP_BANK_BYTES 4

typedef struct {
    int width;                        /* bytes per lane: 4, 8 or 16 */
    int is_store;                     /* 0 = load, 1 = store */
    uint32_t active;                  /* bit i set: lane i takes part */
    long long offset[MP_WARP_SIZE];   /* byte offset of each lane */
} mp_warp_access;

typedef struct {
    int wavefronts;          /* predicted wavefronts for the request */
    int ideal;               /* wavefronts with no bank conflict */
    double conflict_ways;    /* wavefronts / ideal */
    int distinct_words;      /* distinct 4-byte words touched */
    int max_words_per_bank;  /* worst bank over the whole warp */
} mp_bank_prediction;

/* Predicts wavefronts for one warp-level request. width must be 4, 8 or 16
 * and every offset a multiple of width (callers validate first). */
void mp_bank_predict(const mp_warp_access *a, mp_bank_prediction *p);

/* Convenience: a full warp following `pattern`. */
void mp_bank_predict_pattern(const mp_pattern *pattern, int width,
                             int is_store, mp_bank_prediction *p);

/* A whole block whose warps touch different addresses (2D blocks): the
 * prediction of each warp (threads 32w .. 32w+31 of offset[], a partial
 * last warp with its missing lanes inactive), averaged over the warps,
 * since the counters divide all wavefronts by all instructions. */
typedef struct {
    double wavefronts;       /* mean over warps */
    double ideal;            /* mean over warps */
    double conflict_ways;    /* wavefronts / ideal */
    int worst_warp;          /* most wavefronts of any one warp */
    double distinct_words;   /* mean over warps */
    int max_words_per_bank;  /* worst bank of any one warp */
} mp_bank_block_prediction;

/* An ldmatrix / stmatrix .xN (HYPOTHESIS, to be decided by the H200's
 * counters, see bank_model.c): row_offset[i] for lanes i < 8 x matrices
 * (16-byte aligned); wavefronts and ideal as for other requests. */
void mp_bank_predict_matrix(const long long *row_offset, int matrices,
                            mp_bank_prediction *p);

/* An asynchronous copy (LDGSTS) of one warp: dst the shared destinations
 * (a store of dst->width bytes a lane, dst->active the lanes that copy),
 * src[lane] each lane's global source address, or MP_COPY_NO_SOURCE for
 * a lane that reads nothing and fills its destination with zeros.
 * Its wavefronts (docs/findings.md, measured on H100s and met on the
 * captured copies of cuBLAS, CUTLASS, Triton and copy_tile): the words
 * are written source line by source line, and a write to a bank waits
 * for each earlier write to that bank from another place in its line
 * (bank_model.c has the rule). 16-byte .cg copies measured up to twice
 * it. */
#define MP_COPY_NO_SOURCE (-2LL)
typedef struct {
    int wavefronts;       /* predicted */
    int ideal;            /* the destinations' ideal as a store */
    int dst_wavefronts;   /* the destinations alone by the store rule */
    int src_sectors;      /* distinct 32-byte sectors read */
    int src_lines;        /* distinct 128-byte lines read (L) */
    int place_waits;      /* the most earlier writes from other places
                             in their lines that one write waited for */
} mp_copy_prediction;
void mp_bank_predict_copy(const mp_warp_access *dst, const long long *src,
                          mp_copy_prediction *p);

void mp_bank_predict_block(const long long *offset, int threads, int width,
                           int is_store, mp_bank_block_prediction *p);

#endif
