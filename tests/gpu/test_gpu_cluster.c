/*
 * test_gpu_cluster.c - GPU tests of the distributed-shared-memory probe
 * (sm_90; run by `make test-gpu` or scripts/gpu-check.sh async).
 *
 * Runs the chase (local and remote, clusters of 2, 4, 8, 16) and the
 * bandwidth sweep (ld and st, 4 and 16 bytes, clusters of 2 and 8) with
 * memprobe's collector. Every row must be verified on the CPU (the chase's
 * final offset, each thread's load sum, every stored word and who stored
 * it), have its counters, and: remote accesses are distributed-shared
 * requests, one per warp-level access of the probe; local ones none.
 * Then the evidence tables ("# " lines) and two claims: a remote load's
 * latency exceeds a local one's, and the largest cluster of big blocks
 * is either measured or refused with exit 2, never a failed launch.
 *
 * Total GPU time: about 5-10 s.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_util.h"
#include "subprocess.h"

enum { CHASE, BANDWIDTH, NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];
static int status[NSWEEPS];

static void check_row(const mp_csv_table *t, int i)
{
    const char *config = gpu_cell(t, i, "config");
    int remote = !strcmp(gpu_cell(t, i, "method"), "remote");
    int st = !strcmp(gpu_cell(t, i, "op"), "st");
    double requests = gpu_number(t, i, "requests");
    double dsm = gpu_number(t, i, st
        ? "l1tex__t_requests_pipe_lsu_mem_dshared_op_st.sum"
        : "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum");
    if (remote && dsm != requests)
        fail_msg("%s: %.0f distributed-shared requests for %.0f probe "
                 "accesses", config, dsm, requests);
    if (!remote && dsm != 0)
        fail_msg("%s: %.0f distributed-shared requests in a local run",
                 config, dsm);
    assert_string_equal(gpu_cell(t, i, "model_match"), "yes");
}

static const gpu_col chase_cols[] = {
    GPU_COL("config", "%-48s", "config"),
    GPU_COL("cycles/hop", "%10.2f", "latency_cycles"),
    GPU_COL("ns", "%10.1f", "time_ns_median"),
    GPU_COL_END,
};

static const gpu_col bw_cols[] = {
    GPU_COL("config", "%-48s", "config"),
    GPU_COL("GB/s", "%9.1f", "bandwidth_gbs"),
    GPU_COL("of smem", "%8.4f", "bandwidth_fraction"),
    GPU_COL_FLAGS("dsm B/req", "%9.1f",
                  "l1tex__t_bytes_pipe_lsu_mem_dshared_op_ld.sum",
                  GPU_COL_PER_REQUEST),
    GPU_COL_FLAGS("dsm st B/req", "%12.1f",
                  "l1tex__t_bytes_pipe_lsu_mem_dshared_op_st.sum",
                  GPU_COL_PER_REQUEST),
    GPU_COL_END,
};

/* Remote shared memory is further away than the block's own: the chase
 * through the next block's buffer takes more cycles per hop than through
 * its own, at every cluster size. */
static void test_claim_remote_slower(void **state)
{
    (void)state;
    const mp_csv_table *t = &sweeps[CHASE];
    printf("# pointer chase, one thread, 4000 hops of 128 bytes\n");
    gpu_print_table(chase_cols, t);
    printf("# loads and stores, GPU full of clusters\n");
    gpu_print_table(bw_cols, &sweeps[BANDWIDTH]);
    static const int sizes[] = {2, 4, 8, 16};
    char name[128];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name,
                 "cluster/local/chase/c%d/w4/t16384/sp128/n32/i4000",
                 sizes[k]);
        double local = gpu_number(t, gpu_find_row(t, name), "latency_cycles");
        snprintf(name, sizeof name,
                 "cluster/remote/chase/c%d/w4/t16384/sp128/n32/i4000",
                 sizes[k]);
        double remote = gpu_number(t, gpu_find_row(t, name),
                                   "latency_cycles");
        printf("# cluster %2d: local %.1f, remote %.1f cycles per hop\n",
               sizes[k], local, remote);
        assert_true(remote > local);
    }
}

/* The largest cluster with blocks that each take 200 KiB of shared
 * memory (one block per SM): 16 SMs of one GPC. memprobe either measures
 * it (exit 0, the H200's GPCs may hold 16 such blocks) or refuses it with
 * exit 2 and one line naming --cluster (cudaOccupancyMaxActiveClusters
 * said 0), never a failed launch (exit 5). */
static void test_largest_cluster(void **state)
{
    (void)state;
    char path[1024], log[1024];
    snprintf(path, sizeof path, "%s/cluster-largest.csv", gpu_test_dir());
    snprintf(log, sizeof log, "%s/cluster-largest.log", gpu_test_dir());
    char *argv[] = {(char *)gpu_memprobe(), "cluster", "--op", "ld",
                    "--cluster", "16", "--tile", "204800", "--iterations",
                    "64", "--runs", "1", "-o", path, NULL};
    int rc = mp_spawn_wait(argv, log);
    printf("# --cluster 16 --tile 204800: exit %d (log %s)\n", rc, log);
    assert_true(rc == 0 || rc == 2);
}

int main(void)
{
    static const gpu_sweep defs[NSWEEPS] = {
        [CHASE] = {"cluster-chase",
                   "--target local,remote --op chase --cluster 2,4,8,16 "
                   "--threads 32 --iterations 4000 --warmup 1 --runs 5"},
        [BANDWIDTH] = {"cluster-bandwidth",
                       "--target local,remote --op ld,st --cluster 2,8 "
                       "--width 4,16 --iterations 4096 --warmup 1 --runs 5"},
    };
    static const struct CMUnitTest after[] = {
        GPU_TEST("claim_remote_latency_above_local", test_claim_remote_slower),
        GPU_TEST("largest_cluster_measured_or_refused", test_largest_cluster),
    };
    gpu_run_sweeps("cluster", defs, NSWEEPS, sweeps, status);
    return gpu_run_row_tests("gpu_cluster", sweeps, NSWEEPS, check_row, NULL,
                             0, after, sizeof after / sizeof after[0]);
}
