/*
 * readfile.h - a whole file into memory, the one helper for it: the
 * readers of Nsight Compute's source page, of captures and of sweep
 * parts read their files through it.
 */
#ifndef MP_READFILE_H
#define MP_READFILE_H

#include <stddef.h>

/* The file at path, NUL-terminated and malloc'd (the caller frees it),
 * its size in *len; NULL with "PATH: cannot open", "PATH: cannot read"
 * or "PATH: out of memory" in err (err may be NULL). */
char *mp_read_file(const char *path, size_t *len, char *err, size_t errlen);

#endif
