/*
 * own_files.c - memprobe's own libraries and data found relative to its
 * executable, installed or in the build tree (own_files.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "own_files.h"
#include "subprocess.h"

#define MAX_PLACES 6

/* The places of a kind below BIN (printf formats of BIN and NAME), the
 * installed one first. */
static int places(mp_own_kind kind, const char **fmt)
{
    if (kind == MP_OWN_LIB) {
        fmt[0] = "%s/../lib/memprobe/%s";
        fmt[1] = "%s/build/lib/%s";
        fmt[2] = "%s/lib/%s";
        return 3;
    }
    fmt[0] = "%s/../share/memprobe/%s";
    fmt[1] = "%s/%s";
    fmt[2] = "%s/../%s";
    fmt[3] = "%s/../../%s";
    fmt[4] = "%s/../../../%s";
    return 5;
}

/* The folder of the running binary into bin; whether it is named bin. */
static int binary_folder(char *bin, size_t len)
{
    snprintf(bin, len, "%s", mp_self_path());
    char *slash = strrchr(bin, '/');
    if (!slash) {
        snprintf(bin, len, ".");
        return 0;
    }
    *slash = '\0';
    slash = strrchr(bin, '/');
    return !strcmp(slash ? slash + 1 : bin, "bin");
}

int mp_own_path(mp_own_kind kind, const char *name, char *out, size_t len)
{
    char bin[PATH_MAX], cand[PATH_MAX + 64], first[PATH_MAX + 64] = "";
    const char *fmt[MAX_PLACES];
    int n = places(kind, fmt);
    int installed = binary_folder(bin, sizeof bin);
    for (int i = 0; i < n; i++) {
        /* installed first under BIN named bin, else last */
        int k = installed ? i : (i + 1) % n;
        snprintf(cand, sizeof cand, fmt[k], bin, name);
        if (!first[0])
            snprintf(first, sizeof first, "%s", cand);
        struct stat st;
        char real[PATH_MAX];
        if (stat(cand, &st) == 0 && realpath(cand, real)) {
            snprintf(out, len, "%s", real);
            return 0;
        }
    }
    /* the place named without "..": its folder resolved where it exists */
    char *slash = strrchr(first, '/'), dir[PATH_MAX];
    *slash = '\0';
    if (realpath(first, dir))
        snprintf(out, len, "%s/%s", dir, slash + 1);
    else
        snprintf(out, len, "%s/%s", first, slash + 1);
    return -1;
}
