/*
 * test_study_async.c - the study's section on async copies and clusters
 * (probes/async/async_study.c) and the report tables "async" and "cluster"
 * (probes/async/async_tables.c), from hand-made CSVs: the fastest row of each
 * method per group, the wavefront agreement, local vs remote latency
 * (200 / 30 = 6.7x) and bandwidth (5000 / 20000 = 0.25); and without
 * CSVs, the lines saying nothing is committed yet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

static void write_csvs(void)
{
    /* A results directory as results/h200 is laid out: one folder per
     * probe family. */
    mkdir("res", 0777);
    mkdir("res/async", 0777);
    mkdir("res/cluster", 0777);
    cli_write_file("res/async/async.csv",
        "device_name,probe,config,method,width_bytes,cache,swizzle,"
        "tile_bytes,array_bytes,passes,bandwidth_gbs,bandwidth_fraction,"
        "verified,wavefronts_per_request,model_wavefronts_per_request,"
        "model_match\n"
        "NVIDIA H200,async,a1,staged,16,ca,none,16384,268435456,1,3000.0,"
        "0.6250,yes,4.1000,4,yes\n"
        "NVIDIA H200,async,a2,cpasync,16,ca,none,16384,268435456,1,4000.0,"
        "0.8333,yes,4.0000,4,yes\n"
        "NVIDIA H200,async,a4,cpasync,4,ca,none,16384,268435456,1,3500.0,"
        "0.7292,yes,1.0000,1,yes\n"
        "NVIDIA H200,async,a3,tensor,16,ca,128,16384,16777216,32,9000.0,"
        "1.8750,yes,0.0000,0,yes\n");
    cli_write_file("res/cluster/cluster.csv",
        "device_name,probe,config,method,op,width_bytes,cluster_size,"
        "latency_cycles,bandwidth_gbs,verified,model_match\n"
        "NVIDIA H200,cluster,c1,local,chase,4,2,30.0,,yes,yes\n"
        "NVIDIA H200,cluster,c2,remote,chase,4,2,200.0,,yes,yes\n"
        "NVIDIA H200,cluster,c3,local,ld,4,2,,20000,yes,yes\n"
        "NVIDIA H200,cluster,c4,remote,ld,4,2,,5000,yes,no\n");
}

/* `memprobe report --study md --results results` (exit 0), then md's
 * text (free it). */
static char *study(const char *md, const char *results)
{
    const char *args[] = {"report", "--study", md, "--results", results,
                          NULL};
    cli_result r;
    cli_run_ok(args, &r);
    cli_result_free(&r);
    size_t len;
    return cli_read_file(md, &len);
}

static void test_section_from_csvs(void **state)
{
    (void)state;
    write_csvs();
    char *md = study("s.md", "res");
    cli_must_contain("study", md, "staged 3000 GB/s (62.5% of DRAM peak); "
                     "cpasync 4000 GB/s (83.3% of DRAM peak); bulk not "
                     "measured; tensor not measured.");
    cli_must_contain("study", md, "tensor 9000 GB/s (187.5% of DRAM peak)");
    cli_must_contain("study", md, "4 of 4 configurations match the model");
    cli_must_contain("study", md, "largest distance from it 0.100");
    cli_must_contain("study", md, "30.0 cycles per dependent load to the "
                     "block's own shared memory, 200.0 to the next block's "
                     "(6.7x)");
    cli_must_contain("study", md, "best 20000 GB/s local, 5000 GB/s remote "
                     "(0.25 of local)");
    free(md);
}

static void test_section_without_csvs(void **state)
{
    (void)state;
    /* Another family's CSV, so that the study has something to read. */
    mkdir("empty", 0777);
    mkdir("empty/reduce", 0777);
    cli_write_file("empty/reduce/reduce-ladder.csv", "device_name,probe,config\n"
                   "NVIDIA H200,reduce,r1\n");
    char *md = study("e.md", "empty");
    cli_must_contain("study", md, "No H200 measurement of the async copies "
                     "is committed yet");
    cli_must_contain("study", md, "No H200 measurement of distributed "
                     "shared memory is committed yet");
    free(md);
}

/* The tables: rows in the right groups, the mismatching cell marked. */
static void test_tables(void **state)
{
    (void)state;
    write_csvs();
    const char *a[] = {"report", "--table", "async", "res/async/async.csv",
                       NULL};
    cli_run_expect(a, -1,
                   "DRAM",
                   "L2-resident",
                   "0 cells differ from the model",
                   NULL);
    const char *c[] = {"report", "--table", "cluster",
                       "res/cluster/cluster.csv", NULL};
    cli_run_expect(c, -1,
                   "cluster 2",
                   "5000*",
                   "1 cell",
                   NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section_from_csvs),
        cmocka_unit_test(test_section_without_csvs),
        cmocka_unit_test(test_tables),
    };
    return CLI_RUN_TESTS("study_async", tests);
}
