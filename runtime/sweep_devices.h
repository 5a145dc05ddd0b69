/*
 * sweep_devices.h - one sweep over several GPUs of a node, a worker
 * process per GPU, one CSV (see sweep_devices.c).
 */
#ifndef MP_SWEEP_DEVICES_H
#define MP_SWEEP_DEVICES_H

#include <stddef.h>

typedef struct {
    const char *file, *output;   /* the sweep file and the one CSV */
    const int *devices;
    int ndevices;
    int shard_k, shard_n;        /* the node's own shard of a fleet (0/1) */
    int resume, check_model, batch, launches, sample_us;
    const char *counters;        /* auto, on, off */
} mp_sweep_devices_args;

/* Runs the workers, waits for them and merges their rows into output.
 * Returns 0, or the first failing worker's status (1 when killed). */
int mp_sweep_on_devices(const mp_sweep_devices_args *a);

/* Parses --devices: "all" (every visible GPU) or "0,2,..". Returns the
 * count (0 when CUDA sees no GPU at all: the caller then runs as without
 * --devices and reports it), or -1 with a one-line reason. */
int mp_devices_parse(const char *text, int *devs, int max, char *err,
                     size_t errlen);

/* OUT.devD.part: where the worker for device D writes. */
void mp_sweep_part_path(const char *out, int device, char *buf, size_t len);

/* Appends the whole rows of CSV `part` to `out` (writing part's header
 * first when out is new or empty; refusing a different header) and
 * removes part. *rows: how many. A missing part is no error. 0 or -1. */
int mp_csv_merge_part(const char *out, const char *part, int *rows,
                      char *err, size_t errlen);

/* The same for any CSV of memprobe's: appends in's whole rows to out,
 * removing in only when remove_in is set. */
int mp_csv_append_rows(const char *out, const char *in, int remove_in,
                       int *rows, char *err, size_t errlen);

/* Merges every OUT.devD.part an earlier, killed run left. Returns the
 * rows merged, or -1 (printed). */
int mp_merge_leftover_parts(const char *out, int quiet);

#endif
