/*
 * explain_capture.c - reader of `memprobe explain`'s lane-address
 * captures (the format: explain_capture.h, docs/explain-design.md) and of
 * the capture library's status file beside a capture.
 */
#include "explain_capture.h"

#include "bank_model.h"
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_KERNEL, C_PC, C_LAUNCH, C_WARP, C_SPACE, C_OPCODE, C_WIDTH,
       C_STORE, C_ACTIVE, C_LANE0, NCOLS = C_LANE0 + MP_WARP_SIZE };

static const char *const col_names[C_LANE0] = {
    "kernel", "pc_offset", "launch", "warp", "space", "opcode", "width",
    "is_store", "active"};

#define MAX_FIELD 1024

/* Splits one line (no newline) into at most NCOLS fields, double quotes
 * honoured ("" inside quotes is one quote). Returns the field count, or
 * -1 when a field is too long, there are too many or a quote is open. */
static int split(const char *line, size_t len, char f[NCOLS][MAX_FIELD])
{
    int n = 0;
    size_t i = 0;
    for (;;) {
        size_t k = 0;
        int quoted = i < len && line[i] == '"';
        if (n == NCOLS)
            return -1;
        i += (size_t)quoted;
        for (; i < len; i++) {
            if (quoted && line[i] == '"') {
                if (i + 1 < len && line[i + 1] == '"')
                    i++;
                else {
                    quoted = 0;
                    continue;
                }
            } else if (!quoted && line[i] == ',')
                break;
            if (k + 1 >= MAX_FIELD)
                return -1;
            f[n][k++] = line[i];
        }
        if (quoted)
            return -1;
        f[n++][k] = '\0';
        if (i >= len)
            return n;
        i++;   /* the comma */
    }
}

/* A whole integer (decimal or 0x hex) >= lo; 0, or -1. */
static int integer(const char *s, long long lo, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 0);
    return *s && !*end && !errno && *v >= lo ? 0 : -1;
}

/* The instruction (kernel, pc) of c, added when new; NULL out of memory. */
static mp_capture_inst *find_inst(mp_capture *c, const char *kernel,
                                  long long pc, const char *opcode)
{
    for (int i = c->n - 1; i >= 0; i--)
        if (c->inst[i].pc == pc && !strcmp(c->inst[i].kernel, kernel))
            return &c->inst[i];
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        mp_capture_inst *x = realloc(c->inst, (size_t)cap * sizeof *x);
        if (!x)
            return NULL;
        c->inst = x;
        c->cap = cap;
    }
    mp_capture_inst *in = &c->inst[c->n];
    memset(in, 0, sizeof *in);
    if (!(in->kernel = strdup(kernel)))
        return NULL;
    c->n++;
    in->pc = pc;
    snprintf(in->opcode, sizeof in->opcode, "%s", opcode);
    in->explained = mp_explain_opcode(opcode, NULL, NULL, &in->why);
    mp_explain_init(&in->acc);
    in->acc.atomic = mp_explain_opcode_atomic(opcode);
    in->copy = mp_explain_opcode_copy(opcode);
    return in;
}

/* Notes launch among the instruction's distinct launches; 0, or -1 out
 * of memory. */
static int note_launch(mp_capture_inst *in, long long launch)
{
    for (int i = in->nlaunches - 1; i >= 0; i--)
        if (in->launch[i] == launch)
            return 0;
    if (in->nlaunches == in->caplaunches) {
        int cap = in->caplaunches ? 2 * in->caplaunches : 4;
        long long *x = realloc(in->launch, (size_t)cap * sizeof *x);
        if (!x)
            return -1;
        in->launch = x;
        in->caplaunches = cap;
    }
    in->launch[in->nlaunches++] = launch;
    return 0;
}

/* The lane addresses of a row into e; 0, or -1 with why. */
static int lanes(char f[NCOLS][MAX_FIELD], mp_explain_exec *e, char *why,
                 size_t n)
{
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        const char *s = f[C_LANE0 + l];
        int on = e->active >> l & 1u;
        e->addr[l] = 0;
        if (!on && *s) {
            snprintf(why, n, "lane%d: an address for an inactive lane", l);
            return -1;
        }
        if (on && integer(s, 0, &e->addr[l])) {
            snprintf(why, n, "lane%d: '%s' is not an address >= 0", l, s);
            return -1;
        }
    }
    return 0;
}

/* The execution fields of a row; 0, or -1 with why. */
static int row_exec(char f[NCOLS][MAX_FIELD], mp_explain_exec *e, char *why,
                    size_t n)
{
    long long v;
    memset(e, 0, sizeof *e);
    if (!strcmp(f[C_SPACE], "shared") || !strcmp(f[C_SPACE], "global"))
        e->space = f[C_SPACE][0] == 's' ? MP_SPACE_SHARED : MP_SPACE_GLOBAL;
    else
        return snprintf(why, n, "space: '%s' is not shared or global",
                        f[C_SPACE]), -1;
    if (integer(f[C_WIDTH], 1, &v) || v > 16)
        return snprintf(why, n, "width: '%s' is not 1..16 bytes",
                        f[C_WIDTH]), -1;
    e->width = (int)v;
    if (strcmp(f[C_STORE], "0") && strcmp(f[C_STORE], "1"))
        return snprintf(why, n, "is_store: '%s' is not 0 or 1",
                        f[C_STORE]), -1;
    e->is_store = f[C_STORE][0] == '1';
    char *end;
    errno = 0;
    unsigned long long m = strtoull(f[C_ACTIVE], &end, 16);
    if (!f[C_ACTIVE][0] || *end || errno || m > 0xffffffffULL)
        return snprintf(why, n, "active: '%s' is not a 32-bit hex mask",
                        f[C_ACTIVE]), -1;
    e->active = (uint32_t)m;
    return lanes(f, e, why, n);
}

/* A copy's row: a destination waits for its source row; the source row
 * makes the execution, a lane that read nothing with no source. A
 * destination row after another (no source between) leaves the earlier
 * unpaired. 0, or -1 with why. */
static int copy_row(mp_capture_inst *in, const mp_explain_exec *e,
                    int source, char *why, size_t n)
{
    if (!source) {
        in->unpaired += in->has_pending;
        in->pending = *e;
        in->has_pending = 1;
        return 0;
    }
    if (!in->has_pending)
        return snprintf(why, n, "a copy's source row with no destination "
                        "row before it"), -1;
    long long src[MP_WARP_SIZE];
    for (int l = 0; l < MP_WARP_SIZE; l++)
        src[l] = e->active >> l & 1u ? e->addr[l] : MP_COPY_NO_SOURCE;
    if (e->active & ~in->pending.active)
        return snprintf(why, n, "a copy's source row has lanes its "
                        "destination row lacks"), -1;
    in->has_pending = 0;
    mp_explain_exec x = in->pending;
    x.src = src;
    return mp_explain_add(&in->acc, &x, why, n);
}

/* One data row into c; 0, or -1 with why. */
static int add_row(mp_capture *c, char f[NCOLS][MAX_FIELD], char *why,
                   size_t n)
{
    long long pc, launch, warp;
    int space, width;
    if (integer(f[C_PC], 0, &pc))
        return snprintf(why, n, "pc_offset: '%s' is not an offset",
                        f[C_PC]), -1;
    if (integer(f[C_LAUNCH], 0, &launch) || integer(f[C_WARP], 0, &warp))
        return snprintf(why, n, "launch, warp: not integers >= 0"), -1;
    if (!f[C_KERNEL][0] || !f[C_OPCODE][0])
        return snprintf(why, n, "kernel, opcode: empty"), -1;
    mp_explain_exec e;
    if (row_exec(f, &e, why, n))
        return -1;
    mp_capture_inst *in = find_inst(c, f[C_KERNEL], pc, f[C_OPCODE]);
    if (!in)
        return snprintf(why, n, "out of memory"), -1;
    if (strcmp(in->opcode, f[C_OPCODE]))
        return snprintf(why, n, "opcode: '%s' where earlier rows of %s+0x%llx "
                        "say '%s'", f[C_OPCODE], in->kernel,
                        (unsigned long long)pc, in->opcode), -1;
    /* an asynchronous copy's global source follows its destination's row:
     * the same execution, not another */
    int source = in->copy && e.space == MP_SPACE_GLOBAL;
    in->rows += !source;
    c->rows++;
    if (note_launch(in, launch))
        return snprintf(why, n, "out of memory"), -1;
    if (!in->explained)
        return 0;
    if (in->copy)
        return copy_row(in, &e, source, why, n);
    e.matrices = mp_explain_opcode_matrices(f[C_OPCODE]);
    mp_explain_opcode(f[C_OPCODE], &space, &width, NULL);
    if ((space >= 0 && space != e.space) || (width && width != e.width))
        return snprintf(why, n, "opcode %s does not match space %s, width "
                        "%d", f[C_OPCODE], f[C_SPACE], e.width), -1;
    return mp_explain_add(&in->acc, &e, why, n);
}

/* The header: the column names in order; 0, or -1. */
static int header_ok(char f[NCOLS][MAX_FIELD], int n)
{
    if (n != NCOLS)
        return -1;
    for (int i = 0; i < NCOLS; i++) {
        char want[16];
        if (i < C_LANE0)
            snprintf(want, sizeof want, "%s", col_names[i]);
        else
            snprintf(want, sizeof want, "lane%d", i - C_LANE0);
        if (strcmp(f[i], want))
            return -1;
    }
    return 0;
}

/* One line: 0, or -1 with why. *seen_header: the header was read. */
static int parse_line(mp_capture *c, const char *line, size_t len,
                      int *seen_header, char f[NCOLS][MAX_FIELD], char *why,
                      size_t n)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (len == 0 || line[0] == '#')
        return 0;
    int nf = split(line, len, f);
    if (!*seen_header) {
        *seen_header = 1;
        if (nf < 0 || header_ok(f, nf))
            return snprintf(why, n, "not the capture header (kernel,"
                            "pc_offset,launch,warp,space,opcode,width,"
                            "is_store,active,lane0,...,lane31)"), -1;
        return 0;
    }
    if (nf != NCOLS)
        return snprintf(why, n, "%d cells, want %d (or a malformed cell)",
                        nf, NCOLS), -1;
    return add_row(c, f, why, n);
}

/* A copy with a destination row that had no source row (a capture made
 * before the sources were kept) is not compared: the model needs both. */
static void copies_done(mp_capture *c)
{
    for (int i = 0; i < c->n; i++) {
        mp_capture_inst *in = &c->inst[i];
        in->unpaired += in->has_pending;
        in->has_pending = 0;
        if (in->copy && in->unpaired && in->explained) {
            in->explained = 0;
            in->why = "asynchronous copy LDGSTS: the capture holds its "
                      "destinations without their sources (made before "
                      "memprobe kept them); capture it again";
        }
    }
}

int mp_capture_parse(const char *buf, size_t len, const char *name,
                     mp_capture *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    char (*f)[MAX_FIELD] = malloc(sizeof(char[NCOLS][MAX_FIELD]));
    char why[512];
    int seen_header = 0, line = 0, rc = 0;
    if (!f) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    for (size_t i = 0; i < len && rc == 0;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - buf) : len;
        line++;
        rc = parse_line(c, buf + i, end - i, &seen_header, f, why, sizeof why);
        i = end + 1;
    }
    free(f);
    if (rc == 0 && !seen_header) {
        snprintf(why, sizeof why, "no capture header");
        rc = -1;
        line = 1;
    }
    if (rc == 0)
        copies_done(c);
    if (rc) {
        snprintf(err, errlen, "%s:%d: %s", name, line, why);
        mp_capture_free(c);
    }
    return rc;
}

int mp_capture_read(const char *path, mp_capture *c, char *err,
                    size_t errlen)
{
    memset(c, 0, sizeof *c);
    size_t len;
    char *buf = mp_read_file(path, &len, err, errlen);
    if (!buf)
        return -1;
    int rc = mp_capture_parse(buf, len, path, c, err, errlen);
    free(buf);
    return rc;
}

void mp_capture_free(mp_capture *c)
{
    for (int i = 0; i < c->n; i++) {
        free(c->inst[i].kernel);
        free(c->inst[i].launch);
        mp_explain_free(&c->inst[i].acc);
    }
    free(c->inst);
    memset(c, 0, sizeof *c);
}

/* ---- the status file ---------------------------------------------------- */

/* n (its strings just duplicated: NULL there is out of memory; a left
 * note has launch -1 and its why) onto s's notes; 0, or -1 (n's strings
 * freed). */
static int push_note(mp_capture_status *s, mp_capture_note n)
{
    int fail = !n.kernel || (n.launch < 0 && !n.left);
    if (!fail && s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        mp_capture_note *x = realloc(s->note, (size_t)cap * sizeof *x);
        if (x) {
            s->note = x;
            s->cap = cap;
        }
        fail = !x;
    }
    if (fail) {
        free(n.kernel);
        free(n.left);
        return -1;
    }
    s->note[s->n++] = n;
    return 0;
}

/* "captured|dropped KERNEL PC launch L executions N" into s; 0, or -1. */
static int status_note(mp_capture_status *s, char *line, int dropped)
{
    char *save = NULL, *w[7];
    int n = 0;
    for (char *t = strtok_r(line, " \t", &save); t && n < 7;
         t = strtok_r(NULL, " \t", &save))
        w[n++] = t;
    long long pc, launch, execs;
    if (n != 6 || strcmp(w[2], "launch") || strcmp(w[4], "executions")
        || integer(w[1], 0, &pc) || integer(w[3], 0, &launch)
        || integer(w[5], 0, &execs))
        return -1;
    return push_note(s, (mp_capture_note){strdup(w[0]), pc, launch, execs,
                                          dropped, NULL});
}

/* "left KERNEL 0xOFF: WHY" into s; 0, or -1. */
static int status_left(mp_capture_status *s, char *line)
{
    char *sp = strchr(line, ' ');
    char *colon = sp ? strstr(sp + 1, ": ") : NULL;
    if (!sp || !colon)
        return -1;
    *sp = *colon = '\0';
    long long pc;
    if (!line[0] || integer(sp + 1, 0, &pc))
        return -1;
    return push_note(s, (mp_capture_note){strdup(line), pc, -1, 0, 0,
                                          strdup(colon + 2)});
}

/* "error TEXT" into s; 0, or -1 out of memory. */
static int status_error(mp_capture_status *s, const char *text)
{
    char **x = realloc(s->error, (size_t)(s->nerrors + 1) * sizeof *x);
    if (!x)
        return -1;
    s->error = x;
    if (!(s->error[s->nerrors] = strdup(text)))
        return -1;
    s->nerrors++;
    return 0;
}

/* One line of a status file (its newline removed); 0, or -1. */
static int status_line(mp_capture_status *s, char *line)
{
    if (!strncmp(line, "captured ", 9))
        return status_note(s, line + 9, 0);
    if (!strncmp(line, "dropped ", 8))
        return status_note(s, line + 8, 1);
    if (!strncmp(line, "left ", 5))
        return status_left(s, line + 5);
    if (!strncmp(line, "error ", 6))
        return status_error(s, line + 6);
    return 0;   /* the library's own notes (start, cap) */
}

int mp_capture_status_read(const char *path, mp_capture_status *s, char *err,
                           size_t errlen)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int no = 0, rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        no++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        rc = status_line(s, line);
    }
    free(line);
    fclose(f);
    if (rc) {
        snprintf(err, errlen, "%s:%d: not a line of the capture library's "
                 "status (captured|dropped KERNEL 0xOFFSET launch L "
                 "executions N, or left KERNEL 0xOFFSET: WHY)", path, no);
        mp_capture_status_free(s);
    }
    return rc;
}

long long mp_capture_dropped(const mp_capture_status *s, const char *kernel,
                             long long pc)
{
    long long n = 0;
    for (int i = 0; i < s->n; i++)
        if (s->note[i].dropped && s->note[i].pc == pc
            && !strcmp(s->note[i].kernel, kernel))
            n += s->note[i].executions;
    return n;
}

const char *mp_capture_left(const mp_capture_status *s, const char *kernel,
                            long long pc)
{
    for (int i = 0; s && i < s->n; i++)
        if (s->note[i].left && s->note[i].pc == pc
            && !strcmp(s->note[i].kernel, kernel))
            return s->note[i].left;
    return NULL;
}

void mp_capture_status_free(mp_capture_status *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->note[i].kernel);
        free(s->note[i].left);
    }
    for (int i = 0; i < s->nerrors; i++)
        free(s->error[i]);
    free(s->note);
    free(s->error);
    memset(s, 0, sizeof *s);
}
