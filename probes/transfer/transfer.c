/*
 * transfer.c - the transfer probe: copies between host and device, within
 * a device and between two devices, against the ceiling of the link they
 * cross. Parameters, checks, prediction, buffers, verification and derived
 * columns; the copy kernel (method=kernel) is in transfer.cu, the link
 * model in probes/transfer/link_model.c, the driver's link facts in
 * runtime/nvml_link.c.
 *
 * One launch is one copy of `bytes` (bidir: one each way at once, on two
 * streams; the bandwidth counts both): cudaMemcpyAsync (cudaMemcpyPeerAsync
 * for p2p) on the copy engines, or the copy kernel reading and writing
 * across the link. Host memory is pinned (cudaMallocHost), pageable
 * (malloc: the driver stages it through its own pinned buffers), mapped
 * (cudaHostAlloc mapped: the kernel reads it over PCIe, zero-copy) or
 * managed (cudaMallocManaged: pages migrate on demand, or ahead with
 * prefetch on). Before every launch (outside timing) managed buffers are
 * moved back to the host, so every launch pays the migration it measures.
 * p2p with --peer-access off copies without peer access: the driver stages
 * the data through host memory.
 *
 * Every copy is verified: the source holds a pattern of 64-bit words, the
 * destination is read back on the host and compared word by word, then
 * cleared, so the next launch must write it again.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "link_model.h"
#include "nvml_link.h"
#include "probe.h"
#include "transfer.h"
#include "metric_sets.h"

enum { P_DIRECTION, P_HOST_MEMORY, P_BYTES, P_METHOD, P_SRC, P_DST,
       P_PEER_ACCESS, P_PREFETCH, P_BLOCKS, P_COUNT };

enum { D_H2D, D_D2H, D_BIDIR, D_D2D, D_P2P, D_P2P_BIDIR };
enum { H_PINNED, H_PAGEABLE, H_MAPPED, H_MANAGED };
enum { M_MEMCPY, M_KERNEL };

static const char *const direction_names[] = {"h2d", "d2h", "bidir", "d2d",
                                              "p2p", "p2p-bidir", NULL};
static const char *const host_names[] = {"pinned", "pageable", "mapped",
                                         "managed", NULL};
static const char *const method_names[] = {"memcpy", "kernel", NULL};
static const char *const on_off[] = {"on", "off", NULL};
static const char *const off_on[] = {"off", "on", NULL};

static const mp_param_def transfer_params[P_COUNT] = {
    [P_DIRECTION] = MP_CHOICE_PARAM("direction", D_H2D, direction_names,
        "h2d, d2h, bidir (both at once), d2d, p2p, p2p-bidir"),
    [P_HOST_MEMORY] = MP_CHOICE_PARAM("host-memory", H_PINNED, host_names,
        "host side of h2d/d2h/bidir: pinned, pageable, mapped, managed"),
    [P_BYTES] = MP_INT_PARAM("bytes", 67108864, 16, 8589934592LL,
        "bytes per copy (each way), a multiple of 16"),
    [P_METHOD] = MP_CHOICE_PARAM("method", M_MEMCPY, method_names,
        "memcpy (copy engines) or kernel (SMs load and store across the "
        "link)"),
    [P_SRC] = MP_INT_PARAM("src", 0, 0, 63, "p2p: source GPU"),
    [P_DST] = MP_INT_PARAM("dst", 1, 0, 63, "p2p: destination GPU"),
    [P_PEER_ACCESS] = MP_CHOICE_PARAM("peer-access", 0, on_off,
        "p2p: on (direct), off (staged through the host)"),
    [P_PREFETCH] = MP_CHOICE_PARAM("prefetch", 0, off_on,
        "managed h2d/bidir: cudaMemPrefetchAsync to the GPU first"),
    [P_BLOCKS] = MP_INT_PARAM("blocks", 0, 0, 1048576,
        "method kernel: blocks; 0 = fill the GPU"),
};

static int is_host_dir(long long d)
{
    return d == D_H2D || d == D_D2H || d == D_BIDIR;
}

static int is_p2p(long long d)
{
    return d == D_P2P || d == D_P2P_BIDIR;
}

static int copies(long long d)
{
    return d == D_BIDIR || d == D_P2P_BIDIR ? 2 : 1;
}

static int transfer_check(const long long *v, size_t smem_limit, char *err,
                          size_t errlen)
{
    (void)smem_limit;
    long long d = v[P_DIRECTION];
    const char *dn = direction_names[d];
    if (v[P_BYTES] % 16) {
        snprintf(err, errlen, "--bytes: %lld is not a multiple of 16 (the "
                 "copy kernel moves 16-byte words)", v[P_BYTES]);
        return -1;
    }
    if (!is_host_dir(d) && v[P_HOST_MEMORY] != H_PINNED) {
        snprintf(err, errlen, "--host-memory: %s copies touch no host "
                 "memory (--host-memory is for h2d, d2h and bidir)", dn);
        return -1;
    }
    if (!is_p2p(d) && (v[P_SRC] != 0 || v[P_DST] != 1)) {
        snprintf(err, errlen, "--src/--dst: only for p2p and p2p-bidir (a "
                 "%s copy runs on --device)", dn);
        return -1;
    }
    if (!is_p2p(d) && v[P_PEER_ACCESS] != 0) {
        snprintf(err, errlen, "--peer-access: only for p2p and p2p-bidir");
        return -1;
    }
    if (v[P_PREFETCH]
        && !(v[P_HOST_MEMORY] == H_MANAGED && (d == D_H2D || d == D_BIDIR))) {
        snprintf(err, errlen, "--prefetch: on moves a managed source to the "
                 "GPU first: only with --host-memory managed and h2d or "
                 "bidir");
        return -1;
    }
    if (v[P_METHOD] == M_KERNEL) {
        if (is_host_dir(d) && v[P_HOST_MEMORY] != H_MAPPED
            && v[P_HOST_MEMORY] != H_MANAGED) {
            snprintf(err, errlen, "--method: kernel needs host memory the GPU "
                     "can address (--host-memory mapped or managed), not %s",
                     host_names[v[P_HOST_MEMORY]]);
            return -1;
        }
        if (is_p2p(d) && v[P_PEER_ACCESS] != 0) {
            snprintf(err, errlen, "--method: a kernel reaches the peer's "
                     "memory only with --peer-access on");
            return -1;
        }
    } else if (v[P_BLOCKS] != 0) {
        snprintf(err, errlen, "--blocks: only for --method kernel");
        return -1;
    }
    if (is_p2p(d)) {
        if (v[P_SRC] == v[P_DST]) {
            snprintf(err, errlen, "--src/--dst: both are device %lld; a peer "
                     "copy needs two GPUs (d2d copies within one)", v[P_SRC]);
            return -1;
        }
        int count = mp_device_count();
        if (count >= 0 && count < 2) {
            snprintf(err, errlen, "--direction %s: needs two GPUs, %d "
                     "visible", dn, count);
            return -1;
        }
        long long hi = v[P_SRC] > v[P_DST] ? v[P_SRC] : v[P_DST];
        if (count >= 0 && hi >= count) {
            snprintf(err, errlen, "--%s: device %lld is not visible (%d "
                     "GPUs: 0..%d)", hi == v[P_SRC] ? "src" : "dst", hi,
                     count, count - 1);
            return -1;
        }
    }
    return 0;
}

static void transfer_label(const long long *v, char *buf, size_t len)
{
    long long d = v[P_DIRECTION];
    char where[64];
    if (is_host_dir(d))
        snprintf(where, sizeof where, "%s%s", host_names[v[P_HOST_MEMORY]],
                 v[P_PREFETCH] ? "-pf" : "");
    else if (is_p2p(d))
        snprintf(where, sizeof where, "d%lld-d%lld/peer-%s", v[P_SRC],
                 v[P_DST], on_off[v[P_PEER_ACCESS]]);
    else
        snprintf(where, sizeof where, "device");
    char blocks[32] = "";
    if (v[P_BLOCKS])
        snprintf(blocks, sizeof blocks, "/g%lld", v[P_BLOCKS]);
    snprintf(buf, len, "transfer/%s/%s/%s/b%lld%s", direction_names[d], where,
             method_names[v[P_METHOD]], v[P_BYTES], blocks);
}

/* The H200's link for a configuration, GB/s (all directions counted),
 * for predict without a GPU; the measured rows use the driver's link. */
static double h200_ceiling(const long long *v)
{
    long long d = v[P_DIRECTION];
    double pcie = mp_pcie_gbs(MP_H200_PCIE_GEN, MP_H200_PCIE_WIDTH);
    double c;
    if (is_host_dir(d))
        c = pcie;
    else if (d == D_D2D) {   /* DRAM peak shared by read and write */
        mp_device h200;
        mp_device_default(&h200);
        c = mp_device_dram_peak_gbs(&h200) / 2.0;
    }
    else if (v[P_PEER_ACCESS] == 0)
        c = mp_nvlink_gbs(MP_H200_NVLINK_VERSION, MP_H200_NVLINKS);
    else
        c = pcie;
    return c * copies(d);
}

static void transfer_predict(const long long *v, mp_prediction *out)
{
    double moved = (double)v[P_BYTES] * copies(v[P_DIRECTION]);
    double ceiling = h200_ceiling(v);
    mp_prediction_clear(out);
    mp_prediction_put(out, "bytes_moved", moved);
    mp_prediction_put(out, "h200_ceiling_gbs", ceiling);
    mp_prediction_put(out, "min_time_us", moved / ceiling / 1e3);
}

static void transfer_describe(const long long *v, mp_row *row)
{
    long long d = v[P_DIRECTION];
    mp_row_set(row, MP_COL_PROBE, "transfer");
    mp_row_set(row, MP_COL_DIRECTION, "%s", direction_names[d]);
    if (is_host_dir(d)) {
        mp_row_set(row, MP_COL_HOST_MEMORY, "%s", host_names[v[P_HOST_MEMORY]]);
        if (v[P_HOST_MEMORY] == H_MANAGED)
            mp_row_set(row, MP_COL_PREFETCH, "%s", off_on[v[P_PREFETCH]]);
    }
    if (is_p2p(d)) {
        mp_row_set(row, MP_COL_SRC_DEVICE, "%lld", v[P_SRC]);
        mp_row_set(row, MP_COL_DST_DEVICE, "%lld", v[P_DST]);
        mp_row_set(row, MP_COL_PEER_ACCESS, "%s", on_off[v[P_PEER_ACCESS]]);
    }
    mp_row_set(row, MP_COL_METHOD, "%s", method_names[v[P_METHOD]]);
    mp_row_set(row, MP_COL_BYTES, "%lld", v[P_BYTES]);
    mp_row_set(row, MP_COL_ARRAY_BYTES, "%lld", v[P_BYTES]);
    mp_row_set(row, MP_COL_OP, "copy");
}

/* The copy kernel of one direction is profiled; memcpy rows launch no
 * kernel, and the two directions at once are two kernels per launch, which
 * the collector's one range per launch cannot tell apart (measured on the
 * H200: 16 ranges for 12 launches, counters lost). */
static const char *transfer_unprofiled(const long long *v)
{
    if (v[P_METHOD] != M_KERNEL)
        return "none: no kernel to profile (copies)";
    if (copies(v[P_DIRECTION]) == 2)
        return "none: two copy kernels per launch (one per direction)";
    return NULL;
}

/* ---- GPU side --------------------------------------------------------- */

/* One copy: where it reads and writes. */
typedef struct {
    void *src, *dst;          /* as allocated */
    void *ksrc, *kdst;        /* what the copy kernel addresses */
    int src_kind, dst_kind;   /* -1 device memory, else H_* */
    int src_dev, dst_dev;     /* the GPU of device memory */
    uint64_t seed;
} copy_pair;

typedef struct {
    long long v[P_COUNT];
    int home;                 /* the runner's device */
    int exec;                 /* the device whose streams copy */
    size_t bytes;
    int npairs, blocks;
    int released;             /* release ran: buffers gone, rest kept */
    copy_pair pair[2];
    cudaStream_t stream[2];
    unsigned char *check;     /* pageable: read-back and poison */
    mp_link_info link[2];     /* exec device; for p2p: src and dst */
    double dram_peak_gbs;
} transfer_state;

static uint64_t pattern(uint64_t seed, size_t i)
{
    return seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ULL);
}

static void fill(unsigned char *p, size_t bytes, uint64_t seed)
{
    uint64_t *w = (uint64_t *)p;
    for (size_t i = 0; i < bytes / 8; i++)
        w[i] = pattern(seed, i);
}

/* Zeroes pair p's destination: host pages directly, device memory (a
 * peer's too) by a copy of the cleared check buffer. */
static void clear_dst(transfer_state *s, copy_pair *p)
{
    if (p->dst_kind >= 0) {
        memset(p->dst, 0, s->bytes);
    } else {
        memset(s->check, 0, s->bytes);
        CHECK_CUDA(cudaMemcpy(p->dst, s->check, s->bytes,
                              cudaMemcpyDefault));
    }
}

/* Host memory of kind k; *kptr is what a kernel may address (or NULL). */
static void *host_alloc(int k, size_t bytes, void **kptr)
{
    void *p = NULL;
    *kptr = NULL;
    switch (k) {
    case H_PINNED:
        CHECK_CUDA(cudaMallocHost(&p, bytes));
        break;
    case H_PAGEABLE:
        if (posix_memalign(&p, 4096, bytes))
            p = NULL;
        if (!p) {
            fprintf(stderr, "memprobe: out of memory (%zu bytes of pageable "
                    "host memory)\n", bytes);
            exit(MP_EXIT_FAIL);
        }
        break;
    case H_MAPPED:
        CHECK_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
        CHECK_CUDA(cudaHostGetDevicePointer(kptr, p, 0));
        break;
    default:   /* managed */
        CHECK_CUDA(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
        *kptr = p;
        break;
    }
    return p;
}

static void host_free(int k, void *p)
{
    if (!p)
        return;
    if (k == H_PINNED || k == H_MAPPED)
        CHECK_CUDA(cudaFreeHost(p));
    else if (k == H_PAGEABLE)
        free(p);
    else
        CHECK_CUDA(cudaFree(p));
}

static void *device_alloc(int dev, int back, size_t bytes)
{
    void *p;
    CHECK_CUDA(cudaSetDevice(dev));
    CHECK_CUDA(cudaMalloc(&p, bytes));
    CHECK_CUDA(cudaSetDevice(back));
    return p;
}

static void side_alloc(transfer_state *s, int kind, int dev, void **p,
                       void **k)
{
    if (kind < 0) {
        *p = device_alloc(dev, s->exec, s->bytes);
        *k = *p;
    } else {
        *p = host_alloc(kind, s->bytes, k);
    }
}

/* Peer access from a to b as asked: enabled, or disabled (the copy is
 * then staged through the host by the driver). */
static void set_peer(int a, int b, int on)
{
    CHECK_CUDA(cudaSetDevice(a));
    if (on) {
        int can = 0;
        CHECK_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
        if (!can)
            mp_usage_error("--peer-access on: device %d cannot access "
                           "device %d (cudaDeviceCanAccessPeer is 0)", a, b);
        cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            cudaGetLastError();
        else
            CHECK_CUDA(e);
    } else {
        cudaError_t e = cudaDeviceDisablePeerAccess(b);
        if (e == cudaErrorPeerAccessNotEnabled)
            cudaGetLastError();
        else
            CHECK_CUDA(e);
    }
}

static int transfer_setup(const long long *v, const mp_device *dev,
                          void **out)
{
    transfer_state *s = mp_xcalloc(1, sizeof *s);
    memcpy(s->v, v, sizeof s->v);
    long long d = v[P_DIRECTION];
    int hk = (int)v[P_HOST_MEMORY];
    s->home = dev->ordinal;
    /* Peer copies run on the runner's device when it is one of the pair
     * (its profiler session then sees the copy kernel: a push from the
     * source or a pull by the destination), else on the source. */
    s->exec = dev->ordinal;
    if (is_p2p(d) && v[P_SRC] != dev->ordinal && v[P_DST] != dev->ordinal)
        s->exec = (int)v[P_SRC];
    s->bytes = (size_t)v[P_BYTES];
    s->npairs = copies(d);
    s->dram_peak_gbs = mp_device_dram_peak_gbs(dev);
    if (is_p2p(d)) {
        set_peer((int)v[P_SRC], (int)v[P_DST], v[P_PEER_ACCESS] == 0);
        set_peer((int)v[P_DST], (int)v[P_SRC], v[P_PEER_ACCESS] == 0);
    }
    CHECK_CUDA(cudaSetDevice(s->exec));

    /* Pair 0 goes forward, pair 1 (bidir) the other way at once. */
    copy_pair *a = &s->pair[0], *b = &s->pair[1];
    a->src_dev = a->dst_dev = b->src_dev = b->dst_dev = s->exec;
    a->src_kind = a->dst_kind = b->src_kind = b->dst_kind = -1;
    switch (d) {
    case D_H2D:
        a->src_kind = hk;
        break;
    case D_D2H:
        a->dst_kind = hk;
        break;
    case D_BIDIR:
        a->src_kind = hk;
        b->dst_kind = hk;
        break;
    case D_P2P:
    case D_P2P_BIDIR:
        a->src_dev = b->dst_dev = (int)v[P_SRC];
        a->dst_dev = b->src_dev = (int)v[P_DST];
        break;
    default:
        break;
    }
    for (int i = 0; i < s->npairs; i++) {
        copy_pair *p = &s->pair[i];
        side_alloc(s, p->src_kind, p->src_dev, &p->src, &p->ksrc);
        side_alloc(s, p->dst_kind, p->dst_dev, &p->dst, &p->kdst);
        p->seed = 0x5EED0000ULL + (uint64_t)i * 0x1000193ULL
                  + (uint64_t)s->bytes;
    }
    s->check = mp_xmalloc(s->bytes);
    for (int i = 0; i < s->npairs; i++) {
        copy_pair *p = &s->pair[i];
        if (p->src_kind >= 0) {   /* the CPU writes it: pages on the host */
            fill(p->src, s->bytes, p->seed);
        } else {
            fill(s->check, s->bytes, p->seed);
            CHECK_CUDA(cudaMemcpy(p->src, s->check, s->bytes,
                                  cudaMemcpyDefault));
        }
        /* Cleared (by a copy, which works for a peer's memory too). */
        clear_dst(s, p);
    }
    if (s->npairs == 2)
        for (int i = 0; i < 2; i++)
            CHECK_CUDA(cudaStreamCreate(&s->stream[i]));
    if (v[P_METHOD] == M_KERNEL) {
        if (v[P_BLOCKS] > 0) {
            s->blocks = (int)v[P_BLOCKS];
        } else {
            int per_sm = 0;
            CHECK_CUDA(mp_transfer_occupancy(&per_sm));
            s->blocks = mp_full_wave(dev, per_sm);
        }
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    *out = s;
    return 0;
}

/* Managed buffers back on the host (outside timing), so that every launch
 * migrates what it copies. */
static void transfer_before_launch(void *state)
{
    transfer_state *s = state;
    struct cudaMemLocation host = {.type = cudaMemLocationTypeHost, .id = 0};
    int any = 0;
    for (int i = 0; i < s->npairs; i++) {
        copy_pair *p = &s->pair[i];
        if (p->src_kind == H_MANAGED)
            CHECK_CUDA(cudaMemPrefetchAsync(p->src, s->bytes, host, 0, 0)),
                any = 1;
        if (p->dst_kind == H_MANAGED)
            CHECK_CUDA(cudaMemPrefetchAsync(p->dst, s->bytes, host, 0, 0)),
                any = 1;
    }
    if (any)
        CHECK_CUDA(cudaStreamSynchronize(0));
}

static void issue(transfer_state *s, copy_pair *p, cudaStream_t st)
{
    if (s->v[P_PREFETCH] && p->src_kind == H_MANAGED) {
        struct cudaMemLocation gpu = {.type = cudaMemLocationTypeDevice,
                                      .id = s->exec};
        CHECK_CUDA(cudaMemPrefetchAsync(p->src, s->bytes, gpu, 0, st));
    }
    if (s->v[P_METHOD] == M_KERNEL)
        CHECK_CUDA(mp_transfer_copy_kernel(p->kdst, p->ksrc, s->bytes,
                                           s->blocks, st));
    else if (is_p2p(s->v[P_DIRECTION]))
        CHECK_CUDA(cudaMemcpyPeerAsync(p->dst, p->dst_dev, p->src,
                                       p->src_dev, s->bytes, st));
    else
        CHECK_CUDA(cudaMemcpyAsync(p->dst, p->src, s->bytes,
                                   cudaMemcpyDefault, st));
}

/* Managed buffers go back to the host before every launch
 * (transfer_before_launch: one launch per timed sample) and may fault and
 * migrate; copies from or to pageable memory wait for the GPU (the driver
 * stages them through its own pinned buffer): neither is held
 * (runtime/hold.h). Device, pinned and mapped memory need no preparation
 * and are queued without waiting: samples of several launches, held. */
static unsigned transfer_launch_traits(const void *state)
{
    const transfer_state *s = state;
    unsigned t = 0;
    for (int i = 0; i < s->npairs; i++) {
        const copy_pair *p = &s->pair[i];
        if (p->src_kind == H_MANAGED || p->dst_kind == H_MANAGED)
            t |= MP_LAUNCH_PREPARED | MP_LAUNCH_WAITS;
        if (p->src_kind == H_PAGEABLE || p->dst_kind == H_PAGEABLE)
            t |= MP_LAUNCH_WAITS;
    }
    return t;
}

/* On the legacy default stream, or (bidir) on two blocking streams, which
 * the default stream's events before and after wait for. */
static void transfer_launch(void *state)
{
    transfer_state *s = state;
    if (s->npairs == 1) {
        issue(s, &s->pair[0], 0);
        return;
    }
    for (int i = 0; i < 2; i++)
        issue(s, &s->pair[i], s->stream[i]);
}

static int transfer_verify(void *state, char *err, size_t errlen)
{
    transfer_state *s = state;
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < s->npairs; i++) {
        copy_pair *p = &s->pair[i];
        const unsigned char *got = p->dst;
        if (p->dst_kind < 0) {
            CHECK_CUDA(cudaMemcpy(s->check, p->dst, s->bytes,
                                  cudaMemcpyDefault));
            got = s->check;
        }
        const uint64_t *w = (const uint64_t *)got;
        for (size_t k = 0; k < s->bytes / 8; k++) {
            if (w[k] != pattern(p->seed, k)) {
                snprintf(err, errlen, "copy %d: byte %zu of %zu holds "
                         "%016llx, the source wrote %016llx", i, k * 8,
                         s->bytes, (unsigned long long)w[k],
                         (unsigned long long)pattern(p->seed, k));
                return -1;
            }
        }
        /* Cleared, so the next launch must write it again. */
        clear_dst(s, p);
    }
    return 0;
}

/* The links, read right after the timed copies: an idle PCIe link may
 * report a lower generation. */
static void transfer_after_timing(void *state)
{
    transfer_state *s = state;
    if (is_p2p(s->v[P_DIRECTION])) {
        mp_link_query_device((int)s->v[P_SRC], &s->link[0]);
        mp_link_query_device((int)s->v[P_DST], &s->link[1]);
    } else {
        mp_link_query_device(s->exec, &s->link[0]);
    }
}

/* The link a configuration crosses and its ceiling in GB/s per copy
 * direction (0: unknown, with the reason in `link`). */
static double link_ceiling(const transfer_state *s, char *link, size_t len)
{
    long long d = s->v[P_DIRECTION];
    const mp_link_info *a = &s->link[0], *b = &s->link[1];
    if (d == D_D2D) {
        snprintf(link, len, "device memory (DRAM peak / 2: read + write)");
        return s->dram_peak_gbs / 2;
    }
    if (!a->ok || (is_p2p(d) && !b->ok)) {
        snprintf(link, len, "unknown: %s", a->ok ? b->why : a->why);
        return 0;
    }
    if (is_p2p(d) && s->v[P_PEER_ACCESS] == 0 && a->nvlinks > 0
        && b->nvlinks > 0) {
        int links = a->nvlinks < b->nvlinks ? a->nvlinks : b->nvlinks;
        double g = mp_nvlink_gbs(a->nvlink_version, links);
        if (g > 0) {
            snprintf(link, len, "nvlink %s x%d", mp_nvlink_name(
                     a->nvlink_version), links);
            return g;
        }
    }
    /* PCIe: the GPU's link (the slower of two for peers). */
    const mp_link_info *slow = a;
    if (is_p2p(d) && mp_pcie_gbs(b->pcie_gen, b->pcie_width)
                         < mp_pcie_gbs(a->pcie_gen, a->pcie_width))
        slow = b;
    snprintf(link, len, "pcie gen%d x%d%s (max gen%d x%d)", slow->pcie_gen,
             slow->pcie_width,
             is_p2p(d) ? (s->v[P_PEER_ACCESS] ? ", staged through the host"
                                              : ", peer over pcie") : "",
             slow->pcie_max_gen, slow->pcie_max_width);
    return mp_pcie_gbs(slow->pcie_gen, slow->pcie_width);
}

static void transfer_derive(void *state, const mp_device *dev,
                            const mp_measurement *m, mp_row *row)
{
    (void)dev;
    transfer_state *s = state;
    if (s->v[P_METHOD] == M_KERNEL) {
        mp_row_set(row, MP_COL_THREADS, "%d", MP_TRANSFER_THREADS);
        mp_row_set(row, MP_COL_BLOCKS, "%d", s->blocks);
        /* Warp-level loads of the copy kernels (one a warp for every 32
         * consecutive 16-byte words: the grid's stride is a multiple of
         * 32), which request-scaled tolerances need: H200, 2048 LDG for
         * 1 MiB. */
        unsigned long long words = (unsigned long long)s->bytes / 16;
        mp_row_set(row, MP_COL_REQUESTS, "%llu",
                   (words + 31) / 32 * (unsigned long long)s->npairs);
    }
    char link[256];
    double per_dir = link_ceiling(s, link, sizeof link);
    if (is_p2p(s->v[P_DIRECTION]) && s->v[P_METHOD] == M_KERNEL) {
        size_t n = strlen(link);
        snprintf(link + n, sizeof link - n, ", kernel on GPU %d (%s)",
                 s->exec, s->exec == s->v[P_SRC] ? "push" : "pull");
    }
    mp_row_set(row, MP_COL_LINK, "%s", link);
    double ceiling = per_dir * s->npairs;
    if (ceiling > 0)
        mp_row_set(row, MP_COL_CEILING_GBS, "%.1f", ceiling);
    if (m->time_ns.n == 0)
        return;
    double gbs = (double)s->bytes * s->npairs / m->time_ns.median;
    mp_row_set(row, MP_COL_BANDWIDTH_GBS, "%.3f", gbs);
    mp_row_set(row, MP_COL_LATENCY_US, "%.3f", m->time_ns.median / 1e3);
    if (ceiling > 0)
        mp_row_set(row, MP_COL_BANDWIDTH_FRACTION, "%.4f", gbs / ceiling);
}

static void transfer_release(void *state)
{
    transfer_state *s = state;
    if (s->released)   /* mp_probe_teardown calls release again */
        return;
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < s->npairs; i++) {
        copy_pair *p = &s->pair[i];
        if (p->src_kind < 0)
            CHECK_CUDA(cudaFree(p->src));
        else
            host_free(p->src_kind, p->src);
        if (p->dst_kind < 0)
            CHECK_CUDA(cudaFree(p->dst));
        else
            host_free(p->dst_kind, p->dst);
        p->src = p->dst = p->ksrc = p->kdst = NULL;
    }
    for (int i = 0; i < 2; i++)
        if (s->stream[i]) {
            CHECK_CUDA(cudaStreamDestroy(s->stream[i]));
            s->stream[i] = NULL;
        }
    s->released = 1;
    free(s->check);
    s->check = NULL;
    CHECK_CUDA(cudaSetDevice(s->home));
}

/* The console table (runtime/console.h): the bandwidth against the link's
 * ceiling and the time of one copy. */
static const mp_console_col console[] = {
    {"GB/s", MP_COL_BANDWIDTH_GBS, 9},
    {"ceiling", MP_COL_CEILING_GBS, 8},
    {"of ceil", MP_COL_BANDWIDTH_FRACTION, 7},
    {"us/copy", MP_COL_LATENCY_US, 9},
};

const mp_probe mp_probe_transfer = {
    MP_PROBE_BASE(transfer, transfer),
    .metrics = MP_SET_GLOBAL,
    .unprofiled = transfer_unprofiled,
    .before_launch = transfer_before_launch,
    .launch_traits = transfer_launch_traits,
    .after_timing = transfer_after_timing,
};
