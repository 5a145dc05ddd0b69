/*
 * profile_origin.c - own or library (profile_origin.h): a kernel's module
 * is a vendor library's when its origin is a shared object whose file
 * name starts with a vendor's prefix; everything else is the program's.
 */
#include "profile_origin.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Libraries whose kernels the user cannot change: NVIDIA's CUDA
 * libraries (their static runtime included), and the frameworks and
 * their kernel libraries that carry prebuilt kernels (PyTorch's libtorch
 * with CUTLASS inside, FlashAttention, xFormers, Transformer Engine,
 * TensorRT, ONNX Runtime, TensorFlow, XLA, JAX). */
static const char *const prefixes[] = {
    "libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse",
    "libcusolver", "libnccl", "libnvjpeg", "libcutensor", "libnpp",
    "libcudart", "libtorch", "libc10_cuda", "libcaffe2", "libflash",
    "flash_attn", "libxformers", "libtransformer_engine", "libcutlass",
    "libnvinfer", "libonnxruntime", "libtensorflow", "libxla", "libjax",
};

int mp_prof_library_nprefixes(void)
{
    return (int)(sizeof prefixes / sizeof *prefixes);
}

const char *mp_prof_library_prefix(int i)
{
    return i >= 0 && i < mp_prof_library_nprefixes() ? prefixes[i] : NULL;
}

/* A shared object's file name: ".so" at its end or before a version. */
static int shared_object(const char *base)
{
    for (const char *so = strstr(base, ".so"); so; so = strstr(so + 1, ".so"))
        if (!so[3] || so[3] == '.')
            return 1;
    return 0;
}

int mp_prof_origin_library(const char *origin)
{
    /* not recorded, "(run-time compiled)", "(unknown)": own */
    if (!origin || !origin[0] || origin[0] == '(')
        return 0;
    const char *base = strrchr(origin, '/');
    base = base ? base + 1 : origin;
    if (!shared_object(base))
        return 0;   /* the executable */
    for (int i = 0; i < mp_prof_library_nprefixes(); i++)
        if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* libcu++'s headers under include/cuda/: "std/...", "__name/...", or a
 * header without an extension ("barrier", "pipeline"). */
static int libcudacxx(const char *rest)
{
    size_t n = strcspn(rest, "/");
    return !strncmp(rest, "std/", 4) || !strncmp(rest, "__", 2)
           || (!rest[n] && !memchr(rest, '.', n) && n);
}

int mp_prof_toolkit_file(const char *path)
{
    static const char *const cccl[] = {"cub/", "thrust/", "nv/", "cccl/"};
    if (!path)
        return 0;
    for (const char *inc = strstr(path, "/include/"); inc;
         inc = strstr(inc + 1, "/include/")) {
        const char *rest = inc + 9;
        for (size_t k = 0; k < sizeof cccl / sizeof *cccl; k++)
            if (!strncmp(rest, cccl[k], strlen(cccl[k])))
                return 1;
        if (!strncmp(rest, "cuda/", 5) && libcudacxx(rest + 5))
            return 1;
    }
    return 0;
}

/* 1 when the folder path[0 .. n) is a CUDA toolkit's root: it has
 * bin/nvcc. The last few answers are kept (a profile asks once a line). */
static int toolkit_root(const char *path, size_t n)
{
    enum { KEEP = 8 };
    static char root[KEEP][PATH_MAX];
    static int is[KEEP], next;
    if (n >= PATH_MAX - 16)
        return 0;
    for (int k = 0; k < KEEP; k++)
        if (strlen(root[k]) == n && !strncmp(root[k], path, n))
            return is[k];
    char nvcc[PATH_MAX];
    snprintf(nvcc, sizeof nvcc, "%.*s/bin/nvcc", (int)n, path);
    int k = next++ % KEEP;
    snprintf(root[k], sizeof root[k], "%.*s", (int)n, path);
    is[k] = access(nvcc, F_OK) == 0;
    return is[k];
}

int mp_prof_toolkit_header(const char *path)
{
    if (mp_prof_toolkit_file(path))
        return 1;
    if (!path)
        return 0;
    for (const char *inc = strstr(path, "/include/"); inc;
         inc = strstr(inc + 1, "/include/")) {
        size_t n = (size_t)(inc - path);
        /* ROOT/include/ or ROOT/targets/ARCH/include/ */
        const char *t = NULL;
        for (const char *p = path; (p = strstr(p, "/targets/")) && p < inc;
             p++)
            t = p;
        if (t && !memchr(t + 9, '/', (size_t)(inc - (t + 9))))
            n = (size_t)(t - path);
        if (toolkit_root(path, n))
            return 1;
    }
    return 0;
}
