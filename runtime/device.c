/*
 * device.c - device discovery and the properties memprobe reports.
 *
 * CUDA 13 dropped the clock fields from cudaDeviceProp, so clocks and bus
 * width come from cudaDeviceGetAttribute. Sizes are size_t and printed as
 * such (the seeds printed them with %d).
 */
#include "device.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nvml_link.h"

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

/* Descriptions of GPUs memprobe may meet, as the CUDA runtime reports
 * them (clocks are the peak SM clock and the memory clock in kHz that
 * cudaDevAttrClockRate / cudaDevAttrMemoryClockRate give). The H200's is
 * results/h200/device/device.txt; the others are the vendors' published
 * figures (see docs/architecture.md for sources), for the CPU tests and
 * for the test hook of device.h. */
typedef struct {
    const char *key;
    const char *name;
    int cc_major, cc_minor, sm_count, sm_clock_khz, mem_clock_khz, bus_bits;
    int max_threads_per_sm;
    size_t l2, global, smem_optin, smem_per_sm;
} known_gpu;

static const known_gpu known[] = {
    {"h200", "NVIDIA H200", 9, 0, 132, 1980000, 3201000, 6016, 2048,
     62914560, 150754820096ULL, 232448, 233472},
    {"a100", "NVIDIA A100-SXM4-40GB", 8, 0, 108, 1410000, 1215000, 5120,
     2048, 41943040, 42505273344ULL, 166912, 167936},
    {"rtx4090", "NVIDIA GeForce RTX 4090", 8, 9, 128, 2520000, 10501000,
     384, 1536, 75497472, 25757220864ULL, 101376, 102400},
    {"b200", "NVIDIA B200", 10, 0, 148, 1965000, 3996000, 8192, 2048,
     132120576, 191986155520ULL, 232448, 233472},
    {"t4", "Tesla T4", 7, 5, 40, 1590000, 5001000, 256, 1024, 4194304,
     15843721216ULL, 65536, 65536},
};

static void describe_known(const known_gpu *k, mp_device *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", k->name);
    d->cc_major = k->cc_major;
    d->cc_minor = k->cc_minor;
    d->sm_count = k->sm_count;
    d->sm_clock_khz = k->sm_clock_khz;
    d->mem_clock_khz = k->mem_clock_khz;
    d->bus_width_bits = k->bus_bits;
    d->warp_size = 32;
    d->max_threads_per_block = 1024;
    d->max_threads_per_sm = k->max_threads_per_sm;
    d->regs_per_sm = 65536;
    d->l2_bytes = k->l2;
    d->global_mem_bytes = k->global;
    d->const_mem_bytes = 65536;
    d->smem_per_block = 49152;
    d->smem_per_block_optin = k->smem_optin;
    d->smem_per_sm = k->smem_per_sm;
}

int mp_device_describe(const char *key, mp_device *d)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].key, key) == 0) {
            describe_known(&known[i], d);
            return 0;
        }
    return -1;
}

void mp_device_default(mp_device *d)
{
    describe_known(&known[0], d);
}

/* The test hook of device.h: "[NAME][:]DELAY_US" or "NAME" (default
 * h200), nothing behind it. */
static void fake_device(mp_device *d, const char *spec)
{
    char key[32] = "h200";
    const char *delay = spec;
    size_t n = strspn(spec, "abcdefghijklmnopqrstuvwxyz0123456789");
    if (n && !(spec[0] >= '0' && spec[0] <= '9')) {
        snprintf(key, sizeof key, "%.*s", (int)(n < 31 ? n : 31), spec);
        delay = spec[n] == ':' ? spec + n + 1 : spec + n;
    }
    if (mp_device_describe(key, d))
        mp_usage_error("%s: no description of a GPU called '%s' (h200, "
                       "a100, rtx4090, b200, t4)", MP_FAKE_DEVICE_ENV, key);
    char real[160];
    snprintf(real, sizeof real, "%.159s", d->name);
    snprintf(d->name, sizeof d->name, "fake device %s (%s set: nothing is "
             "measured)", real, MP_FAKE_DEVICE_ENV);
    d->fake = 1;
    d->fake_delay_us = atoi(delay);
    if (d->fake_delay_us < 0)
        d->fake_delay_us = 0;
    fprintf(stderr, "memprobe: warning: %s is set: a fake device, nothing "
            "is measured\n", MP_FAKE_DEVICE_ENV);
}

static int fake_count(void)
{
    const char *n = getenv(MP_FAKE_DEVICES_ENV);
    int count = n && *n ? atoi(n) : 1;
    return count > 0 ? count : 1;
}

int mp_device_count(void)
{
    const char *fake = getenv(MP_FAKE_DEVICE_ENV);
    if (fake && *fake)
        return fake_count();
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return count;
}

void mp_device_no_gpu_reason(int cuda_error, int count, const char *driver,
                             char *why, size_t whylen)
{
    cudaError_t e = (cudaError_t)cuda_error;
    if ((e == cudaSuccess && count <= 0) || e == cudaErrorNoDevice) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        mp_reason(why, whylen, "no GPU visible: the NVIDIA driver is there "
                  "but reports no device%s%s%s", visible ? " (CUDA_VISIBLE_"
                  "DEVICES='" : "", visible ? visible : "",
                  visible ? "')" : "");
    } else if (driver || e == cudaErrorStubLibrary) {
        mp_reason(why, whylen, "no NVIDIA driver found (%s), so no GPU can "
                  "be used", e == cudaErrorStubLibrary
                  ? "libcuda.so.1 is CUDA's stub library, not a driver"
                  : driver);
    } else if (e == cudaErrorInsufficientDriver) {
        mp_reason(why, whylen, "the NVIDIA driver is too old for this "
                  "memprobe's CUDA %d.%d runtime, so no GPU can be used",
                  CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    } else {
        mp_reason(why, whylen, "no usable GPU: %s (%s)", cudaGetErrorName(e),
                  cudaGetErrorString(e));
    }
}

/* mp_device_available, handing back cudaGetDeviceCount's count when it
 * returns 0 (left untouched under the fake-device hook), so that
 * mp_device_open asks CUDA once. */
static int available(int *count, char *why, size_t whylen)
{
    const char *fake = getenv(MP_FAKE_DEVICE_ENV);
    if (fake && *fake)
        return 0;
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaSuccess && *count > 0)
        return 0;
    cudaGetLastError();
    /* Is there a driver at all? The runtime says "insufficient" both for
     * an old driver and for none. */
    char missing[300] = "";
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib)
        dlclose(lib);
    else
        snprintf(missing, sizeof missing, "%s", dlerror());
    mp_device_no_gpu_reason(e, *count, lib ? NULL : missing, why, whylen);
    return MP_EXIT_NOGPU;
}

int mp_device_available(char *why, size_t whylen)
{
    int count = 0;
    return available(&count, why, whylen);
}

int mp_device_open(int ordinal, mp_device *d, char *why, size_t whylen)
{
    const char *fake = getenv(MP_FAKE_DEVICE_ENV);
    if (fake && *fake) {
        if (ordinal >= fake_count()) {
            snprintf(why, whylen, "--device %d: only %d GPU(s) visible",
                     ordinal, fake_count());
            return MP_EXIT_NOGPU;
        }
        fake_device(d, fake);
        d->ordinal = ordinal;
        return 0;
    }
    int count = 0;
    if (available(&count, why, whylen))
        return MP_EXIT_NOGPU;
    if (ordinal < 0 || ordinal >= count) {
        snprintf(why, whylen, "--device %d: only %d GPU(s) visible", ordinal,
                 count);
        return MP_EXIT_NOGPU;
    }
    CHECK_CUDA(cudaSetDevice(ordinal));
    struct cudaDeviceProp p;
    CHECK_CUDA(cudaGetDeviceProperties(&p, ordinal));
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    d->sm_clock_khz = attr(cudaDevAttrClockRate, ordinal);
    d->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, ordinal);
    d->bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    d->warp_size = p.warpSize;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->global_mem_bytes = p.totalGlobalMem;
    d->const_mem_bytes = p.totalConstMem;
    d->smem_per_block = p.sharedMemPerBlock;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    return 0;
}

double mp_device_shared_ceiling_gbs(const mp_device *d)
{
    return 32.0 * 4.0 * d->sm_count * (d->sm_clock_khz * 1e3) / 1e9;
}

double mp_device_dram_peak_gbs(const mp_device *d)
{
    return 2.0 * (d->mem_clock_khz * 1e3) * (d->bus_width_bits / 8.0) / 1e9;
}

void mp_device_print(const mp_device *d, FILE *out)
{
    fprintf(out, "device %d: %s\n", d->ordinal, d->name);
    fprintf(out, "  compute capability        %d.%d\n", d->cc_major,
            d->cc_minor);
    fprintf(out, "  multiprocessors (SMs)     %d\n", d->sm_count);
    fprintf(out, "  SM clock (peak)           %d MHz\n",
            d->sm_clock_khz / 1000);
    fprintf(out, "  memory clock (peak)       %d MHz\n",
            d->mem_clock_khz / 1000);
    fprintf(out, "  memory bus width          %d bits\n", d->bus_width_bits);
    fprintf(out, "  DRAM peak                 %.1f GB/s\n",
            mp_device_dram_peak_gbs(d));
    fprintf(out, "  global memory             %zu bytes\n",
            d->global_mem_bytes);
    fprintf(out, "  L2 cache                  %zu bytes\n", d->l2_bytes);
    fprintf(out, "  constant memory           %zu bytes\n",
            d->const_mem_bytes);
    fprintf(out, "  shared memory per block   %zu bytes (opt-in %zu)\n",
            d->smem_per_block, d->smem_per_block_optin);
    fprintf(out, "  shared memory per SM      %zu bytes\n", d->smem_per_sm);
    fprintf(out, "  shared memory ceiling     %.1f GB/s (32 banks x 4 B x "
            "SMs x clock)\n", mp_device_shared_ceiling_gbs(d));
    fprintf(out, "  warp size                 %d\n", d->warp_size);
    fprintf(out, "  max threads per block     %d\n",
            d->max_threads_per_block);
    fprintf(out, "  max threads per SM        %d\n", d->max_threads_per_sm);
    fprintf(out, "  registers per SM          %d\n", d->regs_per_sm);
}

void mp_device_print_all(int n, FILE *out)
{
    char why[256];
    for (int i = 0; i < n; i++) {
        mp_device d;
        if (mp_device_open(i, &d, why, sizeof why)) {
            fprintf(out, "device %d: %s\n", i, why);
            continue;
        }
        fprintf(out, "device %d: %s, cc %d.%d, %d SMs, %.0f GB/s DRAM peak, "
                "%zu bytes", i, d.name, d.cc_major, d.cc_minor, d.sm_count,
                mp_device_dram_peak_gbs(&d), d.global_mem_bytes);
        if (d.fake) {
            fprintf(out, "\n");
            continue;
        }
        mp_link_info l;
        char bus[64];
        CHECK_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, i));
        if (mp_link_query(bus, &l) == 0)
            fprintf(out, "\n  %s: pcie gen%d x%d (max gen%d x%d), %d active "
                    "nvlink%s (NVML version enum %d: 6 = NVLink 4.0)\n", bus,
                    l.pcie_gen, l.pcie_width, l.pcie_max_gen,
                    l.pcie_max_width, l.nvlinks, l.nvlinks == 1 ? "" : "s",
                    l.nvlink_version);
        else
            fprintf(out, "\n  %s: links unknown: %s\n", bus, l.why);
    }
    fprintf(out, "\npeer matrix (row: from, column: to; yes/no = "
            "cudaDeviceCanAccessPeer, r = performance rank, 0 best, "
            "a = native atomics):\n%8s", "");
    for (int j = 0; j < n; j++)
        fprintf(out, " %12s%d", "GPU", j);
    fprintf(out, "\n");
    const char *fake = getenv(MP_FAKE_DEVICE_ENV);
    for (int i = 0; i < n; i++) {
        fprintf(out, "GPU%-5d", i);
        for (int j = 0; j < n; j++) {
            char cell[32];
            if (i == j) {
                snprintf(cell, sizeof cell, "-");
            } else if (fake && *fake) {
                snprintf(cell, sizeof cell, "? (fake)");
            } else {
                int can = 0, rank = 0, atom = 0;
                CHECK_CUDA(cudaDeviceCanAccessPeer(&can, i, j));
                if (can) {
                    CHECK_CUDA(cudaDeviceGetP2PAttribute(
                        &rank, cudaDevP2PAttrPerformanceRank, i, j));
                    CHECK_CUDA(cudaDeviceGetP2PAttribute(
                        &atom, cudaDevP2PAttrNativeAtomicSupported, i, j));
                    snprintf(cell, sizeof cell, "yes r%d%s", rank,
                             atom ? " a" : "");
                } else {
                    snprintf(cell, sizeof cell, "no");
                }
            }
            fprintf(out, " %13s", cell);
        }
        fprintf(out, "\n");
    }
}
