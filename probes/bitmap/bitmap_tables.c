/*
 * bitmap_tables.c - the report table of the bitmap probe (seed 004's 2D
 * shared buffer): shared-memory wavefronts per instruction, measured and
 * the model's, and the kernel's median time (CUDA events: the seed's
 * kernel has no clock code and memprobe adds none), by layout and image
 * side, the write (STS) and the mirrored read (LDS) side by side.
 * Built and printed by report/tables.c.
 */
#include "part.h"

PROBE_ROWS(bitmap_want, "bitmap")

static void bitmap_keys(const mp_rep_data *d, const mp_rep_row *r,
                        char k[][KEYLEN])
{
    snprintf(k[0], KEYLEN, "%s", txt(d, r, MP_F_LAYOUT));
    /* The image side from the pixel count (array_bytes = side^2). */
    double n = num(d, r, MP_F_ARRAY_BYTES);
    put_count_value(k[1], isnan(n) ? n : sqrt(n), 0);
    if (!k[1][0])
        snprintf(k[1], KEYLEN, "-");
}

/* The write first, then the read. */
static double bitmap_group(const mp_rep_data *d, const mp_rep_row *r,
                           char *label)
{
    int st = is(d, r, MP_F_OP, "st");
    snprintf(label, KEYLEN, "%s", st ? "write (st)" : "read (ld)");
    return st ? 0 : 1;
}

static void bitmap_values(const mp_rep_data *d, const mp_rep_row *r,
                          char v[][KEYLEN], int *mark)
{
    put_vs_model(v, mark, d, r, MP_F_WF, MP_F_MODEL_WF);
    put_count(v[2], d, r, MP_F_TIME_NS, 0);
}

const mp_rep_spec mp_rep_spec_bitmap = {
    "bitmap",
    "Bitmap (seed 004's 16 x 16 shared buffer): shared-memory wavefronts "
    "per instruction (measured, model) and the kernel's median time "
    "(ns), the write and the mirrored read, by layout (seed: "
    "shared[tx][ty] as written; yx: shared[ty][tx]; pad: rows of 17) and "
    "image side",
    HEADERS("layout", "side"), HEADERS("wavefronts", "model", "kernel ns"),
    "no rows: no bitmap configuration in these CSVs",
    bitmap_want, bitmap_keys, bitmap_group, bitmap_values
};
