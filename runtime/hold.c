/*
 * hold.c - the host side of the stream hold (runtime/hold.h): the mapped
 * flag, queueing the hold, letting it go, and whether it gave up.
 */
#include "hold.h"

#include "check.h"

void mp_hold_open(mp_hold *h)
{
    void *f = NULL, *g = NULL;
    CHECK_CUDA(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped));
    CHECK_CUDA(cudaHostAlloc(&g, sizeof(int), cudaHostAllocMapped));
    h->flag = f;
    h->gave_up = g;
    *h->flag = 1;
    *h->gave_up = 0;
    CHECK_CUDA(cudaHostGetDevicePointer((void **)&h->flag_dev, f, 0));
    CHECK_CUDA(cudaHostGetDevicePointer((void **)&h->gave_up_dev, g, 0));
}

void mp_hold_close(mp_hold *h)
{
    if (h->flag)
        CHECK_CUDA(cudaFreeHost((void *)h->flag));
    if (h->gave_up)
        CHECK_CUDA(cudaFreeHost((void *)h->gave_up));
    *h = (mp_hold){0};
}

void mp_hold_launch(mp_hold *h, unsigned long long limit_ns)
{
    *h->flag = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    CHECK_CUDA(mp_hold_kernel_launch(h->flag_dev, h->gave_up_dev, limit_ns));
}

void mp_hold_release(mp_hold *h)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    *h->flag = 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int mp_hold_gave_up(mp_hold *h)
{
    int g = *h->gave_up;
    *h->gave_up = 0;
    return g;
}
