/*
 * lane_offsets.c - the per-lane offsets text of lane_offsets.h.
 */
#include "lane_offsets.h"

#include <stdio.h>
#include <stdlib.h>

/* The entry at p (ending at ';' or the end) into *v; its end, or NULL. */
static const char *entry(const char *p, unsigned allow, long long *v)
{
    if ((*p == '-' || *p == 'z') && (p[1] == ';' || p[1] == '\0')) {
        unsigned need = *p == '-' ? MP_LANES_ALLOW_OFF : MP_LANES_ALLOW_ZERO;
        if (!(allow & need))
            return NULL;
        *v = *p == '-' ? MP_LANE_OFF : MP_LANE_ZERO;
        return p + 1;
    }
    const char *q = p;
    while (*q >= '0' && *q <= '9')
        q++;
    if (q == p || q - p > 7 || (*q != ';' && *q != '\0'))
        return NULL;
    *v = strtoll(p, NULL, 10);
    return q;
}

int mp_lane_offsets_parse(const char *text, unsigned allow, long long off[32],
                          char *err, size_t errlen)
{
    const char *p = text;
    int n = 0;
    for (;;) {
        long long v;
        const char *q = entry(p, allow, &v);
        if (!q) {
            const char *more = allow == (MP_LANES_ALLOW_OFF
                                         | MP_LANES_ALLOW_ZERO)
                                   ? ", '-' for a lane off or 'z' for one "
                                     "that reads nothing"
                               : allow & MP_LANES_ALLOW_OFF
                                   ? ", '-' for a lane off"
                                   : "";
            snprintf(err, errlen, "'%s': offset %d is not a whole number of "
                     "bytes below 10^7%s (want 32 offsets 'o0;o1;...;o31')",
                     text, n, more);
            return -1;
        }
        if (n == 32) {
            snprintf(err, errlen, "'%s': more than 32 offsets", text);
            return -1;
        }
        off[n++] = v;
        if (*q == '\0')
            break;
        p = q + 1;
    }
    if (n != 32) {
        snprintf(err, errlen, "'%s': %d offsets, want 32 (one per lane)",
                 text, n);
        return -1;
    }
    return 0;
}

unsigned mp_lane_offsets_hash(const char *text)
{
    unsigned h = 2166136261u;
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 16777619u;
    return h;
}
