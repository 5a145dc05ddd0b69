/*
 * capture.h - what the capture library (explain/capture/capture.c, host) and its
 * device patches (explain/capture/capture_patches.cu) share: the block of device
 * memory each captured launch gets, and the record of one warp's
 * execution of one wanted instruction. C and CUDA C alike.
 */
#ifndef MP_CAPTURE_H
#define MP_CAPTURE_H

#include <stdint.h>

/* the most instructions one kernel's capture follows (CUTLASS's
 * attention backward kernel in PyTorch offends with 276); the rest are
 * said "left" in the status file */
#define MP_CAPTURE_MAX_WANT 1024

/* One warp's execution of a wanted instruction: each active lane's
 * address (global: a byte address; shared: the offset in the shared
 * window), as the patch saw it. */
typedef struct {
    uint32_t active;    /* the lanes that executed it */
    uint32_t warp;      /* the warp's number in the launch */
    uint32_t width;     /* bytes a lane */
    uint32_t flags;     /* Sanitizer_DeviceMemoryFlags | MP_CAPTURE_SHARED */
    uint32_t want;      /* its instruction: an index into the block's want */
    uint32_t unused;
    uint64_t addr[32];
} mp_capture_rec;

/* set in mp_capture_rec.flags by the shared-memory patch */
#define MP_CAPTURE_SHARED 0x80000000u
/* set with MP_CAPTURE_SHARED by the asynchronous-copy patch (LDGSTS: its
 * shared-memory destination is recorded) */
#define MP_CAPTURE_ASYNC 0x40000000u
/* set with MP_CAPTURE_ASYNC, without MP_CAPTURE_SHARED, on the record
 * that follows a copy's destination in the pool: the same execution's
 * global source, each lane's address (MP_CAPTURE_NO_SOURCE for a lane
 * that read nothing, its bytes zero-filled) */
#define MP_CAPTURE_SOURCE 0x10000000u
#define MP_CAPTURE_NO_SOURCE UINT64_MAX
/* set with MP_CAPTURE_SHARED by the matrix patch (LDSM, STSM: ldmatrix,
 * stmatrix): each lane's row address, 16 bytes a row; the matrices the
 * instruction moves (1, 2 or 4) in MP_CAPTURE_MATRICES(flags) */
#define MP_CAPTURE_MATRIX 0x20000000u
#define MP_CAPTURE_MATRICES_SHIFT 24
#define MP_CAPTURE_MATRICES(flags) (((flags) >> MP_CAPTURE_MATRICES_SHIFT) & 0x7u)
/* a pool slot no execution filled (its pair did not fit): skipped */
#define MP_CAPTURE_NO_WANT 0xffffffffu

/* The device block of one captured launch (the patches' userdata). Each
 * execution of want[k] is counted in count[k]; the first cap of them take
 * a record each from the pool rec[0 .. pool - 1] while it lasts (used:
 * records taken, or wanted past its end). */
typedef struct {
    uint64_t base;                       /* the function's first pc */
    uint32_t nwant, cap;
    uint32_t pool, used;
    uint32_t want[MP_CAPTURE_MAX_WANT];  /* pc offsets from base,
                                            ascending, each once */
    uint32_t count[MP_CAPTURE_MAX_WANT];
    mp_capture_rec *rec;
} mp_capture_block;

#endif
