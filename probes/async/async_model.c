/*
 * async_model.c - the async-copy probe's model: swizzle, box shape and
 * predicted counts (see async_model.h).
 */
#include "async_model.h"

long long mp_async_swizzle(long long a, int swizzle)
{
    int b = swizzle == 32 ? 1 : swizzle == 64 ? 2 : swizzle == 128 ? 3 : 0;
    return a ^ (((a >> 7) & ((1LL << b) - 1)) << 4);
}

int mp_async_row_bytes(int swizzle)
{
    return swizzle == 32 || swizzle == 64 ? swizzle : 128;
}

int mp_async_box_rows(long long tile_bytes, int swizzle)
{
    long long rows = tile_bytes / mp_async_row_bytes(swizzle);
    return rows > 256 ? 256 : (int)rows;
}

void mp_async_predict(int method, int width, int swizzle,
                      long long tile_bytes, long long bytes, long long passes,
                      mp_async_prediction *out)
{
    double tiles = tile_bytes > 0 ? (double)(bytes / tile_bytes) : 0;
    out->bytes_moved = (double)bytes * (double)passes;
    out->tile_copies = tiles * (double)passes;
    out->boxes_per_tile = 0;
    switch (method) {
    case MP_ASYNC_STAGED:
    case MP_ASYNC_CPASYNC:
        /* A warp moves 32 x width bytes per instruction, 128 per
         * wavefront. */
        out->requests = out->bytes_moved / (32.0 * width);
        out->ideal_wavefronts_per_request = 32.0 * width / 128.0;
        out->wavefronts_per_request = out->ideal_wavefronts_per_request;
        break;
    case MP_ASYNC_BULK:
        out->requests = out->tile_copies;
        out->ideal_wavefronts_per_request = 0;
        out->wavefronts_per_request = 0;
        break;
    default: {
        long long box = (long long)mp_async_row_bytes(swizzle)
                        * mp_async_box_rows(tile_bytes, swizzle);
        out->boxes_per_tile = box > 0 ? (double)(tile_bytes / box) : 0;
        out->requests = out->tile_copies * out->boxes_per_tile;
        out->ideal_wavefronts_per_request = 0;
        out->wavefronts_per_request = 0;
        break;
    }
    }
}
