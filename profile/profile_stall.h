/*
 * profile_stall.h - which loads an instruction waits on, from one
 * function's SASS (`cuobjdump --dump-sass`), so that warp-stall samples
 * can be carried from the instruction that waits to the load that made
 * it wait, for GPU time per source line. Inside profile/ only.
 *
 * A long-scoreboard stall is sampled on the first instruction that reads
 * a register a memory load writes, not on the load. The rule here:
 *
 *   for each register an instruction reads (both of a pair R2.64, all of
 *   a wide operand: a store's .64/.128 data, a D* op's pairs), walk back
 *   from it inside its basic block to the instructions that write that
 *   register: an unguarded writer ends the walk, a guarded one (@P0) is
 *   taken and the walk goes on (its write may not have happened). Every
 *   writer so found that is a load (LDG, LDS, LDL, LD, LDC, ULDC, LDSM,
 *   ATOM, ATOMS, ATOMG, TEX, TLD, TLD4; its .64 writing two registers,
 *   .128 and LDSM .4 four) is a load the instruction may wait on.
 *
 * Its limits, on purpose:
 *   - nothing across basic blocks: a register loaded in one block and read
 *     in the next (a loop's load read in the next iteration, a load before
 *     a branch) is not attributed; the waiting instruction keeps its
 *     samples. Blocks start at the first instruction, at every branch
 *     target (a hex offset or a `(.L_x_N) label) and label line, and after
 *     every BRA, BRX, BRXU, JMP, JMX, CALL, RET, EXIT, BSSY, BSYNC,
 *     WARPSYNC, BREAK, KILL (and the older SSY, SYNC, PBK, BRK, PCNT, CONT);
 *   - loads that write no register (LDGSTS, TMA copies, RED) are never a
 *     waited-on load: their readers wait on DEPBAR or a barrier instead;
 *   - predicate registers are not followed, and only the widths named
 *     above are known: an MMA's fragments, a conversion's 64-bit side and
 *     such count as their first register only;
 *   - uniform registers (UR) are followed like R (ULDC writes them).
 *
 * Nothing feeds it yet: the PC sampler that gives the per-offset counts
 * is not written, and `memprobe profile` does not call it.
 */
#ifndef MP_PROFILE_STALL_H
#define MP_PROFILE_STALL_H

#include <stddef.h>

/* At most this many registers read (pairs and vectors counted one by
 * one), written, and loads waited on, per instruction; more are dropped. */
#define MP_STALL_MAXSRC 24
#define MP_STALL_MAXDST 8

typedef struct {
    unsigned off;                   /* its offset in the function */
    char op[48];                    /* opcode with modifiers: LDG.E.64 */
    int guarded;                    /* behind a predicate (@P0, @!P1) */
    int is_load;                    /* writes registers from memory */
    int block;                      /* its basic block, 0 first */
    int ndst, nsrc;
    short dst[MP_STALL_MAXDST];     /* registers written: R n as n, UR n
                                     * as 256 + n (RZ, URZ left out) */
    short src[MP_STALL_MAXSRC];     /* registers read, the same way */
    int nwait;
    unsigned wait[MP_STALL_MAXSRC]; /* offsets of the loads it may wait
                                     * on, each once, nearest first */
} mp_stall_insn;

typedef struct {
    mp_stall_insn *v;               /* in the order of the dump */
    int n;
    int nblocks;
} mp_stall_fn;

/* Parses one function's SASS (the text cuobjdump prints: lines without
 * an instruction's offset are skipped, label lines kept, a second
 * "Function :" line ends it) and attributes each instruction's waits.
 * 0, or -1 with a reason in why (no instruction, an unreadable line). */
int mp_stall_parse(const char *sass, mp_stall_fn *fn, char *why,
                   size_t whylen);
void mp_stall_free(mp_stall_fn *fn);

/* The instruction at offset off, or NULL. */
const mp_stall_insn *mp_stall_find(const mp_stall_fn *fn, unsigned off);

typedef struct {
    unsigned off;
    unsigned long long count;
} mp_stall_count;

/* Carries samples (offset -> count, e.g. stall_long_scoreboard) to the
 * loads: an instruction waiting on k loads gives each count / k, the
 * first count % k of them (nearest first) one more, so the total is kept
 * exactly; one waiting on none keeps its own. out[i] is then the count of
 * fn->v[i]; an offset given twice adds. 0, or -1 with a reason for an
 * offset not in the function (out then untouched). */
int mp_stall_attribute(const mp_stall_fn *fn, const mp_stall_count *in,
                       int nin, unsigned long long *out, char *why,
                       size_t whylen);

#endif
