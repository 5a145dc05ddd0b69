/*
 * lane_offsets.h - the text of 32 per-lane byte offsets ("o0;o1;...;o31")
 * that the bank probe's --offsets and the async probe's --offsets and
 * --src-offsets take: one parser, one set of error words. A lane may be
 * "-" (it takes no part) or "z" (a copy's lane that reads nothing and
 * fills its destination with zeros) where the caller allows it.
 */
#ifndef MP_LANE_OFFSETS_H
#define MP_LANE_OFFSETS_H

#include <stddef.h>

#define MP_LANE_OFF (-1LL)    /* "-": the lane takes no part */
#define MP_LANE_ZERO (-2LL)   /* "z": the lane reads nothing (zero fill) */

enum { MP_LANES_ALLOW_OFF = 1, MP_LANES_ALLOW_ZERO = 2 };

/* Reads 32 entries of text into off: byte offsets below 10^7, and
 * MP_LANE_OFF / MP_LANE_ZERO where `allow` permits. 0, or -1 with a
 * reason in err (no option name before it). */
int mp_lane_offsets_parse(const char *text, unsigned allow, long long off[32],
                          char *err, size_t errlen);

/* A short name for an offsets text, for configuration labels (FNV-1a). */
unsigned mp_lane_offsets_hash(const char *text);

#endif
