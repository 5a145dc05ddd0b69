/*
 * async_lanes.h - the async probe's replay of one copy instruction: each
 * lane's shared destination (--offsets) and global source
 * (--src-offsets) as given, one cp.async (LDGSTS) per iteration, so that
 * a copy explain captured in a real kernel runs alone under the counters.
 * Pure C: reading and checking the lanes, the footprints, each thread's
 * expected checksum and the model's count (model/bank_model.h,
 * mp_bank_predict_copy).
 */
#ifndef MP_ASYNC_LANES_H
#define MP_ASYNC_LANES_H

#include <stddef.h>

#include "bank_model.h"

typedef struct {
    int width;             /* bytes a lane copies: 4, 8, 16 */
    long long dst[32];     /* shared byte offsets; MP_LANE_OFF: no copy */
    long long src[32];     /* global byte offsets; MP_LANE_ZERO: zero fill */
    long long step;        /* bytes the sources move each iteration */
    long long iterations;  /* copies a warp issues per launch */
} mp_async_lanes;

/* Reads and checks the lanes: dst_text as --offsets, src_text as
 * --src-offsets (NULL: each lane reads the offset it writes). 0, or -1
 * with a one-line reason naming the option in err. */
int mp_async_lanes_read(const char *dst_text, const char *src_text,
                        int width, long long step, long long iterations,
                        mp_async_lanes *out, char *err, size_t errlen);

/* Bytes of shared memory one warp's destinations need, a multiple of 128
 * (so every warp's lanes keep their banks). */
long long mp_async_lanes_tile_bytes(const mp_async_lanes *l);
/* Bytes of the source array the launch reads. */
long long mp_async_lanes_src_bytes(const mp_async_lanes *l);

/* The model of one warp's copy (mp_bank_predict_copy on the lanes). */
void mp_async_lanes_predict(const mp_async_lanes *l, mp_copy_prediction *p);

/* What lane `lane` must read back from its destination after the last
 * iteration: the sum of its words (source words are mp_async_word of their
 * index; zero fill and lanes off 0). */
unsigned mp_async_lanes_expected(const mp_async_lanes *l, int lane);

#endif
