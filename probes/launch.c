/*
 * launch.c - the launch shape the probe families share (launch.h): the
 * per-thread output buffer and its host copy, the clock64 stamps, their
 * release and frees.
 */
#include "launch.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mp_launch_alloc(mp_launch_shape *sh, int blocks, void **out,
                     size_t out_bytes, long long **clocks)
{
    memset(sh, 0, sizeof *sh);
    sh->blocks = blocks;
    if (out && out_bytes > 0) {
        sh->out = out;
        sh->out_bytes = out_bytes;
        CHECK_CUDA(cudaMalloc(out, out_bytes));
        sh->host_out = mp_xmalloc(out_bytes);
    }
    if (clocks) {
        sh->clocks = clocks;
        mp_clock64_alloc(blocks, clocks, &sh->host_clocks);
    }
}

void mp_launch_fetch(mp_launch_shape *sh)
{
    CHECK_CUDA(cudaMemcpy(sh->host_out, *sh->out, sh->out_bytes,
                          cudaMemcpyDeviceToHost));
}

void mp_launch_poison(mp_launch_shape *sh)
{
    memset(sh->host_out, 0xff, sh->out_bytes);
    CHECK_CUDA(cudaMemcpy(*sh->out, sh->host_out, sh->out_bytes,
                          cudaMemcpyHostToDevice));
}

int mp_launch_verify_words(mp_launch_shape *sh, int threads,
                           const unsigned *want, size_t nwant, char *err,
                           size_t errlen)
{
    CHECK_CUDA(cudaDeviceSynchronize());
    mp_launch_fetch(sh);
    const unsigned *got = sh->host_out;
    size_t n = sh->out_bytes / sizeof(unsigned);
    for (size_t t = 0; t < n; t++) {
        if (got[t] != want[t % nwant]) {
            snprintf(err, errlen,
                     "thread %zu (block %zu) left %u, the CPU reference says "
                     "%u", t, t / (size_t)threads, got[t], want[t % nwant]);
            return -1;
        }
    }
    mp_launch_poison(sh);
    return 0;
}

void mp_launch_clock64(mp_launch_shape *sh, long long *span,
                       double *block_median)
{
    mp_clock64_read(*sh->clocks, sh->host_clocks, sh->blocks, span,
                    block_median);
}

void mp_launch_release(mp_launch_shape *sh)
{
    if (sh->out && *sh->out) {
        CHECK_CUDA(cudaFree(*sh->out));
        *sh->out = NULL;
    }
    if (sh->clocks && *sh->clocks) {
        CHECK_CUDA(cudaFree(*sh->clocks));
        *sh->clocks = NULL;
    }
}

void mp_launch_free(mp_launch_shape *sh)
{
    mp_launch_release(sh);
    free(sh->host_out);
    free(sh->host_clocks);
    sh->host_out = NULL;
    sh->host_clocks = NULL;
}
