/*
 * nvtx.h - NVTX ranges in the domain "memprobe", named after the probe
 * configuration ("bank/ld/w8/s4/b0/g1/p32"), so that Nsight Compute
 * (--nvtx --nvtx-include "NAME/") and Nsight Systems find exactly the
 * launches of one configuration. Costs nothing when no tool is attached.
 */
#ifndef MP_NVTX_H
#define MP_NVTX_H

void mp_nvtx_push(const char *name);
void mp_nvtx_pop(void);

#endif
