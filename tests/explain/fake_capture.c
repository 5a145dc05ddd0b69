/*
 * fake_capture.c - a stand-in for memprobe explain's capture library
 * (libmemprobe_capture.so), for the CPU tests (tests/test_explain_cli.c).
 * Preloaded into tests/profile/fake_app, it keeps the library's contract
 * when MEMPROBE_CAPTURE_FILE is set: it reads the wanted instructions
 * ("MANGLED,0xOFFSET" lines of MEMPROBE_CAPTURE_WANT) and the cap
 * (MEMPROBE_CAPTURE_MAX_WARPS, default 65536) and writes the capture CSV
 * and FILE.status ("captured ...", "dropped ..." past the cap) for the
 * wanted instructions it knows, of fake_app's first launch (launch 0) of
 * transpose_naive:
 *   0x110 STS    1024 warp executions; warp k's lanes write word
 *                32 * lane + k % 32 of a tile of 32-word rows: 32
 *                wavefronts each, ideal 1 (fake_app's 32 x 1024, ideal
 *                1024, with its default --conflict 32)
 *   0x210 STG.E  1024 executions; lane l writes 4 bytes 4096 * l + 4 * k
 *                past a line: 32 sectors each, ideal 4 (fake_app's
 *                32768, ideal 4096)
 * Every other instruction wanted is left out (not captured).
 * FAKE_CAPTURE_ERROR=TEXT adds the line "error TEXT" to the status;
 * FAKE_CAPTURE_LEFT=1 says 0x100 (when wanted) "left" past the library's
 * instructions a kernel;
 * FAKE_CAPTURE_NONE=1 writes nothing (a library that did not start).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_row.h"

#define NAIVE "_Z15transpose_naivePfPKfi"
#define EXECS 1024

/* 1 when the want file lists NAIVE at offset off. */
static int wanted(const char *path, unsigned off)
{
    FILE *f = fopen(path, "r");
    char line[4096], want[128];
    int found = 0;
    snprintf(want, sizeof want, "%s,0x%x", NAIVE, off);
    while (f && !found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        found = !strcmp(line, want);
    }
    if (f)
        fclose(f);
    return found;
}

/* Execution k of the instruction at off: its row, written by the capture
 * library's own row writer (explain/capture/capture_row.c). */
static void row(FILE *out, unsigned off, int k)
{
    int sts = off == 0x110;
    mp_capture_rec r = {.active = 0xffffffffu, .warp = (uint32_t)k,
                        .width = 4,
                        .flags = MP_CAPTURE_WRITE
                                 | (sts ? MP_CAPTURE_SHARED : 0)};
    for (int l = 0; l < 32; l++)
        r.addr[l] = sts ? 4ULL * (32 * l + k % 32)
                        : 0x7f0000000000ULL + 4096ULL * l + 4 * k;
    char line[MP_CAPTURE_ROW_MAX(sizeof NAIVE)];
    fwrite(line, 1, mp_capture_row(line, NAIVE, off, 0, &r), out);
}

/* The rows of the instruction at off, at most cap, and its status. */
static void capture(FILE *out, FILE *status, unsigned off, long cap)
{
    long kept = cap < EXECS ? cap : EXECS;
    for (int k = 0; k < kept; k++)
        row(out, off, k);
    fprintf(status, "captured %s 0x%x launch 0 executions %ld\n", NAIVE, off,
            kept);
    if (kept < EXECS)
        fprintf(status, "dropped %s 0x%x launch 0 executions %ld\n", NAIVE,
                off, EXECS - kept);
}

__attribute__((constructor)) static void start(void)
{
    const char *file = getenv("MEMPROBE_CAPTURE_FILE");
    const char *want = getenv("MEMPROBE_CAPTURE_WANT");
    const char *max = getenv("MEMPROBE_CAPTURE_MAX_WARPS");
    const char *none = getenv("FAKE_CAPTURE_NONE");
    const char *error = getenv("FAKE_CAPTURE_ERROR");
    const char *left = getenv("FAKE_CAPTURE_LEFT");
    if (!file || !file[0] || (none && none[0] == '1'))
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s.status", file);
    FILE *status = fopen(path, "w"), *out = fopen(file, "w");
    long cap = max && max[0] ? strtol(max, NULL, 10) : 65536;
    if (status && out) {
        fprintf(status, "start patches fake cap %ld\n", cap);
        char header[MP_CAPTURE_ROW_MAX(0)];
        fwrite(header, 1, mp_capture_header(header), out);
        static const unsigned offs[] = {0x110, 0x210};
        for (int i = 0; i < 2; i++)
            if (want && wanted(want, offs[i]))
                capture(out, status, offs[i], cap);
        if (left && left[0] == '1' && want && wanted(want, 0x100))
            fprintf(status, "left %s 0x100: past the 1024 instructions one "
                    "kernel's capture follows\n", NAIVE);
        if (error && error[0])
            fprintf(status, "error %s\n", error);
    }
    if (status)
        fclose(status);
    if (out)
        fclose(out);
}
