/*
 * device.h - the GPU memprobe measures on, and its properties that matter
 * for memory studies.
 */
#ifndef MP_DEVICE_H
#define MP_DEVICE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int sm_clock_khz;          /* peak SM clock */
    int mem_clock_khz;         /* peak memory clock */
    int bus_width_bits;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_sm;
    int regs_per_sm;
    size_t l2_bytes;
    size_t global_mem_bytes;
    size_t const_mem_bytes;
    size_t smem_per_block;        /* without opt-in */
    size_t smem_per_block_optin;  /* the most one block may ask for */
    size_t smem_per_sm;
    /* Set only by the test hook below: no GPU behind this device. */
    int fake;
    int fake_delay_us;            /* time one configuration "takes" */
} mp_device;

/* Test hook, for the CPU tests of what a sweep leaves behind when it is
 * killed or its output fails (tests/test_faults.c): with this variable set
 * to a number of microseconds, mp_device_open returns a fake device with
 * the H200's properties, named as fake (or to NAME or NAME:MICROSECONDS,
 * with those of a100, rtx4090, b200 or t4: mp_device_describe; the tests
 * of per-architecture refusals and ceilings), and the runner writes a row per
 * configuration without running anything (verified, no times, no
 * counters, counters_status saying so), sleeping that long per
 * configuration. Every use prints a warning. Never set it for a
 * measurement. */
#define MP_FAKE_DEVICE_ENV "MEMPROBE_FAKE_DEVICE"
/* With the hook set: how many fake GPUs the node has (default 1), so that
 * sweeps over every GPU (--devices) can be tested on the CPU. */
#define MP_FAKE_DEVICES_ENV "MEMPROBE_FAKE_DEVICES"

/* GPUs visible: the fake node's count under the hook, else
 * cudaGetDeviceCount's; -1 when CUDA cannot tell (no driver). */
int mp_device_count(void);

/* The H200's description: what `memprobe predict` and the checks made
 * before a GPU is open assume. */
void mp_device_default(mp_device *d);

/* A known GPU's description by key (h200, a100, rtx4090, b200, t4):
 * 0, or -1 for an unknown key. For tests and the fake-device hook. */
int mp_device_describe(const char *key, mp_device *d);

/* 0 when CUDA sees at least one GPU (or the fake-device hook is set);
 * else MP_EXIT_NOGPU with what is missing in why: "no NVIDIA driver found
 * (...)" when libcuda.so.1 cannot be loaded, "no GPU visible: ..." when
 * the driver is there but reports no device, or the driver being too old.
 * Looks before anything is created for a measurement. */
int mp_device_available(char *why, size_t whylen);

/* The reason of mp_device_available for cudaGetDeviceCount's error and
 * count, `driver` NULL when libcuda.so.1 loads, else why it does not
 * (separate for the tests: each case without the machine it needs). */
void mp_device_no_gpu_reason(int cuda_error, int count, const char *driver,
                             char *why, size_t whylen);

/* Opens device `ordinal`. Returns 0, or MP_EXIT_NOGPU with a one-line
 * reason in why (mp_device_available's) when no usable GPU is visible. */
int mp_device_open(int ordinal, mp_device *d, char *why, size_t whylen);

/* Shared-memory ceiling: 32 banks x 4 bytes per clock per SM. GB/s. */
double mp_device_shared_ceiling_gbs(const mp_device *d);

/* DRAM peak from memory clock and bus width (double data rate). GB/s. */
double mp_device_dram_peak_gbs(const mp_device *d);

void mp_device_print(const mp_device *d, FILE *out);

/* `memprobe device --all`: every visible GPU (n of them, n >= 1) in short,
 * its links (NVML), and the peer matrix: which pairs can access each other
 * (cudaDeviceCanAccessPeer), cudaDeviceGetP2PAttribute's performance rank
 * (0 = best) and native atomics. Under the fake-device hook the matrix is
 * printed as unknown. */
void mp_device_print_all(int n, FILE *out);

#endif
