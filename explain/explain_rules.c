/*
 * explain_rules.c - the rules of `memprobe explain` (explain.h): the
 * accumulator of an instruction's warp executions, each counted by the
 * bank or sector model, and the opcode classes (which opcodes are
 * explained and how they count); the pattern and the probe command are in
 * explain_pattern.c, the fixes in explain_fix.c.
 */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "sector_model.h"

void mp_explain_init(mp_explain_acc *acc)
{
    memset(acc, 0, sizeof *acc);
}

void mp_explain_free(mp_explain_acc *acc)
{
    for (int i = 0; i < acc->nexec; i++)
        free(acc->exec[i].src);
    free(acc->exec);
    mp_explain_init(acc);
}

/* The model's count of one execution, its ideal and, global, the
 * requests it takes (*requests, when given; shared: left alone). */
static long long exec_predict(const mp_explain_exec *e, long long *ideal,
                              long long *requests)
{
    if (e->space == MP_SPACE_SHARED) {
        mp_warp_access a;
        mp_bank_prediction p;
        if (e->matrices > 0) {   /* each matrix's 8 rows a phase */
            mp_bank_predict_matrix(e->addr, e->matrices, &p);
            if (ideal)
                *ideal = p.ideal;
            return p.wavefronts;
        }
        a.width = e->width;
        a.is_store = e->is_store;
        a.active = e->active;
        memcpy(a.offset, e->addr, sizeof a.offset);
        if (e->src) {   /* a copy: its destinations per source line */
            mp_copy_prediction c;
            mp_bank_predict_copy(&a, e->src, &c);
            if (ideal)
                *ideal = c.ideal;
            return c.wavefronts;
        }
        mp_bank_predict(&a, &p);
        if (ideal)
            *ideal = p.ideal;
        return p.wavefronts;
    }
    mp_global_access g;
    mp_sector_prediction s;
    g.width = e->width;
    g.is_store = e->is_store;
    g.active = e->active;
    memcpy(g.addr, e->addr, sizeof g.addr);
    mp_sector_predict(&g, &s);
    if (ideal)
        *ideal = s.ideal_sectors;
    if (requests)
        *requests = s.requests;
    return s.sectors;
}

long long mp_explain_exec_count(const mp_explain_exec *e, long long *ideal)
{
    return exec_predict(e, ideal, NULL);
}

/* Checks e against the model's domain; 0, or -1 with a reason. */
static int exec_valid(const mp_explain_exec *e, char *err, size_t errlen)
{
    int w = e->width;
    if (e->space != MP_SPACE_SHARED && e->space != MP_SPACE_GLOBAL) {
        snprintf(err, errlen, "space %d is neither shared nor global",
                 e->space);
        return -1;
    }
    if (e->space == MP_SPACE_SHARED
            ? !(w == 1 || w == 2 || w == 4 || w == 8 || w == 16)
            : (w < 1 || w > MP_GLOBAL_MAX_WIDTH)) {
        snprintf(err, errlen, "width %d bytes is not one the %s model "
                 "takes", w, e->space == MP_SPACE_SHARED ? "bank" : "sector");
        return -1;
    }
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        if (!(e->active >> l & 1u))
            continue;
        if (e->addr[l] < 0) {
            snprintf(err, errlen, "lane %d: negative address %lld", l,
                     e->addr[l]);
            return -1;
        }
        if (e->space == MP_SPACE_SHARED && w >= 4 && e->addr[l] % w) {
            snprintf(err, errlen, "lane %d: shared offset %lld is not a "
                     "multiple of the width %d", l, e->addr[l], w);
            return -1;
        }
    }
    return 0;
}

/* Shared accesses of 1 or 2 bytes become their 4-byte word; inactive
 * lanes get address 0. */
static void normalise(mp_explain_exec *e)
{
    int narrow = e->space == MP_SPACE_SHARED && e->width < 4;
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        if (!(e->active >> l & 1u))
            e->addr[l] = 0;
        else if (narrow)
            e->addr[l] &= ~3LL;
    }
    if (narrow)
        e->width = 4;
}

int mp_explain_add(mp_explain_acc *acc, const mp_explain_exec *e,
                   char *err, size_t errlen)
{
    if (exec_valid(e, err, errlen))
        return -1;
    mp_explain_exec n = *e;
    normalise(&n);
    if (acc->nexec > 0 && (n.space != acc->space || n.width != acc->width
                           || n.is_store != acc->is_store
                           || n.matrices != acc->exec[0].matrices
                           || !n.src != !acc->exec[0].src)) {
        snprintf(err, errlen, "an execution of another space, width or "
                 "direction than the instruction's first");
        return -1;
    }
    if (e->src) {
        if (n.space != MP_SPACE_SHARED || n.width < 4) {
            snprintf(err, errlen, "a copy's destinations are shared, 4, 8 "
                     "or 16 bytes a lane");
            return -1;
        }
        n.src = malloc(MP_WARP_SIZE * sizeof *n.src);
        if (!n.src) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memcpy(n.src, e->src, MP_WARP_SIZE * sizeof *n.src);
    }
    if (acc->nexec == acc->cap) {
        int cap = acc->cap ? 2 * acc->cap : 16;
        mp_explain_exec *x = realloc(acc->exec, (size_t)cap * sizeof *x);
        if (!x) {
            free(n.src);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        acc->exec = x;
        acc->cap = cap;
    }
    if (acc->nexec == 0) {
        acc->space = n.space;
        acc->width = n.width;
        acc->is_store = n.is_store;
    }
    acc->exec[acc->nexec++] = n;
    acc->executions++;
    if (n.active == 0)
        return 0;
    long long ideal = 0, requests = 0;
    acc->count += exec_predict(&n, &ideal, &requests);
    acc->ideal += ideal;
    acc->requests += requests;
    return 0;
}

/* ---- opcodes ------------------------------------------------------------ */

/* The width a SASS opcode's modifiers give (.U8 .S8 -> 1, .U16 .S16 -> 2,
 * .64 -> 8, .128 -> 16, else 4). */
static int opcode_width(const char *op)
{
    for (const char *d = strchr(op, '.'); d; d = strchr(d + 1, '.')) {
        const char *m = d + 1;
        size_t n = strcspn(m, ". ");
        if ((n == 2 && (!strncmp(m, "U8", 2) || !strncmp(m, "S8", 2))))
            return 1;
        if (n == 3 && (!strncmp(m, "U16", 3) || !strncmp(m, "S16", 3)))
            return 2;
        if (n == 2 && !strncmp(m, "64", 2))
            return 8;
        if (n == 3 && !strncmp(m, "128", 3))
            return 16;
    }
    return 4;
}

/* Opcodes the model does not explain, by mnemonic prefix, and why. */
static const struct {
    const char *prefix;
    const char *why;
} not_explained[] = {
    {"LDGDEPBAR", "asynchronous copy barrier"},
    /* not compared: the profile has no count to compare a model with */
    {"UTMA", "tensor memory access (TMA): the profile counts its "
             "instructions only, no wavefront or sector of the copy"},
    {"UBLKCP", "bulk copy (TMA): the profile counts its instructions only, "
               "no wavefront or sector of the copy"},
    {"LDL", "local memory: the profile counts no local-memory sectors"},
    {"STL", "local memory: the profile counts no local-memory sectors"},
    {"LDC", "constant memory: the profile has no constant-memory counter"},
    {"TEX", "texture"},
    {"TLD", "texture"},
    {"SULD", "surface"},
    {"SUST", "surface"},
};

int mp_explain_opcode_matrices(const char *opcode)
{
    if (strncmp(opcode, "LDSM.", 5) && strncmp(opcode, "STSM.", 5)
        && strcmp(opcode, "LDSM") && strcmp(opcode, "STSM"))
        return 0;
    const char *m = strstr(opcode, ".M88");
    if (!m)
        m = strstr(opcode, ".MT88");
    if (!m)
        return 1;
    m = strchr(m + 1, '.');
    if (!m)
        return 1;
    int n = m[1] - '0';
    return (n == 1 || n == 2 || n == 4) && (m[2] == '\0' || m[2] == '.')
               ? n
               : 1;
}

int mp_explain_opcode_copy(const char *opcode)
{
    return !strncmp(opcode, "LDGSTS", 6)
           && (opcode[6] == '\0' || opcode[6] == '.');
}

int mp_explain_opcode_atomic(const char *opcode)
{
    static const char *const atomic[] = {"ATOMS", "ATOMG", "ATOM", "REDG",
                                         "RED"};
    size_t n = strcspn(opcode, ". ");
    for (size_t i = 0; i < sizeof atomic / sizeof atomic[0]; i++)
        if (n == strlen(atomic[i]) && !strncmp(opcode, atomic[i], n))
            return 1;
    return 0;
}

int mp_explain_opcode(const char *opcode, int *space, int *width,
                      const char **why)
{
    if (mp_explain_opcode_matrices(opcode)) {
        if (space)
            *space = MP_SPACE_SHARED;
        if (width)
            *width = 16;
        if (why)
            *why = "matrix load or store: each matrix's rows a phase";
        return 1;
    }
    if (mp_explain_opcode_copy(opcode)) {
        if (space)
            *space = MP_SPACE_SHARED;
        if (width)
            *width = opcode_width(opcode);
        if (why)
            *why = "asynchronous copy: its destinations' banks counted by "
                   "the copy rule, with its sources' lines";
        return 1;
    }
    if (mp_explain_opcode_atomic(opcode)) {
        if (space)
            *space = !strncmp(opcode, "ATOMS", 5) ? MP_SPACE_SHARED
                     : !strncmp(opcode, "ATOMG", 5)
                             || !strncmp(opcode, "REDG", 4)
                         ? MP_SPACE_GLOBAL
                         : -1;
        if (width)
            *width = 0;
        if (why)
            *why = "atomic: counted as a store of the same addresses";
        return 1;
    }
    static const char *const plain[] = {"LDS", "STS", "LDG", "STG",
                                        "LD", "ST"};
    static const int plain_space[] = {MP_SPACE_SHARED, MP_SPACE_SHARED,
                                      MP_SPACE_GLOBAL, MP_SPACE_GLOBAL,
                                      -1, -1};
    size_t n = strcspn(opcode, ". ");
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        if (n == strlen(plain[i]) && !strncmp(opcode, plain[i], n)) {
            if (space)
                *space = plain_space[i];
            if (width)
                *width = opcode_width(opcode);
            if (why)
                *why = "plain load or store";
            return 1;
        }
    }
    if (why) {
        *why = "not a plain load or store";
        for (size_t i = 0; i < sizeof not_explained / sizeof not_explained[0];
             i++)
            if (!strncmp(opcode, not_explained[i].prefix,
                         strlen(not_explained[i].prefix))) {
                *why = not_explained[i].why;
                break;
            }
    }
    return 0;
}
