/*
 * csv_writer.h - RFC 4180 CSV output that never loses or damages a result.
 *
 * A file is opened for appending: the header is written only when the file
 * is new or empty, and an existing file whose header differs from ours is
 * refused rather than mixed. Each row is formatted in memory, written with
 * one call and flushed, so an interrupted run leaves every completed row.
 */
#ifndef MP_CSV_WRITER_H
#define MP_CSV_WRITER_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char *path;
    int ncols;
} mp_csv_writer;

/* Appends CRLF-free RFC 4180 text of `field` to buf (quoting when needed).
 * Returns the length the field needs, like snprintf. */
size_t mp_csv_escape(const char *field, char *buf, size_t len);

/* Opens `path` ("-" = stdout) for appending rows of `ncols` columns whose
 * names are `header`. Returns 0, or -1 with a one-line reason in err. */
int mp_csv_open(mp_csv_writer *w, const char *path,
                const char *const *header, int ncols, char *err,
                size_t errlen);

/* Whether mp_csv_open(path, header, ncols) would be refused for what is
 * on disk (a missing or unwritable folder, a folder or unwritable file
 * given as the file, a foreign header, a cut-off last line), without
 * creating or changing anything: 0, or -1 with its reason in err. For
 * refusing a bad output before a measurement starts. */
int mp_csv_check_output(const char *path, const char *const *header,
                        int ncols, char *err, size_t errlen);

/* Writes one row (NULL or "" cells are empty) and flushes. 0 or -1. */
int mp_csv_write_row(mp_csv_writer *w, const char *const *cells, char *err,
                     size_t errlen);

/* Closes the file (not stdout). Returns 0 or -1 if the close failed. */
int mp_csv_close(mp_csv_writer *w);

#endif
