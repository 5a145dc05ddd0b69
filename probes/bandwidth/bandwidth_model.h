/*
 * bandwidth_model.h - the traffic model of the DRAM bandwidth probe
 * (bandwidth_model.c): the warp-level requests, the 32-byte sectors they
 * touch and the DRAM bytes of one walk of the arrays, by kernel, width,
 * offset and stride. Pure C, no CUDA; bandwidth.h (the probe's launcher
 * and patterns) includes it, and bandwidth.h says how the kernels walk
 * the arrays.
 */
#ifndef MP_PROBES_BANDWIDTH_MODEL_H
#define MP_PROBES_BANDWIDTH_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

enum { MP_BW_READ, MP_BW_WRITE, MP_BW_COPY };

typedef struct {
    double bytes_counted;     /* read: bytes read; write: written; copy: both */
    double requests;          /* warp-level global requests (ld + st) */
    double sectors;           /* 32-byte L1 sectors of those requests */
    double ideal_sectors;     /* the same bytes contiguous and aligned */
    double dram_read_bytes;   /* expected DRAM traffic, arrays >> L2 */
    double dram_write_bytes;
} mp_bw_model;

/* Traffic of one launch over `bytes` bytes per array, starting `offset`
 * bytes after a 32-byte-aligned base, elements of `width` bytes, `stride`
 * passes. The grid does not change any of it: requests are the groups of
 * 32 consecutive elements of each pass. DRAM bytes assume that no sector
 * survives in L2 from one pass to the next (true when a pass is larger
 * than the L2); a sector is 32 bytes. */
void mp_bw_model_compute(int kernel, int width, long long offset, int stride,
                         long long bytes, mp_bw_model *m);

#ifdef __cplusplus
}
#endif

#endif
