// capture_patches.cu - the device side of the capture library: the
// callbacks compute-sanitizer's patching API calls before each global and
// shared memory access and each asynchronous copy (LDGSTS) of a patched
// module (built with nvcc --fatbin
// --compile-as-tools-patch, loaded by capture/capture.c). A launch with a
// capture block (its userdata) records, for the instructions it wants
// only, each warp's execution: the lanes that ran it and their addresses;
// other launches (userdata NULL) return at once.
#include <sanitizer_patching.h>

#include "capture.h"

static __device__ __forceinline__ unsigned lane_id(void)
{
    unsigned l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

// The warp's number in the launch: blocks in x, y, z order, warps of a
// block by linear thread index.
static __device__ __forceinline__ unsigned warp_number(void)
{
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x
                     + blockIdx.x;
    unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x
                   + threadIdx.x;
    return block * ((threads + 31) / 32) + tid / 32;
}

static __device__ SanitizerPatchResult record(void *userdata, uint64_t pc,
                                              uint64_t addr, uint32_t size,
                                              uint32_t flags)
{
    mp_capture_block *b = (mp_capture_block *)userdata;
    if (!b)
        return SANITIZER_PATCH_SUCCESS;
    uint64_t off = pc - b->base;
    int k = -1, lo = 0, hi = (int)b->nwant - 1;
    while (lo <= hi) {   // want[] ascends: a binary search
        int mid = (lo + hi) / 2;
        if (b->want[mid] == off) {
            k = mid;
            break;
        }
        if (b->want[mid] < off)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    if (k < 0)
        return SANITIZER_PATCH_SUCCESS;
    // the lanes at this instruction now: one record between them
    unsigned mask = __activemask();
    unsigned lane = lane_id();
    unsigned leader = __ffs(mask) - 1;
    unsigned slot = 0xffffffffu;
    if (lane == leader && atomicAdd(&b->count[k], 1u) < b->cap)
        slot = atomicAdd(&b->used, 1u);
    slot = __shfl_sync(mask, slot, leader);
    if (slot >= b->pool)   // past the cap, or the pool is spent
        return SANITIZER_PATCH_SUCCESS;
    mp_capture_rec *r = &b->rec[slot];
    r->addr[lane] = addr;
    if (lane == leader) {
        r->active = mask;
        r->warp = warp_number();
        r->width = size;
        r->flags = flags;
        r->want = (uint32_t)k;
    }
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_global(void *userdata, uint64_t pc, void *ptr, uint32_t size,
                  uint32_t flags, const void *data)
{
    (void)data;
    return record(userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags);
}

// An asynchronous copy (LDGSTS): its store into shared memory, at dst (an
// offset in the shared window) of accessSize bytes; the global source is
// not recorded.
extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_memcpy_async(void *userdata, uint64_t pc, void *src, uint32_t dst,
                        uint32_t accessSize)
{
    (void)src;
    return record(userdata, pc, dst, accessSize,
                  SANITIZER_MEMORY_DEVICE_FLAG_WRITE | MP_CAPTURE_SHARED
                  | MP_CAPTURE_ASYNC);
}

extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_shared(void *userdata, uint64_t pc, void *ptr, uint32_t size,
                  uint32_t flags, const void *data)
{
    (void)data;
    return record(userdata, pc, (uint64_t)(uintptr_t)ptr, size,
                  flags | MP_CAPTURE_SHARED);
}
