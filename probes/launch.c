/*
 * launch.c - the launch shape the probe families share (launch.h): the
 * per-thread output buffer and its host copy, the clock64 stamps, their
 * release and frees; the pinned staging buffers and the device fill by
 * copies that verifications use.
 */
#include "launch.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_par.h"

/* The largest pinned buffer of fill words: larger fills are several
 * copies of it. */
#define FILL_BYTES ((size_t)16 << 20)
/* Pinned buffers grow in steps of this, so that slightly larger requests
 * do not reallocate each time. */
#define PIN_STEP ((size_t)1 << 20)

/* Kept for the process (page-locking is slow; the driver unlocks them at
 * exit). */
static struct {
    void *p;
    size_t bytes;
} pins[MP_PIN_SLOTS + 1];
#define PIN_FILL MP_PIN_SLOTS
static unsigned fill_word;     /* what pins[PIN_FILL] holds */

void *mp_pinned(int slot, size_t bytes)
{
    if (bytes > pins[slot].bytes) {
        size_t n = (bytes + PIN_STEP - 1) / PIN_STEP * PIN_STEP;
        if (pins[slot].p) {
            /* Copies may still read or fill the old buffer. */
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(cudaFreeHost(pins[slot].p));
            pins[slot].p = NULL;
            pins[slot].bytes = 0;
        }
        CHECK_CUDA(cudaMallocHost(&pins[slot].p, n));
        pins[slot].bytes = n;
    }
    return pins[slot].p;
}

void mp_device_fill_words(void *dev, unsigned word, size_t bytes)
{
    if (bytes == 0)
        return;
    size_t want = bytes < FILL_BYTES ? bytes : FILL_BYTES;
    int refill = pins[PIN_FILL].bytes < want || fill_word != word;
    unsigned *fill = mp_pinned(PIN_FILL, want);
    if (refill) {
        /* Earlier fills have finished (each waits for its copies). */
        size_t words = pins[PIN_FILL].bytes / 4;
        for (size_t i = 0; i < words; i++)
            fill[i] = word;
        fill_word = word;
    }
    size_t step = pins[PIN_FILL].bytes < FILL_BYTES ? pins[PIN_FILL].bytes
                                                     : FILL_BYTES;
    for (size_t done = 0; done < bytes; done += step) {
        size_t n = bytes - done < step ? bytes - done : step;
        CHECK_CUDA(cudaMemcpyAsync((char *)dev + done, fill, n,
                                   cudaMemcpyHostToDevice, 0));
    }
    CHECK_CUDA(cudaStreamSynchronize(0));
}

size_t mp_fetch_first(const void *dev, size_t words,
                      size_t (*find)(void *ctx, size_t from, size_t to),
                      void *user, mp_staged *staged)
{
    const size_t per = MP_STAGE_BYTES / 4;
    if (words == 0)
        return 0;
    size_t cb = (words < per ? words : per) * 4;
    unsigned *buf[2] = {mp_pinned(MP_PIN_STAGE_A, cb),
                        mp_pinned(MP_PIN_STAGE_B, cb)};
    const char *src = dev;
    CHECK_CUDA(cudaMemcpyAsync(buf[0], src, cb, cudaMemcpyDeviceToHost, 0));
    int k = 0;
    for (size_t first = 0; first < words; first += per, k ^= 1) {
        size_t n = words - first < per ? words - first : per;
        /* The only copy in flight is this chunk's. */
        CHECK_CUDA(cudaStreamSynchronize(0));
        size_t next = first + per;
        if (next < words) {
            size_t nn = words - next < per ? words - next : per;
            CHECK_CUDA(cudaMemcpyAsync(buf[k ^ 1], src + 4 * next, 4 * nn,
                                       cudaMemcpyDeviceToHost, 0));
        }
        *staged = (mp_staged){buf[k], first, user};
        size_t bad = mp_par_first(n, mp_par_threads(n), find, staged);
        if (bad < n) {
            /* Nothing may still write the staging buffers. */
            CHECK_CUDA(cudaStreamSynchronize(0));
            return first + bad;
        }
    }
    return words;
}

typedef struct {
    void (*gen)(void *user, unsigned *out, size_t first, size_t count);
    void *user;
    unsigned *out;
    size_t first;
} upload_job;

static void upload_part(void *ctx, size_t from, size_t to)
{
    const upload_job *u = ctx;
    u->gen(u->user, u->out + from, u->first + from, to - from);
}

void mp_upload_words(void *dev, size_t words,
                     void (*gen)(void *user, unsigned *out, size_t first,
                                 size_t count),
                     void *user)
{
    const size_t per = MP_STAGE_BYTES / 4;
    size_t cb = (words < per ? words : per) * 4;
    unsigned *buf[2] = {mp_pinned(MP_PIN_STAGE_A, cb),
                        mp_pinned(MP_PIN_STAGE_B, cb)};
    int k = 0;
    for (size_t first = 0; first < words; first += per, k ^= 1) {
        size_t n = words - first < per ? words - first : per;
        upload_job u = {gen, user, buf[k], first};
        /* buf[k]'s last copy (two chunks back) was waited for below. */
        mp_par_for(n, mp_par_threads(n), upload_part, &u);
        /* The previous chunk's copy is done: buf[k ^ 1] is free. */
        CHECK_CUDA(cudaStreamSynchronize(0));
        CHECK_CUDA(cudaMemcpyAsync((char *)dev + 4 * first, buf[k], 4 * n,
                                   cudaMemcpyHostToDevice, 0));
    }
    CHECK_CUDA(cudaStreamSynchronize(0));
}

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
    mp_device_fill_words(*sh->out, 0xffffffffu, sh->out_bytes);
}

void mp_poison_copy(void *dev, void *host, int byte, size_t bytes)
{
    memset(host, byte, bytes);
    CHECK_CUDA(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
}

typedef struct {
    const unsigned *want;
    size_t nwant;
} words_job;

/* Staged words [from, to) against want[word % nwant]. */
static size_t words_part(void *ctx, size_t from, size_t to)
{
    const mp_staged *st = ctx;
    const words_job *j = st->user;
    return from + mp_first_diff_periodic(st->c + from, j->want, j->nwant,
                                         (st->first + from) % j->nwant,
                                         to - from, 1);
}

int mp_launch_verify_words(mp_launch_shape *sh, int threads,
                           const unsigned *want, size_t nwant, char *err,
                           size_t errlen)
{
    CHECK_CUDA(cudaDeviceSynchronize());
    size_t n = sh->out_bytes / sizeof(unsigned);
    words_job j = {want, nwant};
    mp_staged st;
    size_t t = mp_fetch_first(*sh->out, n, words_part, &j, &st);
    if (t < n) {
        snprintf(err, errlen,
                 "thread %zu (block %zu) left %u, the CPU reference says %u",
                 t, t / (size_t)threads, st.c[t - st.first], want[t % nwant]);
        return -1;
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

void mp_free_device_list(void *const *addrs)
{
    for (; *addrs; addrs++) {
        void **p = *addrs;
        if (*p) {
            CHECK_CUDA(cudaFree(*p));
            *p = NULL;
        }
    }
}

void mp_free_host_list(void *const *addrs)
{
    for (; *addrs; addrs++) {
        void **p = *addrs;
        free(*p);
        *p = NULL;
    }
}

void mp_launch_release(mp_launch_shape *sh)
{
    if (sh->out)
        MP_FREE_DEVICE(sh->out);
    if (sh->clocks)
        MP_FREE_DEVICE(sh->clocks);
}

void mp_launch_free(mp_launch_shape *sh)
{
    mp_launch_release(sh);
    MP_FREE_HOST(&sh->host_out, &sh->host_clocks);
}
