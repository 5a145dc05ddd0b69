/*
 * replace.h - the one way memprobe replaces an output file that may hold
 * an earlier result: the new content goes to a file beside the target
 * (the same folder, so rename(2) is atomic), is synced, and is renamed
 * over the target only when the run produced it; a run that failed
 * removes it and leaves the target byte-identical.
 */
#ifndef MP_REPLACE_H
#define MP_REPLACE_H

#include <stddef.h>
#include <stdio.h>

/* The file beside target that its new content is written to:
 * "TARGET.new-PID", TARGET being the file a symbolic link names. */
void mp_replace_temp_name(const char *target, char *temp, size_t len);

/* A new, empty temp file for target, opened for writing: NULL with
 * "TARGET: cannot write: ..." in err. */
FILE *mp_replace_open(const char *target, char *err, size_t errlen);

/* temp synced and renamed over target (which keeps its permissions):
 * 0, or -1 with the reason in err, temp removed and target untouched. */
int mp_replace_commit_one(const char *temp, const char *target, char *err,
                          size_t errlen);

/* The files of one run that are replaced together, or not at all. */
#define MP_REPLACE_MAX 8
typedef struct {
    int n;
    char *target[MP_REPLACE_MAX], *temp[MP_REPLACE_MAX];
} mp_replace_set;

/* Adds target to s (zeroed before the first call): the path its new
 * content is to be written to (valid until s is committed or dropped);
 * a stale file of that name is removed. */
const char *mp_replace_add(mp_replace_set *s, const char *target);

/* The same with the temp's name given (a file another program names
 * after one of s's temps, in target's folder). */
const char *mp_replace_add_temp(mp_replace_set *s, const char *target,
                                const char *temp);

/* Every written temp of s renamed over its target (a temp never written
 * leaves its target as it is): 0, or -1 with the reason in err, the
 * temps left removed. s is emptied. */
int mp_replace_commit(mp_replace_set *s, char *err, size_t errlen);

/* The temps of s removed, every target untouched; with say, one line
 * "memprobe: left unchanged: A, B" naming the targets that exist. s is
 * emptied. */
void mp_replace_drop(mp_replace_set *s, int say);

#endif
