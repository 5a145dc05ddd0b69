/*
 * hold.h - holds the default stream while the host queues a timed sample,
 * so that the GPU runs the sample's launches back to back at its own pace
 * (runtime/hold.cu, used by mp_time_samples in runtime/probe.c).
 *
 * Without it the start event runs at once and the GPU then waits for each
 * launch the host has not queued yet: a kernel shorter than the host's
 * launch call (a few microseconds) is timed at the host's pace, and the
 * host's jitter lands in the sample. The hold is a one-thread kernel that
 * waits, before the start event, until the host writes a flag in mapped
 * host memory; it gives up after a time limit (the host may block while
 * queueing: a launch that synchronizes, or a full launch queue), which
 * mp_hold_gave_up reports. Nothing is added to the timed span.
 */
#ifndef MP_HOLD_H
#define MP_HOLD_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The flag the hold waits for (mapped host memory, 0 = hold) and the word
 * in which it says that it gave up; created by mp_hold_open. */
typedef struct {
    volatile int *flag;      /* host view */
    volatile int *gave_up;   /* host view */
    int *flag_dev, *gave_up_dev;
} mp_hold;

/* Allocates the mapped words (CHECK_CUDA on failure). */
void mp_hold_open(mp_hold *h);
void mp_hold_close(mp_hold *h);

/* Queues the hold on the default stream: it waits until mp_hold_release,
 * at most limit_ns nanoseconds of the GPU's global timer. */
void mp_hold_launch(mp_hold *h, unsigned long long limit_ns);

/* The kernel's launcher (runtime/hold.cu). */
cudaError_t mp_hold_kernel_launch(const int *flag_dev, int *gave_up_dev,
                                  unsigned long long limit_ns);

/* Lets the queued hold end. */
void mp_hold_release(mp_hold *h);

/* After the sample's events have completed: 1 when the hold gave up
 * before mp_hold_release (the sample was queued at the host's pace),
 * else 0; clears the word for the next hold. */
int mp_hold_gave_up(mp_hold *h);

#ifdef __cplusplus
}
#endif

#endif
