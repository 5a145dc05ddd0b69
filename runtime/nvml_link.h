/*
 * nvml_link.h - what the driver says about a GPU's links: PCIe generation
 * and width, active NVLinks and their version. NVML (libnvidia-ml.so.1,
 * shipped with the driver) is loaded with dlopen at run time, so memprobe
 * builds and runs where it is absent; then `why` says so and the ceiling
 * columns stay empty.
 */
#ifndef MP_NVML_LINK_H
#define MP_NVML_LINK_H

#include <stddef.h>

typedef struct {
    int ok;                       /* NVML answered for this device */
    int pcie_gen, pcie_width;     /* current link (may idle lower) */
    int pcie_max_gen, pcie_max_width;
    int nvlinks;                  /* active NVLinks */
    int nvlink_version;           /* NVML's nvmlNvlinkVersion_t, 0 none */
    char why[160];                /* why ok is 0 */
} mp_link_info;

/* Links of the GPU with PCI bus id `bus_id` (cudaDeviceGetPCIBusId's
 * "0000:18:00.0"). Always fills *info; returns 0 when ok. */
int mp_link_query(const char *bus_id, mp_link_info *info);

/* The same for CUDA device `ordinal` (looks its bus id up). */
int mp_link_query_device(int ordinal, mp_link_info *info);

#endif
