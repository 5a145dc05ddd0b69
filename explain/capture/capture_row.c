/*
 * capture_row.c - a capture CSV's header and rows (capture_row.h),
 * written digit by digit: with fprintf, 33 conversions a row were most of
 * a large capture's cost.
 */
#include "capture_row.h"

#include <string.h>

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* v in lower-case hex with "0x" before it, no leading zeros ("0x0"). */
static char *put_hex(char *p, uint64_t v)
{
    static const char digit[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = digit[v & 0xf];
        v >>= 4;
    } while (v);
    *p++ = '0';
    *p++ = 'x';
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* v in decimal. */
static char *put_dec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

size_t mp_capture_header(char *buf)
{
    char *p = put_str(buf, "kernel,pc_offset,launch,warp,space,opcode,"
                           "width,is_store,active");
    for (unsigned l = 0; l < 32; l++) {
        p = put_str(p, ",lane");
        p = put_dec(p, l);
    }
    *p++ = '\n';
    *p = '\0';
    return (size_t)(p - buf);
}

/* The opcode column of r. */
static char *put_opcode(char *p, const mp_capture_rec *r)
{
    int shared = (r->flags & MP_CAPTURE_SHARED) != 0;
    int store = (r->flags & MP_CAPTURE_WRITE) != 0;
    int load = (r->flags & MP_CAPTURE_READ) != 0;
    const char *suffix = r->width == 1 ? ".U8" : r->width == 2 ? ".U16"
                         : r->width == 8 ? ".64" : r->width == 16 ? ".128"
                         : "";
    if (r->flags & MP_CAPTURE_ASYNC)
        return put_str(put_str(p, "LDGSTS"), suffix);
    if (r->flags & MP_CAPTURE_MATRIX) {   /* LDSM.16.M88.4, STSM.16.M88 */
        unsigned m = MP_CAPTURE_MATRICES(r->flags);
        p = put_str(p, store ? "STSM.16.M88" : "LDSM.16.M88");
        if (m > 1) {
            *p++ = '.';
            p = put_dec(p, m);
        }
        return p;
    }
    if (store && load)   /* an atomic: named, not explained */
        return put_str(p, shared ? "ATOMS" : "ATOMG");
    p = put_str(p, store ? "ST" : "LD");
    p = put_str(p, shared ? "S" : "G.E");
    return put_str(p, suffix);
}

size_t mp_capture_row(char *buf, const char *mangled, uint32_t offset,
                      uint64_t launch, const mp_capture_rec *r)
{
    int shared = (r->flags & MP_CAPTURE_SHARED) != 0;
    char *p = put_str(buf, mangled);
    *p++ = ',';
    p = put_hex(p, offset);
    *p++ = ',';
    p = put_dec(p, launch);
    *p++ = ',';
    p = put_dec(p, r->warp);
    *p++ = ',';
    p = put_str(p, shared ? "shared," : "global,");
    p = put_opcode(p, r);
    *p++ = ',';
    p = put_dec(p, r->width);
    *p++ = ',';
    *p++ = (r->flags & MP_CAPTURE_WRITE) ? '1' : '0';
    p = put_str(p, ",0x");
    uint32_t active = r->active;   /* a copy's source: lanes that read */
    if (r->flags & MP_CAPTURE_SOURCE)
        for (int l = 0; l < 32; l++)
            if (r->addr[l] == MP_CAPTURE_NO_SOURCE)
                active &= ~(1u << l);
    for (int s = 28; s >= 0; s -= 4)   /* active: eight digits */
        *p++ = "0123456789abcdef"[active >> s & 0xf];
    for (int l = 0; l < 32; l++) {
        *p++ = ',';
        if (active >> l & 1u)
            p = put_hex(p, r->addr[l]);
    }
    *p++ = '\n';
    *p = '\0';
    return (size_t)(p - buf);
}
