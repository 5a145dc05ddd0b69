/*
 * test_cli_bandwidth.c - CPU tests of the bandwidth probe: its command line
 * (the built memprobe binary, env MEMPROBE, default ./memprobe, run without
 * a shell in a temporary working directory), `memprobe predict bandwidth`,
 * the traffic model (probes/bandwidth/bandwidth.c) and the read kernel's CPU
 * reference, both against a brute-force emulation of the kernel's loop.
 *
 * Hand-derived values use only these rules (bandwidth.h, docs/bandwidth.md):
 *   - N = bytes / width elements; with stride s, pass p (0 <= p < s) has
 *     cnt_p = ceil((N - p) / s) elements p, p + s, ...; element e lives at
 *     byte offset + e * width;
 *   - one warp-level request per group of 32 consecutive elements of a
 *     pass: requests = sum over passes of ceil(cnt_p / 32), times 2 for
 *     copy (loads and stores);
 *   - sectors of a request = distinct 32-byte sectors of its lanes; ideal =
 *     ceil(lanes x width / 32);
 *   - DRAM bytes = 32 x the distinct sectors of each pass, summed over
 *     passes (a pass evicts the one before from L2);
 *   - bytes counted: read = bytes, write = bytes, copy = 2 x bytes.
 */
#include "cli_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"

/* ---- table 1: commands that work: exit 0, stdout contains each ------ */

static const cli_ok_case good_cases[] = {
    {{"bandwidth", "--help"}, {"usage: memprobe bandwidth", "--kernel",
                               "--inflight", "read|write|copy"}},
    {{"predict", "bandwidth", "--help"}, {"usage: memprobe predict bandwidth",
                                          "--bytes", "--format"}},
    {{"list"}, {"bandwidth", "default|cs|na|pf256", "1|2|4|8"}},
    {{"list"}, {"persistent|oneshot", "read|write|copy|copy-bulk", "--tile"}},
    /* The variants predict like the default: the grid changes nothing. */
    {{"predict", "bandwidth", "--grid", "oneshot", "--inflight", "8"},
     {"bytes_counted", "dram_bytes_read"}},
    {{"help"}, {"bandwidth"}},
    {{"predict", "bandwidth"}, {"bytes_counted", "dram_bytes_read"}},
    {{"predict", "bandwidth", "--kernel=copy", "--width=4", "--offset=4"},
     {" copy ", "dram_bytes_write"}},
    /* The largest and smallest arrays, the widest offset and stride. */
    {{"predict", "bandwidth", "--bytes", "17179869184", "--offset", "4096",
      "--stride", "64"}, {"bytes_counted"}},
    {{"predict", "bandwidth", "--bytes", "1048576", "--width", "4,8,16",
      "--offset", "0..128:16", "--kernel", "read,write,copy"},
     {"bandwidth"}},
};

/* ---- table 2: bad input: exit 2, one stderr line naming it ---------- */

static const cli_bad_case bad_cases[] = {
    /* misaligned: the offset is not a multiple of the width */
    {{"bandwidth", "--width", "16", "--offset", "8"}, "--offset"},
    {{"bandwidth", "--width", "8", "--offset", "4"}, "--offset"},
    {{"bandwidth", "--width", "4", "--offset", "2"}, "--offset"},
    /* one bad combination of a sweep stops it before any GPU work */
    {{"bandwidth", "--width", "4,16", "--offset", "4"}, "--offset"},
    {{"bandwidth", "--offset", "4097", "--width", "4"}, "--offset"},
    {{"bandwidth", "--offset", "-4", "--width", "4"}, "--offset"},
    {{"bandwidth", "--width", "12"}, "--width"},
    {{"bandwidth", "--width", "0"}, "--width"},
    {{"bandwidth", "--kernel", "xx"}, "--kernel"},
    {{"bandwidth", "--kernel", "read,xx"}, "--kernel"},
    {{"bandwidth", "--bytes", "1048575"}, "--bytes"},  /* not 16-byte */
    {{"bandwidth", "--bytes", "4080"}, "--bytes"},             /* < 4 KiB */
    {{"bandwidth", "--repeat", "4", "--cache", "cs"}, "--repeat"},
    {{"bandwidth", "--repeat", "0", "--cache", "na", "--bytes", "4096"},
     "--repeat"},
    {{"bandwidth", "--repeat", "-1"}, "--repeat"},
    {{"bandwidth", "--repeat", "1048577"}, "--repeat"},
    {{"bandwidth", "--bytes", "0"}, "--bytes"},
    {{"bandwidth", "--bytes", "17179869200"}, "--bytes"},      /* > 16 GiB */
    {{"bandwidth", "--bytes", "99999999999999999999"}, "--bytes"},
    {{"bandwidth", "--bytes", "1048584"}, "--bytes"},  /* 1 MiB + 8 */
    {{"bandwidth", "--bytes", "1g"}, "--bytes"},
    {{"bandwidth", "--stride", "0"}, "--stride"},
    {{"bandwidth", "--stride", "65"}, "--stride"},
    {{"bandwidth", "--inflight", "0"}, "--inflight"},
    {{"bandwidth", "--inflight", "3"}, "--inflight"},
    {{"bandwidth", "--inflight", "16"}, "--inflight"},
    {{"bandwidth", "--cache", "cg"}, "--cache"},
    {{"bandwidth", "--threads", "48"}, "--threads"},
    {{"bandwidth", "--threads", "2048"}, "--threads"},
    {{"bandwidth", "--blocks", "-1"}, "--blocks"},
    {{"bandwidth", "--blocks", "65537"}, "--blocks"},
    {{"bandwidth", "--bogus", "1"}, "--bogus"},
    {{"bandwidth", "--iterations", "4"}, "--iterations"},     /* bank's */
    {{"bandwidth", "--kernel"}, "--kernel"},
    {{"bandwidth", "--width", "4", "--width", "8"}, "--width"},
    {{"bandwidth", "stray"}, "stray"},
    {{"predict", "bandwidth", "--offset", "2"}, "--offset"},
    {{"predict", "bandwidth", "--runs", "5"}, "--runs"},
    {{"predict", "bandwidth", "--bytes", "1048577"}, "--bytes"},
    /* the one-shot grid: 16-byte kernels, one walk, its own block count */
    {{"bandwidth", "--grid", "oneshot", "--width", "4"}, "--grid"},
    {{"bandwidth", "--grid", "oneshot", "--blocks", "132"}, "--grid"},
    {{"bandwidth", "--grid", "oneshot", "--repeat", "2"}, "--grid"},
    {{"bandwidth", "--grid", "wave"}, "--grid"},
    /* bulk copy: 16-byte tiles, stride 1, persistent, no cache operator,
     * no repeats, its stages in shared memory */
    {{"bandwidth", "--kernel", "copy-bulk", "--width", "8"}, "--width"},
    {{"bandwidth", "--kernel", "copy-bulk", "--stride", "2"}, "--stride"},
    {{"bandwidth", "--kernel", "copy-bulk", "--offset", "8"}, "--offset"},
    {{"bandwidth", "--kernel", "copy-bulk", "--grid", "oneshot"}, "--grid"},
    {{"bandwidth", "--kernel", "copy-bulk", "--cache", "cs"}, "--cache"},
    {{"bandwidth", "--kernel", "copy-bulk", "--repeat", "2"}, "--repeat"},
    {{"bandwidth", "--kernel", "copy-bulk", "--threads", "1024",
      "--inflight", "8", "--tile", "32768"}, "--tile"},
    {{"bandwidth", "--tile", "8192"}, "--tile"},              /* ldst */
    {{"bandwidth", "--kernel", "copy-bulk", "--tile", "3000"}, "--tile"},
    {{"predict", "bandwidth", "--kernel", "copy-bulk", "--width", "4"},
     "--width"},
};

/* ---- predict --format csv against hand-derived values ---------------- */

/* predict prints 6 significant digits: compare to 1e-5 relative. */
static void assert_close(const char *what, double got, double want)
{
    if (fabs(got - want) > 1e-5 * fabs(want))
        fail_msg("%s: predict printed %.10g, want %.10g", what, got, want);
}

typedef struct {
    const char *kernel, *width, *offset, *stride, *bytes;
    double bytes_counted, requests, spr, ideal, dram_read, dram_write;
} predict_case;

static const predict_case predict_cases[] = {
    /* 1 GiB, 16 B, aligned: N = 2^26 elements, 2^21 full groups of 32;
     * a group reads 512 contiguous aligned bytes = 16 sectors; every
     * sector of the array once from DRAM. */
    {"read", "16", "0", "1", "1073741824",
     1073741824, 2097152, 16, 16, 1073741824, 0},
    /* copy 1 MiB, 4 B, offset 4: N = 262144, 8192 groups per op, 16384
     * requests. A group covers bytes [4, 132) of a 32-byte-aligned
     * stretch: sectors 0..4 = 5 (ideal 4). DRAM: bytes 4 .. 1048579 =
     * sectors 0 .. 32768 = 32769 x 32 = 1048608, read and written. */
    {"copy", "4", "4", "1", "1048576",
     2097152, 16384, 5, 4, 1048608, 1048608},
    /* read 1 MiB, 4 B, stride 2: 2 passes of 131072 elements, 4096 groups
     * each = 8192 requests; lanes 8 bytes apart: 256 bytes = 8 sectors per
     * request (ideal 4). Each pass touches all 32768 sectors: DRAM 2 MiB. */
    {"read", "4", "0", "2", "1048576",
     1048576, 8192, 8, 4, 2097152, 0},
    /* read 1 MiB, 16 B, stride 32: N = 65536, 32 passes of 2048 elements,
     * 64 groups each = 2048 requests; lanes 512 bytes apart: 32 sectors
     * per request (ideal 16); every element its own sector: 65536 x 32 =
     * 2 MiB from DRAM. */
    {"read", "16", "0", "32", "1048576",
     1048576, 2048, 32, 16, 2097152, 0},
    /* read 1 MiB, 4 B, stride 3 (N = 262144 = 3 x 87381 + 1): passes of
     * 87382, 87381, 87381 elements = 2730 full groups + one of 22, 21, 21
     * lanes: 3 x 2731 = 8193 requests. Lanes 12 bytes apart, phases 0, 4,
     * 8: a full group spans bytes phase .. phase + 375, sectors 0..11 = 12;
     * the partial ones end at byte 255/247/251: 8 sectors. Sectors =
     * 3 x 2730 x 12 + 3 x 8 = 98304 -> 98304 / 8193 per request; ideal
     * 3 x 2730 x 4 + 3 x ceil(88/32 or 84/32) = 32760 + 9 = 32769 ->
     * 32769 / 8193. DRAM: each pass spans all 32768 sectors: 3 MiB. */
    {"read", "4", "0", "3", "1048576",
     1048576, 8193, 98304.0 / 8193, 32769.0 / 8193, 3145728, 0},
    /* write 1 MiB, 8 B, offset 8: 4096 groups, bytes [8, 264): sectors
     * 0..8 = 9 (ideal 8); DRAM bytes 8 .. 1048583: 32769 sectors. */
    {"write", "8", "8", "1", "1048576",
     1048576, 4096, 9, 8, 0, 1048608},
    /* write 1 MiB, 16 B, offset 4096 (a multiple of 32): aligned again;
     * sectors 128 .. 32895 = 32768: exactly 1 MiB. */
    {"write", "16", "4096", "1", "1048576",
     1048576, 2048, 16, 16, 0, 1048576},
    /* read 1 MiB, 8 B, stride 4: 4 passes of 32768 elements, 1024 groups
     * each = 4096 requests; lanes 32 bytes apart: 32 sectors (ideal 8);
     * every pass touches sectors 0 .. 32767: 4 x 1 MiB from DRAM. */
    {"read", "8", "0", "4", "1048576",
     1048576, 4096, 32, 8, 4194304, 0},
};

static void check_predict_csv(const predict_case *pc)
{
    const char *args[] = {"predict", "bandwidth", "--kernel", pc->kernel,
                          "--width", pc->width, "--offset", pc->offset,
                          "--stride", pc->stride, "--bytes", pc->bytes,
                          "--format", "csv", NULL};
    cli_csv_row c;
    cli_predict_row(args, "bandwidth", &c);
    assert_string_equal(cli_csv_text(&c, "kernel"), pc->kernel);
    assert_string_equal(cli_csv_text(&c, "width"), pc->width);
    assert_string_equal(cli_csv_text(&c, "offset"), pc->offset);
    assert_string_equal(cli_csv_text(&c, "stride"), pc->stride);
    assert_string_equal(cli_csv_text(&c, "bytes"), pc->bytes);
    print_message("# %s w%s o%s s%s b%s\n", pc->kernel, pc->width,
                  pc->offset, pc->stride, pc->bytes);
    assert_close("bytes_counted", cli_csv_number(&c, "bytes_counted"),
                 pc->bytes_counted);
    assert_close("requests", cli_csv_number(&c, "requests"), pc->requests);
    assert_close("sectors_per_request",
                 cli_csv_number(&c, "sectors_per_request"), pc->spr);
    assert_close("ideal_sectors_per_request",
                 cli_csv_number(&c, "ideal_sectors_per_request"), pc->ideal);
    assert_close("dram_bytes_read", cli_csv_number(&c, "dram_bytes_read"),
                 pc->dram_read);
    assert_close("dram_bytes_write", cli_csv_number(&c, "dram_bytes_write"),
                 pc->dram_write);
    cli_result_free(&c.r);
}

static void test_predict_csv(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof predict_cases / sizeof predict_cases[0];
         i++)
        check_predict_csv(&predict_cases[i]);
}

/* The model in the library gives exactly the hand values (no rounding). */
static void test_model_exact(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof predict_cases / sizeof predict_cases[0];
         i++) {
        const predict_case *pc = &predict_cases[i];
        int kernel = !strcmp(pc->kernel, "read")    ? MP_BW_READ
                     : !strcmp(pc->kernel, "write") ? MP_BW_WRITE
                                                    : MP_BW_COPY;
        int ops = kernel == MP_BW_COPY ? 2 : 1;
        mp_bw_model m;
        mp_bw_model_compute(kernel, atoi(pc->width), atoll(pc->offset),
                            atoi(pc->stride), atoll(pc->bytes), &m);
        assert_true(m.bytes_counted == pc->bytes_counted);
        assert_true(m.requests * ops == pc->requests);
        assert_true(fabs(m.sectors / m.requests - pc->spr) < 1e-12);
        assert_true(fabs(m.ideal_sectors / m.requests - pc->ideal) < 1e-12);
        assert_true(m.dram_read_bytes == pc->dram_read);
        assert_true(m.dram_write_bytes == pc->dram_write);
    }
}

/* A sweep: one row per configuration, kernel slowest, header once. */
static void test_predict_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "bandwidth", "--kernel", "read,copy",
                          "--width", "4,16", "--bytes", "1048576",
                          "--format", "csv", NULL};
    cli_run_expect(args, 1 + 4,
                   /* read w4: 8192 requests of 4 sectors; copy w16: 2 x 2048
                    * of 16. */
                   "\r\nbandwidth,read,4,0,1,1048576,4,default,1,"
                   "persistent,4096,1048576,8192,4,4,1048576,0\r\n",
                   "\r\nbandwidth,copy,16,0,1,1048576,4,default,1,"
                   "persistent,4096,2097152,4096,16,16,1048576,"
                   "1048576\r\n",
                   NULL);
}

/* Repeated walks (bandwidth against footprint): --repeat 0 moves 256 MiB
 * per array; bytes, requests and sectors scale with the walks, DRAM reads
 * an L2-sized array once and a larger one every walk. */
static void test_predict_repeat(void **state)
{
    (void)state;
    const char *args[] = {"predict", "bandwidth", "--kernel", "read",
                          "--bytes", "4096,134217728", "--repeat", "0,3",
                          "--format", "csv", NULL};
    cli_run_expect(args, -1,
                   /* 4096 B: 65536 walks x 8 requests of 16 sectors; DRAM
                    * once. */
                   "\r\nbandwidth,read,16,0,1,4096,4,default,0,"
                   "persistent,4096,268435456,524288,16,16,4096,0\r\n",
                   "\r\nbandwidth,read,16,0,1,4096,4,default,3,"
                   "persistent,4096,12288,24,16,16,4096,0\r\n",
                   /* 128 MiB, beyond the L2: 2 walks (auto), DRAM both
                    * times. */
                   "\r\nbandwidth,read,16,0,1,134217728,4,default,0,"
                   "persistent,4096,268435456,524288,16,16,268435456,"
                   "0\r\n",
                   NULL);
}

/* Bulk copy (cp.async.bulk): no load or store instructions, so no
 * requests or L1 sectors; the bytes and the DRAM traffic are ldst's. The
 * grid changes nothing. */
static void test_predict_variants(void **state)
{
    (void)state;
    /* A sweep over both copies with a bulk tile stops at copy's row. */
    const char *bad[] = {"predict", "bandwidth", "--kernel", "copy,copy-bulk",
                         "--tile", "16384", NULL};
    cli_expect_usage_error(bad, "--tile");
    const char *ok[] = {"predict", "bandwidth", "--kernel", "copy,copy-bulk",
                        "--bytes", "1048576", "--format", "csv", NULL};
    cli_run_expect(ok, 1 + 2,
                   "\r\nbandwidth,copy,16,0,1,1048576,4,default,1,"
                   "persistent,4096,2097152,4096,16,16,1048576,"
                   "1048576\r\n",
                   "\r\nbandwidth,copy-bulk,16,0,1,1048576,4,default,1,"
                   "persistent,4096,2097152,0,0,0,1048576,1048576\r\n",
                   NULL);
    const char *grid[] = {"predict", "bandwidth", "--grid",
                          "persistent,oneshot", "--bytes", "1048576",
                          "--format", "csv", NULL};
    cli_run_expect(grid, 1 + 2,
                   "\r\nbandwidth,read,16,0,1,1048576,4,default,1,"
                   "persistent,4096,1048576,2048,16,16,1048576,0\r\n",
                   "\r\nbandwidth,read,16,0,1,1048576,4,default,1,"
                   "oneshot,4096,1048576,2048,16,16,1048576,0\r\n",
                   NULL);
}

/* ---- the model and the CPU reference against the kernel's loop -------- */

/* Emulates the kernel's loop (bandwidth.cu) for T threads and U in flight:
 * per warp, the unrolled steps while the warp's U groups all lie in the
 * pass, then the plain loop, one warp-level instruction per step and u.
 * Counts instructions, the distinct sectors of each, the distinct sectors
 * of each pass (DRAM), and each thread's XOR and element count. */
typedef struct {
    double requests, sectors, dram_sectors;
} emulated;

static long long sectors_of(const long long *addr, int n, int width)
{
    long long count = 0, last = -1;
    for (int i = 0; i < n; i++)
        for (long long s = addr[i] / 32; s <= (addr[i] + width - 1) / 32; s++)
            if (s > last) {
                count++;
                last = s;
            }
    return count;
}

static void emulate(int width, long long offset, int stride, long long bytes,
                    long long T, int U, unsigned *out, emulated *e)
{
    long long n = bytes / width;
    memset(e, 0, sizeof *e);
    memset(out, 0, (size_t)T * 2 * sizeof *out);
    for (int p = 0; p < stride; p++) {
        long long cnt = (n - p + stride - 1) / stride, last_sector = -1;
        /* DRAM: distinct sectors of the pass, in address order. */
        for (long long i = 0; i < cnt; i++) {
            long long a = offset + (p + i * stride) * width;
            if (a / 32 > last_sector) {
                e->dram_sectors++;
                last_sector = a / 32;
            }
        }
        for (long long w0 = 0; w0 < T; w0 += 32) {
            long long i0 = w0;   /* the warp's first index */
            long long addr[32];
            int lanes;
            for (; i0 + (U - 1) * T + 31 < cnt; i0 += U * T)
                for (int u = 0; u < U; u++) {
                    for (int l = 0; l < 32; l++) {
                        long long i = i0 + u * T + l;
                        addr[l] = offset + (p + i * stride) * width;
                        unsigned x = 0;
                        for (int j = 0; j < width / 4; j++)
                            x ^= mp_bw_src_word(
                                (unsigned)((p + i * stride) * (width / 4) + j));
                        out[2 * (w0 + l)] ^= x;
                        out[2 * (w0 + l) + 1]++;
                    }
                    e->requests++;
                    e->sectors += sectors_of(addr, 32, width);
                }
            for (;; i0 += T) {
                lanes = 0;
                for (int l = 0; l < 32; l++) {
                    long long i = i0 + l;
                    if (i >= cnt)
                        continue;
                    addr[lanes++] = offset + (p + i * stride) * width;
                    unsigned x = 0;
                    for (int j = 0; j < width / 4; j++)
                        x ^= mp_bw_src_word(
                            (unsigned)((p + i * stride) * (width / 4) + j));
                    out[2 * (w0 + l)] ^= x;
                    out[2 * (w0 + l) + 1]++;
                }
                if (!lanes)
                    break;
                e->requests++;
                e->sectors += sectors_of(addr, lanes, width);
            }
        }
    }
}

static void test_model_and_reference_match_emulation(void **state)
{
    (void)state;
    /* Small arrays with tails (element counts not multiples of 32 or of
     * the grid), every width, strides that divide N and that do not,
     * aligned and misaligned offsets, 1..8 in flight, grids of 1 to 5
     * warps. The model and reference are meant for any size. */
    static const long long sizes[] = {65536, 65536 + 16 * 37, 4096 + 16 * 5};
    static const int strides[] = {1, 2, 3, 5, 8, 32, 33, 64};
    static const int inflight[] = {1, 2, 4, 8};
    static const long long grids[] = {32, 96, 160};
    int cases = 0;
    for (int wi = 0; wi < 3; wi++) {
        int width = 4 << wi;
        long long offsets[] = {0, width, 3 * width, 4096 - width};
        for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++)
            for (size_t si = 0; si < sizeof strides / sizeof strides[0]; si++)
                for (int oi = 0; oi < 4; oi++) {
                    long long T = grids[(si + oi) % 3];
                    int U = inflight[(b + si + oi) % 4];
                    int stride = strides[si];
                    long long offset = offsets[oi], bytes = sizes[b];
                    unsigned *emu = malloc((size_t)T * 2 * sizeof *emu);
                    unsigned *ref = malloc((size_t)T * 2 * sizeof *ref);
                    assert_non_null(emu);
                    assert_non_null(ref);
                    emulated e;
                    emulate(width, offset, stride, bytes, T, U, emu, &e);
                    mp_bw_read_reference(width, stride,
                                         (unsigned long long)(bytes / width),
                                         (size_t)T, ref);
                    mp_bw_model m;
                    mp_bw_model_compute(MP_BW_READ, width, offset, stride,
                                        bytes, &m);
                    if (memcmp(emu, ref, (size_t)T * 2 * sizeof *ref)
                        || m.requests != e.requests || m.sectors != e.sectors
                        || m.dram_read_bytes != 32 * e.dram_sectors)
                        fail_msg("w%d o%lld s%d b%lld T%lld U%d: reference "
                                 "%s; model %g/%g requests, %g/%g sectors, "
                                 "%g/%g DRAM bytes (model/emulated)", width,
                                 offset, stride, bytes, T, U,
                                 memcmp(emu, ref, (size_t)T * 2 * sizeof *ref)
                                     ? "DIFFERS" : "ok",
                                 m.requests, e.requests, m.sectors, e.sectors,
                                 m.dram_read_bytes, 32 * e.dram_sectors);
                    free(emu);
                    free(ref);
                    cases++;
                }
    }
    print_message("# %d configurations: model and CPU reference equal the "
                  "emulated kernel\n", cases);
}

/* The one-shot grid's per-block reference (mp_bw_read_reference_grouped)
 * against the emulated kernel's threads folded by block: XOR of the
 * block's values, sum of its counts. Grids sized as the one-shot grid
 * sizes them (one unrolled step per thread in the longest pass) and
 * smaller, blocks of 32 to 128 threads, tails, strides; group 1 is the
 * per-thread reference. */
static void test_grouped_reference(void **state)
{
    (void)state;
    static const struct {
        int width, stride, U, B;
        long long bytes;
    } c[] = {
        {16, 1, 4, 64, 65536},            /* one step each, exact */
        {16, 1, 8, 128, 65536 + 16 * 37}, /* a tail */
        {16, 3, 2, 32, 65536 + 16 * 5},   /* passes of unequal length */
        {16, 1, 1, 96, 4096 + 16 * 5},
        {8, 2, 4, 64, 65536},
        {4, 33, 2, 32, 65536 + 4 * 3},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        long long n = c[k].bytes / c[k].width;
        long long cnt = (n + c[k].stride - 1) / c[k].stride;
        long long per = (long long)c[k].U * c[k].B;
        long long blocks = (cnt + per - 1) / per;
        for (int half = 0; half < 2; half++) {
            long long nb = half ? (blocks + 1) / 2 : blocks;
            long long T = nb * c[k].B;
            unsigned *emu = malloc((size_t)T * 2 * sizeof *emu);
            unsigned *grp = malloc((size_t)T * 2 * sizeof *grp);
            unsigned *one = malloc((size_t)T * 2 * sizeof *one);
            assert_non_null(emu);
            assert_non_null(grp);
            assert_non_null(one);
            emulated e;
            emulate(c[k].width, 0, c[k].stride, c[k].bytes, T, c[k].U, emu,
                    &e);
            mp_bw_read_reference_grouped(c[k].width, c[k].stride,
                                         (unsigned long long)n, (size_t)T, 1,
                                         one);
            assert_memory_equal(one, emu, (size_t)T * 2 * sizeof *emu);
            mp_bw_read_reference_grouped(c[k].width, c[k].stride,
                                         (unsigned long long)n, (size_t)T,
                                         (size_t)c[k].B, grp);
            unsigned long long total = 0;
            for (long long b = 0; b < nb; b++) {
                unsigned x = 0, cntb = 0;
                for (long long t = b * c[k].B; t < (b + 1) * c[k].B; t++) {
                    x ^= emu[2 * t];
                    cntb += emu[2 * t + 1];
                }
                if (grp[2 * b] != x || grp[2 * b + 1] != cntb)
                    fail_msg("w%d s%d U%d B%d blocks %lld: block %lld has "
                             "0x%08x over %u, the emulation 0x%08x over %u",
                             c[k].width, c[k].stride, c[k].U, c[k].B, nb, b,
                             grp[2 * b], grp[2 * b + 1], x, cntb);
                total += grp[2 * b + 1];
            }
            assert_true(total == (unsigned long long)n);
            free(emu);
            free(grp);
            free(one);
        }
    }
}

/* A wrong kernel must be caught: the reference of a neighbouring stride,
 * offset-free width or grid differs from the right one. */
static void test_reference_is_sensitive(void **state)
{
    (void)state;
    enum { T = 64 };
    unsigned a[2 * T], b[2 * T];
    mp_bw_read_reference(16, 1, 65536, T, a);
    mp_bw_read_reference(16, 2, 65536, T, b);   /* same elements, other order */
    assert_memory_not_equal(a, b, sizeof a);
    mp_bw_read_reference(8, 1, 131072, T, b);   /* same bytes, other split */
    assert_memory_not_equal(a, b, sizeof a);
    mp_bw_read_reference(16, 1, 65535, T, b);   /* one element short */
    assert_memory_not_equal(a, b, sizeof a);
    /* Counts: 65536 elements over 64 threads = 1024 each. */
    for (int t = 0; t < T; t++)
        assert_int_equal(a[2 * t + 1], 1024);
    /* Patterns: odd words, never the poison, write != source. */
    for (unsigned k = 0; k < 100000; k++) {
        assert_true(mp_bw_src_word(k) & 1);
        assert_true(mp_bw_write_word(k) & 1);
        assert_true(mp_bw_src_word(k) != mp_bw_write_word(k));
    }
    assert_true((MP_BW_POISON & 1) == 0);
}

/* ---- no GPU ------------------------------------------------------------ */

static void test_no_gpu_measure(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *args[] = {"bandwidth", "--kernel", "read,copy", "--width",
                          "4", "-o", "bw.csv", NULL};
    const char *predict[] = {"predict", "bandwidth", "--kernel", "read,copy",
                             "--width", "4", NULL};
    cli_expect_no_gpu_nothing_written(args, "dram_bytes_read", predict);
}

/* Repeated walks: each walk XORs its words in and rotates left by one;
 * counts multiply. Checked against the rule by hand for 3 walks. */
static void test_repeat_reference(void **state)
{
    (void)state;
    enum { T = 64 };
    unsigned one[2 * T], three[2 * T], same[2 * T];
    mp_bw_read_reference(16, 1, 1000, T, one);
    memcpy(three, one, sizeof one);
    memcpy(same, one, sizeof one);
    mp_bw_repeat_reference(same, T, 1);      /* one walk: unchanged */
    assert_memory_equal(same, one, sizeof one);
    mp_bw_repeat_reference(three, T, 3);
    for (int t = 0; t < T; t++) {
        unsigned x = one[2 * t];
        unsigned a = (x << 1) | (x >> 31);             /* walk 1 */
        a ^= x;
        a = (a << 1) | (a >> 31);                      /* walk 2 */
        a ^= x;
        a = (a << 1) | (a >> 31);                      /* walk 3 */
        assert_int_equal(three[2 * t], a);
        assert_int_equal(three[2 * t + 1], 3 * one[2 * t + 1]);
    }
    /* 1000 elements over 64 threads: 15 or 16 each, 1000 in all. */
    unsigned total = 0;
    for (int t = 0; t < T; t++)
        total += one[2 * t + 1];
    assert_int_equal(total, 1000);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_csv),
        cmocka_unit_test(test_model_exact),
        cmocka_unit_test(test_predict_sweep),
        cmocka_unit_test(test_predict_repeat),
        cmocka_unit_test(test_predict_variants),
        cmocka_unit_test(test_grouped_reference),
        cmocka_unit_test(test_model_and_reference_match_emulation),
        cmocka_unit_test(test_reference_is_sensitive),
        cmocka_unit_test(test_no_gpu_measure),
        cmocka_unit_test(test_repeat_reference),
    };
    return CLI_RUN_ALL("cli_bandwidth", good_cases, bad_cases, fixed);
}
