/*
 * cluster.h - the C side of the distributed-shared-memory probe's CUDA
 * launcher (thread-block clusters, sm_90).
 *
 * Kernels live in cluster.cu; parameters, checks, prediction and
 * verification are plain C in cluster.c.
 */
#ifndef MP_PROBES_CLUSTER_H
#define MP_PROBES_CLUSTER_H

#include "hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the probe does with the shared buffer of the target block. */
enum { MP_CLUSTER_CHASE, MP_CLUSTER_LD, MP_CLUSTER_ST };

typedef struct {
    int op;                    /* MP_CLUSTER_* */
    int remote;                /* 1: the next block of the cluster's
                                  buffer (mapa + ld/st.shared::cluster);
                                  0: the block's own (ld/st.shared) */
    int width;                 /* ld/st: bytes per lane, 4, 8, 16 */
    int cluster;               /* blocks per cluster, 1..16 */
    int tile_bytes;            /* each block's shared buffer */
    int stride;                /* chase: bytes per hop */
    int iterations;
    int threads, blocks;
    unsigned *out;             /* device: ld: one sum per thread; chase:
                                  2 words per block (final offset, cycles);
                                  st: each block's buffer after the stores */
    long long *clocks;         /* device: 2 x blocks clock64 stamps */
} mp_cluster_launch;

/* The value of word w of the buffer of cluster rank q before the launch
 * changes anything (ld), and the value thread t of rank r stores in
 * iteration i (st). Shared with the kernels. */
static inline MP_HD unsigned mp_cluster_word(unsigned q, unsigned w)
{
    return (q * 40503u + w) * 2654435761u + 12345u;
}
static inline MP_HD unsigned mp_cluster_stored(unsigned r, unsigned t,
                                               unsigned i)
{
    return ((r << 24) ^ (t << 12) ^ i) * 2246822519u + 1u;
}

/* Clusters of this configuration that can be resident at once on the
 * device (cudaOccupancyMaxActiveClusters); 0 when none can launch.
 * cudaError_t. */
int mp_cluster_max_active(const mp_cluster_launch *l, int *clusters);
/* Launches the kernel once on the default stream (cudaLaunchKernelEx with
 * the cluster dimension). cudaError_t. */
int mp_cluster_launch_kernel(const mp_cluster_launch *l);

#ifdef __cplusplus
}
#endif

#endif
