/*
 * hold.cu - the hold kernel of runtime/hold.h: one thread that waits for
 * the host's flag in mapped memory, or gives up after a time limit. The
 * host side (allocation, release) is runtime/hold.c.
 */
#include "hold.h"

static __device__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void hold_kernel(const volatile int *flag, int *gave_up,
                                   unsigned long long limit_ns)
{
    unsigned long long t0 = global_ns();
    while (*flag == 0) {
        if (global_ns() - t0 > limit_ns) {
            *gave_up = 1;
            break;
        }
        __nanosleep(500);
    }
}

extern "C" cudaError_t mp_hold_kernel_launch(const int *flag_dev,
                                             int *gave_up_dev,
                                             unsigned long long limit_ns)
{
    hold_kernel<<<1, 1>>>(flag_dev, gave_up_dev, limit_ns);
    return cudaGetLastError();
}
