/*
 * inject_context.h - devices and contexts (inject_context.c): the SASS
 * metrics configured per device, turned on and off per context.
 */
#ifndef MP_INJECT_CONTEXT_H
#define MP_INJECT_CONTEXT_H

#include <cuda.h>

#include "inject_state.h"

/* Makes ctx current for a few calls: 1 when pushed (undo with
 * pop_context), 0 when it was current already or could not be made so. */
int push_context(CUcontext ctx, int sev);
void pop_context(int pushed);
/* The metrics of raw.h configured on device dev, once. 1 when ready. */
int setup_device(int dev);
/* The context's entry, or NULL. */
context_info *find_context(CUcontext ctx);
/* The context's entry, made when missing (NULL: too many contexts). */
context_info *add_context(CUcontext ctx);
/* The same, its device set up too when made (not in the range pass). */
context_info *context_of(CUcontext ctx);
/* The device of a context's entry (device 0 when none). */
const device_info *device_of(const context_info *c);
/* SASS metrics on for this context (once); off on a context. */
void enable_context(context_info *c);
void disable_context(context_info *c);
/* The launch limit is reached: SASS metrics off, no more syncs. */
void stop_all(void);

#endif
