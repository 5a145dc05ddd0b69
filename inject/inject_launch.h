/*
 * inject_launch.h - kernel and graph launches (inject_launch.c).
 */
#ifndef MP_INJECT_LAUNCH_H
#define MP_INJECT_LAUNCH_H

#include <cupti_callbacks.h>

/* A launch call's entry: described and decided (the batch ended first
 * when it differs). */
void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
/* Its exit: counted, queued in the batch or flushed, or handed to the
 * range pass. */
void on_launch_exit(const CUpti_CallbackData *cb);
/* 1 while this thread is inside a launch call described at its entry. */
int launch_in_call(void);

#endif
