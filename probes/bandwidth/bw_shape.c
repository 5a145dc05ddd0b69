/*
 * bw_shape.c - the cache file of the bandwidth probe's automatic shapes
 * (see bw_shape.h): path, lookup, append.
 */
#include "bw_shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FILE_NAME "bandwidth-shapes"

const char *mp_bw_shape_cache_path(char *buf, size_t len)
{
    const char *e = getenv("MEMPROBE_SHAPE_CACHE");
    if (e && *e) {
        snprintf(buf, len, "%s", e);
        return buf;
    }
    e = getenv("XDG_CACHE_HOME");
    if (e && *e) {
        snprintf(buf, len, "%s/memprobe/" FILE_NAME, e);
        return buf;
    }
    e = getenv("HOME");
    if (e && *e) {
        snprintf(buf, len, "%s/.cache/memprobe/" FILE_NAME, e);
        return buf;
    }
    return NULL;
}

/* A key as it is written: '|', CR and LF replaced. */
static void clean(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = in[i] == '|' || in[i] == '\n' || in[i] == '\r' ? '_' : in[i];
    out[i] = '\0';
}

int mp_bw_shape_cache_lookup(const char *path, const char *device,
                             const char *config, mp_bw_shape *out)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    char dev[512], cfg[512], line[2048];
    clean(device, dev, sizeof dev);
    clean(config, cfg, sizeof cfg);
    size_t dl = strlen(dev), cl = strlen(cfg);
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, dev, dl) || line[dl] != '|'
            || strncmp(line + dl + 1, cfg, cl) || line[dl + 1 + cl] != '|')
            continue;
        mp_bw_shape s;
        char end;
        if (sscanf(line + dl + cl + 2, "%d %d %d %lf%c", &s.inflight,
                   &s.threads, &s.cache, &s.gbs, &end) == 5
            && end == '\n' && s.inflight > 0 && s.threads > 0
            && s.threads % 32 == 0 && s.threads <= 1024 && s.cache >= 0) {
            *out = s;
            found = 0;
        }
    }
    fclose(f);
    return found;
}

int mp_bw_shape_cache_store(const char *path, const char *device,
                            const char *config, const mp_bw_shape *s)
{
    if (!path)
        return -1;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        /* the folder and its parent ($HOME/.cache/memprobe) */
        char *up = strrchr(dir, '/');
        if (up && up != dir) {
            *up = '\0';
            if (mkdir(dir, 0777) && errno != EEXIST)
                return -1;
            *up = '/';
        }
        if (mkdir(dir, 0777) && errno != EEXIST)
            return -1;
    }
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    char dev[512], cfg[512];
    clean(device, dev, sizeof dev);
    clean(config, cfg, sizeof cfg);
    fprintf(f, "%s|%s|%d %d %d %.1f\n", dev, cfg, s->inflight, s->threads,
            s->cache, s->gbs);
    return fclose(f) ? -1 : 0;
}
