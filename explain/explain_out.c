/*
 * explain_out.c - `memprobe explain`'s output (explain_out.h): the words
 * for a pattern, a request and a fix; per offending line an instruction
 * table and a fix table through report/'s table printer (text or
 * Markdown); explain.csv through runtime/'s CSV writer.
 */
#include "explain_out.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "csv_writer.h"
#include "replace.h"

/* ---- words -------------------------------------------------------------- */

/* The opcode as captured, else as profiled ("" when neither knows). */
static const char *opcode_of(const mp_xp_inst *x)
{
    return x->cap ? x->cap->opcode : x->prof_opcode;
}

/* The bytes a lane of an explained opcode accesses, or 0. */
static int width_of(const mp_xp_inst *x)
{
    int w = 0;
    if (!x->cap || !mp_explain_opcode(x->cap->opcode, NULL, &w, NULL))
        return 0;
    return w ? w : x->cap->acc.width;   /* an atomic: the capture's */
}

/* "shared" or "global": the capture's space, else the profile's class. */
static const char *space_of(const mp_xp_inst *x)
{
    if (x->has_pattern)
        return x->p.space == MP_SPACE_SHARED ? "shared" : "global";
    return mp_prof_class_name[x->cls];
}

/* The stride in the probes' words: "32 words (128 bytes)" (shared, whole
 * words) or "2 elements of 8 bytes (16 bytes)". */
static void stride_words(const mp_explain_pattern *p, char *buf, size_t len)
{
    if (p->space == MP_SPACE_SHARED && p->stride_bytes % 4 == 0)
        snprintf(buf, len, "%lld word%s (%lld bytes)", p->stride_words,
                 p->stride_words == 1 ? "" : "s", p->stride_bytes);
    else if (p->whole_elements)
        snprintf(buf, len, "%lld element%s of %d bytes (%lld bytes)",
                 p->stride, p->stride == 1 ? "" : "s", p->width,
                 p->stride_bytes);
    else
        snprintf(buf, len, "%lld bytes", p->stride_bytes);
}

/* Appends printf text to buf (holding a string of len bytes at most). */
static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (used < len)
        vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* Where a global pattern's first lane falls: on a sector or past one. */
static void misalignment(const mp_explain_pattern *p, char *buf, size_t len)
{
    if (!p->misalign_line)
        append(buf, len, "; first lane at the start of a 128-byte line");
    else if (!p->misalign)
        append(buf, len, "; first lane on a sector, %lld bytes into its "
               "128-byte line", p->misalign_line);
    else
        append(buf, len, "; first lane %lld bytes past a sector (%lld into "
               "its 128-byte line)", p->misalign, p->misalign_line);
}

/* The pattern in the probes' words. */
static void pattern_words(const mp_xp_inst *x, char *buf, size_t len)
{
    const mp_explain_pattern *p = &x->p;
    char s[96];
    buf[0] = '\0';
    if (!p->active) {
        snprintf(buf, len, "no lane active");
        return;
    }
    if (!p->regular)
        append(buf, len, "irregular lanes (no base + stride pattern)");
    else if (p->stride_bytes == 0)
        append(buf, len, "one address for all lanes (a broadcast)");
    else {
        stride_words(p, s, sizeof s);
        append(buf, len, "stride %s", s);
        if (p->group > 1)
            append(buf, len, ", %lld lanes an address", p->group);
        if (p->period < MP_WARP_SIZE)
            append(buf, len, ", repeating every %lld lanes", p->period);
    }
    append(buf, len, "; %lld distinct address%s", x->addresses,
           x->addresses == 1 ? "" : "es");
    if (p->row_words)
        append(buf, len, "; a column of a tile of %lld-word rows",
               p->row_words);
    if (p->space == MP_SPACE_GLOBAL)
        misalignment(p, buf, len);
    if (p->copy)
        append(buf, len, "; sources in %d 128-byte line%s (%d sector%s), "
               "a write waiting for at most %d from other places in their "
               "lines", p->src_lines, p->src_lines == 1 ? "" : "s",
               p->src_sectors, p->src_sectors == 1 ? "" : "s",
               p->place_waits);
    if (!p->full)
        append(buf, len, "; active lanes 0x%08x", (unsigned)p->active);
}

/* n-way conflict or sectors per request, with the counts. */
static void per_request(const mp_xp_inst *x, char *buf, size_t len)
{
    const mp_explain_acc *acc = &x->cap->acc;
    char r[32];
    if (x->p.space == MP_SPACE_SHARED) {
        mp_rep_fmt(r, sizeof r, x->p.ways, 2);
        snprintf(buf, len, "%s-way (%lld wavefronts, ideal %lld)", r,
                 acc->count, acc->ideal);
    } else {
        mp_rep_fmt(r, sizeof r, x->p.sectors_per_request, 2);
        snprintf(buf, len, "%s sectors a request (%lld sectors, ideal %lld)",
                 r, acc->count, acc->ideal);
    }
}

/* A fix in words, the staged copy with its shared reads. */
static void fix_words(const mp_explain_fix *f, int shared, char *buf,
                      size_t len)
{
    snprintf(buf, len, "%s", f->what);
    if (f->kind == MP_FIX_STAGE && !shared)
        append(buf, len, "; its shared reads %lld wavefronts, ideal %lld",
               f->shared_count, f->shared_ideal);
}

/* Under the fix table: whether any fix reaches the ideal. */
static void fix_note(const mp_xp_inst *x, char *buf, size_t len)
{
    const mp_explain_fixes *f = &x->fixes;
    const char *unit = x->p.space == MP_SPACE_SHARED ? "wavefronts"
                                                     : "sectors";
    buf[0] = '\0';
    if (f->already_ideal)
        snprintf(buf, len, "the model counts it at its ideal (%lld %s)",
                 x->cap->acc.ideal, unit);
    else if (!f->n)
        snprintf(buf, len, "no fix listed for this pattern");
    else if (!f->any_ideal)
        snprintf(buf, len, "no listed fix reaches the ideal (%lld %s)",
                 x->cap->acc.ideal, unit);
}

/* ---- text and Markdown ------------------------------------------------ */

/* The instruction's heading: "+0x180 LDS: 4 warp executions in 1
 * launch". */
static void inst_heading(const mp_xp_inst *x, char *buf, size_t len)
{
    const char *op = opcode_of(x);
    snprintf(buf, len, "+0x%llx%s%s", x->offset, op[0] ? " " : "", op);
    if (x->cap)
        append(buf, len, ": %lld warp execution%s in %d launch%s",
               x->cap->rows, x->cap->rows == 1 ? "" : "s",
               x->cap->nlaunches, x->cap->nlaunches == 1 ? "" : "es");
}

/* A row of the instruction's table. */
static void field(mp_rep_table *t, const char *name, const char *value)
{
    const char *kv[] = {name, value};
    mp_rep_table_add(t, kv, NULL);
}

/* The instruction as a table of fields (Markdown: the command as code). */
static mp_rep_table *inst_table(const mp_xp_inst *x, mp_rep_format f)
{
    static const char *const keys[] = {"field", "value"};
    mp_rep_table *t = mp_rep_table_new("instruction", 2, keys, 0, NULL, 8);
    char buf[1024];
    if (x->p.copy)   /* cp.async: the copy rule of bank_model.h */
        snprintf(buf, sizeof buf, "%s, %d bytes, asynchronous copy from "
                 "global memory (counted by the copy rule: written source "
                 "line by source line, each write to a bank after the "
                 "bank's earlier writes from other places in their lines)",
                 space_of(x), width_of(x));
    else if (x->p.matrices)   /* ldmatrix / stmatrix: rows of 8x8 matrices */
        snprintf(buf, sizeof buf, "%s, %d-byte rows, matrix %s of %d 8x8 "
                 "matrices (each one's 8 rows a phase)", space_of(x),
                 width_of(x), x->p.is_store ? "store" : "load",
                 x->p.matrices);
    else
        snprintf(buf, sizeof buf, "%s, %d bytes, %s", space_of(x),
                 width_of(x), x->p.atomic ? "atomic (counted as a store)"
                 : x->p.is_store ? "store" : "load");
    field(t, "space, width", buf);
    pattern_words(x, buf, sizeof buf);
    field(t, "pattern", buf);
    per_request(x, buf, sizeof buf);
    field(t, "per request", buf);
    field(t, "model vs measured", x->compare_text);
    snprintf(buf, sizeof buf, f == MP_REP_MD && x->has_probe ? "`%s`"
             : "%s", x->probe);
    field(t, "probe", buf);
    if (x->h200[0])
        field(t, "H200", x->h200);
    return t;
}

/* The fixes, ranked. */
static mp_rep_table *fix_table(const mp_xp_inst *x)
{
    static const char *const keys[] = {"#", "fix", "predicted",
                                       "reaches the ideal"};
    mp_rep_table *t = mp_rep_table_new("fixes", 4, keys, 0, NULL,
                                       x->fixes.n);
    for (int k = 0; k < x->fixes.n; k++) {
        const mp_explain_fix *f = &x->fixes.fix[k];
        char rank[16], what[400], count[32];
        snprintf(rank, sizeof rank, "%d", k + 1);
        fix_words(f, x->p.space == MP_SPACE_SHARED, what, sizeof what);
        snprintf(count, sizeof count, "%lld", f->count);
        const char *kv[] = {rank, what, count, f->reaches_ideal ? "yes"
                                                                : "no"};
        mp_rep_table_add(t, kv, NULL);
    }
    return t;
}

/* One table, a blank line after it. */
static void print_tab(mp_rep_table *t, mp_rep_format f, FILE *out)
{
    if (t->nrows)
        mp_rep_table_print(t, f, MP_REP_NO_TITLE, out);
    fputc('\n', out);
    mp_rep_table_free(t);
}

/* One instruction: its heading, its fields, its ranked fixes. */
static void print_inst(const mp_xp_inst *x, mp_rep_format f, FILE *out)
{
    char head[256], note[256];
    inst_heading(x, head, sizeof head);
    fprintf(out, f == MP_REP_MD ? "`%s`\n\n" : "%s\n", head);
    if (!x->has_pattern) {   /* not captured, or not explained */
        fprintf(out, "%s\n\n", x->compare_text);
        return;
    }
    print_tab(inst_table(x, f), f, out);
    const char *unit = x->p.space == MP_SPACE_SHARED ? "wavefronts"
                                                     : "sectors";
    if (x->fixes.n) {
        fprintf(out, "fixes, ranked by the %s the model predicts for the "
                "same addresses:\n%s", unit, f == MP_REP_MD ? "\n" : "");
        print_tab(fix_table(x), f, out);
    }
    fix_note(x, note, sizeof note);
    if (note[0])
        fprintf(out, "%s\n\n", note);
}

/* The counts of r's instructions by outcome. */
static void summary(const mp_xp_result *r, FILE *out)
{
    int n[3] = {0};
    for (int k = 0; k < r->ninst; k++)
        if (r->inst[k].has_pattern)
            n[r->inst[k].compare]++;
    fprintf(out, "%d offending line%s, %d instruction%s: %d captured, %d "
            "explained; model equal to measured for %d, differing for %d, "
            "not compared for %d.\n", r->nlines, r->nlines == 1 ? "" : "s",
            r->ninst, r->ninst == 1 ? "" : "s", r->captured, r->explained,
            n[MP_XP_EQUAL], n[MP_XP_DIFFER], n[MP_XP_NOT_COMPARED]);
}

void mp_xp_print(const mp_xp_result *r, mp_rep_format f, FILE *out)
{
    for (int k = 0; k < r->nlines; k++) {
        const mp_xp_line *l = &r->line[k];
        fprintf(out, f == MP_REP_MD ? "### %s\n\n" : "%s\n\n", l->title);
        for (int i = 0; i < l->n; i++)
            print_inst(&r->inst[l->first + i], f, out);
    }
    summary(r, out);
}

/* ---- explain.csv ------------------------------------------------------ */

#define XP_CSV_COLS(X)                                                    \
    X(KERNEL, "kernel") X(MANGLED, "mangled") X(FILE, "file")              \
    X(LINE, "line") X(OFFSET, "function_offset") X(OPCODE, "opcode")       \
    X(SPACE, "space") X(WIDTH, "width") X(DIRECTION, "direction")          \
    X(EXPLAINED, "explained") X(PATTERN, "pattern") X(REGULAR, "regular")  \
    X(STRIDE_B, "stride_bytes") X(STRIDE_W, "stride_words")                \
    X(STRIDE_E, "stride_elements") X(GROUP, "group") X(PERIOD, "period")   \
    X(BASE, "base_bytes") X(GROUPS, "broadcast_groups") X(WAYS, "n_way")   \
    X(ROW, "tile_row_words") X(MISALIGN, "misalign_bytes")                 \
    X(MISALIGN_LINE, "misalign_line_bytes")                                \
    X(SECTORS, "sectors_per_request") X(EXECS, "executions")               \
    X(LAUNCHES_P, "launches_profiled") X(LAUNCHES_C, "launches_captured")  \
    X(MEASURED, "measured") X(MEASURED_IDEAL, "measured_ideal")            \
    X(MODEL, "model") X(MODEL_IDEAL, "model_ideal") X(EQUAL, "equal")      \
    X(WHY_NOT, "why_not_compared") X(RANK, "fix_rank") X(FIX, "fix")       \
    X(PREDICTED, "predicted") X(REACHES, "reaches_ideal")                  \
    X(PROBE, "probe_command") X(H200, "h200_per_request")                 \
    X(H200_FILE, "h200_file")

#define XP_ID(id, name) XC_##id,
enum { XP_CSV_COLS(XP_ID) XC_N };
#undef XP_ID
#define XP_NAME(id, name) name,
static const char *const csv_cols[XC_N] = {XP_CSV_COLS(XP_NAME)};
#undef XP_NAME

int mp_xp_csv_ncols(void) { return XC_N; }
const char *mp_xp_csv_col(int i) { return csv_cols[i]; }

/* The cells of one row, each its own buffer. */
typedef struct {
    char v[XC_N][1024];
} csv_row;

static void set(csv_row *row, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set(csv_row *row, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->v[col], sizeof row->v[col], fmt, ap);
    va_end(ap);
}

/* The pattern's columns. */
static void pattern_cells(const mp_xp_inst *x, csv_row *row)
{
    const mp_explain_pattern *p = &x->p;
    pattern_words(x, row->v[XC_PATTERN], sizeof row->v[XC_PATTERN]);
    set(row, XC_REGULAR, "%d", p->regular);
    if (p->regular) {
        set(row, XC_STRIDE_B, "%lld", p->stride_bytes);
        if (p->whole_elements)
            set(row, XC_STRIDE_E, "%lld", p->stride);
        set(row, XC_GROUP, "%lld", p->group);
        set(row, XC_PERIOD, "%lld", p->period);
    }
    set(row, XC_BASE, "%lld", p->base_bytes);
    set(row, XC_GROUPS, "%lld", x->addresses);
    if (p->space == MP_SPACE_SHARED) {
        if (p->regular && p->stride_bytes % 4 == 0)
            set(row, XC_STRIDE_W, "%lld", p->stride_words);
        mp_rep_fmt(row->v[XC_WAYS], sizeof row->v[XC_WAYS], p->ways, 2);
        if (p->row_words)
            set(row, XC_ROW, "%lld", p->row_words);
    } else {
        set(row, XC_MISALIGN, "%lld", p->misalign);
        set(row, XC_MISALIGN_LINE, "%lld", p->misalign_line);
        mp_rep_fmt(row->v[XC_SECTORS], sizeof row->v[XC_SECTORS],
                   p->sectors_per_request, 2);
    }
}

/* The instruction's columns (those of every row of it). */
static void inst_cells(const mp_xp_inst *x, csv_row *row)
{
    memset(row, 0, sizeof *row);
    set(row, XC_KERNEL, "%s", x->name);
    set(row, XC_MANGLED, "%s", x->mangled);
    set(row, XC_FILE, "%s", x->file);
    if (x->file[0])
        set(row, XC_LINE, "%ld", x->line);
    set(row, XC_OFFSET, "0x%llx", x->offset);
    set(row, XC_OPCODE, "%s", opcode_of(x));
    set(row, XC_SPACE, "%s", space_of(x));
    set(row, XC_DIRECTION, "%s", mp_prof_dir_name[x->dir]);
    if (x->measured_known) {
        set(row, XC_LAUNCHES_P, "%llu", x->launches);
        set(row, XC_MEASURED, "%llu", x->measured);
        set(row, XC_MEASURED_IDEAL, "%llu", x->measured_ideal);
    }
    if (!x->cap) {
        set(row, XC_EQUAL, "not compared");
        set(row, XC_WHY_NOT, "not captured");
        return;
    }
    set(row, XC_EXECS, "%lld", x->cap->rows);
    set(row, XC_LAUNCHES_C, "%d", x->cap->nlaunches);
    if (!x->has_pattern) {
        set(row, XC_EXPLAINED, "no: %s", x->cap->why);
        set(row, XC_EQUAL, "not compared");
        set(row, XC_WHY_NOT, "not explained");
        return;
    }
    set(row, XC_WIDTH, "%d", width_of(x));
    set(row, XC_EXPLAINED, "yes");
    pattern_cells(x, row);
    set(row, XC_MODEL, "%lld", x->cap->acc.count);
    set(row, XC_MODEL_IDEAL, "%lld", x->cap->acc.ideal);
    set(row, XC_EQUAL, "%s", x->compare == MP_XP_EQUAL ? "yes"
        : x->compare == MP_XP_DIFFER ? "no" : "not compared");
    if (x->why_not)
        set(row, XC_WHY_NOT, "%s", x->why_not);
    set(row, XC_PROBE, "%s", x->probe);
    if (x->has_h200) {
        set(row, XC_H200, "%.2f", x->h200_per_request);
        set(row, XC_H200_FILE, "%s", x->h200_file);
    }
}

/* Fix k's columns (k < 0: none). */
static void fix_cells(const mp_xp_inst *x, int k, csv_row *row)
{
    row->v[XC_RANK][0] = row->v[XC_FIX][0] = '\0';
    row->v[XC_PREDICTED][0] = row->v[XC_REACHES][0] = '\0';
    if (k < 0)
        return;
    const mp_explain_fix *f = &x->fixes.fix[k];
    set(row, XC_RANK, "%d", k + 1);
    fix_words(f, x->p.space == MP_SPACE_SHARED, row->v[XC_FIX],
              sizeof row->v[XC_FIX]);
    set(row, XC_PREDICTED, "%lld", f->count);
    set(row, XC_REACHES, "%s", f->reaches_ideal ? "yes" : "no");
}

/* Every row of instruction x: one per fix, or one without a fix. */
static int write_inst(mp_csv_writer *w, const mp_xp_inst *x, csv_row *row,
                      char *err, size_t errlen)
{
    const char *cells[XC_N];
    inst_cells(x, row);
    int n = x->has_pattern ? x->fixes.n : 0;
    for (int k = n ? 0 : -1; k < n; k++) {
        fix_cells(x, k, row);
        for (int c = 0; c < XC_N; c++)
            cells[c] = row->v[c];
        if (mp_csv_write_row(w, cells, err, errlen))
            return -1;
    }
    return 0;
}

int mp_xp_csv_check(const char *path, char *err, size_t errlen)
{
    if (!strcmp(path, "-"))
        return 0;
    if (mp_csv_check_output(path, csv_cols, XC_N, err, errlen))
        return -1;
    return 0;
}

int mp_xp_csv_write(const mp_xp_result *r, const char *path, char *err,
                    size_t errlen)
{
    mp_csv_writer w;
    char temp[PATH_MAX + 32];   /* beside path, renamed over it when done */
    int file = strcmp(path, "-") != 0;
    if (file) {
        mp_replace_temp_name(path, temp, sizeof temp);
        unlink(temp);
    }
    if (mp_csv_open(&w, file ? temp : "-", csv_cols, XC_N, err, errlen))
        return -1;
    csv_row *row = mp_xmalloc(sizeof *row);
    int rc = 0;
    for (int k = 0; k < r->ninst && !rc; k++)
        rc = write_inst(&w, &r->inst[k], row, err, errlen);
    free(row);
    if (mp_csv_close(&w) && !rc) {
        snprintf(err, errlen, "%s: cannot close", path);
        rc = -1;
    }
    if (file && rc)
        unlink(temp);   /* path as it was */
    else if (file)
        rc = mp_replace_commit_one(temp, path, err, errlen);
    return rc;
}
