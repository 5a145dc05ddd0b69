/*
 * test_ncu_source.c - CPU tests of the reader of Nsight Compute's source
 * page CSV (report/ncu_source.c) on a hand-written sample
 * (tests/data/ncu_source_sample.csv, in the layout seen in public ncu
 * output: a "Kernel Name" line before each table, absolute addresses,
 * thousands separators, "Instructions Executed" twice) and synthetic
 * edge cases; and of `ncu-check --profile`'s comparison
 * (crosscheck/ncu_profile.c) against a profile-lines CSV written here.
 *
 * Fixture paths are relative to the repository root, where `make test`
 * runs; set MP_TEST_DATA to run from elsewhere.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_table.h"
#include "ncu_profile.h"
#include "ncu_source.h"

static const char *data_path(const char *file)
{
    static char path[1024];
    const char *dir = getenv("MP_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", file);
    return path;
}

static int parse_str(const char *text, mp_ncu_source *s, char *err,
                     size_t errlen)
{
    return mp_ncu_source_parse(text, strlen(text), "t.csv", s, err, errlen);
}

/* Facts of the sample, read off the file by hand: 3 tables (2 launches
 * of transpose_naive, 1 of load_shifted), 6 + 2 + 6 instruction rows. */
static void test_sample(void **state)
{
    (void)state;
    mp_ncu_source s;
    char err[512] = "";
    if (mp_ncu_source_read(data_path("ncu_source_sample.csv"), &s, err,
                           sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.ntables, 3);
    assert_int_equal(s.nrows, 14);
    for (int v = 0; v < MP_SRC_VALUES; v++)
        assert_true(s.has[v]);
    /* line 8: the LDS of the first table, 0x30 past its first address */
    const mp_ncu_source_row *lds = &s.rows[3];
    assert_string_equal(lds->kernel, "transpose_naive");
    assert_int_equal(lds->table, 0);
    assert_int_equal(lds->offset, 0x30);
    assert_string_equal(lds->source, "LDS R9, [R8]");
    assert_true(lds->value[MP_SRC_SHARED] == 65536.0);
    assert_true(lds->value[MP_SRC_SHARED_IDEAL] == 2048.0);
    assert_true(lds->value[MP_SRC_INST] == 2048.0);
    assert_true(lds->value[MP_SRC_GLOBAL] == 0.0);
    /* line 14: load_shifted's load, 10,240 sectors for 8,192 */
    const mp_ncu_source_row *ld = &s.rows[6];
    assert_string_equal(ld->kernel, "load_shifted");
    assert_int_equal(ld->table, 1);
    assert_int_equal(ld->offset, 0);
    assert_true(ld->value[MP_SRC_GLOBAL] == 10240.0);
    assert_true(ld->value[MP_SRC_GLOBAL_IDEAL] == 8192.0);
    /* line 15: "-" reads as 0 */
    assert_int_equal(s.rows[7].offset, 0x10);
    assert_true(s.rows[7].value[MP_SRC_SHARED] == 0.0);
    /* the second launch of transpose_naive: offsets from 0 again */
    assert_int_equal(s.rows[8].table, 2);
    assert_int_equal(s.rows[8].offset, 0);
    assert_int_equal(s.rows[13].offset, 0x50);
    mp_ncu_source_free(&s);
    mp_ncu_source_free(&s);   /* safe twice */
}

/* A kernel column instead of "Kernel Name" lines, columns in another
 * order, no "Instructions Executed", CRLF line ends. */
static void test_kernel_column(void **state)
{
    (void)state;
    static const char text[] =
        "\"L2 Theoretical Sectors Global\",\"Kernel Name\",\"Source\","
        "\"Address\",\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\","
        "\"L2 Theoretical Sectors Global Ideal\"\r\n"
        "\"16\",\"foo(float *)\",\"LDG.E R1, [R2]\",\"0x1000\",\"0\",\"0\",\"8\"\r\n"
        "\"0\",\"foo(float *)\",\"LDS R3, [R4]\",\"0x1010\",\"1,024\",\"32\",\"0\"\r\n"
        "\"4\",\"bar\",\"STG.E [R1], R2\",\"0x2000\",\"0\",\"0\",\"4\"\r\n";
    mp_ncu_source s;
    char err[512] = "";
    if (parse_str(text, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.nrows, 3);
    assert_false(s.has[MP_SRC_INST]);
    assert_true(s.has[MP_SRC_SHARED]);
    assert_string_equal(s.rows[1].kernel, "foo(float *)");
    assert_int_equal(s.rows[1].offset, 0x10);
    assert_true(s.rows[1].value[MP_SRC_SHARED] == 1024.0);
    assert_true(s.rows[0].value[MP_SRC_GLOBAL_IDEAL] == 8.0);
    assert_string_equal(s.rows[2].kernel, "bar");
    assert_int_equal(s.rows[2].offset, 0);
    mp_ncu_source_free(&s);
}

#define HEAD "\"Address\",\"Source\",\"L1 Wavefronts Shared\"\n"

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"just the program's output\n", "t.csv:1: no source table"},
        {"\"Kernel Name\",\"k\"\n" HEAD "\"0x10\",\"LDS\",\"1,23\"\n",
         "t.csv:3: L1 Wavefronts Shared '1,23' is not a number"},
        {"\"Kernel Name\",\"k\"\n" HEAD "\"0x10\",\"LDS\"\n",
         "t.csv:3: row has 2 cells, its header needs 3"},
        {HEAD "\"0x10\",\"LDS\",\"1\"\n", "t.csv:2: an instruction row "
         "without a kernel name"},
        {"\"Kernel Name\",\"k\"\n" HEAD "\"zz\",\"LDS\",\"1\"\n",
         "t.csv:3: Address 'zz' is not a number"},
        {"\"Kernel Name\",\"k\"\n\"0x10\",\"LDS\",\"1\"\n",
         "t.csv:2: an instruction row before any header"},
        {"\"Kernel Name\",\"k\"\n" HEAD "\"0x10\",\"LDS,\"1\"\n",
         "t.csv:3: malformed CSV"},
        {"\"Kernel Name\",\"k\"\n" HEAD "\"0x10\",\"LDS\",\"1\n",
         "t.csv:3: a quote is still open"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mp_ncu_source s;
        char err[512] = "";
        assert_int_equal(parse_str(bad[i].text, &s, err, sizeof err), -1);
        if (strncmp(err, bad[i].message, strlen(bad[i].message)))
            fail_msg("case %zu: '%s', expected '%s...'", i, err,
                     bad[i].message);
        assert_int_equal(s.nrows, 0);
        assert_null(s.rows);
    }
}

static void test_same_kernel(void **state)
{
    (void)state;
    assert_true(mp_ncu_profile_same_kernel("transpose_naive",
                                           "transpose_naive", ""));
    assert_true(mp_ncu_profile_same_kernel("void k<(int)1>(float *, int)",
                                           "void k<(int)1>(float *, int)",
                                           "_Z1kILi1EEvPfi"));
    assert_true(mp_ncu_profile_same_kernel("void  k<(int)1>(float *, int)",
                                           "k<(int)1>(float *, int)", ""));
    assert_true(mp_ncu_profile_same_kernel("_Z3fooPf", "foo(float *)",
                                           "_Z3fooPf"));
    assert_true(mp_ncu_profile_same_kernel("foo(float *)", "foo", ""));
    assert_false(mp_ncu_profile_same_kernel("foo(int)", "foo(float)", ""));
    assert_false(mp_ncu_profile_same_kernel("foobar", "foo", ""));
}

/* memprobe's per-instruction rows for the sample's launches: two
 * launches of transpose_naive summed, one of load_shifted. */
static const char lines_csv[] =
    "pid,kernel,mangled,file,line,function_offset,opcode,launches,"
    "smsp__sass_inst_executed,"
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared,"
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal,"
    "smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal,ratio\n"
    "7,transpose_naive,transpose_naive,app.cu,60,0x0,LDC,2,4096,0,0,0,0,\n"
    "7,transpose_naive,transpose_naive,app.cu,60,0x10,LDG,2,4096,0,0,16384,16384,1\n"
    "7,transpose_naive,transpose_naive,app.cu,61,0x20,STS,2,4096,4096,4096,0,0,1\n"
    "7,transpose_naive,transpose_naive,app.cu,63,0x30,LDS,2,4096,%s,4096,0,0,32\n"
    "7,transpose_naive,transpose_naive,app.cu,64,0x40,STG,2,4096,0,0,16384,16384,1\n"
    "7,transpose_naive,transpose_naive,app.cu,65,0x50,EXIT,2,4096,0,0,0,0,\n"
    "7,load_shifted,load_shifted,app.cu,90,0x0,LDG,1,2048,0,0,10240,8192,1.25\n"
    "7,load_shifted,load_shifted,app.cu,91,0x10,STG,1,2048,0,0,8192,8192,1\n";

/* text into a new temporary file; its path in path (a mkstemp
 * template). */
static void temp_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* mp_ncu_profile_compare of ncu's source page `page` (a path) against
 * memprobe's per-instruction rows `lines` (CSV text); its output in out. */
static int compare_with(const char *page, const char *lines, char *out,
                        size_t outlen)
{
    mp_ncu_source s;
    mp_csv_table t;
    char err[512] = "", path[] = "/tmp/test_ncu_source.XXXXXX";
    temp_file(path, lines);
    int bad = mp_ncu_source_read(page, &s, err, sizeof err);
    if (!bad && mp_csv_table_read(path, &t, err, sizeof err)) {
        mp_ncu_source_free(&s);
        bad = 1;
    }
    unlink(path);
    if (bad)
        fail_msg("%s", err);
    FILE *f = fmemopen(out, outlen, "w");
    assert_non_null(f);
    int rc = mp_ncu_profile_compare(&s, &t, NULL, f, 5, err, sizeof err);
    fclose(f);
    mp_csv_free(&t);
    mp_ncu_source_free(&s);
    return rc;
}

/* The sample page against lines_csv with LDS wavefronts = lds. */
static int compare(const char *lds, char *out, size_t outlen)
{
    char lines[sizeof lines_csv + 32];
    snprintf(lines, sizeof lines, lines_csv, lds);
    return compare_with(data_path("ncu_source_sample.csv"), lines, out,
                        outlen);
}

static void test_compare_equal(void **state)
{
    (void)state;
    char out[4096] = "";
    assert_int_equal(compare("131072", out, sizeof out), 0);
    if (!strstr(out, "8 instructions compared (2 of 2 kernels paired by "
                "name; executed instructions, shared wavefronts and global "
                "sectors with their ideal), 8 equal, 0 different"))
        fail_msg("output: %s", out);
}

static void test_compare_different(void **state)
{
    (void)state;
    char out[4096] = "";
    assert_int_equal(compare("131071", out, sizeof out), 1);
    if (!strstr(out, "transpose_naive +0x30 LDS R9, [R8]: L1 Wavefronts "
                "Shared 131071 / 131072;")
        || !strstr(out, "8 instructions compared")
        || !strstr(out, "7 equal, 1 different"))
        fail_msg("output: %s", out);
}

/* compare_with, with memprobe's repeat run `repeat` (CSV text). */
static int compare_repeat(const char *lines, const char *repeat, char *out,
                          size_t outlen)
{
    mp_ncu_source s;
    mp_csv_table t, t2;
    char err[512] = "", path[] = "/tmp/test_ncu_source.XXXXXX";
    char path2[] = "/tmp/test_ncu_source.XXXXXX";
    temp_file(path, lines);
    temp_file(path2, repeat);
    assert_int_equal(mp_ncu_source_read(data_path("ncu_source_sample.csv"),
                                        &s, err, sizeof err), 0);
    assert_int_equal(mp_csv_table_read(path, &t, err, sizeof err), 0);
    assert_int_equal(mp_csv_table_read(path2, &t2, err, sizeof err), 0);
    unlink(path);
    unlink(path2);
    FILE *f = fmemopen(out, outlen, "w");
    assert_non_null(f);
    int rc = mp_ncu_profile_compare(&s, &t, &t2, f, 5, err, sizeof err);
    fclose(f);
    mp_csv_free(&t);
    mp_csv_free(&t2);
    mp_ncu_source_free(&s);
    return rc;
}

/* A kernel whose counts differ between memprobe's two runs varies from
 * run to run: its differences from ncu are said, counted apart and fail
 * nothing; a difference in a kernel that repeats itself still fails. */
static void test_compare_varying(void **state)
{
    (void)state;
    char lines[sizeof lines_csv + 32], again[sizeof lines_csv + 32];
    char out[4096] = "";
    snprintf(lines, sizeof lines, lines_csv, "131071");
    snprintf(again, sizeof again, lines_csv, "131000");
    assert_int_equal(compare_repeat(lines, again, out, sizeof out), 0);
    if (!strstr(out, "kernel transpose_naive: its counts vary from run to "
                "run")
        || !strstr(out, "7 equal, 0 different, 1 in kernels whose counts "
                   "vary from run to run")
        || strstr(out, "first differences"))
        fail_msg("output: %s", out);
    /* the same counts twice: the difference is a disagreement */
    memset(out, 0, sizeof out);
    assert_int_equal(compare_repeat(lines, lines, out, sizeof out), 1);
    if (!strstr(out, "7 equal, 1 different") || strstr(out, "vary"))
        fail_msg("output: %s", out);
}

static void test_compare_nothing(void **state)
{
    (void)state;
    mp_ncu_source s = {0};
    mp_csv_table t;
    char path[] = "/tmp/test_ncu_source.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *head = "kernel,function_offset,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal,"
        "smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal\n";
    assert_int_equal(write(fd, head, strlen(head)), (ssize_t)strlen(head));
    close(fd);
    char err[512] = "", out[1024] = "";
    assert_int_equal(mp_csv_table_read(path, &t, err, sizeof err), 0);
    unlink(path);
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(mp_ncu_profile_compare(&s, &t, NULL, f, 5, err, sizeof err), 4);
    fclose(f);
    assert_non_null(strstr(out, "0 instructions compared"));
    mp_csv_free(&t);

    /* without memprobe's shared column: 2 and a reason */
    t.nrows = 0;
    t.ncols = 1;
    char *hdr[] = {"kernel"};
    t.header = hdr;
    f = fmemopen(out, sizeof out, "w");
    assert_int_equal(mp_ncu_profile_compare(&s, &t, NULL, f, 5, err, sizeof err), 2);
    fclose(f);
    assert_string_equal(err, "profile lines CSV: no column function_offset");
}

/* A C++ kernel: memprobe names it as c++filt does ("float const*"), ncu's
 * demangler otherwise ("const float *"); ncu asked for mangled names
 * gives the name memprobe keeps in its mangled column, and the two pair.
 * With ncu's demangled name nothing pairs: the kernels are named and no
 * instruction is counted as different. */
static int compare_cxx(const char *ncu_name, char *out, size_t outlen)
{
    static const char page[] =
        "\"Kernel Name\",\"%s\",\n"
        "\"Address\",\"Source\",\"Instructions Executed\","
        "\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\","
        "\"L2 Theoretical Sectors Global\","
        "\"L2 Theoretical Sectors Global Ideal\"\n"
        "\"0x7f0000000100\",\"      LDG.E R3, desc[UR4][R2.64] \",\"32,768\","
        "\"0\",\"0\",\"131,072\",\"131,072\"\n"
        "\"0x7f0000000110\",\"      STG.E desc[UR4][R4.64], R3 \",\"32,768\","
        "\"0\",\"0\",\"131,072\",\"131,072\"\n";
    static const char lines[] =
        "pid,kernel,mangled,file,line,function_offset,opcode,launches,"
        "smsp__sass_inst_executed,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal,"
        "smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal\n"
        "7,\"void scale<float>(float const*, float*, int, float)\","
        "_Z5scaleIfEvPKT_PS0_iS0_,cpp_app.cu,18,0x0,,1,32768,0,0,131072,"
        "131072\n"
        "7,\"void scale<float>(float const*, float*, int, float)\","
        "_Z5scaleIfEvPKT_PS0_iS0_,cpp_app.cu,18,0x10,,1,32768,0,0,131072,"
        "131072\n";
    char text[sizeof page + 256], ppath[] = "/tmp/test_ncu_cxx.XXXXXX";
    snprintf(text, sizeof text, page, ncu_name);
    temp_file(ppath, text);
    int rc = compare_with(ppath, lines, out, outlen);
    unlink(ppath);
    return rc;
}

static void test_compare_cxx_names(void **state)
{
    (void)state;
    char out[4096] = "";
    assert_int_equal(compare_cxx("_Z5scaleIfEvPKT_PS0_iS0_", out,
                                 sizeof out), 0);
    if (!strstr(out, "2 instructions compared (1 of 1 kernels paired by "
                "name; executed instructions, shared wavefronts and global "
                "sectors with their ideal), 2 equal, 0 different\n"))
        fail_msg("output: %s", out);
    memset(out, 0, sizeof out);
    assert_int_equal(compare_cxx("void scale<float>(const float *, float *, "
                                 "int, float)", out, sizeof out), 1);
    if (!strstr(out, "kernel void scale<float>(float const*, float*, int, "
                "float): only in memprobe's profile")
        || !strstr(out, "kernel void scale<float>(const float *, float *, "
                   "int, float): only in ncu's report")
        || !strstr(out, "0 instructions compared (0 of 2 kernels paired")
        || !strstr(out, "0 equal, 0 different; 4 instructions of kernels on "
                   "one side only not compared")
        || !strstr(out, "no kernel of memprobe's profile pairs"))
        fail_msg("output: %s", out);
}

/* ncu 2025.3.1's own page on the H200 (tests/data/ncu_source_h200.csv,
 * the first kernel of `ncu --section SourceCounters` on the test program,
 * tests/profile/app): one launch of transpose_naive printed as two equal
 * tables. Compared per launch, memprobe's one launch equals it; twice
 * its counts (a second launch ncu did not see) does not. */
static void test_h200_page(void **state)
{
    (void)state;
    mp_ncu_source s;
    char err[512] = "";
    if (mp_ncu_source_read(data_path("ncu_source_h200.csv"), &s, err,
                           sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.ntables, 2);
    assert_int_equal(s.nrows, 80);
    int lds = -1;
    for (int r = 0; r < s.nrows && lds < 0; r++)
        if (!strncmp(s.rows[r].source, "LDS ", 4))
            lds = r;
    assert_true(lds >= 0);
    assert_int_equal(s.rows[lds].offset, 0x1a0);
    assert_true(s.rows[lds].value[MP_SRC_SHARED] == 65536);
    assert_true(s.rows[lds].value[MP_SRC_SHARED_IDEAL] == 2048);
    static const char head[] =
        "pid,kernel,mangled,file,line,function_offset,opcode,launches,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared,"
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal,"
        "smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal\n";
    for (int k = 1; k <= 2; k++) {
        char path[] = "/tmp/test_ncu_h200.XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        assert_non_null(f);
        fprintf(f, "%s", head);
        fprintf(f, "1,transpose_naive,transpose_naive,app.cu,70,0xb0,LDG.E,1,"
                "0,0,%d,8192\n", 8192 * k);
        fprintf(f, "1,transpose_naive,transpose_naive,app.cu,71,0x180,STS,1,"
                "%d,2048,0,0\n", 2048 * k);
        fprintf(f, "1,transpose_naive,transpose_naive,app.cu,73,0x1a0,LDS,1,"
                "%d,2048,0,0\n", 65536 * k);
        fprintf(f, "1,transpose_naive,transpose_naive,app.cu,73,0x1b0,STG.E,1,"
                "0,0,%d,8192\n", 8192 * k);
        assert_int_equal(fclose(f), 0);
        mp_csv_table t;
        int rc = mp_csv_table_read(path, &t, err, sizeof err);
        unlink(path);
        if (rc)
            fail_msg("%s", err);
        char out[4096] = "";
        f = fmemopen(out, sizeof out, "w");
        assert_non_null(f);
        rc = mp_ncu_profile_compare(&s, &t, NULL, f, 5, err, sizeof err);
        fclose(f);
        mp_csv_free(&t);
        assert_int_equal(rc, k == 1 ? 0 : 1);
        if (!strstr(out, k == 1 ? "40 instructions compared (1 of 1 "
                    "kernels paired by name; shared wavefronts and global "
                    "sectors with their ideal), 40 equal, 0 different"
                    : ", 36 equal, 4 different"))
            fail_msg("output: %s", out);
        if (!strstr(out, "1 launches in memprobe's profile, 2 tables"))
            fail_msg("output: %s", out);
        if (k == 2 && !strstr(out, "+0x1a0 LDS R7, [R6]: L1 Wavefronts "
                              "Shared 131072 / 65536 per launch;"))
            fail_msg("output: %s", out);
    }
    mp_ncu_source_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_kernel_column),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_same_kernel),
        cmocka_unit_test(test_compare_equal),
        cmocka_unit_test(test_compare_different),
        cmocka_unit_test(test_compare_varying),
        cmocka_unit_test(test_compare_nothing),
        cmocka_unit_test(test_h200_page),
        cmocka_unit_test(test_compare_cxx_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
