/*
 * nvml_link.c - PCIe and NVLink facts from NVML, loaded with dlopen (see
 * nvml_link.h). No nvml.h is needed: the few entry points are declared
 * here with the types of NVML's documented C API (nvmlReturn_t and enums
 * are int, nvmlDevice_t an opaque pointer, NVML_SUCCESS 0).
 */
#include "nvml_link.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define NVML_MAX_LINKS 18

typedef void *nvml_device;
typedef int (*fn_init)(void);
typedef int (*fn_handle)(const char *, nvml_device *);
typedef int (*fn_uint)(nvml_device, unsigned *);
typedef int (*fn_link_uint)(nvml_device, unsigned, unsigned *);
typedef int (*fn_link_state)(nvml_device, unsigned, int *);

static struct {
    int tried, ok;
    char why[128];
    fn_handle handle;
    fn_uint curr_gen, curr_width, max_gen, max_width;
    fn_link_state link_state;
    fn_link_uint link_version;
} nv;

static void *sym(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f && !nv.why[0])
        snprintf(nv.why, sizeof nv.why, "NVML has no %s", name);
    return f;
}

static int load(void)
{
    if (nv.tried)
        return nv.ok;
    nv.tried = 1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(nv.why, sizeof nv.why, "NVML not found (libnvidia-ml.so.1 "
                 "ships with the driver)");
        return 0;
    }
    fn_init init = (fn_init)sym(lib, "nvmlInit_v2");
    nv.handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nv.curr_gen = (fn_uint)sym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    nv.curr_width = (fn_uint)sym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    nv.max_gen = (fn_uint)sym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    nv.max_width = (fn_uint)sym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    nv.link_state = (fn_link_state)sym(lib, "nvmlDeviceGetNvLinkState");
    nv.link_version = (fn_link_uint)sym(lib, "nvmlDeviceGetNvLinkVersion");
    if (!init || !nv.handle || !nv.curr_gen || !nv.curr_width || !nv.max_gen
        || !nv.max_width || !nv.link_state || !nv.link_version)
        return 0;
    int rc = init();
    if (rc) {
        snprintf(nv.why, sizeof nv.why, "nvmlInit_v2 failed (NVML error "
                 "%d)", rc);
        return 0;
    }
    /* The library stays loaded and initialised for the process. */
    nv.ok = 1;
    return 1;
}

int mp_link_query(const char *bus_id, mp_link_info *info)
{
    memset(info, 0, sizeof *info);
    if (!load()) {
        snprintf(info->why, sizeof info->why, "%s", nv.why);
        return -1;
    }
    nvml_device d;
    int rc = nv.handle(bus_id, &d);
    if (rc) {
        snprintf(info->why, sizeof info->why, "NVML does not know the GPU "
                 "at %s (error %d)", bus_id, rc);
        return -1;
    }
    unsigned u = 0;
    if (nv.curr_gen(d, &u) == 0)
        info->pcie_gen = (int)u;
    if (nv.curr_width(d, &u) == 0)
        info->pcie_width = (int)u;
    if (nv.max_gen(d, &u) == 0)
        info->pcie_max_gen = (int)u;
    if (nv.max_width(d, &u) == 0)
        info->pcie_max_width = (int)u;
    for (unsigned l = 0; l < NVML_MAX_LINKS; l++) {
        int active = 0;
        if (nv.link_state(d, l, &active) != 0 || !active)
            continue;
        info->nvlinks++;
        if (nv.link_version(d, l, &u) == 0 && info->nvlink_version == 0)
            info->nvlink_version = (int)u;
    }
    if (info->pcie_gen <= 0 || info->pcie_width <= 0) {
        snprintf(info->why, sizeof info->why, "NVML gave no PCIe link for "
                 "%s", bus_id);
        return -1;
    }
    info->ok = 1;
    return 0;
}

int mp_link_query_device(int ordinal, mp_link_info *info)
{
    char bus[64];
    CHECK_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal));
    return mp_link_query(bus, info);
}
