/*
 * fuzz_util.c - helpers of the libFuzzer targets (fuzz_util.h).
 */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_file(const uint8_t *data, size_t size, const char *name, char *path,
              size_t pathlen)
{
    int fd = memfd_create(name, 0);
    if (fd < 0) {
        perror("memfd_create");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            perror("write");
            abort();
        }
        done += (size_t)n;
    }
    snprintf(path, pathlen, "/proc/self/fd/%d", fd);
    return fd;
}

void fuzz_file_close(int fd)
{
    close(fd);
}

void fuzz_check_reason(const char *err)
{
    if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "refused without a one-line reason: '%s'\n", err);
        abort();
    }
}

/* The families' registry hands the engine its probes and the report its
 * parts (probes/family.h); memprobe's main() does it first, and so does
 * every program linked with this harness, before its tests run. */
#include "family.h"
__attribute__((constructor)) static void register_families(void)
{
    mp_families_register();
}
