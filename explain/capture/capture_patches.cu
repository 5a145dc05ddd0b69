// capture_patches.cu - the device side of the capture library: the
// callbacks compute-sanitizer's patching API calls before each global and
// shared memory access, each asynchronous copy (LDGSTS: destination and
// source) and each matrix load or store (LDSM, STSM) of a patched
// module (built with nvcc --fatbin
// --compile-as-tools-patch, loaded by explain/capture/capture.c). A launch with a
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

// The index of the instruction at pc in the block's want[] (ascending: a
// binary search), or -1 when it is not wanted.
static __device__ int want_index(const mp_capture_block *b, uint64_t pc)
{
    uint64_t off = pc - b->base;
    int lo = 0, hi = (int)b->nwant - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (b->want[mid] == off)
            return mid;
        if (b->want[mid] < off)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

// The lanes at this instruction now take nrec consecutive records between
// them, one execution of want[k] counted: the first slot, or one past the
// pool (past the cap, or the pool spent; a pair that does not fit whole
// has its first slot marked MP_CAPTURE_NO_WANT).
static __device__ unsigned claim(mp_capture_block *b, int k, unsigned nrec,
                                 unsigned mask, unsigned lane,
                                 unsigned leader)
{
    unsigned slot = 0xffffffffu;
    if (lane == leader && atomicAdd(&b->count[k], 1u) < b->cap) {
        slot = atomicAdd(&b->used, nrec);
        if (slot < b->pool && slot + nrec > b->pool) {
            b->rec[slot].want = MP_CAPTURE_NO_WANT;
            b->rec[slot].active = 0;
            slot = b->pool;
        }
    }
    return __shfl_sync(mask, slot, leader);
}

// This lane's address in record r; the leader writes the rest.
static __device__ void put(mp_capture_rec *r, unsigned lane, unsigned leader,
                           unsigned mask, uint64_t addr, uint32_t size,
                           uint32_t flags, int k)
{
    r->addr[lane] = addr;
    if (lane == leader) {
        r->active = mask;
        r->warp = warp_number();
        r->width = size;
        r->flags = flags;
        r->want = (uint32_t)k;
    }
}

// One execution's place: the lanes at this instruction now, their leader,
// the want index and the first of its nrec records.
typedef struct {
    mp_capture_block *b;
    unsigned mask, lane, leader, slot;
    int k;
} exec_place;

// Claims nrec records for this execution of the instruction at pc: 0,
// or -1 when nothing is to be recorded (no capture block, an instruction
// not wanted, past the cap or the pool).
static __device__ int begin(void *userdata, uint64_t pc, unsigned nrec,
                            exec_place *e)
{
    e->b = (mp_capture_block *)userdata;
    if (!e->b || (e->k = want_index(e->b, pc)) < 0)
        return -1;
    e->mask = __activemask();
    e->lane = lane_id();
    e->leader = __ffs(e->mask) - 1;
    e->slot = claim(e->b, e->k, nrec, e->mask, e->lane, e->leader);
    return e->slot < e->b->pool ? 0 : -1;
}

static __device__ SanitizerPatchResult record(void *userdata, uint64_t pc,
                                              uint64_t addr, uint32_t size,
                                              uint32_t flags)
{
    exec_place e;
    if (begin(userdata, pc, 1, &e) == 0)
        put(&e.b->rec[e.slot], e.lane, e.leader, e.mask, addr, size, flags,
            e.k);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_global(void *userdata, uint64_t pc, void *ptr, uint32_t size,
                  uint32_t flags, const void *data)
{
    (void)data;
    return record(userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags);
}

// An asynchronous copy (LDGSTS): two records of one execution, its store
// into shared memory, at dst (an offset in the shared window) of
// accessSize bytes, then its global source (MP_CAPTURE_NO_SOURCE where a
// lane read nothing: src is NULL when its source size is 0).
extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_memcpy_async(void *userdata, uint64_t pc, void *src, uint32_t dst,
                        uint32_t accessSize)
{
    exec_place e;
    if (begin(userdata, pc, 2, &e))
        return SANITIZER_PATCH_SUCCESS;
    put(&e.b->rec[e.slot], e.lane, e.leader, e.mask, dst, accessSize,
        SANITIZER_MEMORY_DEVICE_FLAG_WRITE | MP_CAPTURE_SHARED
            | MP_CAPTURE_ASYNC, e.k);
    put(&e.b->rec[e.slot + 1], e.lane, e.leader, e.mask,
        src ? (uint64_t)(uintptr_t)src : MP_CAPTURE_NO_SOURCE, accessSize,
        SANITIZER_MEMORY_DEVICE_FLAG_READ | MP_CAPTURE_ASYNC
            | MP_CAPTURE_SOURCE, e.k);
    return SANITIZER_PATCH_SUCCESS;
}

// A matrix load or store (LDSM, STSM): each lane's row address (an offset
// in the shared window, 16 bytes a row) and the matrices it moves.
extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_matrix(void *userdata, uint64_t pc, uint32_t address,
                  uint32_t accessSize, uint32_t flags, uint32_t count,
                  const void *pNewValue)
{
    (void)pNewValue;
    return record(userdata, pc, address, accessSize,
                  flags | MP_CAPTURE_SHARED | MP_CAPTURE_MATRIX
                      | ((count & 0x7u) << MP_CAPTURE_MATRICES_SHIFT));
}

extern "C" __device__ __noinline__ SanitizerPatchResult
mp_capture_shared(void *userdata, uint64_t pc, void *ptr, uint32_t size,
                  uint32_t flags, const void *data)
{
    (void)data;
    return record(userdata, pc, (uint64_t)(uintptr_t)ptr, size,
                  flags | MP_CAPTURE_SHARED);
}
