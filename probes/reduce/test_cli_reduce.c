/*
 * test_cli_reduce.c - CPU tests of the reduction probe's command line: the
 * built memprobe binary (env MEMPROBE, default ./memprobe, run without a
 * shell in a temporary working directory): help and list, `memprobe
 * predict reduce` against hand-derived values, every kind of bad input
 * (exit 2, one stderr line naming the parameter, before any GPU work),
 * and the no-GPU contract.
 *
 * Hand-derived predictions use the rules of probes/reduce/test_reduce.c: one
 * request per warp with a lane in the access, wavefronts = the busiest
 * bank's distinct words; the block totals derived there.
 */
#include "cli_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- table 1: commands that work: exit 0, stdout contains each ------ */

static const cli_ok_case good_cases[] = {
    {{"reduce", "--help"}, {"usage: memprobe reduce", "--variant",
                            "tree-interleaved", "warp-shuffle"}},
    {{"predict", "reduce", "--help"}, {"usage: memprobe predict reduce",
                                       "--workload", "--format"}},
    {{"list"}, {"reduce", "host-partials|thread0-serial", "cubes|dot",
                "1..1073741824"}},
    {{"help"}, {"reduce"}},
    {{"predict", "reduce"}, {"ld_requests_per_block", "conflict_ways"}},
    /* Every variant and workload, a sweep of sizes that are no multiple of
     * the block, the extreme sizes and shapes. */
    {{"predict", "reduce", "--variant",
      "host-partials,thread0-serial,tree-interleaved,tree-strided,"
      "tree-sequential,warp-shuffle,atomic", "--workload", "cubes,dot",
      "--size", "1,255,256,257,1000003"}, {"atomic", "dot"}},
    {{"predict", "reduce", "--size", "1073741824", "--threads", "1024",
      "--blocks", "65535"}, {"tree-sequential"}},
    {{"predict", "reduce", "--variant", "warp-shuffle", "--threads", "96"},
     {"warp-shuffle"}},
    {{"predict", "reduce", "--variant=thread0-serial", "--threads=32..1024:32"},
     {"thread0-serial"}},
};

/* ---- table 2: bad input: exit 2, one stderr line naming it ---------- */

static const cli_bad_case bad_cases[] = {
    {{"reduce", "--variant", "tree"}, "--variant"},
    {{"reduce", "--variant", "tree-sequential,bogus"}, "--variant"},
    {{"reduce", "--variant", ""}, "--variant"},
    {{"reduce", "--workload", "float"}, "--workload"},
    {{"reduce", "--size", "0"}, "--size"},
    {{"reduce", "--size", "-1"}, "--size"},
    {{"reduce", "--size", "1073741825"}, "--size"},          /* 2^30 + 1 */
    {{"reduce", "--size", "99999999999999999999"}, "--size"},
    {{"reduce", "--size", "1m"}, "--size"},
    {{"reduce", "--size", "0..10"}, "--size"},
    /* Trees need a power of two; every variant a multiple of 32. */
    {{"reduce", "--threads", "96"}, "--threads"},
    {{"reduce", "--variant", "tree-interleaved", "--threads", "160"},
     "--threads"},
    {{"reduce", "--variant", "tree-strided", "--threads", "32,96"},
     "--threads"},
    {{"reduce", "--variant", "warp-shuffle,tree-sequential", "--threads",
      "96"}, "--threads"},
    {{"reduce", "--variant", "warp-shuffle", "--threads", "48"}, "--threads"},
    {{"reduce", "--variant", "host-partials", "--threads", "100"},
     "--threads"},
    {{"reduce", "--threads", "16"}, "--threads"},
    {{"reduce", "--threads", "2048"}, "--threads"},
    {{"reduce", "--blocks", "-1"}, "--blocks"},
    {{"reduce", "--blocks", "65536"}, "--blocks"},
    /* A float dot product whose rounding bound proves nothing. */
    {{"reduce", "--workload", "dot", "--size", "1073741824", "--blocks",
      "1", "--threads", "32"}, "--size"},
    {{"reduce", "--workload", "dot", "--variant", "atomic", "--size",
      "1073741824", "--blocks", "4", "--threads", "1024"}, "--size"},
    {{"reduce", "--stride", "4"}, "--stride"},              /* bank's */
    {{"reduce", "--iterations", "4"}, "--iterations"},
    {{"reduce", "--variant"}, "--variant"},
    {{"reduce", "--size", "5", "--size", "6"}, "--size"},
    {{"reduce", "stray"}, "stray"},
    {{"predict", "reduce", "--size", "0"}, "--size"},
    {{"predict", "reduce", "--threads", "96"}, "--threads"},
    {{"predict", "reduce", "--runs", "5"}, "--runs"},
};

/* ---- predict --format csv against hand-derived values ---------------- */

typedef struct {
    const char *variant, *workload, *size, *threads;
    double elements, bytes, ld_req, wpr, ideal, ways, st_req, st_wpr;
} predict_case;

static const predict_case predict_cases[] = {
    /* Default size of cubes: the seed's 1048576 ints = 4 MiB. Tree-
     * sequential, 256 threads: 25 loads and 20 stores, conflict-free. */
    {"tree-sequential", "cubes", NULL, "256",
     1048576, 4194304, 25, 1, 1, 1, 20, 1},
    /* Default size of dot: 33 x 1024 = 33792, two float arrays. Tree-
     * strided: 95 load wavefronts over 25 requests (3.8-way), stores 55
     * over 20. */
    {"tree-strided", "dot", NULL, "256",
     33792, 270336, 25, 3.8, 1, 3.8, 20, 2.75},
    /* tree-interleaved: 95 loads, 55 stores, all 1 wavefront. */
    {"tree-interleaved", "cubes", "257", "256",
     257, 1028, 95, 1, 1, 1, 55, 1},
    /* thread0-serial, 32 threads: loads 2 x 31 + 1, stores 1 + 31. */
    {"thread0-serial", "dot", "1000003", "32",
     1000003, 8000024, 63, 1, 1, 1, 32, 1},
    /* warp-shuffle, 1024 threads: one 32-lane load, 32 leader stores. */
    {"warp-shuffle", "cubes", "1", "1024",
     1, 4, 1, 1, 1, 1, 32, 1},
    /* host-partials: no shared memory (per-request values 0). */
    {"host-partials", "dot", "255", "256",
     255, 2040, 0, 0, 0, 0, 0, 0},
    /* tree-strided with 32 threads: every step inside one 32-word row,
     * conflict-free: 11 loads, 6 stores. */
    {"tree-strided", "cubes", "256", "32",
     256, 1024, 11, 1, 1, 1, 6, 1},
};

static void assert_close(const char *what, double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
        fail_msg("%s: predict printed %.10g, want %.10g", what, got, want);
}

static void check_predict(const predict_case *pc)
{
    const char *args[16];
    int n = 0;
    args[n++] = "predict";
    args[n++] = "reduce";
    args[n++] = "--variant";
    args[n++] = pc->variant;
    args[n++] = "--workload";
    args[n++] = pc->workload;
    if (pc->size) {
        args[n++] = "--size";
        args[n++] = pc->size;
    }
    args[n++] = "--threads";
    args[n++] = pc->threads;
    args[n++] = "--format";
    args[n++] = "csv";
    args[n] = NULL;
    cli_csv_row c;
    cli_predict_row(args, "reduce", &c);
    print_message("# %s %s size %s threads %s\n", pc->variant, pc->workload,
                  pc->size ? pc->size : "default", pc->threads);
    assert_string_equal(cli_csv_text(&c, "variant"), pc->variant);
    assert_string_equal(cli_csv_text(&c, "workload"), pc->workload);
    assert_close("elements", cli_csv_number(&c, "elements"), pc->elements);
    assert_close("bytes_read", cli_csv_number(&c, "bytes_read"), pc->bytes);
    assert_close("ld_requests_per_block",
                 cli_csv_number(&c, "ld_requests_per_block"), pc->ld_req);
    assert_close("wavefronts_per_request",
                 cli_csv_number(&c, "wavefronts_per_request"), pc->wpr);
    assert_close("ideal_wavefronts_per_request",
                 cli_csv_number(&c, "ideal_wavefronts_per_request"),
                 pc->ideal);
    assert_close("conflict_ways", cli_csv_number(&c, "conflict_ways"),
                 pc->ways);
    assert_close("st_requests_per_block",
                 cli_csv_number(&c, "st_requests_per_block"), pc->st_req);
    assert_close("st_wavefronts_per_request",
                 cli_csv_number(&c, "st_wavefronts_per_request"), pc->st_wpr);
    cli_result_free(&c.r);
}

static void test_predict_csv(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof predict_cases / sizeof predict_cases[0];
         i++)
        check_predict(&predict_cases[i]);
}

/* A sweep: one row per configuration, header once, variants slowest. */
static void test_predict_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "reduce", "--variant",
                          "tree-sequential,tree-strided", "--workload",
                          "cubes,dot", "--format", "csv", NULL};
    cli_run_expect(args, 1 + 4,
                   /* The size column shows the parameter (0: the seed's
                    * size); elements the size used. */
                   "\r\nreduce,tree-strided,dot,0,33792,270336,25,3.8,1,"
                   "3.8,20,2.75\r\n",
                   "\r\nreduce,tree-sequential,cubes,0,1048576,4194304,25,"
                   "1,1,1,20,1\r\n",
                   NULL);
}

/* ---- no GPU ------------------------------------------------------------ */

static void test_no_gpu_measure(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *args[] = {"reduce", "--variant", "atomic,host-partials",
                          "--workload", "dot", "-o", "r.csv", NULL};
    const char *predict[] = {"predict", "reduce", "--variant",
                             "atomic,host-partials", "--workload", "dot",
                             NULL};
    cli_expect_no_gpu(args, "ld_requests_per_block", predict);
    assert_false(cli_path_exists("r.csv"));
    assert_false(cli_path_exists("results"));
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_csv),
        cmocka_unit_test(test_predict_sweep),
        cmocka_unit_test(test_no_gpu_measure),
    };
    return CLI_RUN_ALL("cli_reduce", good_cases, bad_cases, fixed);
}
