/*
 * bw_shape.h - the bandwidth probe's automatic launch shape: the cache of
 * chosen shapes (a small text file, one line per device build and
 * configuration) and its keys. The search itself is in bandwidth.c.
 *
 * `memprobe bandwidth` without --inflight, --threads or --cache searches
 * those it was not given (a few launches per candidate) and keeps the
 * fastest. The result is cached in MEMPROBE_SHAPE_CACHE, else
 * $XDG_CACHE_HOME/memprobe/bandwidth-shapes, else
 * $HOME/.cache/memprobe/bandwidth-shapes. A line is used only when its
 * device key (GPU name, driver version, memprobe version and build time)
 * equals the running one: a new driver, GPU or build searches again.
 *
 *   DEVICE KEY|CONFIG KEY|inflight threads cache gbs
 *
 * The last matching line wins; lines that do not parse are ignored.
 */
#ifndef MP_BW_SHAPE_H
#define MP_BW_SHAPE_H

#include <stddef.h>

typedef struct {
    int inflight, threads, cache;   /* cache: MP_BW_CACHE_* */
    double gbs;                     /* what the search measured */
} mp_bw_shape;

/* The cache file's path into buf (see above), or NULL when none can be
 * named (no variable set). */
const char *mp_bw_shape_cache_path(char *buf, size_t len);

/* Looks (device, config) up in the file at path. 0 and *out when found,
 * -1 when not (or no file). */
int mp_bw_shape_cache_lookup(const char *path, const char *device,
                             const char *config, mp_bw_shape *out);

/* Appends the entry, creating the file and its folder (one level) if
 * needed. 0, or -1 when it cannot be written (the caller goes on: the
 * cache only saves time). '|' and line breaks in the keys become '_'. */
int mp_bw_shape_cache_store(const char *path, const char *device,
                            const char *config, const mp_bw_shape *s);

#endif
