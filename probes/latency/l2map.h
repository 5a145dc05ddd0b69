/*
 * l2map.h - `memprobe l2map`: where a line lives in a two-partition L2,
 * seen from every SM (docs/latency.md, "The L2's two halves").
 *
 * Each line of device memory has a home half of the GPU: its first load
 * from an SM of that half takes about 590 cycles on the H200, from the
 * other half about 780. The map sorts the lines of a buffer by home (the
 * first loads of SM 0 against those of an SM of the other half), then
 * for every SM walks a random chain through the lines of each home
 * (l2map.cu) and reports, per SM: device memory near and far (a walk
 * after the L2 is emptied), L2 hits near and far (the SM's second walk:
 * its own half's lines, and its copies of the other half's), and a hit
 * in the far partition (the SM's first walk after an SM of the other
 * half walked the same lines). --plateau chases, from SM 0, lines of one
 * home or both at 16-96 MiB; --tlb one line per 2 MiB page over up to
 * 32 GiB.
 *
 * The kernels are in l2map.cu; the sorting and the summaries are plain C
 * here and in l2map.c, tested on the CPU (test_l2map.c).
 */
#ifndef MP_PROBES_L2MAP_H
#define MP_PROBES_L2MAP_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one line: one chain element per line. */
#define MP_L2MAP_LINE 128
/* Threads of the block that streams lines for the bandwidth, and the
 * most lines it reads (their numbers sit in its shared memory). */
#define MP_L2MAP_THREADS 1024
#define MP_L2MAP_STREAM_LINES 8192
/* Two homes differ by at least this many cycles for a line to be sorted;
 * the H200's differ by about 190, their spreads by less than 40. */
#define MP_L2MAP_MARGIN 80
/* Lines sorted to each home, at least this share of the buffer, for two
 * SMs to be in different halves. */
#define MP_L2MAP_MIN_SHARE 0.25

/* Kernel launchers (l2map.cu): cudaError_t. `blocks` one-warp blocks are
 * launched; the first on SM `sm` sets *claimed and does the work. */
int mp_l2map_walk(unsigned long long start, unsigned n, unsigned sm,
                  unsigned blocks, int *claimed, unsigned long long *out);
int mp_l2map_first_loads(unsigned long long base, unsigned nlines,
                         unsigned sm, unsigned blocks, int *claimed,
                         unsigned *cyc, unsigned *bad);
int mp_l2map_stream(unsigned long long base, const unsigned *idx,
                    unsigned n, unsigned sm, unsigned blocks,
                    unsigned threads, int *claimed, unsigned long long *out);
int mp_l2map_flush(const unsigned long long *scratch, size_t words,
                   unsigned blocks, unsigned long long *sink);
int mp_l2map_link(unsigned long long *base, const unsigned *idx,
                  unsigned n);

/* Sorts line i by two SMs' first loads: 0 when a[i] + margin < b[i] (home
 * in a's half), 1 when b[i] + margin < a[i], -1 otherwise. count[0..1]:
 * lines of each home. */
void mp_l2map_sort(const unsigned *a, const unsigned *b, unsigned n,
                   unsigned margin, signed char *home, unsigned count[2]);
/* Whether a sort found two halves: each home at least MIN_SHARE of n. */
int mp_l2map_two_halves(const unsigned count[2], unsigned n);

/* One SM's row of the map: cycles per load of each walk. */
typedef struct {
    int sm;
    int half;           /* 0: SM 0's half, 1: the other */
    int helper;         /* the SM of the other half for far_hit */
    unsigned lines_near, lines_far;
    double dram_near, dram_far;   /* after the L2 was emptied */
    double near_hit, copy_hit;    /* the second walk */
    double far_hit;     /* the first walk after the helper's */
    /* Bandwidth, bytes per cycle: a block of MP_L2MAP_THREADS on the SM
     * reading the lines of a home whole (the first STREAM_LINES), at the
     * same moments as the walks above. */
    double bw_dram_near, bw_dram_far, bw_near_hit, bw_copy_hit, bw_far_hit;
    int verified;       /* every walk ended where the chain says */
} mp_l2map_row;

/* Median, least and greatest of one field over the rows of a half (-1:
 * every row). Returns how many rows; 0 leaves *med, *lo, *hi alone. */
typedef enum { MP_L2MAP_DRAM_NEAR, MP_L2MAP_DRAM_FAR, MP_L2MAP_NEAR_HIT,
               MP_L2MAP_COPY_HIT, MP_L2MAP_FAR_HIT, MP_L2MAP_BW_DRAM_NEAR,
               MP_L2MAP_BW_DRAM_FAR, MP_L2MAP_BW_NEAR_HIT,
               MP_L2MAP_BW_COPY_HIT, MP_L2MAP_BW_FAR_HIT,
               MP_L2MAP_FIELDS } mp_l2map_field;
/* The latency fields are the first five. */
#define MP_L2MAP_LATENCY_FIELDS 5
int mp_l2map_summary(const mp_l2map_row *rows, int n, int half,
                     mp_l2map_field f, double *med, double *lo, double *hi);
/* Where field f of row r is (for filling a row field by field). */
double *mp_l2map_field_ref(mp_l2map_row *r, mp_l2map_field f);
/* The field's name in the CSV and tables ("dram_near"...). */
const char *mp_l2map_field_name(mp_l2map_field f);

/* What `memprobe l2map` was asked. */
typedef struct {
    int sms[4096];       /* the SMs to map; nsms 0 = every SM */
    int nsms;
    long long lines;     /* lines of the map's buffer */
    int plateau, tlb;    /* the two other tables */
    int md;              /* tables as Markdown */
    const char *output;  /* CSV file, "-" stdout, NULL none */
} mp_l2map_options;

/* Whether the CSV at `path` could take the map's rows (csv_writer.h's
 * mp_csv_check_output with the map's header): 0, or -1 with why. */
int mp_l2map_check_output(const char *path, char *why, size_t whylen);

/* Runs it on device 0 and prints the tables to out; writes the CSV.
 * Returns a memprobe exit status (3: no GPU, why in *why). */
int mp_l2map_run(const mp_l2map_options *o, FILE *out, char *why,
                 size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
