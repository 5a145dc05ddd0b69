/*
 * ceiling.h - what one family measures for the others: the device's read
 * bandwidth (probes/bandwidth/bandwidth_ceiling.c), the ceiling the
 * reduce family's bandwidth is a fraction of. Families use each other
 * only through headers here, never by including another family's.
 */
#ifndef MP_CEILING_H
#define MP_CEILING_H

/* The device's read bandwidth in GB/s, measured once per process with the
 * bandwidth family's read kernel (16-byte loads, 4 in flight, one full
 * wave of sm_count SMs) over a 1 GiB array; the median of 5 timed
 * launches. Allocates, initialises and frees its arrays: call it outside
 * any profiled batch. */
double mp_read_ceiling_gbs(int sm_count);

#endif
