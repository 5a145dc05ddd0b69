/*
 * const_model.c - constant-cache replays per warp-level load and the
 * texture probe's linear-layout sectors (see const_model.h).
 */
#include "const_model.h"

/* Number of distinct values among v[first .. first+count-1]. */
static int distinct(const long long *v, int first, int count)
{
    int n = 0;
    for (int i = first; i < first + count; i++) {
        int seen = 0;
        for (int j = first; j < i && !seen; j++)
            seen = v[j] == v[i];
        n += !seen;
    }
    return n;
}

int mp_const_lanes(int spread, int group, int period, int *g, int *p)
{
    int gg = group, pp = period;
    if (gg == 0)
        gg = pp ? (pp + spread - 1) / spread : MP_WARP_SIZE / spread;
    if (pp == 0)
        pp = spread * gg;
    *g = gg;
    *p = pp;
    if (pp > MP_WARP_SIZE)
        return -1;
    /* Lanes 0..pp-1 give k = 0 .. ceil(pp / gg) - 1; later lanes repeat. */
    if ((pp + gg - 1) / gg != spread)
        return -2;
    return 0;
}

long long mp_const_offsets(long long spacing, int g, int p,
                           long long offsets[MP_WARP_SIZE])
{
    /* Words: element k * (spacing / 4); pattern.c does the lane mapping. */
    mp_pattern pat = {0, spacing / 4, g, p, 0};
    long long end = mp_pattern_offsets(&pat, 4, offsets);
    return end + (MP_CONST_SLOTS - 1) * MP_CONST_SLOT_BYTES;
}

void mp_const_predict(const long long offsets[MP_WARP_SIZE],
                      mp_const_prediction *out)
{
    long long lines[MP_WARP_SIZE];
    for (int l = 0; l < MP_WARP_SIZE; l++)
        lines[l] = offsets[l] / MP_CONST_LINE_BYTES;
    out->distinct_addresses = distinct(offsets, 0, MP_WARP_SIZE);
    out->replays = out->distinct_addresses - 1;
    out->distinct_lines = distinct(lines, 0, MP_WARP_SIZE);
    out->halfwarp_reads = distinct(offsets, 0, MP_WARP_SIZE / 2)
                          + distinct(offsets, MP_WARP_SIZE / 2,
                                     MP_WARP_SIZE / 2);
}

/* ---- texture probe: row-major sectors ---------------------------------
 *
 * Rows are n * 4 bytes, a multiple of 128, so every row starts a sector
 * and x0 (a multiple of 32) starts a 128-byte line. A warp-level load of
 * 32 consecutive floats of one row starting at x0 touches 4 sectors; one
 * shifted by -1 or +1 touches 5 (one float of the neighbouring sector),
 * except where clamping keeps it inside the row: at x0 = 0 the left load
 * reads x = 0, 0, 1, .. 30 (4 sectors), at x0 = n - 32 the right load
 * reads x = n-31 .. n-1, n-1 (4 sectors). Loads of one column hit 32
 * different rows, at least 128 bytes apart: 32 sectors. */
void mp_tex_predict_linear(mp_tex_access access, long long n,
                           mp_tex_prediction *out)
{
    double warps_per_row = (double)n / MP_WARP_SIZE;
    double rows = (double)n;
    switch (access) {
    case MP_TEX_STENCIL:
        /* Per warp: centre, up, down 4 each; left and right 5 each, but
         * one warp per row has a 4-sector left and one a 4-sector right. */
        out->requests = 5.0 * warps_per_row * rows;
        out->sectors = rows * (22.0 * warps_per_row - 2.0);
        break;
    case MP_TEX_COLUMN:
        /* n * n loads by single lanes, 32 per warp-level load. */
        out->requests = warps_per_row * rows;
        out->sectors = 32.0 * out->requests;
        break;
    case MP_TEX_ROW:
    default:
        out->requests = warps_per_row * rows;
        out->sectors = 4.0 * out->requests;
        break;
    }
    out->ideal_sectors = 4.0 * out->requests;
}
