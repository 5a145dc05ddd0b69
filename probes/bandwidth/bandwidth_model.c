/*
 * bandwidth_model.c - the bandwidth probe's traffic model
 * (bandwidth_model.h), moved out of bandwidth.c: pure C, no GPU.
 */
#include "bandwidth_model.h"

/* Distinct 32-byte sectors that `lanes` consecutive lanes touch when lane
 * l accesses `width` bytes at byte phase + l * spacing. An element never
 * straddles a sector: it is width-aligned and width divides 32. */
static long long warp_sectors(long long phase, long long spacing, int width,
                              int lanes)
{
    long long count = 0, last = -1;
    for (int l = 0; l < lanes; l++) {
        long long first = (phase + l * spacing) / 32;
        long long end = (phase + l * spacing + width - 1) / 32;
        for (long long sct = first; sct <= end; sct++)
            if (sct > last) {   /* addresses grow with l: no revisits */
                count++;
                last = sct;
            }
    }
    return count;
}

void mp_bw_model_compute(int kernel, int width, long long offset, int stride,
                         long long bytes, mp_bw_model *m)
{
    long long n = bytes / width, spacing = (long long)stride * width;
    double requests = 0, sectors = 0, ideal = 0, dram = 0;
    for (int p = 0; p < stride; p++) {
        long long cnt = (n - p + stride - 1) / stride;
        long long full = cnt / 32, rest = cnt % 32;
        /* Group g of pass p starts at element p + 32 g stride, byte
         * offset + (p + 32 g stride) width: its phase within a sector is
         * (offset + p width) % 32 for every g. */
        long long phase = (offset + (long long)p * width) % 32;
        requests += full + (rest > 0);
        sectors += (double)full * warp_sectors(phase, spacing, width, 32);
        ideal += (double)full * width;   /* 32 lanes x width / 32 */
        if (rest) {
            sectors += warp_sectors(phase, spacing, width, (int)rest);
            ideal += (rest * width + 31) / 32;
        }
        /* DRAM: the distinct sectors of the pass. With elements at most a
         * sector apart every sector from the first to the last is hit;
         * further apart, every element has its own. */
        if (cnt > 0) {
            long long first = (offset + (long long)p * width) / 32;
            long long last =
                (offset + (p + (cnt - 1) * (long long)stride) * width) / 32;
            dram += 32.0 * (spacing <= 32 ? last - first + 1 : cnt);
        }
    }
    int reads = kernel != MP_BW_WRITE, writes = kernel != MP_BW_READ;
    m->bytes_counted = (double)bytes * (reads + writes);
    m->requests = requests;
    m->sectors = sectors;
    m->ideal_sectors = ideal;
    m->dram_read_bytes = reads ? dram : 0;
    m->dram_write_bytes = writes ? dram : 0;
}
