/*
 * test_as_written.c - a kernel memprobe measures "as written" is the
 * seed's kernel and nothing else: the bitmap probe's seed
 * layout (probes/bitmap/bitmap.cu, bitmap_kernel<MP_BITMAP_SEED>) compiles to the
 * same PTX as seed 004's kernel, taken
 *   - from scripts/explore/seed004_bitmap.cu (the program Nsight Compute
 *     counts beside the probe: scripts/gpu-check.sh seedbitmap), always;
 *   - from the seed's own text, ../shared/seeds/004_*.txt, where that
 *     folder is beside the checkout (CI has it; skipped elsewhere).
 * scripts/ptx-entry.sh takes names, comments and line info out of the PTX.
 * The padded layout must differ (the comparison can fail). No GPU needed:
 * nvcc only. Runs from the repository root (make test does).
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli_util.h"
#include "mp_skip.h"

#define PROBE_ARGS "-Iruntime -Imodel -Iprobes"

/* The normalised PTX of kernel `entry` of `src` (scripts/ptx-entry.sh). */
static char *ptx_of(const char *src, const char *entry, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "scripts/ptx-entry.sh '%s' '%s' %s", src, entry,
             args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t len;
    char *buf = cli_read_fd(fileno(p), &len);
    int rc = pclose(p);
    if (rc != 0)
        fail_msg("%s failed (status %d)", cmd, rc);
    /* A kernel of the seed's size: its stores, loads and sinf calls. */
    if (len < 1000 || !strstr(buf, "st.shared") || !strstr(buf, "ld.shared"))
        fail_msg("%s: no kernel body (%zu bytes)", cmd, len);
    return buf;
}

static void probe_seed_layout_is_the_explore_programs_kernel(void **state)
{
    (void)state;
    char *seed = ptx_of("scripts/explore/seed004_bitmap.cu", "_Z6kernelPh", "");
    char *probe = ptx_of("probes/bitmap/bitmap.cu", "ILi0E", PROBE_ARGS);
    char *pad = ptx_of("probes/bitmap/bitmap.cu", "ILi2E", PROBE_ARGS);
    assert_string_equal(seed, probe);
    assert_string_not_equal(seed, pad);
    free(seed);
    free(probe);
    free(pad);
}

/* The kernel's lines as seed 004 prints them (main2.cu), from its
 * `__global__ void kernel(uchar` line to the first line that is "}". */
static int seed_kernel_file(const char *seed_txt, const char *out)
{
    FILE *in = fopen(seed_txt, "r"), *o = fopen(out, "w");
    if (!in || !o) {
        if (in) fclose(in);
        if (o) fclose(o);
        return -1;
    }
    fputs("typedef unsigned char uchar;\n#define PI 3.1415926\n", o);
    char line[1024];
    int in_kernel = 0, lines = 0;
    while (fgets(line, sizeof line, in)) {
        if (!in_kernel && strstr(line, "__global__ void kernel(uchar"))
            in_kernel = 1;
        if (!in_kernel)
            continue;
        fputs(line, o);
        lines++;
        if (line[0] == '}')
            break;
    }
    fclose(in);
    fclose(o);
    return lines > 5 ? 0 : -1;
}

static void probe_seed_layout_is_the_seeds_kernel(void **state)
{
    (void)state;
    glob_t g;
    if (glob("../shared/seeds/004_*.txt", 0, NULL, &g) != 0) {
        globfree(&g);
        MP_SKIP("needs seed tutorial 004's own text (the bitmap kernel) "
                "as ../shared/seeds/004_*.txt, to compare its kernel's PTX "
                "with the probe's");
    }
    char path[] = "/tmp/mp-seed004-XXXXXX.cu";
    int fd = mkstemps(path, 3);
    assert_true(fd >= 0);
    close(fd);
    int rc = seed_kernel_file(g.gl_pathv[0], path);
    globfree(&g);
    if (rc != 0) {
        unlink(path);
        fail_msg("no kernel(uchar ...) in seed 004");
    }
    char *seed = ptx_of(path, "_Z6kernelPh", "");
    char *probe = ptx_of("probes/bitmap/bitmap.cu", "ILi0E", PROBE_ARGS);
    unlink(path);
    assert_string_equal(seed, probe);
    free(seed);
    free(probe);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_seed_layout_is_the_explore_programs_kernel),
        cmocka_unit_test(probe_seed_layout_is_the_seeds_kernel),
    };
    return cmocka_run_group_tests_name("as_written", tests, NULL, NULL);
}
