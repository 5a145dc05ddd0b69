/*
 * capture_row.h - one row of a capture CSV (docs/explain-design.md's
 * format) made from one warp's record, written by hand into a buffer:
 * the capture library writes millions of them (4.9 M rows of 33 values
 * for a training loop's library kernels). Shared by the capture library
 * (explain/capture/capture.c) and the CPU tests' stand-in for it; plain C.
 */
#ifndef MP_CAPTURE_ROW_H
#define MP_CAPTURE_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"

/* a record's access flags: compute-sanitizer's
 * SANITIZER_MEMORY_DEVICE_FLAG_READ and _WRITE (capture.c checks that
 * they are equal) */
#define MP_CAPTURE_READ 0x1u
#define MP_CAPTURE_WRITE 0x2u

/* The most bytes a row takes whose kernel name is namelen bytes: the
 * fixed columns, 32 addresses of 64 bits in hex, the newline and a NUL. */
#define MP_CAPTURE_ROW_MAX(namelen) ((namelen) + 96 + 32 * 19 + 2)

/* The header line (with its newline) into buf of at least
 * MP_CAPTURE_ROW_MAX(0) bytes; its length. */
size_t mp_capture_header(char *buf);

/* The row of record r (instruction `offset` of kernel `mangled` in
 * launch `launch`), with its newline, into buf of at least
 * MP_CAPTURE_ROW_MAX(strlen(mangled)) bytes; its length. The opcode
 * column follows from the record's flags and width: LDGSTS (an
 * asynchronous copy's shared store), ATOMS/ATOMG (read and write), else
 * LDS/STS/LDG.E/STG.E with .U8, .U16, .64 or .128 after it. */
size_t mp_capture_row(char *buf, const char *mangled, uint32_t offset,
                      uint64_t launch, const mp_capture_rec *r);

#endif
