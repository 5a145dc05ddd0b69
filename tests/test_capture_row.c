/*
 * test_capture_row.c - the capture library's rows (explain/capture/capture_row.c)
 * against the same rows written by snprintf here, for each opcode the
 * flags and widths give, partial masks, the largest values and a long
 * name; and read back by explain's reader (explain/explain_capture.c):
 * the lane addresses and the opcode it keeps equal the record's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_row.h"
#include "explain_capture.h"

/* The row as fprintf would write it: the reference. */
static void reference(char *buf, size_t len, const char *mangled,
                      uint32_t offset, uint64_t launch,
                      const mp_capture_rec *r, const char *opcode)
{
    int n = snprintf(buf, len, "%s,0x%x,%llu,%u,%s,%s,%u,%d,0x%08x",
                     mangled, offset, (unsigned long long)launch, r->warp,
                     r->flags & MP_CAPTURE_SHARED ? "shared" : "global",
                     opcode, r->width, (r->flags & MP_CAPTURE_WRITE) != 0,
                     r->active);
    for (int l = 0; l < 32; l++)
        n += r->active >> l & 1u
                 ? snprintf(buf + n, len - (size_t)n, ",0x%llx",
                            (unsigned long long)r->addr[l])
                 : snprintf(buf + n, len - (size_t)n, ",");
    snprintf(buf + n, len - (size_t)n, "\n");
}

static mp_capture_rec record(uint32_t flags, uint32_t width, uint32_t active,
                             uint64_t base, uint64_t stride)
{
    mp_capture_rec r = {.active = active, .warp = 77, .width = width,
                        .flags = flags};
    for (int l = 0; l < 32; l++)
        r.addr[l] = base + stride * (uint64_t)l;
    return r;
}

static void test_opcodes(void **state)
{
    (void)state;
    const uint32_t R = MP_CAPTURE_READ, W = MP_CAPTURE_WRITE,
                   S = MP_CAPTURE_SHARED, A = MP_CAPTURE_ASYNC,
                   SRC = MP_CAPTURE_SOURCE, M = MP_CAPTURE_MATRIX,
                   X1 = 1u << MP_CAPTURE_MATRICES_SHIFT,
                   X2 = 2u << MP_CAPTURE_MATRICES_SHIFT,
                   X4 = 4u << MP_CAPTURE_MATRICES_SHIFT;
    static const struct {
        uint32_t flags, width;
        const char *opcode;
    } cases[] = {
        {R, 4, "LDG.E"},         {W, 4, "STG.E"},
        {R, 1, "LDG.E.U8"},      {W, 2, "STG.E.U16"},
        {R, 8, "LDG.E.64"},      {R, 16, "LDG.E.128"},
        {R | S, 4, "LDS"},       {W | S, 16, "STS.128"},
        {R | S, 8, "LDS.64"},    {R | W | S, 4, "ATOMS"},
        {R | W, 8, "ATOMG"},     {W | S | A, 16, "LDGSTS.128"},
        {W | S | A, 4, "LDGSTS"},
        {R | A | SRC, 16, "LDGSTS.128"},
        {R | S | M | X4, 16, "LDSM.16.M88.4"},
        {R | S | M | X2, 16, "LDSM.16.M88.2"},
        {W | S | M | X1, 16, "STSM.16.M88"},
    };
    char got[MP_CAPTURE_ROW_MAX(16)], want[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mp_capture_rec r = record(cases[i].flags, cases[i].width,
                                  0xffffffffu, 0x7f0012340000ull, 4);
        size_t n = mp_capture_row(got, "_Z6kernelPf", 0x1a0, 3, &r);
        reference(want, sizeof want, "_Z6kernelPf", 0x1a0, 3, &r,
                  cases[i].opcode);
        assert_string_equal(got, want);
        assert_int_equal(n, strlen(want));
    }
}

/* A copy's source row: a lane that read nothing (its bytes zero-filled)
 * is left out of the mask and empty. */
static void test_source_lanes(void **state)
{
    (void)state;
    mp_capture_rec r = record(MP_CAPTURE_READ | MP_CAPTURE_ASYNC
                                  | MP_CAPTURE_SOURCE,
                              16, 0xffffffffu, 0x7f0000000000ull, 16);
    r.addr[3] = MP_CAPTURE_NO_SOURCE;
    r.addr[31] = MP_CAPTURE_NO_SOURCE;
    char got[MP_CAPTURE_ROW_MAX(8)], want[2048];
    mp_capture_row(got, "_Z1kv", 0x40, 0, &r);
    mp_capture_rec shown = r;
    shown.active = 0x7ffffff7u;
    reference(want, sizeof want, "_Z1kv", 0x40, 0, &shown, "LDGSTS.128");
    assert_string_equal(got, want);
}

/* Inactive lanes empty, zeros as 0x0, the largest values, the bound. */
static void test_extremes(void **state)
{
    (void)state;
    char name[4001];
    memset(name, 'k', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    static const uint32_t masks[] = {0, 1, 0x80000000u, 0x55555555u,
                                     0xffffffffu};
    size_t cap = MP_CAPTURE_ROW_MAX(sizeof name - 1);
    char *got = malloc(cap), *want = malloc(8192);
    assert_non_null(got);
    assert_non_null(want);
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        mp_capture_rec r = record(MP_CAPTURE_READ, 16, masks[m],
                                  UINT64_MAX - 31, 1);
        r.addr[0] = 0;
        r.warp = UINT32_MAX;
        size_t n = mp_capture_row(got, name, UINT32_MAX, UINT64_MAX, &r);
        reference(want, 8192, name, UINT32_MAX, UINT64_MAX, &r, "LDG.E.128");
        assert_string_equal(got, want);
        assert_true(n < cap);
    }
    free(got);
    free(want);
}

static void test_header(void **state)
{
    (void)state;
    char got[MP_CAPTURE_ROW_MAX(0)], want[512];
    int n = snprintf(want, sizeof want, "kernel,pc_offset,launch,warp,space,"
                     "opcode,width,is_store,active");
    for (int l = 0; l < 32; l++)
        n += snprintf(want + n, sizeof want - (size_t)n, ",lane%d", l);
    snprintf(want + n, sizeof want - (size_t)n, "\n");
    assert_int_equal(mp_capture_header(got), strlen(want));
    assert_string_equal(got, want);
}

/* Explain's reader takes the rows back: per instruction its opcode and,
 * for the explained ones, each lane's address. */
static void test_read_back(void **state)
{
    (void)state;
    char buf[4 * MP_CAPTURE_ROW_MAX(16)];
    size_t len = mp_capture_header(buf);
    mp_capture_rec lds = record(MP_CAPTURE_READ | MP_CAPTURE_SHARED, 4,
                                0x0000ffffu, 128, 132);
    mp_capture_rec stg = record(MP_CAPTURE_WRITE, 8, 0xffffffffu,
                                0x7f0000001008ull, 4096);
    len += mp_capture_row(buf + len, "_Z1kv", 0x40, 0, &lds);
    len += mp_capture_row(buf + len, "_Z1kv", 0x90, 0, &stg);
    mp_capture c;
    char err[256];
    assert_int_equal(mp_capture_parse(buf, len, "rows", &c, err, sizeof err),
                     0);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.rows, 2);
    const mp_capture_rec *want[2] = {&lds, &stg};
    for (int i = 0; i < 2; i++) {
        const mp_capture_inst *x = &c.inst[i];
        assert_int_equal(x->pc, i ? 0x90 : 0x40);
        assert_string_equal(x->opcode, i ? "STG.E.64" : "LDS");
        assert_true(x->explained);
        assert_int_equal(x->acc.nexec, 1);
        const mp_explain_exec *e = &x->acc.exec[0];
        assert_int_equal(e->active, want[i]->active);
        assert_int_equal(e->width, (int)want[i]->width);
        assert_int_equal(e->is_store, i);
        for (int l = 0; l < 32; l++)
            if (want[i]->active >> l & 1u)
                assert_int_equal(e->addr[l], (long long)want[i]->addr[l]);
    }
    mp_capture_free(&c);
}

/* An asynchronous copy's two rows are one execution (its destination,
 * then its source): 16 bytes a lane from four lines into 512 contiguous
 * bytes, each line's 8 lanes one wavefront, 4; an ldmatrix .x4 is
 * explained by its matrices' rows: rows 256 bytes apart, 8 wavefronts a
 * matrix, 32. */
static void test_copy_and_matrix_read_back(void **state)
{
    (void)state;
    char buf[4 * MP_CAPTURE_ROW_MAX(16)];
    size_t len = mp_capture_header(buf);
    mp_capture_rec dst = record(MP_CAPTURE_WRITE | MP_CAPTURE_SHARED
                                    | MP_CAPTURE_ASYNC,
                                16, 0xffffffffu, 0, 16);
    mp_capture_rec src = record(MP_CAPTURE_READ | MP_CAPTURE_ASYNC
                                    | MP_CAPTURE_SOURCE,
                                16, 0xffffffffu, 0x7f0000000000ull, 16);
    mp_capture_rec ldsm = record(MP_CAPTURE_READ | MP_CAPTURE_SHARED
                                     | MP_CAPTURE_MATRIX
                                     | 4u << MP_CAPTURE_MATRICES_SHIFT,
                                 16, 0xffffffffu, 0, 256);
    len += mp_capture_row(buf + len, "_Z1kv", 0x40, 0, &dst);
    len += mp_capture_row(buf + len, "_Z1kv", 0x40, 0, &src);
    len += mp_capture_row(buf + len, "_Z1kv", 0x90, 0, &ldsm);
    mp_capture c;
    char err[256];
    assert_int_equal(mp_capture_parse(buf, len, "rows", &c, err, sizeof err),
                     0);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.inst[0].opcode, "LDGSTS.128");
    assert_int_equal(c.inst[0].rows, 1);
    assert_true(c.inst[0].explained);
    assert_int_equal(c.inst[0].acc.nexec, 1);
    assert_int_equal(c.inst[0].acc.count, 4);
    assert_int_equal(c.inst[0].acc.ideal, 4);
    assert_string_equal(c.inst[1].opcode, "LDSM.16.M88.4");
    assert_true(c.inst[1].explained);
    assert_int_equal(c.inst[1].rows, 1);
    assert_int_equal(c.inst[1].acc.count, 32);
    assert_int_equal(c.inst[1].acc.ideal, 4);
    mp_capture_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opcodes),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_source_lanes),
        cmocka_unit_test(test_copy_and_matrix_read_back),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
