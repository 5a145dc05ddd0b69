/*
 * test_profile_origin.c - the one rule that tells a vendor library's
 * kernels from the program's own (profile/profile_origin.c,
 * mp_prof_origin_library), on origins as the injection library records
 * them (paths of the H200's programs: cuBLAS from the toolkit and from
 * pip, PyTorch's libraries, a C++ executable, Python extensions, code
 * compiled at run time, a module nothing placed, a profile from before
 * origins), and the prefix list against docs/profile.md, which names
 * every prefix. Pure functions, no program run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "profile_origin.h"
#include "raw.h"

typedef struct {
    const char *origin;
    int library;
} origin_case;

static const origin_case cases[] = {
    /* vendor libraries: NVIDIA's, wherever they are installed */
    {"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublasLt.so.13", 1},
    {"/usr/local/cuda/lib64/libcublas.so.13.0.2.14", 1},
    {"/usr/lib/python3/site-packages/nvidia/cublas/lib/libcublasLt.so.12",
     1},
    {"/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9", 1},
    {"/site-packages/nvidia/nccl/lib/libnccl.so.2", 1},
    {"/usr/local/cuda/lib64/libcufft.so.12", 1},
    {"/usr/local/cuda/lib64/libcusparse.so.12", 1},
    {"/usr/local/cuda/lib64/libnppial.so.13", 1},
    {"/usr/local/cuda/lib64/libcudart.so.13", 1},
    /* frameworks: PyTorch (CUTLASS inside), FlashAttention, TE, ... */
    {"/site-packages/torch/lib/libtorch_cuda.so", 1},
    {"/site-packages/torch/lib/libtorch_cuda_linalg.so", 1},
    {"/site-packages/torch/lib/libc10_cuda.so", 1},
    {"/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", 1},
    {"/site-packages/transformer_engine/libtransformer_engine.so", 1},
    {"libtorch_cuda.so", 1},
    /* the program's own */
    {"/w/build/tests/profile/cpp_app", 0},
    {"/usr/bin/python3.12", 0},
    {"/home/u/app/libmykernels.so", 0},
    {"/site-packages/cupy/cuda/function.cpython-312-x86_64-linux-gnu.so", 0},
    {"/root/.triton/cache/ab/__triton_launcher.so", 0},
    {"/home/u/kernels.cubin", 0},
    /* a vendor's name but no shared object: an executable, a file */
    {"/opt/bin/libcublas_test", 0},
    {"/opt/libtorch/kernels.cubin", 0},
    {"/opt/libcublas.sox", 0},
    {MP_ORIGIN_RUNTIME, 0},
    {MP_ORIGIN_UNKNOWN, 0},
    {"", 0},
    {NULL, 0},
};

static void test_origin_rule(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int got = mp_prof_origin_library(cases[k].origin);
        if (got != cases[k].library)
            fail_msg("'%s': library %d, want %d", cases[k].origin
                     ? cases[k].origin : "(null)", got, cases[k].library);
    }
}

/* Every prefix makes a library of its own shared object, not of a file
 * that only contains it. */
/* Lines of CUB's, Thrust's and libcu++'s headers are a library's,
 * wherever the toolkit lies; the toolkit's intrinsic headers and the
 * program's own files are not. */
static void test_toolkit_headers(void **state)
{
    (void)state;
    static const char *const library[] = {
        "/usr/local/cuda/bin/../targets/x86_64-linux/include/cub/agent/"
        "agent_radix_sort_onesweep.cuh",
        "/usr/local/cuda-13.0/include/thrust/system/cuda/detail/sort.h",
        "/opt/conda/targets/x86_64-linux/include/cuda/std/__algorithm/"
        "copy.h",
        "/usr/local/cuda/include/cuda/pipeline",
        "/usr/local/cuda/include/cuda/__barrier/barrier.h",
        "/home/u/.venv/nvidia/cu13/include/cccl/cub/block/block_load.cuh",
        "/usr/local/cuda/include/nv/target",
    };
    static const char *const own[] = {
        "/usr/local/cuda/targets/x86_64-linux/include/sm_30_intrinsics.hpp",
        "/usr/local/cuda/include/cuda_fp16.hpp",
        "/home/u/project/include/cuda/kernels.cuh",
        "/home/u/cub/main.cu", "/work/tests/profile/real/thrust_sort.cu",
        "", NULL,
    };
    for (size_t k = 0; k < sizeof library / sizeof *library; k++)
        if (!mp_prof_toolkit_file(library[k]))
            fail_msg("'%s' should be a library's line", library[k]);
    for (size_t k = 0; k < sizeof own / sizeof *own; k++)
        if (mp_prof_toolkit_file(own[k]))
            fail_msg("'%s' should be the program's line", own[k]);
}

/* Any header of a toolkit (a folder with bin/nvcc above its include/,
 * or above targets/ARCH/include/) counts for a kernel made only of
 * them; the same names elsewhere do not. */
static void test_toolkit_any_header(void **state)
{
    (void)state;
    char top[] = "/tmp/test_profile_origin.XXXXXX", path[512];
    assert_non_null(mkdtemp(top));
    snprintf(path, sizeof path, "%s/cuda-13.0", top);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/cuda-13.0/bin", top);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/cuda-13.0/bin/nvcc", top);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    static const struct {
        const char *rest;
        int toolkit;
    } cases[] = {
        {"/cuda-13.0/targets/x86_64-linux/include/sm_30_intrinsics.hpp", 1},
        {"/cuda-13.0/include/cuda_fp16.hpp", 1},
        {"/cuda-13.0/bin/../targets/x86_64-linux/include/crt/math.hpp", 1},
        {"/project/include/kernels.cuh", 0},
        {"/project/cuda-13.0/include/kernels.cuh", 0},
        {"/cuda-13.0/src/kernels.cu", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        snprintf(path, sizeof path, "%s%s", top, cases[k].rest);
        if (mp_prof_toolkit_header(path) != cases[k].toolkit)
            fail_msg("%s: %d, want %d", path, !cases[k].toolkit,
                     cases[k].toolkit);
    }
    /* CUB's header anywhere, without a toolkit */
    assert_true(mp_prof_toolkit_header("/opt/x/include/cub/util.cuh"));
    snprintf(path, sizeof path, "rm -r %s", top);
    assert_int_equal(system(path), 0);
}

static void test_every_prefix(void **state)
{
    (void)state;
    int n = mp_prof_library_nprefixes();
    assert_true(n >= 20);
    assert_null(mp_prof_library_prefix(n));
    assert_null(mp_prof_library_prefix(-1));
    for (int i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, "/opt/lib/%s_x.so.1",
                 mp_prof_library_prefix(i));
        assert_int_equal(mp_prof_origin_library(path), 1);
        snprintf(path, sizeof path, "/opt/lib/my%s.so",
                 mp_prof_library_prefix(i));
        assert_int_equal(mp_prof_origin_library(path), 0);
    }
}

/* docs/profile.md names every prefix of the rule, as `PREFIX`. */
static void test_prefixes_documented(void **state)
{
    (void)state;
    FILE *f = fopen("docs/profile.md", "r");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t len = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[len] = '\0';
    for (int i = 0; i < mp_prof_library_nprefixes(); i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", mp_prof_library_prefix(i));
        if (!strstr(doc, quoted))
            fail_msg("docs/profile.md does not name %s", quoted);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origin_rule),
        cmocka_unit_test(test_toolkit_headers),
        cmocka_unit_test(test_toolkit_any_header),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_prefixes_documented),
    };
    return cmocka_run_group_tests_name("profile_origin", tests, NULL, NULL);
}
