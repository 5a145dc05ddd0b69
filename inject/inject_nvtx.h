/*
 * inject_nvtx.h - NVTX (inject_nvtx.c): each thread's range stack and the
 * strings the program registered.
 */
#ifndef MP_INJECT_NVTX_H
#define MP_INJECT_NVTX_H

#include <cupti_callbacks.h>
#include <stddef.h>

/* An NVTX callback: a range pushed or popped, a string registered. */
void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *nd);
/* This thread's stack as names (outermost first, at most NVTX_DEPTH)
 * and joined by '/'; returns the depth. */
size_t nvtx_stack(const char **names, char *joined, size_t len);

#endif
