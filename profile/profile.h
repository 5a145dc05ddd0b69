/*
 * profile.h - `memprobe profile`: run an unmodified CUDA program with the
 * injection library (CUDA_INJECTION64_PATH), merge what it wrote into
 * profile.csv and profile-lines.csv, and judge --check / --baseline
 * (docs/profile.md). cli/cmd_profile.c reads argv into mp_prof_opts.
 */
#ifndef MP_PROFILE_H
#define MP_PROFILE_H

#include "profile_check.h"

typedef struct {
    const char *output;          /* -o, default profile.csv */
    const char *kernel;          /* --kernel REGEX, or NULL */
    const char *nvtx_include;    /* --nvtx-include RANGE, or NULL */
    const char *launch_skip;     /* --launch-skip N (checked text), or NULL */
    const char *launch_count;    /* --launch-count N, or NULL */
    const char *per_kernel;      /* --per-kernel N, or NULL */
    int has_check;
    mp_prof_check_spec check;    /* --check */
    const char *check_text;
    mp_u64 min_count;            /* --min-count, default 1 */
    int check_libraries;         /* --check-libraries: --check and
                                  * --baseline judge library kernels too */
    const char *baseline;        /* --baseline OLD.csv, or NULL */
    double tolerance;            /* --tolerance, default 0 */
    const char *from;            /* --from PROFILE.csv: judge, run nothing */
    const char *keep_raw;        /* --keep-raw DIR, or NULL */
    int opcodes;                 /* --opcodes: MP_PROF_OPCODES_* */
    int kernel_plus;             /* --level kernel+: the range pass */
    int fallback_rerun;          /* --fallback rerun: run again for the
                                  * launches without line counts */
    char **argv;                 /* PROGRAM ARGS..., NULL-terminated */
    int gpu_checked;             /* the caller looked for the GPU */
    int *written;                /* when not NULL: set to 1 when the run
                                  * replaced the two CSVs, else 0 */
} mp_prof_opts;

/* Runs it all; returns the exit status (docs/profile.md): 2 program not
 * found / not executable / a bad output or baseline (one line, before the
 * program starts), 3 no GPU (mp_prof_gpu_ready), 4 no counts, 1 an
 * offender, else the program's own status (128 + signal). The two CSVs
 * are written beside their names and replace them only when the run
 * collected launches (replace.h); else they are left as they were. */
int mp_prof_run(const mp_prof_opts *o);

/* ---- for memprobe explain, which runs programs the same way ---------- */

/* The GPU that PROGRAM runs on, looked for before it starts: 0, or -1
 * with one line "memprobe: no NVIDIA driver found ... (CMD runs PROG on
 * the GPU)" (mp_device_available's reason). Under the fake-device hook
 * (MEMPROBE_FAKE_DEVICE, the stand-in programs of the tests) not looked
 * for, with a warning. */
int mp_prof_gpu_ready(const char *cmd, const char *prog);

/* PROGRAM in PATH or as a path (an executable regular file): its path in
 * out; else one line "CMD: ..." and exit 2. */
void mp_prof_need_program(const char *cmd, const char *name, char *out,
                          size_t len);

/* A library of memprobe's: the file the environment variable env_name
 * names, else LIB where mp_own_path finds it (lib/memprobe/ of an installed
 * prefix, build/lib/ beside ./memprobe). 0 and its absolute path in out
 * (PATH_MAX bytes), or -1 and the path looked at. */
int mp_prof_find_lib(const char *env_name, const char *lib, char *out,
                     size_t len);

/* Forks; the child calls exec_fn(ctx), which sets its environment and
 * execs (the child exits 127 if it returns). SIGINT and SIGTERM sent to
 * memprobe meanwhile go on to the child. Returns its exit status, 128 +
 * the signal that ended it, or 127 when it could not start. */
int mp_prof_spawn(const char *prog, void (*exec_fn)(void *ctx), void *ctx);

/* Puts lib first in LD_PRELOAD, the preloads already there after it (in
 * a child about to exec the program). */
void mp_prof_preload_first(const char *lib);

/* Removes a folder memprobe made and everything in it. */
void mp_prof_remove_dir(const char *dir);

#endif
