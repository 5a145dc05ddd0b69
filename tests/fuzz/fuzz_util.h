/*
 * fuzz_util.h - what the libFuzzer targets share: the fuzzer's bytes as a
 * file that the parsers can open by path (a memfd, no disk), and a
 * one-line check that a refused input said why.
 */
#ifndef MP_FUZZ_UTIL_H
#define MP_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Writes data into an anonymous in-memory file and puts a path that opens
 * it ("/proc/self/fd/N") into path. Returns the descriptor, to be passed
 * to fuzz_file_close. Aborts if the file cannot be made: that is a broken
 * machine, not a finding. */
int fuzz_file(const uint8_t *data, size_t size, const char *name, char *path,
              size_t pathlen);
void fuzz_file_close(int fd);

/* The targets' bodies, each also reached through LLVMFuzzerTestOneInput
 * in its own fuzzer binary (not when built with MP_FUZZ_NO_ENTRY, for
 * tests/test_fuzz_corpus.c, which replays the corpus through all three). */
int fuzz_ncu_csv(const uint8_t *data, size_t size);
int fuzz_results_csv(const uint8_t *data, size_t size);
int fuzz_sweep_file(const uint8_t *data, size_t size);

/* A target's libFuzzer entry point, calling its body; nothing under
 * MP_FUZZ_NO_ENTRY. */
#ifdef MP_FUZZ_NO_ENTRY
#define MP_FUZZ_ENTRY(body)
#else
#define MP_FUZZ_ENTRY(body)                                                \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)           \
    {                                                                      \
        return body(data, size);                                           \
    }
#endif

/* A parser that refused its input must have said why in one line: a
 * non-empty err without a newline. Aborts (a finding) otherwise. */
void fuzz_check_reason(const char *err);

#endif
