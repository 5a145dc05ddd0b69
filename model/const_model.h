/*
 * const_model.h - models of the constant-memory probe (replays of one
 * warp-level LDC) and of the texture probe (sectors its loads touch when
 * the grid is stored row-major in linear memory). Pure C, no CUDA.
 *
 * Constant memory. A warp-level load from the constant bank (LDC) goes to
 * the SM's indexed constant cache (IDC). The documented rule (CUDA C++
 * Programming Guide, "Constant Memory"): a request is split into as many
 * separate requests as there are different memory addresses in it, so the
 * cost is one pass per DISTINCT address; lanes reading the same address
 * share one read (broadcast). The model therefore predicts
 *
 *     distinct_addresses = distinct 4-byte words the 32 lanes read
 *     replays_per_request = distinct_addresses - 1
 *
 * It is the documented rule, NOT a measurement: the hardware may instead
 * serialise by cache line (then spacing 4 and 64 would differ) - the GPU
 * run decides (tests/gpu/test_gpu_constant.c, docs/constant-texture.md).
 * Two other counts are given beside it, for comparison only: distinct
 * 64-byte lines (the other hypothesis), and the seeds' rule (a read is
 * broadcast to a HALF-warp: each half-warp pays one read per distinct
 * address in it).
 */
#ifndef MP_CONST_MODEL_H
#define MP_CONST_MODEL_H

#include "pattern.h"

/* The probe's __constant__ array: 16384 words, the whole 64 KB bank. */
#define MP_CONST_BANK_BYTES 65536
#define MP_CONST_WORDS (MP_CONST_BANK_BYTES / 4)
/* The kernel reads each lane's address at 8 slots 256 bytes apart, one
 * slot per iteration (so consecutive loads differ and cannot be merged);
 * 256 is a multiple of every cache-line size, so every slot has the same
 * line structure as slot 0. */
#define MP_CONST_SLOTS 8
#define MP_CONST_SLOT_BYTES 256
/* The line size of the "lines" hypothesis. */
#define MP_CONST_LINE_BYTES 64

/* Resolves the lane mapping for `spread` distinct addresses. group and
 * period 0 mean "derive": group = 32 / spread (integer division), period =
 * spread * group (32 when spread divides 32); a given period alone gives
 * group = ceil(period / spread). Lane l then reads address number
 * (l % period) / group, as in model/pattern.h. Sets *g, *p to the resolved
 * values and returns 0; -1 if period would exceed 32 lanes; -2 if the
 * lanes would read a number of distinct addresses other than spread
 * (ceil(period / group) != spread). spread must be 1..32, group and period
 * 0..32. */
int mp_const_lanes(int spread, int group, int period, int *g, int *p);

/* Byte offset of each lane (address number k at k * spacing, see
 * mp_const_lanes for k) and the bytes of the constant bank a launch reads:
 * the largest offset + 4 + (MP_CONST_SLOTS - 1) * MP_CONST_SLOT_BYTES.
 * The probe refuses a configuration whose footprint exceeds
 * MP_CONST_BANK_BYTES. */
long long mp_const_offsets(long long spacing, int g, int p,
                           long long offsets[MP_WARP_SIZE]);

typedef struct {
    int distinct_addresses;  /* distinct 4-byte words of the 32 lanes */
    int replays;             /* documented rule: distinct_addresses - 1 */
    int distinct_lines;      /* distinct MP_CONST_LINE_BYTES lines */
    int halfwarp_reads;      /* seeds' rule: sum over the two half-warps of
                                their distinct addresses */
} mp_const_prediction;

/* Predicts one warp-level constant load from the lanes' byte offsets
 * (multiples of 4, >= 0). */
void mp_const_predict(const long long offsets[MP_WARP_SIZE],
                      mp_const_prediction *out);

/* ---- texture probe ----------------------------------------------------
 *
 * An n x n float grid, row-major, each row 128-byte aligned (n is a
 * multiple of 32). Warps hold 32 consecutive lanes:
 *   stencil  lane l computes out[y][x0 + l] (x0 a multiple of 32) from 5
 *            loads: (x,y), (x-1,y), (x+1,y), (x,y-1), (x,y+1), clamped to
 *            the grid;
 *   column   one warp-level load reads one column of 32 rows: lane l
 *            reads (x, y0 + l), and each lane walks MP_TEX_WALK columns
 *            along its row (the bad case for a row-major layout);
 *   row      one warp-level load reads 32 consecutive columns of a row:
 *            lane l reads (x0 + l, y), and each lane walks MP_TEX_WALK rows
 *            down its column.
 */
#define MP_TEX_WALK 32

typedef enum { MP_TEX_STENCIL, MP_TEX_COLUMN, MP_TEX_ROW } mp_tex_access;

typedef struct {
    double requests;       /* warp-level loads per launch */
    double sectors;        /* 32-byte sectors they touch, summed */
    double ideal_sectors;  /* 4 per request: 128 contiguous aligned bytes */
} mp_tex_prediction;

/* Exact counts for the linear (row-major) layout, as the global and
 * __ldg loads and tex1Dfetch read it. n must be a positive multiple of
 * 32. The cudaArray of tex2D has an undocumented tiled layout: the model
 * says nothing about it. */
void mp_tex_predict_linear(mp_tex_access access, long long n,
                           mp_tex_prediction *out);

#endif
