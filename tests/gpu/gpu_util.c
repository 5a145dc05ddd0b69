/*
 * gpu_util.c - helpers shared by the GPU tests (see gpu_util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "gpu_util.h"
#include "subprocess.h"

const char *gpu_memprobe(void)
{
    const char *m = getenv("MEMPROBE");
    return m ? m : "./memprobe";
}

const char *gpu_test_dir(void)
{
    const char *d = getenv("GPU_TEST_DIR");
    return d ? d : "results/gpu-test";
}

int gpu_run_sweep(const char *probe, const char *name, const char *args,
                  mp_ncu_table *t)
{
    char path[1024], log[1024], err[512];
    mkdir("results", 0777);
    mkdir(gpu_test_dir(), 0777);
    snprintf(path, sizeof path, "%s/%s.csv", gpu_test_dir(), name);
    snprintf(log, sizeof log, "%s/%s.log", gpu_test_dir(), name);
    remove(path);
    char *argv[96];
    int n = 0;
    argv[n++] = (char *)gpu_memprobe();
    argv[n++] = (char *)probe;
    char *words = strdup(args);
    for (char *w = strtok(words, " "); w && n < 88; w = strtok(NULL, " "))
        argv[n++] = w;
    argv[n++] = "--counters";
    argv[n++] = "on";
    argv[n++] = "-o";
    argv[n++] = path;
    argv[n] = NULL;
    int rc = mp_spawn_wait(argv, log);
    free(words);
    printf("# %s: memprobe %s %s -> exit %d (%s)\n", name, probe, args, rc,
           path);
    if (mp_csv_table_read(path, t, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return rc;
}

const char *gpu_cell(const mp_ncu_table *t, int row, const char *col)
{
    int c = mp_ncu_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    return t->cells[row][c];
}

double gpu_number(const mp_ncu_table *t, int row, const char *col)
{
    double x = 0;
    int c = mp_ncu_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    if (mp_ncu_number(t, row, c, &x))
        fail_msg("row %d column %s: '%s' is not a number", row, col,
                 t->cells[row][c]);
    return x;
}
