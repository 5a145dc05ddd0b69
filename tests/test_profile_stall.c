/*
 * test_profile_stall.c - the loads an instruction waits on and the
 * samples carried to them (profile/profile_stall.c), on SASS as
 * cuobjdump prints it: lines of the dumps committed under results/h200
 * (their grep left lines out between them; where a test needs a reader
 * or a writer the dump's grep dropped, it is written in the same format
 * and said so). Pure functions, no file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile_stall.h"

static mp_stall_fn parse(const char *sass)
{
    mp_stall_fn fn;
    char why[256] = "";
    if (mp_stall_parse(sass, &fn, why, sizeof why))
        fail_msg("parse: %s", why);
    return fn;
}

/* The loads the instruction at off waits on, as "0x30 0x20" (nearest
 * first), "" for none. */
static const char *waits(const mp_stall_fn *fn, unsigned off)
{
    static char buf[256];
    const mp_stall_insn *in = mp_stall_find(fn, off);
    assert_non_null(in);
    buf[0] = '\0';
    for (int k = 0; k < in->nwait; k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s0x%x",
                 k ? " " : "", in->wait[k]);
    return buf;
}

/* A whole function in cuobjdump's format (header, encoding lines,
 * labels), made up: FADD after LDG.E waits on it; an overwrite by an ALU
 * op cuts it, a guarded one does not; a branch cuts a block. */
static const char *const whole =
    "\n\tcode for sm_90\n"
    "\t\tFunction : _Z4testPKfPf\n"
    "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;            /* 0x00000a00ff017b82 */\n"
    "                                                                      /* 0x000fe40000000800 */\n"
    "        /*0010*/                   LDG.E R2, desc[UR4][R2.64] ;      /* 0x0000000402027981 */\n"
    "                                                                      /* 0x000ea8000c1e1900 */\n"
    "        /*0020*/                   LDG.E R5, desc[UR4][R6.64] ;      /* 0x0000000406057981 */\n"
    "        /*0030*/                   FADD R8, R2.reuse, R5 ;           /* 0x0000000502087221 */\n"
    "        /*0040*/                   IMAD.MOV.U32 R5, RZ, RZ, 0x1 ;    /* 0x00000001ff057424 */\n"
    "        /*0050*/                   @P0 MOV R2, R9 ;                  /* 0x0000000900020202 */\n"
    "        /*0060*/                   FADD R10, R2, R5 ;                /* 0x00000005020a7221 */\n"
    "        /*0070*/                   LDS R11, [R1] ;                   /* 0x00000000010b7984 */\n"
    "        /*0080*/               @P1 BRA `(.L_x_1) ;                   /* 0x0000000000041947 */\n"
    "        /*0090*/                   FADD R12, R11, R11 ;              /* 0x0000000b0b0c7221 */\n"
    ".L_x_1:\n"
    "        /*00a0*/                   STG.E desc[UR4][R2.64], R11 ;     /* 0x0000000b02007986 */\n"
    "        /*00b0*/                   EXIT ;                            /* 0x000000000000794d */\n"
    "\t\tFunction : _Z5otherv\n"
    "        /*0000*/                   EXIT ;\n";

static void whole_function(void **state)
{
    (void)state;
    mp_stall_fn fn = parse(whole);
    assert_int_equal(fn.n, 12); /* the second function left out */
    assert_string_equal(fn.v[1].op, "LDG.E");
    assert_true(fn.v[1].is_load);
    assert_string_equal(waits(&fn, 0x10), ""); /* R2.64 from no load */
    /* FADD R8, R2, R5: both loads, nearest first */
    assert_string_equal(waits(&fn, 0x30), "0x20 0x10");
    /* R5 overwritten by IMAD.MOV; R2 by a guarded MOV: the LDG kept */
    assert_string_equal(waits(&fn, 0x60), "0x10");
    /* LDS's address R1 from LDC, a load of the constant bank */
    assert_string_equal(waits(&fn, 0x70), "0x0");
    /* FADD after the guarded BRA: a new block, LDS's R11 not followed */
    assert_int_equal(mp_stall_find(&fn, 0x90)->block,
                     mp_stall_find(&fn, 0x70)->block + 1);
    assert_string_equal(waits(&fn, 0x90), "");
    /* the label starts a third block: the STG waits on nothing */
    assert_int_equal(mp_stall_find(&fn, 0xa0)->block, 2);
    assert_string_equal(waits(&fn, 0xa0), "");
    assert_int_equal(fn.nblocks, 3);
    assert_null(mp_stall_find(&fn, 0x15));
    mp_stall_free(&fn);
}

/* results/h200/latency/sass-latency.txt (chase_global): ULDC.64 writes
 * UR10 and UR11, LDG.E.64 R2 and R3; each load of the chase waits on the
 * one before. The FADD reading R3 alone (the pair's second register) is
 * made up. */
static const char *const chase =
    "_ZN43_GLOBAL__N__040ac9a7_10_latency_cu_4b98d0fd12chase_globalILb0EEEvPyPxjii         /*0020*/                   ULDC.64 UR10, c[0x0][0x160] ;                           /* 0x00005800000a7ab9 */\n"
    "_ZN43_GLOBAL__N__040ac9a7_10_latency_cu_4b98d0fd12chase_globalILb0EEEvPyPxjii         /*0030*/                   LDG.E.64.SYS R2, [UR10] ;                               /* 0x0000000aff027981 */\n"
    "_ZN43_GLOBAL__N__040ac9a7_10_latency_cu_4b98d0fd12chase_globalILb0EEEvPyPxjii         /*0110*/                   LDG.E.64.STRONG.CTA R2, [R2] ;                          /* 0x0000000002027381 */\n"
    "_ZN43_GLOBAL__N__040ac9a7_10_latency_cu_4b98d0fd12chase_globalILb0EEEvPyPxjii         /*0120*/                   LDG.E.64.STRONG.CTA R4, [R2] ;                          /* 0x0000000002047381 */\n"
    "        /*0128*/                   FADD R6, R3, 1 ;\n"
    "_ZN43_GLOBAL__N__040ac9a7_10_latency_cu_4b98d0fd12chase_globalILb0EEEvPyPxjii         /*0130*/                   LDG.E.64.STRONG.CTA R4, [R4] ;                          /* 0x0000000004047381 */\n";

static void pairs(void **state)
{
    (void)state;
    mp_stall_fn fn = parse(chase);
    const mp_stall_insn *u = mp_stall_find(&fn, 0x20);
    assert_true(u->is_load);
    assert_int_equal(u->ndst, 2);
    assert_int_equal(u->dst[0], 256 + 10);
    assert_int_equal(u->dst[1], 256 + 11);
    assert_string_equal(waits(&fn, 0x30), "0x20");
    const mp_stall_insn *l = mp_stall_find(&fn, 0x110);
    assert_int_equal(l->ndst, 2);
    assert_int_equal(l->dst[1], 3);
    assert_int_equal(l->nsrc, 1); /* [R2]: the address, one register */
    assert_string_equal(waits(&fn, 0x110), "0x30");
    assert_string_equal(waits(&fn, 0x120), "0x110");
    assert_string_equal(waits(&fn, 0x128), "0x110"); /* R3 */
    assert_string_equal(waits(&fn, 0x130), "0x120");
    mp_stall_free(&fn);
}

/* results/h200/bandwidth/copy-variants/copy-sass.txt (tiled<0,4,1>):
 * guarded LDG.E.EF.128 writes four registers; the STG.E.EF.128 storing
 * them waits on it; the FFMA reading R19, the fourth, is made up. */
static const char *const tiled =
    "\t\tFunction : _Z5tiledILi0ELi4ELb1EEvPK5uint4PS0_y\n"
    "        /*0420*/              @!P0 LDG.E.EF.128 R16, desc[UR10][R26.64] ;                 /* 0x0000000a1a108981 */\n"
    "        /*04a0*/              @!P1 LDG.E.EF.128 R12, desc[UR10][R26.64] ;                 /* 0x0000000a1a0c9981 */\n"
    "        /*04b0*/                   FFMA R0, R19, R15, R0 ;\n"
    "        /*05d0*/              @!P0 STG.E.EF.128 desc[UR10][R28.64], R16 ;                 /* 0x000000101c008986 */\n"
    "        /*0640*/              @!P1 STG.E.EF.128 desc[UR10][R24.64], R12 ;                 /* 0x0000000c18009986 */\n";

static void vectors(void **state)
{
    (void)state;
    mp_stall_fn fn = parse(tiled);
    const mp_stall_insn *l = mp_stall_find(&fn, 0x420);
    assert_true(l->guarded);
    assert_int_equal(l->ndst, 4);
    assert_int_equal(l->dst[3], 19);
    assert_int_equal(fn.v[3].ndst, 0); /* a store writes no register */
    assert_string_equal(waits(&fn, 0x4b0), "0x4a0 0x420");
    assert_string_equal(waits(&fn, 0x5d0), "0x420");
    assert_string_equal(waits(&fn, 0x640), "0x4a0");
    mp_stall_free(&fn);
}

/* results/h200/hazards/sass-reduce-hazards.txt (reduce_kernel<6,1>): the
 * first SHFL after the guarded LDS waits on it; the next SHFL reads a
 * SHFL's result, no load. hazard_missing_barrier: the STS waits on the
 * guarded LDS of R6; the BAR.SYNC does not end a block. */
static const char *const reduce =
    " /*0390*/ @!P1 LDS R2, [R6] ; \n"
    " /*03a0*/ SHFL.DOWN PT, R3, R2, 0x10, 0x1f ; \n"
    " /*03c0*/ SHFL.DOWN PT, R4, R3, 0x8, 0x1f ; \n"
    " /*0480*/ REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR6][R2.64], R7 ; \n";
static const char *const hazard =
    " /*0210*/ STS [R3], R10 ; \n"
    " /*02a0*/ @!P2 LDS R6, [R3] ; \n"
    " /*02c0*/ @!P2 LDS R5, [R5] ; \n"
    " /*0300*/ @!P2 STS [R3], R6 ; \n"
    " /*0310*/ BAR.SYNC.DEFER_BLOCKING 0x0 ; \n"
    " /*03b0*/ LDS R5, [UR4] ; \n"
    " /*03c0*/ FADD R7, R5, R6 ; \n";

static void guarded_loads(void **state)
{
    (void)state;
    mp_stall_fn fn = parse(reduce);
    const mp_stall_insn *s = mp_stall_find(&fn, 0x3a0);
    assert_int_equal(s->ndst, 1); /* PT skipped: R3 written */
    assert_int_equal(s->dst[0], 3);
    assert_string_equal(waits(&fn, 0x3a0), "0x390");
    assert_string_equal(waits(&fn, 0x3c0), "");
    assert_int_equal(mp_stall_find(&fn, 0x480)->ndst, 0);
    assert_string_equal(waits(&fn, 0x480), "0x390"); /* R2 of R2.64 */
    mp_stall_free(&fn);
    fn = parse(hazard);
    assert_string_equal(waits(&fn, 0x300), "0x2a0");
    assert_int_equal(fn.nblocks, 1);
    /* FADD (made up): R5 from the unguarded LDS, which ends the walk
     * before the guarded one; R6 from 0x2a0 across the barrier */
    assert_string_equal(waits(&fn, 0x3c0), "0x3b0 0x2a0");
    mp_stall_free(&fn);
}

/* The older format, made up: dual-issue braces, a branch to a hex offset,
 * which starts a block there. */
static const char *const older =
    "        /*0008*/                   {         MOV R4, c[0x0][0x140] ;\n"
    "        /*0010*/                             LDG.E R3, [R2]         }\n"
    "                                                                 /* 0x001fc800fe2007f1 */\n"
    "        /*0018*/                   IADD R5, R3, 0x1 ;\n"
    "        /*0020*/                   LDG.E R6, [R2+0x4] ;\n"
    "        /*0028*/                   BRA 0x38 ;\n"
    "        /*0030*/                   IADD R5, R6, R6 ;\n"
    "        /*0038*/                   IADD R7, R6, R3 ;\n";

static void older_format(void **state)
{
    (void)state;
    mp_stall_fn fn = parse(older);
    assert_int_equal(fn.n, 7);
    assert_string_equal(fn.v[1].op, "LDG.E");
    assert_string_equal(waits(&fn, 0x18), "0x10");
    assert_int_equal(mp_stall_find(&fn, 0x30)->block, 1);
    assert_int_equal(mp_stall_find(&fn, 0x38)->block, 2);
    assert_string_equal(waits(&fn, 0x30), "");
    assert_string_equal(waits(&fn, 0x38), "");
    mp_stall_free(&fn);
}

/* Samples carried: whole's FADD at 0x30 (7, on two loads: 4 to the
 * nearer 0x20, 3 to 0x10), 0x60 (5, on 0x10), 0x90 (2, none: kept), the
 * LDG at 0x10 itself (1). The total kept. */
static void attribute(void **state)
{
    (void)state;
    mp_stall_fn fn = parse(whole);
    mp_stall_count in[] = {{0x30, 7}, {0x60, 5}, {0x90, 2}, {0x10, 1},
                           {0x60, 1}};
    unsigned long long *out = calloc(fn.n, sizeof *out);
    char why[256];
    assert_int_equal(mp_stall_attribute(&fn, in, 5, out, why, sizeof why),
                     0);
    unsigned long long sum = 0;
    for (int i = 0; i < fn.n; i++)
        sum += out[i];
    assert_int_equal(sum, 16);
    assert_int_equal(out[1], 3 + 6 + 1); /* 0x10 */
    assert_int_equal(out[2], 4);         /* 0x20 */
    assert_int_equal(out[3], 0);         /* 0x30: all carried */
    assert_int_equal(out[9], 2);         /* 0x90: its own */
    mp_stall_count bad[] = {{0x30, 1}, {0x34, 1}};
    out[0] = 99;
    assert_int_equal(mp_stall_attribute(&fn, bad, 2, out, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "0x34"));
    assert_int_equal(out[0], 99); /* untouched */
    free(out);
    mp_stall_free(&fn);
}

static void errors(void **state)
{
    (void)state;
    mp_stall_fn fn;
    char why[256];
    assert_int_equal(mp_stall_parse("\t\tFunction : f\n", &fn, why,
                                    sizeof why), -1);
    assert_non_null(strstr(why, "no SASS"));
    assert_int_equal(mp_stall_parse(" /*0020*/ NOP ;\n /*0010*/ NOP ;\n",
                                    &fn, why, sizeof why), -1);
    assert_non_null(strstr(why, "0x10"));
    assert_null(fn.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_function), cmocka_unit_test(pairs),
        cmocka_unit_test(vectors),        cmocka_unit_test(guarded_loads),
        cmocka_unit_test(older_format),   cmocka_unit_test(attribute),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
