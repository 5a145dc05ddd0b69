/*
 * common_params.h - parameter rows that several families share word for
 * word (name, meaning, help text), so that the text is written once and
 * `memprobe list` describes the same parameter the same way everywhere.
 * A family whose row differs in any field (reduce's threads, cluster's
 * blocks, the iterations of each family) keeps its own row.
 */
#ifndef MP_COMMON_PARAMS_H
#define MP_COMMON_PARAMS_H

#include "params.h"

/* Threads per block: 256 by default, a multiple of 32 up to 1024. */
#define MP_PARAM_THREADS                                                 \
    MP_INT_PARAM("threads", 256, 32, 1024,                               \
                 "threads per block, a multiple of 32")

/* Blocks, 0 (the default) filling the GPU; up to max. */
#define MP_PARAM_BLOCKS(max)                                             \
    MP_INT_PARAM("blocks", 0, 0, (max),                                  \
                 "blocks; 0 = fill the GPU (SMs x resident blocks)")

/* The address-pattern parameters of the bank and coalesce probes (a
 * warp's lanes over shared or global memory). widths: {4, 8, 16}. */
#define MP_PARAM_LANE_WIDTH(widths)                                      \
    {.name = "width", .kind = MP_PARAM_INT, .def = 4, .min = 4,          \
     .max = 16, .allowed = (widths), .nallowed = 3,                      \
     .help = "bytes per lane: 4 (int), 8 (int2/double), 16 (int4)"}
#define MP_PARAM_GROUP                                                   \
    MP_INT_PARAM("group", 1, 1, 32,                                      \
                 "consecutive lanes sharing one address (32 = broadcast)")
#define MP_PARAM_PERIOD                                                  \
    MP_INT_PARAM("period", 32, 1, 32,                                    \
                 "lanes after which the addresses repeat")

#endif
