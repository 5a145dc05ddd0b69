/*
 * expect.h - what `memprobe profile` must measure on each marked line of
 * the test program (tests/profile/app.cu), computed from the project's
 * models: for every warp of a launch, the addresses its lanes touch on
 * that line go to the bank model (model/bank_model.h: shared wavefronts
 * and their ideal) or the sector model (model/sector_model.h: global
 * sectors and their ideal), summed over the warps. The reduction steps'
 * addresses are probes/reduce's (reduce_model.h, mp_red_access_word).
 * Shapes and the launch sequence: tests/profile/app_shape.h.
 */
#ifndef MP_PROFILE_EXPECT_H
#define MP_PROFILE_EXPECT_H

#include <stddef.h>

#include "app_shape.h"

enum { MP_EXPECT_SHARED, MP_EXPECT_GLOBAL };

/* How the lanes of one access find their byte address. */
typedef enum {
    MP_FORM_TR_IN,      /* in[(by*32 + ty) N + bx*32 + tx], 4 B */
    MP_FORM_TR_OUT,     /* out[(bx*32 + ty) N + by*32 + tx], 4 B */
    MP_FORM_TILE_ROW,   /* tile[ty][tx], rows of p elements */
    MP_FORM_TILE_COL,   /* tile[tx][ty], rows of p elements */
    MP_FORM_LINEAR,     /* p * (global thread id) + q bytes */
    MP_FORM_BLOCK0,     /* thread 0 only: p * blockIdx.x bytes */
    MP_FORM_RED         /* word mp_red_access_word({red, p, q}) x 4 */
} mp_expect_form;

typedef struct {
    int is_store;
    int width;          /* bytes per lane */
    mp_expect_form form;
    int red;            /* MP_FORM_RED: mp_red_access_kind */
    long long p, q;
} mp_expect_access;

#define MP_EXPECT_MAX_ACCESS 3

/* One marked line: `// MP_EXPECT marker` in app.cu. */
typedef struct {
    const char *marker;
    int kernel;         /* APP_K_* */
    int space;          /* MP_EXPECT_SHARED or MP_EXPECT_GLOBAL */
    int naccess;
    mp_expect_access access[MP_EXPECT_MAX_ACCESS];
} mp_expect_line;

/* Counts of one line for ONE launch of its kernel: warp-level
 * instructions that have an active lane (requests), and the model's
 * wavefronts (shared) or sectors (global) with their ideal; loads and
 * stores apart. */
typedef struct {
    long long requests, measured, ideal;
    long long ld_measured, ld_ideal, st_measured, st_ideal;
} mp_expect_counts;

/* The marked lines; *n gets their number. */
const mp_expect_line *mp_expect_lines(int *n);

/* The line with marker `marker`, or NULL. */
const mp_expect_line *mp_expect_find(const char *marker);

/* Counts of line l for one launch of its kernel (app_kernel_shape). */
void mp_expect_compute(const mp_expect_line *l, mp_expect_counts *c);

/* Launches of `kernel` when the program runs in `mode` (APP_MODE_*)
 * for `passes` passes of the sequence (--launches), the graph's included;
 * graph_launches, if not NULL, gets those run by the graph. */
long long mp_expect_launches(int kernel, int mode, long long passes,
                             long long *graph_launches);

/* Index of the kernel called `name` (app_kernel_names), or -1. */
int mp_expect_kernel(const char *name);

/* Reads app.cu (path) and writes into lines[i] the source line (from 1)
 * of the marker of mp_expect_lines()[i]. 0 when every marker is found
 * exactly once and every marker in the file is one of the table's; else
 * -1 with a one-line reason in err. */
int mp_expect_marker_lines(const char *path, int *lines, char *err,
                           size_t errlen);

/* mp_expect_marker_lines of ROOT/tests/profile/app.cu (root: the
 * repository's folder) into a new array, one entry per line of the
 * table (free() it); err is "" when every marker was found, else the
 * reason. NULL, with err set, when out of memory. */
int *mp_expect_marker_table(const char *root, char *err, size_t errlen);

#endif
