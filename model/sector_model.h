/*
 * sector_model.h - model of global-memory sectors for one warp-level
 * global load or store (one LDG/STG instruction executed by a warp), and of
 * the instructions the compiler emits for the seeds' struct layouts.
 *
 * L1TEX looks global memory up in 32-byte sectors of 128-byte lines. A
 * lane that accesses `width` bytes at byte address a touches the sectors
 * a/32 .. (a+width-1)/32; the instruction costs the DISTINCT sectors of all
 * its active lanes (lanes sharing a sector share it). The ideal is what the
 * same bytes would cost if they were contiguous and aligned:
 * ceil(distinct bytes / 32).
 *
 * The sector count per INSTRUCTION is the model's primary quantity. How
 * many L1TEX requests one instruction makes (1, or 2/4 if wide accesses
 * were split) is a separate number, requests_per_instruction; the GPU run
 * decides it (see sector_model.c).
 */
#ifndef MP_SECTOR_MODEL_H
#define MP_SECTOR_MODEL_H

#include <stdint.h>

#include "pattern.h"

#define MP_SECTOR_BYTES 32
#define MP_LINE_BYTES 128
#define MP_GLOBAL_MAX_WIDTH 16

typedef struct {
    int width;                        /* bytes per lane, 1..16 */
    int is_store;                     /* 0 = load, 1 = store */
    uint32_t active;                  /* bit i set: lane i takes part */
    long long addr[MP_WARP_SIZE];     /* byte address of each lane, >= 0 */
} mp_global_access;

typedef struct {
    int requests;            /* L1TEX requests for the instruction */
    int sectors;             /* distinct 32-byte sectors touched */
    double sectors_per_request;
    int ideal_sectors;       /* ceil(distinct bytes / 32) */
    int lines;               /* distinct 128-byte lines touched */
    int distinct_addresses;  /* distinct lane addresses */
    int bytes;               /* distinct bytes the active lanes access */
} mp_sector_prediction;

/* Predicts one warp-level global instruction. With no active lane every
 * count is 0 (no request is made). */
void mp_sector_predict(const mp_global_access *a, mp_sector_prediction *p);

/* A full warp following `pattern` (pad ignored), every lane's address
 * offset by `offset` bytes from an aligned base: lane address =
 * offset + element(lane) * width. */
void mp_sector_predict_pattern(const mp_pattern *pattern, long long offset,
                               int width, int is_store,
                               mp_sector_prediction *p);

/* ---- the seeds' layouts ------------------------------------------------
 *
 * Each layout computes x*x + y*y + z*z for one element per thread and
 * stores it to a float array; 32 consecutive elements per warp, the warp's
 * first element a multiple of 32, every array 256-byte aligned. */
typedef enum {
    MP_LAYOUT_PATTERN,       /* not a layout: the parameterised pattern */
    MP_LAYOUT_SOA,           /* three float arrays x[], y[], z[] */
    MP_LAYOUT_AOS12,         /* struct vec3d { float x, y, z; } (12 B) */
    MP_LAYOUT_AOS16,         /* struct __align__(16) vec3d (16 B) */
    MP_LAYOUT_AOS12_STAGED,  /* 12-byte structs copied through shared */
    MP_LAYOUT_COUNT
} mp_layout;

/* "pattern", "soa", "aos12", "aos16", "aos12-staged"; NULL-terminated,
 * indexed by mp_layout. */
extern const char *const mp_layout_names[];

/* One global instruction a warp executes per element: lane l accesses
 * `width` bytes at first + l * lane_stride (bytes from a 128-byte-aligned
 * base). */
typedef struct {
    const char *what;        /* "LDG.32 x" */
    int is_store;
    int width;
    long long first;
    long long lane_stride;
} mp_layout_inst;

#define MP_LAYOUT_MAX_INST 8

/* The instructions one warp executes per element (per iteration), as
 * nvcc 13 emits them for sm_90 (PTX checked here; the SASS must be checked
 * on the GPU machine with cuobjdump -sass). Returns how many, or 0 for
 * MP_LAYOUT_PATTERN or an unknown layout. */
int mp_layout_instructions(mp_layout layout,
                           mp_layout_inst out[MP_LAYOUT_MAX_INST]);

typedef struct {
    /* Loads of the layout's input, per warp and element. */
    int ld_instructions;
    int ld_requests;
    int ld_sectors;
    int ld_ideal_sectors;
    int ld_lines;
    int ld_bytes;
    /* The result store, per warp and element. */
    int st_instructions;
    int st_requests;
    int st_sectors;
} mp_layout_prediction;

/* Sums mp_sector_predict over the layout's instructions. -1 for
 * MP_LAYOUT_PATTERN or an unknown layout, else 0. */
int mp_layout_predict(mp_layout layout, mp_layout_prediction *p);

#endif
