/*
 * profile_stall.c - the loads an instruction waits on (profile_stall.h):
 * one function's SASS read line by line into instructions (offset,
 * opcode, guard, registers written and read), cut into basic blocks, each
 * register read walked back to its writers in its block; and samples
 * carried from the waiting instructions to those loads.
 */
#include "profile_stall.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAXOPS 12       /* operands of one instruction kept */
#define OPLEN 96        /* characters of one operand kept */

/* Is word one of the NULL-ended list? */
static int in_list(const char *word, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(word, list[i]))
            return 1;
    return 0;
}

/* Opcodes (before the first '.') after which a basic block ends. */
static const char *const control_ops[] = {
    "BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "RET", "EXIT",
    "BSSY", "BSYNC", "WARPSYNC", "BREAK", "KILL", "SSY", "SYNC", "PBK",
    "BRK", "PCNT", "CONT", NULL};
/* Those of them whose hex operand is a target offset (WARPSYNC's is a
 * mask). */
static const char *const hex_target_ops[] = {
    "BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "BSSY", "SSY",
    "PBK", "PCNT", NULL};
/* Loads: they write registers from memory. */
static const char *const load_ops[] = {
    "LDG", "LDS", "LDL", "LD", "LDC", "ULDC", "LDSM", "ATOM", "ATOMS",
    "ATOMG", "TEX", "TLD", "TLD4", "TEXS", "TLDS", "TLD4S", NULL};
/* Opcodes that write no general register (besides the *SETP family and
 * the control opcodes). */
static const char *const no_dst_ops[] = {
    "ST", "STG", "STS", "STL", "RED", "REDG", "LDGSTS", "LDGDEPBAR",
    "BAR", "MEMBAR", "DEPBAR", "NOP", "ERRBAR", "CCTL", "FENCE", "PLOP3",
    "UPLOP3", "R2P", "ARRIVES", "SYNCS", "UTMALDG", "UTMASTG", "UBLKCP",
    "CGAERRBAR", NULL};
/* Stores and reductions: their non-address operand is the data, as wide
 * as the opcode's .64 / .128. */
static const char *const store_ops[] = {
    "ST", "STG", "STS", "STL", "RED", "REDG", "ATOM", "ATOMS", "ATOMG",
    NULL};
/* Double-precision opcodes: every register a pair. */
static const char *const double_ops[] = {"DADD", "DMUL", "DFMA", "DMNMX",
                                         NULL};

/* One instruction's text taken apart. */
typedef struct {
    char base[16];              /* opcode before its first '.' */
    int width;                  /* .64: 2, .128: 4 (LDSM: its .2/.4) */
    int wide;                   /* a .WIDE opcode (IMAD.WIDE) */
    int nops;
    char ops[MAXOPS][OPLEN];
} insn_text;

/* The width an opcode's modifiers give its wide operands. */
static int op_width(const char *op, const char *base, int *wide)
{
    int w = 1;
    *wide = 0;
    const char *last = NULL;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        last = p + 1;
        if (!strncmp(last, "64", 2) && !isalnum((unsigned char)last[2]))
            w = 2;
        else if (!strncmp(last, "128", 3) && !isalnum((unsigned char)last[3]))
            w = 4;
        else if (!strncmp(last, "WIDE", 4))
            *wide = 1;
    }
    if (!strcmp(base, "LDSM"))
        w = last && (last[0] == '4' || last[0] == '2') && !last[1]
                ? last[0] - '0' : 1;
    return w;
}

/* Splits the operands (text between the opcode and ';') at the commas
 * outside brackets, each trimmed. */
static void split_operands(const char *s, insn_text *t)
{
    int depth = 0, len = 0;
    t->nops = 0;
    for (;; s++) {
        if (*s == '\0' || (*s == ',' && depth == 0)) {
            while (len > 0 && isspace((unsigned char)t->ops[t->nops][len - 1]))
                len--;
            if (t->nops < MAXOPS) {
                t->ops[t->nops][len] = '\0';
                if (len > 0 || *s == ',')
                    t->nops++;
            }
            if (*s == '\0' || t->nops == MAXOPS)
                return;
            len = 0;
            continue;
        }
        if (*s == '[' || *s == '(')
            depth++;
        else if ((*s == ']' || *s == ')') && depth > 0)
            depth--;
        if ((len == 0 && isspace((unsigned char)*s)) || len >= OPLEN - 1)
            continue;
        t->ops[t->nops][len++] = *s;
    }
}

/* Is operand a predicate (P0, !P1, PT, UP0, UPT)? */
static int is_predicate(const char *o)
{
    if (*o == '!')
        o++;
    if (*o == 'U')
        o++;
    return o[0] == 'P' && (o[1] == 'T' || isdigit((unsigned char)o[1])) &&
           (o[2] == '\0' || isdigit((unsigned char)o[2]));
}

/* Adds register r (and the width - 1 after it) to regs, once each. */
static void add_regs(short *regs, int *n, int max, int r, int width)
{
    for (int k = 0; k < width; k++) {
        int have = 0;
        for (int i = 0; i < *n; i++)
            have |= regs[i] == r + k;
        if (!have && *n < max)
            regs[(*n)++] = (short)(r + k);
    }
}

/* The register named at s (R12, UR4; RZ, URZ: -1), its number in *r and
 * the characters it takes; 0 where s names none. */
static int reg_at(const char *s, int *r)
{
    int uniform = s[0] == 'U';
    const char *p = s + uniform;
    if (*p != 'R')
        return 0;
    if (p[1] == 'Z' && !isalnum((unsigned char)p[2])) {
        *r = -1;
        return (int)(p + 2 - s);
    }
    if (!isdigit((unsigned char)p[1]))
        return 0;
    char *end;
    long n = strtol(p + 1, &end, 10);
    if (isalnum((unsigned char)*end) || *end == '_')
        return 0;
    *r = (int)n + (uniform ? 256 : 0);
    return (int)(end - s);
}

/* Adds every register operand o names to regs (a .64 register as its
 * pair; width for the plain ones, 1 inside brackets). */
static void operand_regs(const char *o, int width, short *regs, int *n,
                         int max)
{
    int depth = 0;
    for (const char *s = o; *s; s++) {
        if (*s == '[')
            depth++;
        else if (*s == ']' && depth > 0)
            depth--;
        int r, len;
        if (s > o && (isalnum((unsigned char)s[-1]) || s[-1] == '_' ||
                      s[-1] == '.'))
            continue;
        if (!(len = reg_at(s, &r)))
            continue;
        int w = depth ? 1 : width;
        if (!strncmp(s + len, ".64", 3) && !isdigit((unsigned char)s[len + 3]))
            w = 2;
        if (r >= 0)
            add_regs(regs, n, max, r, w);
        s += len - 1;
    }
}

/* The registers t's instruction writes (its first operand after any
 * predicates, unless its opcode writes none) and reads (all the others). */
static void insn_regs(const insn_text *t, const char *op, mp_stall_insn *in)
{
    const char *b = t->base;
    size_t bl = strlen(b);
    int nodst = in_list(b, no_dst_ops) || in_list(b, control_ops) ||
                (bl >= 4 && !strcmp(b + bl - 4, "SETP"));
    int dbl = in_list(b, double_ops), store = in_list(b, store_ops);
    int dst = -1;
    if (!nodst)
        for (int i = 0; i < t->nops && dst < 0; i++)
            if (!is_predicate(t->ops[i]))
                dst = i;
    int dw = t->width;  /* a load's, an ALU op's .64 */
    if (dbl || t->wide)
        dw = 2;
    else if (!strcmp(b, "CS2R"))
        dw = strstr(op, ".32") ? 1 : 2;
    for (int i = 0; i < t->nops; i++) {
        int r, len = reg_at(t->ops[i], &r);
        if (i == dst && len) {
            if (r >= 0)
                add_regs(in->dst, &in->ndst, MP_STALL_MAXDST, r, dw);
            continue;
        }
        int sw = 1;
        if (dbl)
            sw = 2;
        else if (store && !strchr(t->ops[i], '['))
            sw = t->width;
        else if (t->wide && i == t->nops - 1)
            sw = 2;
        operand_regs(t->ops[i], sw, in->src, &in->nsrc, MP_STALL_MAXSRC);
    }
}

/* ---- reading the dump --------------------------------------------- */

typedef struct {
    mp_stall_fn *fn;
    int cap;
    char *leads;                /* leads[i]: instruction i starts a block */
    int next_leads;             /* a label or a control opcode was seen */
    unsigned *targets;          /* hex target offsets named */
    int ntargets, tcap;
    int headers;                /* "Function :" lines seen */
} parse_state;

/* The offset of an instruction line (its first comment that holds hex
 * digits only, 0120 in the dumps), and where its text starts; 0 where it
 * has none. */
static int line_offset(const char *line, unsigned *off, const char **rest)
{
    for (const char *p = strstr(line, "/*"); p; p = strstr(p + 1, "/*")) {
        const char *h = p + 2;
        size_t n = strspn(h, "0123456789abcdefABCDEF");
        if (n > 0 && n <= 8 && h[n] == '*' && h[n + 1] == '/') {
            *off = (unsigned)strtoul(h, NULL, 16);
            *rest = h + n + 2;
            return 1;
        }
    }
    return 0;
}

/* Is line a label (.L_x_12:, $__internal_0_...:), alone on its line? */
static int is_label(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        n--;
    return n > 1 && (line[0] == '.' || line[0] == '$') &&
           line[n - 1] == ':' && !memchr(line, ' ', n);
}

/* The instruction's text, up to its ';' (else its encoding comment), the
 * dual-issue braces blanked, into buf. */
static void insn_body(const char *rest, char *buf, size_t len)
{
    size_t n = strcspn(rest, ";");
    const char *c = strstr(rest, "/*");
    if (c && (size_t)(c - rest) < n)
        n = (size_t)(c - rest);
    if (n >= len)
        n = len - 1;
    memcpy(buf, rest, n);
    buf[n] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '{' || *p == '}')
            *p = ' ';
}

/* The next word of *s (up to a space), copied into w; *s moved past it. */
static void next_word(const char **s, char *w, size_t len)
{
    while (isspace((unsigned char)**s))
        (*s)++;
    size_t n = strcspn(*s, " \t");
    size_t k = n < len ? n : len - 1;
    memcpy(w, *s, k);
    w[k] = '\0';
    *s += n;
}

/* A hex target offset of a control opcode's operands, kept to start a
 * block there (a `(.L_x_N) target's label line starts one by itself). */
static void note_target(parse_state *st, const insn_text *t)
{
    if (!in_list(t->base, hex_target_ops))
        return;
    for (int i = 0; i < t->nops; i++) {
        const char *o = t->ops[i];
        if (strncmp(o, "0x", 2) || o[2 + strspn(o + 2, "0123456789abcdefABCDEF")])
            continue;
        if (st->ntargets == st->tcap) {
            st->tcap = st->tcap ? 2 * st->tcap : 16;
            st->targets = mp_xrealloc(st->targets,
                                      st->tcap * sizeof *st->targets);
        }
        st->targets[st->ntargets++] = (unsigned)strtoul(o, NULL, 16);
    }
}

/* Adds the instruction at off with text body; -1 with a reason for an
 * offset not after the one before. */
static int add_insn(parse_state *st, unsigned off, const char *body,
                    char *why, size_t whylen)
{
    mp_stall_fn *fn = st->fn;
    if (fn->n > 0 && off <= fn->v[fn->n - 1].off) {
        mp_reason(why, whylen, "SASS offset 0x%x after 0x%x: not one "
                  "function in order", off, fn->v[fn->n - 1].off);
        return -1;
    }
    if (fn->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 64;
        fn->v = mp_xrealloc(fn->v, st->cap * sizeof *fn->v);
        st->leads = mp_xrealloc(st->leads, st->cap);
    }
    mp_stall_insn *in = &fn->v[fn->n];
    memset(in, 0, sizeof *in);
    in->off = off;
    char word[sizeof in->op];
    const char *s = body;
    next_word(&s, word, sizeof word);
    if (word[0] == '@') {
        in->guarded = strcmp(word, "@PT") != 0;
        next_word(&s, word, sizeof word);
    }
    strcpy(in->op, word);
    insn_text *t = mp_xcalloc(1, sizeof *t);
    snprintf(t->base, sizeof t->base, "%.*s", (int)strcspn(word, "."), word);
    t->width = op_width(word, t->base, &t->wide);
    split_operands(s, t);
    in->is_load = in_list(t->base, load_ops);
    insn_regs(t, word, in);
    note_target(st, t);
    st->leads[fn->n] = fn->n == 0 || st->next_leads;
    st->next_leads = in_list(t->base, control_ops);
    fn->n++;
    free(t);
    return 0;
}

/* One line of the dump: an instruction, a label, a function's header or
 * nothing. 1 at a second header (the end of the function), -1 with a
 * reason for an instruction out of order, else 0. */
static int parse_line(parse_state *st, const char *line, char *why,
                      size_t whylen)
{
    unsigned off;
    const char *rest;
    if (strstr(line, "Function :") || strstr(line, "Function:"))
        return ++st->headers > 1;
    if (!line_offset(line, &off, &rest)) {
        if (is_label(line))
            st->next_leads = 1;
        return 0;
    }
    char body[512];
    insn_body(rest, body, sizeof body);
    if (!body[strspn(body, " \t")])
        return 0;
    return add_insn(st, off, body, why, whylen);
}

/* ---- blocks and waits ---------------------------------------------- */

static int find_index(const mp_stall_fn *fn, unsigned off)
{
    int lo = 0, hi = fn->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (fn->v[mid].off == off)
            return mid;
        if (fn->v[mid].off < off)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Numbers the basic blocks: one starts at each leader and at each hex
 * target offset. */
static void number_blocks(parse_state *st)
{
    mp_stall_fn *fn = st->fn;
    for (int k = 0; k < st->ntargets; k++) {
        int i = find_index(fn, st->targets[k]);
        if (i >= 0)
            st->leads[i] = 1;
    }
    int b = -1;
    for (int i = 0; i < fn->n; i++) {
        b += st->leads[i] != 0;
        fn->v[i].block = b;
    }
    fn->nblocks = b + 1;
}

static int writes(const mp_stall_insn *in, int r)
{
    for (int k = 0; k < in->ndst; k++)
        if (in->dst[k] == r)
            return 1;
    return 0;
}

static void add_wait(mp_stall_insn *in, unsigned off)
{
    for (int k = 0; k < in->nwait; k++)
        if (in->wait[k] == off)
            return;
    if (in->nwait < MP_STALL_MAXSRC)
        in->wait[in->nwait++] = off;
}

static int cmp_desc(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Instruction i's waits: each register it reads walked back in its block
 * to its writers, the guarded ones passed, up to an unguarded one; the
 * loads among them, nearest first. */
static void find_waits(mp_stall_fn *fn, int i)
{
    mp_stall_insn *in = &fn->v[i];
    for (int s = 0; s < in->nsrc; s++)
        for (int j = i - 1; j >= 0 && fn->v[j].block == in->block; j--) {
            const mp_stall_insn *w = &fn->v[j];
            if (!writes(w, in->src[s]))
                continue;
            if (w->is_load)
                add_wait(in, w->off);
            if (!w->guarded)
                break;
        }
    qsort(in->wait, in->nwait, sizeof in->wait[0], cmp_desc);
}

/* ---- the interface -------------------------------------------------- */

int mp_stall_parse(const char *sass, mp_stall_fn *fn, char *why,
                   size_t whylen)
{
    memset(fn, 0, sizeof *fn);
    parse_state st = {.fn = fn};
    char line[1024];
    int rc = 0;
    for (const char *p = sass; p && *p && rc == 0;) {
        size_t n = strcspn(p, "\n");
        size_t k = n < sizeof line ? n : sizeof line - 1;
        memcpy(line, p, k);
        line[k] = '\0';
        rc = parse_line(&st, line, why, whylen);
        p += n + (p[n] == '\n');
    }
    if (rc >= 0 && fn->n == 0) {
        mp_reason(why, whylen, "no SASS instruction in the text");
        rc = -1;
    }
    if (rc >= 0) {
        number_blocks(&st);
        for (int i = 0; i < fn->n; i++)
            find_waits(fn, i);
    }
    free(st.leads);
    free(st.targets);
    if (rc < 0) {
        mp_stall_free(fn);
        return -1;
    }
    return 0;
}

void mp_stall_free(mp_stall_fn *fn)
{
    free(fn->v);
    memset(fn, 0, sizeof *fn);
}

const mp_stall_insn *mp_stall_find(const mp_stall_fn *fn, unsigned off)
{
    int i = find_index(fn, off);
    return i >= 0 ? &fn->v[i] : NULL;
}

int mp_stall_attribute(const mp_stall_fn *fn, const mp_stall_count *in,
                       int nin, unsigned long long *out, char *why,
                       size_t whylen)
{
    for (int c = 0; c < nin; c++)
        if (find_index(fn, in[c].off) < 0) {
            mp_reason(why, whylen, "samples at 0x%x: no instruction there",
                      in[c].off);
            return -1;
        }
    memset(out, 0, fn->n * sizeof *out);
    for (int c = 0; c < nin; c++) {
        const mp_stall_insn *w = &fn->v[find_index(fn, in[c].off)];
        if (w->nwait == 0) {
            out[w - fn->v] += in[c].count;
            continue;
        }
        unsigned long long q = in[c].count / w->nwait;
        unsigned long long r = in[c].count % w->nwait;
        for (int k = 0; k < w->nwait; k++)
            out[find_index(fn, w->wait[k])] += q + ((unsigned)k < r);
    }
    return 0;
}
