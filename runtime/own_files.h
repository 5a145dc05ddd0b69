/*
 * own_files.h - where memprobe finds its own files at run time (its
 * libraries, its committed data), relative to its own executable: the one
 * helper for it, so that an installed memprobe works from any directory and
 * after its whole prefix is moved (docs/usage.md#installing).
 */
#ifndef MP_OWN_FILES_H
#define MP_OWN_FILES_H

#include <stddef.h>

typedef enum {
    MP_OWN_LIB,    /* a shared library or the capture patches' fatbin */
    MP_OWN_DATA    /* a committed file or folder: results/h200/... */
} mp_own_kind;

/* The file or folder `name` of memprobe's own, where BIN is the folder of
 * the running binary (/proc/self/exe, symbolic links resolved):
 *   MP_OWN_LIB   installed: BIN/../lib/memprobe/NAME; the build tree:
 *                BIN/build/lib/NAME (./memprobe) or BIN/lib/NAME
 *                (build/san/memprobe beside build/san/lib/)
 *   MP_OWN_DATA  installed: BIN/../share/memprobe/NAME; the build tree:
 *                BIN/NAME or NAME in one of the three folders above BIN
 *                (the checkout of ./memprobe, of build/san/memprobe, of a
 *                test program in build/tests/FAMILY/)
 * The installed place is looked at first when BIN is named bin, else last.
 * 0 and the absolute path, symbolic links resolved, in out; or -1 and the
 * first place looked at in out, its folder resolved where it exists (what a
 * message names as missing). */
int mp_own_path(mp_own_kind kind, const char *name, char *out, size_t len);

#endif
