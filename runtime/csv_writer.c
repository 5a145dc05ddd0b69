/*
 * csv_writer.c - append-only RFC 4180 writer (see csv_writer.h).
 *
 * Records end with CRLF as RFC 4180 asks; fields holding a comma, a quote,
 * CR or LF are quoted and inner quotes doubled.
 */
#include "csv_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

size_t mp_csv_escape(const char *field, char *buf, size_t len)
{
    size_t need = 0;
    int quote = strpbrk(field, ",\"\r\n") != NULL;
#define PUT(c) do { if (need + 1 < len) buf[need] = (c); need++; } while (0)
    if (quote)
        PUT('"');
    for (const char *p = field; *p; p++) {
        if (*p == '"')
            PUT('"');
        PUT(*p);
    }
    if (quote)
        PUT('"');
#undef PUT
    if (len)
        buf[need < len ? need : len - 1] = '\0';
    return need;
}

/* Formats cells as one CSV record (with CRLF) into a malloc'd string. */
static char *format_record(const char *const *cells, int ncols)
{
    size_t cap = 2 + 1;
    for (int i = 0; i < ncols; i++)
        cap += mp_csv_escape(cells[i] ? cells[i] : "", NULL, 0) + 1;
    char *line = malloc(cap);
    if (!line)
        return NULL;
    size_t used = 0;
    for (int i = 0; i < ncols; i++) {
        if (i)
            line[used++] = ',';
        used += mp_csv_escape(cells[i] ? cells[i] : "", line + used,
                              cap - used);
    }
    memcpy(line + used, "\r\n", 3);
    return line;
}

/* True when the file's last byte is a line feed (or the file is empty):
 * otherwise a header or row was cut off, and appending would glue the next
 * row onto it. */
static int ends_with_newline(FILE *f)
{
    if (fseek(f, -1, SEEK_END) != 0)
        return 1;   /* empty file */
    int c = fgetc(f);
    rewind(f);
    return c == '\n';
}

/* Reads the first line of an existing file without its line end.
 * Returns NULL for an empty file. */
static char *first_line(FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    if (n <= 0) {
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    return line;
}

/* Appends text to the writer's file with write(2), bypassing stdio, so
 * that a row is one system call: a kill between rows leaves whole rows
 * only. On a failed or short write (disk full, the file-size limit, an I/O
 * error) the file is cut back to its length before the call, so earlier
 * rows stay intact and no partial line is left. stdout goes through stdio
 * (it is shared with other output, and cannot be cut back). */
static int append_text(mp_csv_writer *w, const char *text, size_t len)
{
    if (w->f == stdout)
        return fwrite(text, 1, len, w->f) == len && fflush(w->f) == 0 ? 0
                                                                      : -1;
    int fd = fileno(w->f);
    off_t before = lseek(fd, 0, SEEK_END);
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            if (before >= 0 && ftruncate(fd, before) != 0) {
                /* nothing more to do: the error below is reported */
            }
            errno = e;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Everything about `path` that decides whether rows can be appended,
 * without opening it for writing or creating anything: a new file's
 * folder exists and takes files; an existing file is no folder, is
 * writable, and (a regular file) is empty or starts with `want`'s header
 * and ends with a line end. *existed: the file is there; *write_header: it
 * has no header yet. 0, or -1 with a reason in err. */
static int check_target(const char *path, const char *want, int *existed,
                        int *write_header, char *err, size_t errlen)
{
    struct stat st;
    *write_header = 1;
    *existed = stat(path, &st) == 0;
    if (!*existed) {
        if (errno != ENOENT) {   /* ENOTDIR, EACCES, ELOOP ... */
            snprintf(err, errlen, "%s: cannot open for appending: %s", path,
                     strerror(errno));
            return -1;
        }
        /* A new file: its folder must be there and take a file. */
        const char *slash = strrchr(path, '/');
        char dir[4096];
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else
            snprintf(dir, sizeof dir, "%.*s",
                     (int)(slash == path ? 1 : slash - path), path);
        struct stat ds;
        int e = stat(dir, &ds) != 0 ? errno
                : !S_ISDIR(ds.st_mode) ? ENOTDIR
                : access(dir, W_OK | X_OK) != 0 ? errno : 0;
        if (e) {
            snprintf(err, errlen, "%s: cannot open for appending: folder "
                     "%s: %s", path, dir, strerror(e));
            return -1;
        }
        return 0;
    }
    if (S_ISDIR(st.st_mode) || access(path, W_OK) != 0) {
        snprintf(err, errlen, "%s: cannot open for appending: %s", path,
                 strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
        return -1;
    }
    /* Only a regular file has rows to check: a device (/dev/null,
     * /dev/full) or a pipe is written, never read. */
    FILE *old = S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
    if (!old)
        return 0;
    int complete = ends_with_newline(old);
    char *have = first_line(old);
    fclose(old);
    if (!have)
        return 0;   /* empty: gets the header */
    size_t body = strlen(want) - 2;   /* without CRLF */
    int same = strlen(have) == body && strncmp(have, want, body) == 0;
    free(have);
    if (!same) {
        snprintf(err, errlen, "%s: existing header differs from this "
                 "memprobe's columns; write to another file with -o", path);
        return -1;
    }
    if (!complete) {
        snprintf(err, errlen, "%s: the last line is incomplete (an "
                 "interrupted write?); not appending to it", path);
        return -1;
    }
    *write_header = 0;
    return 0;
}

int mp_csv_check_output(const char *path, const char *const *header,
                        int ncols, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return 0;
    char *want = format_record(header, ncols);
    if (!want) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int existed, write_header;
    int rc = check_target(path, want, &existed, &write_header, err, errlen);
    free(want);
    return rc;
}

int mp_csv_open(mp_csv_writer *w, const char *path,
                const char *const *header, int ncols, char *err,
                size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->ncols = ncols;
    char *want = format_record(header, ncols);
    if (!want) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int write_header = 1, existed = 0;
    if (strcmp(path, "-") == 0) {
        w->f = stdout;
    } else {
        if (check_target(path, want, &existed, &write_header, err,
                         errlen)) {
            free(want);
            return -1;
        }
        w->f = fopen(path, "a");
        if (!w->f) {
            snprintf(err, errlen, "%s: cannot open for appending: %s", path,
                     strerror(errno));
            free(want);
            return -1;
        }
        w->path = strdup(path);
    }
    int rc = 0;
    if (write_header && append_text(w, want, strlen(want))) {
        snprintf(err, errlen, "%s: cannot write header: %s", path,
                 strerror(errno));
        rc = -1;
        /* Leave no empty file behind where there was none. */
        if (!existed && w->path)
            unlink(w->path);
        mp_csv_close(w);
    }
    free(want);
    return rc;
}

int mp_csv_write_row(mp_csv_writer *w, const char *const *cells, char *err,
                     size_t errlen)
{
    char *line = format_record(cells, w->ncols);
    if (!line) {
        snprintf(err, errlen, "out of memory formatting a CSV row");
        return -1;
    }
    int ok = append_text(w, line, strlen(line)) == 0;
    free(line);
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write row: %s",
                 w->path ? w->path : "stdout", strerror(errno));
        return -1;
    }
    return 0;
}

int mp_csv_close(mp_csv_writer *w)
{
    int rc = 0;
    if (w->f && w->f != stdout)
        rc = fclose(w->f) == 0 ? 0 : -1;
    free(w->path);
    memset(w, 0, sizeof *w);
    return rc;
}
