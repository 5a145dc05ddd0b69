/*
 * clock_watch.c - the SM clock from NVML around timed launches (see
 * clock_watch.h). NVML's C API is declared here with its documented types
 * (nvmlReturn_t and enums are int, nvmlDevice_t an opaque pointer,
 * NVML_SUCCESS 0, NVML_CLOCK_SM 1), so no nvml.h is needed.
 */
#include "clock_watch.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define NVML_CLOCK_SM 1
#define MAX_DEVICES 64

typedef void *nvml_device;
typedef int (*fn_init)(void);
typedef int (*fn_handle)(const char *, nvml_device *);
typedef int (*fn_clock)(nvml_device, int, unsigned *);

static struct {
    int tried, ok;
    fn_handle handle;
    fn_clock clock;
    nvml_device dev[MAX_DEVICES];
    int have[MAX_DEVICES];   /* 1 handle known, -1 none */
} nv;

static int load(void)
{
    if (nv.tried)
        return nv.ok;
    nv.tried = 1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return 0;
    fn_init init = (fn_init)dlsym(lib, "nvmlInit_v2");
    nv.handle = (fn_handle)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nv.clock = (fn_clock)dlsym(lib, "nvmlDeviceGetClockInfo");
    if (!init || !nv.handle || !nv.clock || init() != 0)
        return 0;   /* the library stays loaded for the process */
    nv.ok = 1;
    return 1;
}

int mp_sm_clock_mhz(int ordinal)
{
    if (ordinal < 0 || ordinal >= MAX_DEVICES || !load())
        return -1;
    if (!nv.have[ordinal]) {
        char bus[64];
        nv.have[ordinal] = -1;
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess
            && nv.handle(bus, &nv.dev[ordinal]) == 0)
            nv.have[ordinal] = 1;
    }
    unsigned mhz = 0;
    if (nv.have[ordinal] < 0 || nv.clock(nv.dev[ordinal], NVML_CLOCK_SM, &mhz))
        return -1;
    return (int)mhz;
}

char *mp_clock_note(int before_mhz, int after_mhz, int nominal_mhz,
                    char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    if (before_mhz < 0 || after_mhz < 0)
        return buf;
    if (before_mhz != after_mhz)
        snprintf(buf, len, "sm clock %d->%d MHz during timing", before_mhz,
                 after_mhz);
    else if (nominal_mhz > 0 && before_mhz < nominal_mhz)
        snprintf(buf, len, "sm clock %d MHz, below %d", before_mhz,
                 nominal_mhz);
    return buf;
}
