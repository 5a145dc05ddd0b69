/*
 * test_study.c - docs/study.md is what report/study.c makes of the
 * committed CSVs in results/h200: the test regenerates it and
 * fails, naming the first line that differs, when the committed file is
 * stale. Also: the generator is deterministic, its verdicts come from the
 * numbers (a results directory with other numbers gets other verdicts),
 * and missing data gives "not measured" rather than a crash.
 *
 * Runs from the repository root (where `make test` runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "report.h"

#define COMMITTED "docs/study.md"
#define RESULTS "results/h200"

/* The study of results_dir as a string (free it). */
static char *generate(const char *results_dir, size_t *len)
{
    mp_rep_data d;
    char err[512] = "";
    if (mp_study_load(&d, results_dir, err, sizeof err))
        fail_msg("study load: %s", err);
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    assert_non_null(m);
    if (mp_study_write(&d, results_dir, m, err, sizeof err))
        fail_msg("study write: %s", err);
    assert_int_equal(fclose(m), 0);
    mp_rep_free(&d);
    return buf;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* Line `n` (from 1) of text, as a malloc'd string without its newline. */
static char *line_of(const char *text, int n)
{
    const char *s = text;
    for (int i = 1; i < n && s; i++) {
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    if (!s)
        return strdup("(end of file)");
    size_t k = strcspn(s, "\n");
    char *out = malloc(k + 1);
    memcpy(out, s, k);
    out[k] = '\0';
    return out;
}

/* The committed docs/study.md equals the generator's output, byte for
 * byte. */
static void test_committed_is_current(void **state)
{
    (void)state;
    size_t glen, clen;
    char *gen = generate(RESULTS, &glen);
    char *com = read_all(COMMITTED, &clen);
    if (!com)
        fail_msg("%s is missing: run `make study-report`", COMMITTED);
    if (glen != clen || memcmp(gen, com, glen) != 0) {
        int line = 1;
        size_t i = 0;
        while (i < glen && i < clen && gen[i] == com[i]) {
            if (gen[i] == '\n')
                line++;
            i++;
        }
        char *a = line_of(com, line), *b = line_of(gen, line);
        print_error("%s is stale: it differs from what the committed CSVs "
                    "give at line %d\n  committed: %s\n  generated: %s\n"
                    "Run `make study-report` (or `./memprobe report --study "
                    "%s`), check `git diff %s` and commit it.\n",
                    COMMITTED, line, a, b, COMMITTED, COMMITTED);
        free(a);
        free(b);
        free(gen);
        free(com);
        fail();
    }
    free(gen);
    free(com);
}

/* Two runs give the same bytes; nothing in it depends on the time or on
 * where the repository lies. */
static void test_deterministic(void **state)
{
    (void)state;
    size_t n1, n2;
    char *a = generate(RESULTS, &n1);
    char *b = generate(RESULTS, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_null(strstr(a, cwd));
    assert_null(strstr(a, "2026-"));   /* no timestamp of the CSVs */
    free(a);
    free(b);
}

static void must_contain(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("the study lacks '%s'", needle);
}

/* The H200's verdicts and a few of the numbers behind them, as
 * docs/results.md and results/h200/study/seed-claims-constant-texture.md report
 * them. */
static void test_h200_verdicts(void **state)
{
    (void)state;
    size_t n;
    char *s = generate(RESULTS, &n);
    must_contain(s, "# The study: the classic CUDA memory rules on the H200");
    must_contain(s, "## The classic rules, checked");
    must_contain(s, "| 1 | [Sixteen banks](#1-sixteen-banks) | 000 (shared "
                 "memory) | does not hold |");
    must_contain(s, "| 4 | [The padding trick](#4-the-padding-trick) | 000 "
                 "(shared memory) | holds |");
    must_contain(s, "| 13 | [Constant broadcast saves 15 of 16 reads]");
    must_contain(s, "| 004 (constant memory) | holds partly |");
    must_contain(s, "| 18 | [Tree reduction in shared memory]");
    must_contain(s, "| 003 and 000 (reductions) | holds |");
    must_contain(s, "| 19 | [Timing with clock() in the kernel]");
    must_contain(s, "| 000 (reductions) | does not hold |");
    must_contain(s, "| 003 (reductions) | does not hold |");
    /* Numbers from the CSVs. */
    must_contain(s, "4-byte loads cost 1 wavefront per request at stride 1 "
                 "(1.06 cycles), 16 at stride 16 (16.07 cycles) and 32 at "
                 "stride 32 (32.08 cycles).");
    must_contain(s, "with rows of 16 + 1 they cost 1 (1.06 cycles)");
    must_contain(s, "4407.2 GB/s from offset 0");
    must_contain(s, "filling 65536 bytes with cudaMemcpyToSymbol returned "
                 "cudaSuccess, 65537 bytes cudaErrorInvalidValue");
    must_contain(s, "tex2D 32.1 us, global loads 73.7 us");
    must_contain(s, "the halving tree 3.5 us, warp shuffles 2.9 us");
    /* The tables and the plots. */
    must_contain(s, "### Shared memory: bank conflicts");
    must_contain(s, "| ld | 32 | 32 | 32 | 32.08 |");
    must_contain(s, "![bank conflicts](plots/bank-heatmap.svg)");
    must_contain(s, "| dot | 33792 | 32 | thread0-serial |");
    free(s);
}

/* ---- a results directory of our own ----------------------------------- */

static char tmpdir[64];

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int make_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/memprobe-study-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    return nftw(tmpdir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    cli_write_file(path, text);
}

#define BANK_HEADER                                                          \
    "device_name,cc,sm_count,sm_clock_mhz,probe,config,op,width_bytes,"       \
    "stride,base,group,period,pad,cycles_per_request_per_sm,verified,"        \
    "model_wavefronts_per_request,model_conflict_ways,counters_status,"       \
    "wavefronts_per_request,model_match\n"

/* A made-up GPU with 16 banks: stride 16 costs as much as stride 32. */
static const char sixteen_banks[] =
    BANK_HEADER
    "Old GPU,1.3,16,1300,bank,bank/ld/w4/s1/b0/g1/p32,ld,4,1,0,1,32,0,1.0,"
    "yes,1,1,ok,1,yes\n"
    "Old GPU,1.3,16,1300,bank,bank/ld/w4/s16/b0/g1/p32,ld,4,16,0,1,32,0,16.0,"
    "yes,16,16,ok,16,yes\n"
    "Old GPU,1.3,16,1300,bank,bank/ld/w4/s32/b0/g1/p32,ld,4,32,0,1,32,0,16.0,"
    "yes,16,16,ok,16,yes\n";

/* Only the 16-bank rows: claim 1 gets its verdict from them, the rest say
 * "not measured" with what is missing; the tables without rows say so. */
static void test_other_numbers_other_verdicts(void **state)
{
    (void)state;
    char bank[128];
    snprintf(bank, sizeof bank, "%s/bank", tmpdir);
    assert_int_equal(mkdir(bank, 0777), 0);
    write_file("bank/bank-sweep.csv", sixteen_banks);
    size_t n;
    char *s = generate(tmpdir, &n);
    must_contain(s, "Measured on Old GPU (compute capability 1.3, 16 SMs, "
                 "1300 MHz)");
    must_contain(s, "| 1 | [Sixteen banks](#1-sixteen-banks) | 000 (shared "
                 "memory) | holds |");
    must_contain(s, "Strides 16 and 32 conflict alike, as 16 banks would.");
    must_contain(s, "| 6 | [Global memory is not cached]"
                 "(#6-global-memory-is-not-cached) | 000 (global memory) | "
                 "not measured |");
    must_contain(s, "Missing data: no wavefronts_per_request for "
                 "`bank/ld/w8/s1/b0/g1/p32`.");
    must_contain(s, "**Verdict: not measured.** Missing data: no "
                 "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum "
                 "for `texture/global/stencil/n4096`.");
    must_contain(s, "- **Old GPU** (`bank-sweep.csv`): 4-byte loads cost");
    must_contain(s, "# The study: the classic CUDA memory rules on the Old "
                 "GPU");
    /* Unknown numbers read "?", never "nan". */
    must_contain(s, "move ?% (4 bytes)");
    assert_null(strstr(s, "nan"));
    must_contain(s, "### Texture memory");
    must_contain(s, "no rows");
    free(s);
}

static void test_no_study_files(void **state)
{
    (void)state;
    mp_rep_data d;
    char err[512] = "";
    assert_int_equal(mp_study_load(&d, tmpdir, err, sizeof err), -1);
    if (!strstr(err, tmpdir) || !strstr(err, "none of the study's CSVs"))
        fail_msg("error: %s", err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_is_current),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_h200_verdicts),
        cmocka_unit_test_setup_teardown(test_other_numbers_other_verdicts,
                                        make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_no_study_files, make_dir,
                                        remove_dir),
    };
    return cmocka_run_group_tests_name("study", tests, NULL, NULL);
}
