/*
 * test_cluster.c - CPU tests of the distributed-shared-memory probe
 * (probes/cluster/cluster.c): `memprobe predict cluster` and its refusals.
 *
 * Hand-derived predictions:
 *   - chase, tile 16384, stride 128: 128 hops around the ring; after 4000
 *     hops the chase stands at hop 4000 mod 128 = 32, byte 4096; 4000
 *     requests (one per hop) of 4 bytes = 16000 bytes, all remote;
 *   - ld of 16 bytes by 256 threads, 100 iterations: 8 warps x 100 = 800
 *     requests, 256 x 16 x 100 = 409600 bytes, 4 wavefronts (512
 *     contiguous bytes per warp); local: no remote bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_util.h"

static const cli_ok_case ok[] = {
    {{"predict", "cluster", "--op", "chase", "--iterations", "4000",
      "--format", "csv", NULL},
     {"cluster,remote,chase,2,4,16384,128,4000,16000,16000,1,4096", NULL}},
    {{"predict", "cluster", "--op", "ld", "--width", "16", "--iterations",
      "100", "--format", "csv", NULL},
     {"cluster,remote,ld,2,16,16384,128,800,409600,409600,4,0", NULL}},
    {{"predict", "cluster", "--target", "local", "--op", "st", "--cluster",
      "1", "--iterations", "100", "--format", "csv", NULL},
     {"cluster,local,st,1,4,16384,128,800,102400,0,1,0", NULL}},
    {{"predict", "cluster", "--cluster", "16", "--op", "ld", "--format",
      "csv", NULL}, {"cluster,remote,ld,16,", NULL}},
};

static const cli_bad_case bad[] = {
    {{"predict", "cluster", "--cluster", "1", NULL}, "--cluster"},
    {{"predict", "cluster", "--cluster", "17", NULL}, "--cluster"},
    {{"predict", "cluster", "--op", "chase", "--width", "8", NULL},
     "--width"},
    {{"predict", "cluster", "--op", "chase", "--stride", "100", NULL},
     "--stride"},
    {{"predict", "cluster", "--op", "ld", "--tile", "1024", NULL}, "--tile"},
    {{"predict", "cluster", "--blocks", "3", NULL}, "--blocks"},
    {{"predict", "cluster", "--target", "peer", NULL}, "--target"},
    {{"predict", "cluster", "--threads", "100", NULL}, "--threads"},
    {{"cluster", "--tile", "300000", NULL}, "--tile"},
};

int main(void)
{
    return cli_run_group("cluster", ok, CLI_COUNT(ok), bad, CLI_COUNT(bad),
                         NULL, 0);
}
