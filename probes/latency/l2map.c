/*
 * l2map.c - `memprobe l2map` (l2map.h): the lines sorted by home half,
 * the walks of every SM, the plateau and TLB chases from SM 0, their
 * verification, the tables and the CSV.
 */
#include "l2map.h"

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock_watch.h"
#include "csv_writer.h"
#include "device.h"
#include "latency_model.h"

void mp_l2map_sort(const unsigned *a, const unsigned *b, unsigned n,
                   unsigned margin, signed char *home, unsigned count[2])
{
    count[0] = count[1] = 0;
    for (unsigned i = 0; i < n; i++) {
        home[i] = -1;
        if ((unsigned long long)a[i] + margin < b[i])
            home[i] = 0;
        else if ((unsigned long long)b[i] + margin < a[i])
            home[i] = 1;
        if (home[i] >= 0)
            count[home[i]]++;
    }
}

int mp_l2map_two_halves(const unsigned count[2], unsigned n)
{
    return n > 0 && count[0] >= MP_L2MAP_MIN_SHARE * n
           && count[1] >= MP_L2MAP_MIN_SHARE * n;
}

static const char *const field_names[MP_L2MAP_FIELDS] = {
    "dram_near", "dram_far", "near_hit", "copy_hit", "far_hit",
    "bw_dram_near", "bw_dram_far", "bw_near_hit", "bw_copy_hit",
    "bw_far_hit"};

const char *mp_l2map_field_name(mp_l2map_field f)
{
    return f >= 0 && f < MP_L2MAP_FIELDS ? field_names[f] : NULL;
}

/* Where each field sits in a row, in mp_l2map_field's order. */
static const size_t field_offsets[MP_L2MAP_FIELDS] = {
    offsetof(mp_l2map_row, dram_near), offsetof(mp_l2map_row, dram_far),
    offsetof(mp_l2map_row, near_hit), offsetof(mp_l2map_row, copy_hit),
    offsetof(mp_l2map_row, far_hit), offsetof(mp_l2map_row, bw_dram_near),
    offsetof(mp_l2map_row, bw_dram_far), offsetof(mp_l2map_row, bw_near_hit),
    offsetof(mp_l2map_row, bw_copy_hit), offsetof(mp_l2map_row, bw_far_hit)};

double *mp_l2map_field_ref(mp_l2map_row *r, mp_l2map_field f)
{
    return (double *)((char *)r + field_offsets[f]);
}

static double field(const mp_l2map_row *r, mp_l2map_field f)
{
    return *(const double *)((const char *)r + field_offsets[f]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mp_l2map_summary(const mp_l2map_row *rows, int n, int half,
                     mp_l2map_field f, double *med, double *lo, double *hi)
{
    double *v = mp_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (half < 0 || rows[i].half == half)
            v[k++] = field(&rows[i], f);
    if (k > 0) {
        qsort(v, (size_t)k, sizeof *v, cmp_double);
        *med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        *lo = v[0];
        *hi = v[k - 1];
    }
    free(v);
    return k;
}

/* ---- the GPU side ---- */

typedef struct {
    mp_device dev;
    unsigned blocks;            /* one-warp blocks per claimed launch */
    int *claimed;               /* device */
    unsigned long long *out;    /* device: cycles, end */
    unsigned long long *scratch, *sink;  /* the L2 emptier */
    size_t scratch_words;
} gpu;

static void gpu_open(gpu *g)
{
    g->blocks = (unsigned)g->dev.sm_count * 8;
    CHECK_CUDA(cudaMalloc((void **)&g->claimed, sizeof(int)));
    CHECK_CUDA(cudaMalloc((void **)&g->out, 2 * sizeof(unsigned long long)));
    /* four times the L2 */
    g->scratch_words = 4 * g->dev.l2_bytes / 8;
    CHECK_CUDA(cudaMalloc((void **)&g->scratch, g->scratch_words * 8));
    CHECK_CUDA(cudaMemset(g->scratch, 0, g->scratch_words * 8));
    CHECK_CUDA(cudaMalloc((void **)&g->sink, 8));
}

static void gpu_close(gpu *g)
{
    CHECK_CUDA(cudaFree(g->claimed));
    CHECK_CUDA(cudaFree(g->out));
    CHECK_CUDA(cudaFree(g->scratch));
    CHECK_CUDA(cudaFree(g->sink));
}

static void empty_l2(gpu *g)
{
    CHECK_CUDA(mp_l2map_flush(g->scratch, g->scratch_words,
                              (unsigned)g->dev.sm_count * 4, g->sink));
    CHECK_CUDA(cudaDeviceSynchronize());
}

/* Waits for the claimed launch; stops with exit 5 when no block ran on
 * SM sm. */
static void check_claimed(gpu *g, int sm)
{
    int c = 0;
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(&c, g->claimed, sizeof c, cudaMemcpyDeviceToHost));
    if (!c) {
        fprintf(stderr, "memprobe: l2map: none of %u blocks ran on SM %d\n",
                g->blocks, sm);
        exit(MP_EXIT_CUDA);
    }
}

/* n loads from `start` on SM sm: cycles per load; *end where it stopped. */
static double walk(gpu *g, unsigned long long start, unsigned n, int sm,
                   unsigned long long *end)
{
    unsigned long long r[2];
    CHECK_CUDA(cudaMemset(g->claimed, 0, sizeof(int)));
    CHECK_CUDA(mp_l2map_walk(start, n, (unsigned)sm, g->blocks, g->claimed,
                             g->out));
    check_claimed(g, sm);
    CHECK_CUDA(cudaMemcpy(r, g->out, sizeof r, cudaMemcpyDeviceToHost));
    *end = r[1];
    return (double)r[0] / n;
}

/* A block on SM sm reads the n lines d_idx names whole: bytes per
 * cycle. */
static double stream(gpu *g, unsigned long long *buf, const unsigned *d_idx,
                     unsigned n, int sm)
{
    unsigned long long r[2];
    if (n > MP_L2MAP_STREAM_LINES)
        n = MP_L2MAP_STREAM_LINES;
    CHECK_CUDA(cudaMemset(g->claimed, 0, sizeof(int)));
    CHECK_CUDA(mp_l2map_stream((unsigned long long)buf, d_idx, n,
                               (unsigned)sm, (unsigned)g->dev.sm_count * 2,
                               MP_L2MAP_THREADS, g->claimed, g->out));
    check_claimed(g, sm);
    CHECK_CUDA(cudaMemcpy(r, g->out, sizeof r, cudaMemcpyDeviceToHost));
    return r[0] ? (double)n * MP_L2MAP_LINE / (double)r[0] : 0;
}

/* Every line's first load from SM sm after the L2 is emptied: cyc[]
 * (host). Returns the lines whose load came back wrong. */
static unsigned first_loads(gpu *g, unsigned long long *buf, unsigned n,
                            int sm, unsigned *cyc)
{
    unsigned *d_cyc, *d_bad, bad = 0;
    CHECK_CUDA(cudaMalloc((void **)&d_cyc, (size_t)n * sizeof *d_cyc));
    CHECK_CUDA(cudaMalloc((void **)&d_bad, sizeof *d_bad));
    empty_l2(g);
    CHECK_CUDA(cudaMemset(g->claimed, 0, sizeof(int)));
    CHECK_CUDA(mp_l2map_first_loads((unsigned long long)buf, n, (unsigned)sm,
                                    g->blocks, g->claimed, d_cyc, d_bad));
    check_claimed(g, sm);
    CHECK_CUDA(cudaMemcpy(cyc, d_cyc, (size_t)n * sizeof *cyc,
                          cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(d_cyc));
    CHECK_CUDA(cudaFree(d_bad));
    return bad;
}

static unsigned long long line_addr(unsigned long long *buf, unsigned line)
{
    return (unsigned long long)(buf + (size_t)line * (MP_L2MAP_LINE / 8));
}

/* n lines of 128 bytes, each first word pointing to itself. */
static unsigned long long *self_lines(unsigned n)
{
    unsigned long long *d;
    size_t words = (size_t)n * (MP_L2MAP_LINE / 8);
    CHECK_CUDA(cudaMalloc((void **)&d, words * 8));
    unsigned long long *h = mp_xcalloc(words, 8);
    for (unsigned i = 0; i < n; i++)
        h[(size_t)i * (MP_L2MAP_LINE / 8)] = line_addr(d, i);
    CHECK_CUDA(cudaMemcpy(d, h, words * 8, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

/* The lines of buf sorted by home: SM 0 against the first SM that
 * disagrees with it on two halves. Returns that SM, or -1 (one half:
 * nothing to map); home[] and count[] as mp_l2map_sort. */
static int sort_lines(gpu *g, unsigned long long *buf, unsigned n,
                      signed char *home, unsigned count[2])
{
    unsigned *a = mp_xmalloc((size_t)n * sizeof *a);
    unsigned *b = mp_xmalloc((size_t)n * sizeof *b);
    int other = -1;
    if (first_loads(g, buf, n, 0, a)) {
        fprintf(stderr, "memprobe: l2map: SM 0's first loads returned "
                "wrong values\n");
        exit(MP_EXIT_FAIL);
    }
    for (int s = 1; s < g->dev.sm_count && other < 0; s++) {
        if (first_loads(g, buf, n, s, b)) {
            fprintf(stderr, "memprobe: l2map: SM %d's first loads returned "
                    "wrong values\n", s);
            exit(MP_EXIT_FAIL);
        }
        mp_l2map_sort(a, b, n, MP_L2MAP_MARGIN, home, count);
        if (mp_l2map_two_halves(count, n))
            other = s;
    }
    free(a);
    free(b);
    return other;
}

/* Shuffles idx[0..m) into one seeded random cycle and links the lines
 * it names on the device. *keep, when given, gets the device copy of
 * the shuffled idx (the caller frees it). */
static void link_cycle(unsigned long long *buf, unsigned *idx, unsigned m,
                       unsigned **keep)
{
    uint32_t *order = mp_xmalloc((size_t)m * sizeof *order);
    unsigned *tmp = mp_xmalloc((size_t)m * sizeof *tmp);
    if (mp_lat_build_chain(NULL, order, m, 1, MP_LAT_SEED))
        abort();
    for (unsigned k = 0; k < m; k++)
        tmp[k] = idx[order[k]];
    memcpy(idx, tmp, (size_t)m * sizeof *idx);
    unsigned *d_idx;
    CHECK_CUDA(cudaMalloc((void **)&d_idx, (size_t)m * sizeof *d_idx));
    CHECK_CUDA(cudaMemcpy(d_idx, idx, (size_t)m * sizeof *idx,
                          cudaMemcpyHostToDevice));
    CHECK_CUDA(mp_l2map_link(buf, d_idx, m));
    CHECK_CUDA(cudaDeviceSynchronize());
    if (keep)
        *keep = d_idx;
    else
        CHECK_CUDA(cudaFree(d_idx));
    free(order);
    free(tmp);
}

/* A random cycle through the first `limit` lines of one home (all when
 * want < 0): idx[] (host, line numbers in visiting order), linked on the
 * device (link_cycle; keep as there). Returns its length; under 2 lines
 * nothing is linked. */
static unsigned link_home(unsigned long long *buf, const signed char *home,
                          unsigned n, int want, unsigned limit,
                          unsigned *idx, unsigned **keep)
{
    unsigned m = 0;
    for (unsigned i = 0; i < n && m < limit; i++)
        if (want < 0 || home[i] == want)
            idx[m++] = i;
    if (m >= 2)
        link_cycle(buf, idx, m, keep);
    return m;
}

/* Times `loads` loads of the cycle idx[0..m) from SM sm after `warm`
 * untimed ones; *ok when the walk ended where the cycle says. */
static double chase(gpu *g, unsigned long long *buf, const unsigned *idx,
                    unsigned m, unsigned long long warm, unsigned loads,
                    int sm, int *ok)
{
    unsigned long long end, at = line_addr(buf, idx[0]);
    while (warm > 0) {
        unsigned step = warm > m ? m : (unsigned)warm;
        walk(g, at, step, sm, &end);
        at = end;
        warm -= step;
    }
    unsigned long long pos = 0;   /* where `at` stands in the cycle */
    for (unsigned k = 0; k < m; k++)
        if (line_addr(buf, idx[k]) == at) {
            pos = k;
            break;
        }
    double c = walk(g, at, loads, sm, &end);
    *ok = *ok && end == line_addr(buf, idx[(pos + loads) % m]);
    return c;
}

/* ---- output ---- */

enum { C_KIND, C_DEVICE, C_CLOCK, C_SM, C_HALF, C_HELPER, C_LINES_NEAR,
       C_LINES_FAR, C_DRAM_NEAR, C_DRAM_FAR, C_NEAR_HIT, C_COPY_HIT,
       C_FAR_HIT, C_BW_DRAM_NEAR, C_BW_DRAM_FAR, C_BW_NEAR_HIT,
       C_BW_COPY_HIT, C_BW_FAR_HIT, C_SET, C_FOOTPRINT, C_STRIDE, C_LINES, C_CYCLES,
       C_VERIFIED, C_NCOLS };
static const char *const header[C_NCOLS] = {
    "kind", "device_name", "sm_clock_mhz", "sm", "half", "helper",
    "lines_near", "lines_far", "dram_near", "dram_far", "near_hit",
    "copy_hit", "far_hit", "bw_dram_near", "bw_dram_far", "bw_near_hit",
    "bw_copy_hit", "bw_far_hit", "set", "footprint_bytes", "stride_bytes",
    "lines", "cycles_per_load", "verified"};

/* The fields' columns stand in mp_l2map_field's order. */
_Static_assert(C_BW_FAR_HIT - C_DRAM_NEAR + 1 == MP_L2MAP_FIELDS,
               "one column per field, in order");

int mp_l2map_check_output(const char *path, char *why, size_t whylen)
{
    return mp_csv_check_output(path, header, C_NCOLS, why, whylen);
}

typedef struct {
    mp_csv_writer w;
    int open;
    char cell[C_NCOLS][288];
    const char *cells[C_NCOLS];
} csv_out;

static void row_start(csv_out *c, const gpu *g, const char *kind)
{
    for (int i = 0; i < C_NCOLS; i++) {
        c->cell[i][0] = 0;
        c->cells[i] = c->cell[i];
    }
    snprintf(c->cell[C_KIND], sizeof c->cell[0], "%s", kind);
    snprintf(c->cell[C_DEVICE], sizeof c->cell[0], "%s", g->dev.name);
    snprintf(c->cell[C_CLOCK], sizeof c->cell[0], "%d", g->dev.sm_clock_khz / 1000);
}

static int row_write(csv_out *c)
{
    char err[512];
    if (c->open && mp_csv_write_row(&c->w, c->cells, err, sizeof err)) {
        fprintf(stderr, "memprobe: l2map: %s\n", err);
        return -1;
    }
    return 0;
}

#define CELL(c, col, ...) \
    snprintf((c)->cell[col], sizeof (c)->cell[0], __VA_ARGS__)

/* One SM's row: the walks of both homes' cycles idx[h] (m[h] lines),
 * `other` the SM of the half SM 0 is not in. */
static void map_sm(gpu *g, unsigned long long *buf, unsigned *const idx[2],
                   unsigned *const d_idx[2], const unsigned m[2], int s,
                   int other, mp_l2map_row *r)
{
    double dram[2], steady[2], after[2], bw[3][2];
    unsigned long long end;
    int ok = 1;
    for (int h = 0; h < 2; h++) {
        unsigned long long start = line_addr(buf, idx[h][0]);
        empty_l2(g);
        dram[h] = walk(g, start, m[h], s, &end);
        ok = ok && end == start;
        steady[h] = walk(g, start, m[h], s, &end);
        ok = ok && end == start;
    }
    r->sm = s;
    r->half = dram[1] < dram[0];
    r->helper = r->half ? 0 : other;
    for (int h = 0; h < 2; h++) {
        unsigned long long start = line_addr(buf, idx[h][0]);
        empty_l2(g);
        walk(g, start, m[h], r->helper, &end);
        after[h] = walk(g, start, m[h], s, &end);
        ok = ok && end == start;
        /* the same three moments for a whole block's reads */
        empty_l2(g);
        bw[0][h] = stream(g, buf, d_idx[h], m[h], s);
        bw[1][h] = stream(g, buf, d_idx[h], m[h], s);
        empty_l2(g);
        walk(g, start, m[h], r->helper, &end);
        bw[2][h] = stream(g, buf, d_idx[h], m[h], s);
    }
    int near = r->half, far = !r->half;
    r->bw_dram_near = bw[0][near];
    r->bw_dram_far = bw[0][far];
    r->bw_near_hit = bw[1][near];
    r->bw_copy_hit = bw[1][far];
    r->bw_far_hit = bw[2][far];
    r->lines_near = m[near];
    r->lines_far = m[far];
    r->dram_near = dram[near];
    r->dram_far = dram[far];
    r->near_hit = steady[near];
    r->copy_hit = steady[far];
    r->far_hit = after[far];
    r->verified = ok;
}

static int map_csv_row(const gpu *g, const mp_l2map_row *r, csv_out *csv)
{
    row_start(csv, g, "map");
    CELL(csv, C_SM, "%d", r->sm);
    CELL(csv, C_HALF, "%d", r->half);
    CELL(csv, C_HELPER, "%d", r->helper);
    CELL(csv, C_LINES_NEAR, "%u", r->lines_near);
    CELL(csv, C_LINES_FAR, "%u", r->lines_far);
    for (int f = 0; f < MP_L2MAP_FIELDS; f++)   /* the columns' order */
        CELL(csv, C_DRAM_NEAR + f, "%.2f", field(r, (mp_l2map_field)f));
    CELL(csv, C_VERIFIED, "%s", r->verified ? "yes" : "no");
    return row_write(csv);
}

static void print_map(const mp_l2map_row *rows, int nsm, const unsigned m[2],
                      int other, int md, FILE *out)
{
    const char *sep = md ? " | " : " ";
    fprintf(out, "L2 map: cycles per load, %u lines homed in SM 0's half "
            "and %u in the other's (SM %d)%s\n", m[0], m[1], other,
            md ? "\n" : "");
    if (md)
        fprintf(out, "| SM | half | dram_near | dram_far | near_hit | "
                "copy_hit | far_hit | verified |\n| --- | --- | --- | --- "
                "| --- | --- | --- | --- |\n");
    else
        fprintf(out, "%4s %4s %9s %9s %9s %9s %9s %s\n", "SM", "half",
                "dram_near", "dram_far", "near_hit", "copy_hit", "far_hit",
                "ok");
    for (int k = 0; k < nsm; k++) {
        const mp_l2map_row *r = &rows[k];
        fprintf(out, "%s%4d%s%4d%s%9.1f%s%9.1f%s%9.1f%s%9.1f%s%9.1f%s%s%s\n",
                md ? "| " : "", r->sm, sep, r->half, sep, r->dram_near, sep,
                r->dram_far, sep, r->near_hit, sep, r->copy_hit, sep,
                r->far_hit, sep, r->verified ? "yes" : "NO", md ? " |" : "");
    }
    fprintf(out, "%shalf: median [least, greatest] over its SMs (cycles "
            "per load; bw_: bytes per cycle of a %d-thread block)%s\n",
            md ? "\n" : "", MP_L2MAP_THREADS, md ? "\n" : "");
    for (int h = -1; h < 2; h++) {
        double med = 0, lo = 0, hi = 0;
        int k = mp_l2map_summary(rows, nsm, h, 0, &med, &lo, &hi);
        if (!k)
            continue;
        fprintf(out, "%s%s (%d SMs):", md ? "- " : "  ",
                h < 0 ? "all" : h ? "half 1" : "half 0", k);
        for (int f = 0; f < MP_L2MAP_FIELDS; f++) {
            mp_l2map_summary(rows, nsm, h, (mp_l2map_field)f, &med, &lo,
                             &hi);
            fprintf(out, "%s %s %.1f [%.1f, %.1f]%s",
                    f == MP_L2MAP_LATENCY_FIELDS ? "\n   " : "",
                    field_names[f], med, lo, hi,
                    f + 1 < MP_L2MAP_FIELDS ? ";" : "");
        }
        fprintf(out, "\n");
    }
}

static int map_table(gpu *g, const mp_l2map_options *o, csv_out *csv,
                     FILE *out)
{
    unsigned n = (unsigned)o->lines;
    unsigned long long *buf = self_lines(n);
    signed char *home = mp_xmalloc(n);
    unsigned count[2], *idx[2] = {NULL, NULL}, *d_idx[2] = {NULL, NULL};
    unsigned m[2];
    int rc = MP_EXIT_OK, other = sort_lines(g, buf, n, home, count);
    if (other < 0) {
        fprintf(stderr, "memprobe: l2map: no SM's first loads split the "
                "lines into two homes against SM 0's (margin %d cycles): "
                "one half, nothing to map\n", MP_L2MAP_MARGIN);
        rc = MP_EXIT_FAIL;
        goto done;
    }
    for (int h = 0; h < 2; h++) {
        idx[h] = mp_xmalloc((size_t)n * sizeof *idx[h]);
        m[h] = link_home(buf, home, n, h, n, idx[h], &d_idx[h]);
    }
    int nsm = o->nsms ? o->nsms : g->dev.sm_count;
    mp_l2map_row *rows = mp_xcalloc((size_t)nsm, sizeof *rows);
    for (int k = 0; k < nsm; k++) {
        map_sm(g, buf, idx, d_idx, m, o->nsms ? o->sms[k] : k, other,
               &rows[k]);
        if (!rows[k].verified || map_csv_row(g, &rows[k], csv))
            rc = MP_EXIT_FAIL;
    }
    print_map(rows, nsm, m, other, o->md, out);
    free(rows);
done:
    free(home);
    free(idx[0]);
    free(idx[1]);
    CHECK_CUDA(cudaFree(d_idx[0]));
    CHECK_CUDA(cudaFree(d_idx[1]));
    CHECK_CUDA(cudaFree(buf));
    return rc;
}

/* From SM 0: random chases through lines of SM 0's home, the other home,
 * or both, at 16-96 MiB of lines (the first lines of each home in a
 * buffer of 4 x the L2). */
static int plateau_table(gpu *g, const mp_l2map_options *o, csv_out *csv,
                         FILE *out)
{
    static const int mib[] = {16, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60,
                              64, 72, 80, 96};
    static const char *const sets[] = {"near", "far", "all"};
    unsigned n = (unsigned)(4 * g->dev.l2_bytes / MP_L2MAP_LINE);
    unsigned long long *buf = self_lines(n);
    signed char *home = mp_xmalloc(n);
    unsigned *idx = mp_xmalloc((size_t)n * sizeof *idx), count[2];
    int rc = MP_EXIT_OK;
    if (sort_lines(g, buf, n, home, count) < 0) {
        fprintf(stderr, "memprobe: l2map: --plateau: one half, nothing to "
                "chase\n");
        rc = MP_EXIT_FAIL;
        goto done;
    }
    fprintf(out, "\nPlateau: random chases from SM 0, cycles per load "
            "(lines of 128 bytes)%s\n", o->md ? "\n" : "");
    if (o->md)
        fprintf(out, "| MiB | near | far | all |\n| --- | --- | --- | --- |\n");
    else
        fprintf(out, "%6s %9s %9s %9s\n", "MiB", "near", "far", "all");
    for (size_t f = 0; f < sizeof mib / sizeof *mib; f++) {
        unsigned want = (unsigned)(((long long)mib[f] << 20) / MP_L2MAP_LINE);
        double c[3];
        int have[3];
        for (int s = 0; s < 3; s++) {
            have[s] = 0;
            unsigned m = link_home(buf, home, n, s == 2 ? -1 : s, want, idx,
                                   NULL);
            if (m < want)
                continue;
            int ok = 1;
            unsigned long long warm = (unsigned long long)m
                * (2ULL * m * MP_L2MAP_LINE <= 3ULL * g->dev.l2_bytes
                       ? 2 : 1);
            c[s] = chase(g, buf, idx, m, warm, 32768, 0, &ok);
            have[s] = 1;
            row_start(csv, g, "plateau");
            CELL(csv, C_SM, "0");
            CELL(csv, C_SET, "%s", sets[s]);
            CELL(csv, C_FOOTPRINT, "%lld", (long long)m * MP_L2MAP_LINE);
            CELL(csv, C_STRIDE, "%d", MP_L2MAP_LINE);
            CELL(csv, C_LINES, "%u", m);
            CELL(csv, C_CYCLES, "%.2f", c[s]);
            CELL(csv, C_VERIFIED, "%s", ok ? "yes" : "no");
            if (!ok || row_write(csv))
                rc = MP_EXIT_FAIL;
        }
        fprintf(out, o->md ? "| %d" : "%6d", mib[f]);
        for (int s = 0; s < 3; s++) {
            if (have[s])
                fprintf(out, o->md ? " | %.1f" : " %9.1f", c[s]);
            else
                fprintf(out, o->md ? " | -" : " %9s", "-");
        }
        fprintf(out, "%s\n", o->md ? " |" : "");
    }
done:
    free(home);
    free(idx);
    CHECK_CUDA(cudaFree(buf));
    return rc;
}

/* From SM 0: one line per 2 MiB page, 8 to 16384 pages (as many as half
 * the free memory holds), a random cycle, two untimed passes. */
static int tlb_table(gpu *g, const mp_l2map_options *o, csv_out *csv,
                     FILE *out)
{
    const long long stride = 2ll << 20;
    size_t freeb = 0, total = 0;
    CHECK_CUDA(cudaMemGetInfo(&freeb, &total));
    long long pages_max = 16384;
    while (pages_max > 8 && pages_max * stride > (long long)(freeb / 2))
        pages_max /= 2;
    unsigned long long *buf;
    CHECK_CUDA(cudaMalloc((void **)&buf, (size_t)(pages_max * stride)));
    unsigned *idx = mp_xmalloc((size_t)pages_max * sizeof *idx);
    int rc = MP_EXIT_OK;
    fprintf(out, "\nTLB: one line per 2 MiB page, random, from SM 0%s\n",
            o->md ? "\n" : "");
    if (o->md)
        fprintf(out, "| pages | footprint MiB | cycles per load |\n"
                "| --- | --- | --- |\n");
    else
        fprintf(out, "%8s %14s %9s\n", "pages", "footprint MiB", "cycles");
    for (long long p = 8; p <= pages_max; p *= 2) {
        const unsigned lines_per_page = (unsigned)(stride / MP_L2MAP_LINE);
        for (long long i = 0; i < p; i++)  /* varied offsets: every slice */
            idx[i] = (unsigned)(i * lines_per_page
                                + (unsigned)(i * 37) % lines_per_page);
        link_cycle(buf, idx, (unsigned)p, NULL);
        int ok = 1;
        double c = chase(g, buf, idx, (unsigned)p, 2 * (unsigned long long)p,
                         8192, 0, &ok);
        row_start(csv, g, "tlb");
        CELL(csv, C_SM, "0");
        CELL(csv, C_FOOTPRINT, "%lld", p * stride);
        CELL(csv, C_STRIDE, "%lld", stride);
        CELL(csv, C_LINES, "%lld", p);
        CELL(csv, C_CYCLES, "%.2f", c);
        CELL(csv, C_VERIFIED, "%s", ok ? "yes" : "no");
        if (!ok || row_write(csv))
            rc = MP_EXIT_FAIL;
        fprintf(out, o->md ? "| %lld | %lld | %.1f%s |\n"
                           : "%8lld %14lld %9.1f%s\n",
                p, p * stride >> 20, c, ok ? "" : " NOT VERIFIED");
    }
    free(idx);
    CHECK_CUDA(cudaFree(buf));
    return rc;
}

int mp_l2map_run(const mp_l2map_options *o, FILE *out, char *why,
                 size_t whylen)
{
    gpu g;
    memset(&g, 0, sizeof g);
    if (mp_device_available(why, whylen))
        return MP_EXIT_NOGPU;
    if (mp_device_open(0, &g.dev, why, whylen))
        return MP_EXIT_NOGPU;
    for (int k = 0; k < o->nsms; k++)
        if (o->sms[k] >= g.dev.sm_count) {
            fprintf(stderr, "memprobe: l2map: --sm: %d is not an SM of %s "
                    "(0..%d)\n", o->sms[k], g.dev.name, g.dev.sm_count - 1);
            return MP_EXIT_USAGE;
        }
    csv_out csv;
    memset(&csv, 0, sizeof csv);
    char err[512];
    if (o->output) {
        if (mp_csv_open(&csv.w, o->output, header, C_NCOLS, err,
                        sizeof err)) {
            fprintf(stderr, "memprobe: l2map: %s\n", err);
            return MP_EXIT_USAGE;
        }
        csv.open = 1;
    }
    gpu_open(&g);
    int clock_before = mp_sm_clock_mhz(0);
    fprintf(out, "%s, %d SMs, %.0f MiB L2, SM clock %d MHz (now: %d)\n",
            g.dev.name, g.dev.sm_count, g.dev.l2_bytes / 1048576.0,
            g.dev.sm_clock_khz / 1000, clock_before);
    int rc = map_table(&g, o, &csv, out);
    if (o->plateau) {
        int r = plateau_table(&g, o, &csv, out);
        rc = rc ? rc : r;
    }
    if (o->tlb) {
        int r = tlb_table(&g, o, &csv, out);
        rc = rc ? rc : r;
    }
    gpu_close(&g);
    char note[128];
    mp_clock_note(clock_before, mp_sm_clock_mhz(0), g.dev.sm_clock_khz / 1000,
                  note, sizeof note);
    if (note[0])
        fprintf(out, "\nNote: %s (cycles counted at the clock of the "
                "moment)\n", note);
    if (csv.open && mp_csv_close(&csv.w)) {
        fprintf(stderr, "memprobe: l2map: closing %s failed\n", o->output);
        rc = rc ? rc : MP_EXIT_FAIL;
    }
    return rc;
}
