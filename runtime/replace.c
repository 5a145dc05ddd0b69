/*
 * replace.c - output files replaced whole or not at all (replace.h):
 * written beside the target, fsync'd, renamed over it.
 */
#include "replace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* The file that is replaced: the one a symbolic link names (so that the
 * link stays a link), else target itself. */
static void resolve(const char *target, char *out, size_t len)
{
    struct stat st;
    char real[PATH_MAX];
    if (!lstat(target, &st) && S_ISLNK(st.st_mode) && realpath(target, real))
        snprintf(out, len, "%s", real);
    else
        snprintf(out, len, "%s", target);
}

void mp_replace_temp_name(const char *target, char *temp, size_t len)
{
    char real[PATH_MAX];
    resolve(target, real, sizeof real);
    snprintf(temp, len, "%s.new-%ld", real, (long)getpid());
}

FILE *mp_replace_open(const char *target, char *err, size_t errlen)
{
    char temp[PATH_MAX + 32];
    mp_replace_temp_name(target, temp, sizeof temp);
    FILE *f = fopen(temp, "w");
    if (!f)
        mp_reason(err, errlen, "%s: cannot write: %s", target,
                  strerror(errno));
    return f;
}

/* temp's data on the disk, with target's permissions when it exists:
 * 0, or an errno. */
static int sync_temp(const char *temp, const char *target)
{
    int fd = open(temp, O_RDONLY);
    if (fd < 0)
        return errno;
    struct stat st;
    int e = 0;
    if (!stat(target, &st) && S_ISREG(st.st_mode)
        && fchmod(fd, st.st_mode & 07777))
        e = errno;
    if (!e && fsync(fd) && errno != EINVAL && errno != EROFS)
        e = errno;   /* EINVAL: a file system that cannot sync */
    if (close(fd) && !e)
        e = errno;
    return e;
}

int mp_replace_commit_one(const char *temp, const char *target, char *err,
                          size_t errlen)
{
    char real[PATH_MAX];
    resolve(target, real, sizeof real);
    int e = sync_temp(temp, real);
    if (!e && rename(temp, real))
        e = errno;
    if (!e)
        return 0;
    unlink(temp);
    mp_reason(err, errlen, "%s: cannot replace it: %s (the existing file "
              "is left unchanged)", target, strerror(e));
    return -1;
}

const char *mp_replace_add_temp(mp_replace_set *s, const char *target,
                                const char *temp)
{
    if (s->n >= MP_REPLACE_MAX) {   /* a programming error */
        fprintf(stderr, "memprobe: more than %d files replaced together\n",
                MP_REPLACE_MAX);
        abort();
    }
    unlink(temp);
    s->target[s->n] = mp_xstrdup(target);
    s->temp[s->n] = mp_xstrdup(temp);
    return s->temp[s->n++];
}

const char *mp_replace_add(mp_replace_set *s, const char *target)
{
    char temp[PATH_MAX + 32];
    mp_replace_temp_name(target, temp, sizeof temp);
    return mp_replace_add_temp(s, target, temp);
}

static void empty(mp_replace_set *s)
{
    for (int k = 0; k < s->n; k++) {
        free(s->target[k]);
        free(s->temp[k]);
    }
    s->n = 0;
}

int mp_replace_commit(mp_replace_set *s, char *err, size_t errlen)
{
    int rc = 0;
    /* every temp synced before any target is replaced */
    for (int k = 0; k < s->n && !rc; k++) {
        int e = access(s->temp[k], F_OK) ? 0
                : sync_temp(s->temp[k], s->target[k]);
        if (e) {
            mp_reason(err, errlen, "%s: cannot write: %s (the existing "
                      "file is left unchanged)", s->temp[k], strerror(e));
            rc = -1;
        }
    }
    for (int k = 0; k < s->n; k++) {
        if (rc || access(s->temp[k], F_OK)) {
            unlink(s->temp[k]);
            continue;
        }
        if (mp_replace_commit_one(s->temp[k], s->target[k], err, errlen))
            rc = -1;
    }
    empty(s);
    return rc;
}

void mp_replace_drop(mp_replace_set *s, int say)
{
    int named = 0;
    for (int k = 0; k < s->n; k++) {
        unlink(s->temp[k]);
        if (!say || access(s->target[k], F_OK))
            continue;
        fprintf(stderr, "%s%s", named++ ? ", " : "memprobe: left "
                "unchanged: ", s->target[k]);
    }
    if (named)
        fputc('\n', stderr);
    empty(s);
}
