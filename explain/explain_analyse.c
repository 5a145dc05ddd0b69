/*
 * explain_analyse.c - the analysis of `memprobe explain` (see
 * explain_analyse.h): offending lines to instructions, instructions to
 * their capture rows, the core's explanation of each, model against
 * measurement; the capture's own counts as a profile; the want file.
 */
#include "explain_analyse.h"
#include "explain_h200.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"

/* ---- offending lines and their instructions --------------------------- */

/* What --check says of the line, the kernel first: "transpose_naive
 * app.cu:21: shared load (LDS): 32.0x ideal (128 wavefronts, ideal 4)",
 * without line info "transpose_naive+0x180: ...". */
static void line_title(const mp_prof_offender *o, char *buf, size_t len)
{
    const mp_prof_src *s = &o->src;
    char what[128], ratio[32];
    char *at = mp_prof_src_where(s);
    mp_u64 m = s->meas[o->cls][o->dir], id = s->ideal[o->cls][o->dir];
    mp_prof_src_what(s, o->cls, o->dir, what, sizeof what);
    mp_prof_fmt_ratio((double)m / (double)id, ratio, sizeof ratio);
    snprintf(buf, len, "%s%s%s: %s: %sx ideal (%llu %s, ideal %llu)",
             s->name, s->file[0] ? " " : "", at, what, ratio, m,
             mp_prof_class_unit[o->cls], id);
    free(at);
}

/* The instruction of r's line (from `first`) with this kernel and
 * offset, added when new. */
static mp_xp_inst *inst_of(mp_xp_result *r, int first, const mp_prof_line *i,
                           const mp_prof_offender *o)
{
    for (int k = first; k < r->ninst; k++)
        if (r->inst[k].offset == i->offset
            && !strcmp(r->inst[k].mangled, i->mangled))
            return &r->inst[k];
    r->inst = mp_xrealloc(r->inst, (size_t)(r->ninst + 1) * sizeof *r->inst);
    mp_xp_inst *x = &r->inst[r->ninst++];
    memset(x, 0, sizeof *x);
    x->name = i->name;
    x->mangled = i->mangled;
    x->file = i->file;
    x->prof_opcode = i->opcode ? i->opcode : "";
    x->line = i->line;
    x->offset = i->offset;
    x->cls = o->cls;
    x->dir = o->dir;
    return x;
}

static int cmp_offset(const void *a, const void *b)
{
    const mp_xp_inst *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The instructions of offender o: d's rows on its line in its class and
 * direction, summed over processes, in offset order. */
static void gather(const mp_prof_data *d, const mp_prof_offender *o,
                   int measured, mp_xp_result *r, mp_xp_line *l)
{
    l->first = r->ninst;
    for (int k = 0; k < d->ni; k++) {
        const mp_prof_line *i = &d->i[k];
        if (!mp_prof_line_counts_in(i, &o->src, o->cls, o->dir))
            continue;
        mp_xp_inst *x = inst_of(r, l->first, i, o);
        x->measured_known = measured;
        x->measured += i->m[mp_prof_count_of(o->cls)];
        x->measured_ideal += i->m[mp_prof_ideal_of(o->cls)];
        x->launches += i->launches;
    }
    l->n = r->ninst - l->first;
    mp_sort(r->inst + l->first, (size_t)l->n, sizeof *r->inst, cmp_offset);
}

/* ---- one instruction ------------------------------------------------- */

/* c's instruction of this kernel and offset, or NULL. */
static const mp_capture_inst *captured(const mp_capture *c,
                                       const char *mangled, mp_u64 offset)
{
    for (int k = 0; k < c->n; k++)
        if ((mp_u64)c->inst[k].pc == offset
            && !strcmp(c->inst[k].kernel, mangled))
            return &c->inst[k];
    return NULL;
}

/* The distinct addresses of an execution's active lanes. */
static long long distinct_addresses(const mp_explain_exec *e)
{
    long long n = 0;
    for (int l = 0; l < MP_WARP_SIZE; l++) {
        if (!(e->active >> l & 1u))
            continue;
        int seen = 0;
        for (int k = 0; k < l && !seen; k++)
            seen = (e->active >> k & 1u) && e->addr[k] == e->addr[l];
        n += !seen;
    }
    return n;
}

/* The committed H200 measurement of x's probe command, in x->h200. */
static void committed(mp_xp_inst *x)
{
    char config[320];
    int shared = x->p.space == MP_SPACE_SHARED;
    int rc = mp_xp_h200(x->probe, shared ? "wavefronts_per_request"
                                         : "sectors_per_request",
                        config, sizeof config, &x->h200_per_request,
                        x->h200_file, sizeof x->h200_file);
    x->has_h200 = rc == 1;
    if (rc == 1)
        snprintf(x->h200, sizeof x->h200, "%.2f %s a request (%s, %s)",
                 x->h200_per_request, shared ? "wavefronts" : "sectors",
                 x->h200_file, config);
    else if (rc == 0)
        snprintf(x->h200, sizeof x->h200, "none committed (%s)", config);
}

/* The core's explanation: pattern, probe command, fixes. */
static void explain_inst(mp_xp_inst *x)
{
    const mp_explain_acc *acc = &x->cap->acc;
    if (!x->cap->explained || mp_explain_infer(acc, &x->p))
        return;
    x->has_pattern = 1;
    x->addresses = distinct_addresses(&acc->exec[x->p.exec_index]);
    x->has_probe = mp_explain_probe_command(&x->p, acc, x->probe,
                                            sizeof x->probe);
    if (x->has_probe)
        committed(x);
    mp_explain_fixes_for(acc, &x->p, &x->fixes);
}

/* Why x's model count cannot be set against its measured one, or NULL
 * when it can. */
static const char *not_comparable(mp_xp_inst *x)
{
    const mp_explain_acc *acc = &x->cap->acc;
    int space = x->cls == MP_CLASS_SHARED ? MP_SPACE_SHARED : MP_SPACE_GLOBAL;
    if (!x->measured_known)
        return "no profile to compare with (--from, or a program run)";
    if (acc->space != space) {
        snprintf(x->why_buf, sizeof x->why_buf, "the profile counts it as "
                 "%s, the capture saw %s accesses", mp_prof_class_name[x->cls],
                 acc->space == MP_SPACE_SHARED ? "shared" : "global");
        return x->why_buf;
    }
    if (x->dropped) {
        snprintf(x->why_buf, sizeof x->why_buf, "the capture kept %lld of "
                 "%lld executions (the cap, --max-warps)", acc->executions,
                 acc->executions + x->dropped);
        return x->why_buf;
    }
    if ((mp_u64)x->cap->nlaunches != x->launches) {
        snprintf(x->why_buf, sizeof x->why_buf, "the profile counted %llu "
                 "launch%s, the capture %d", x->launches,
                 x->launches == 1 ? "" : "es", x->cap->nlaunches);
        return x->why_buf;
    }
    return NULL;
}

/* Model against measurement, in words. */
static void compare_inst(mp_xp_inst *x)
{
    long long model = x->cap->acc.count;
    char measured[64] = "";
    if (x->measured_known)
        snprintf(measured, sizeof measured, ", measured %llu", x->measured);
    x->why_not = not_comparable(x);
    if (x->why_not) {
        x->compare = MP_XP_NOT_COMPARED;
        snprintf(x->compare_text, sizeof x->compare_text, "model %lld%s; "
                 "not compared: %s", model, measured, x->why_not);
        return;
    }
    x->compare = (mp_u64)model == x->measured ? MP_XP_EQUAL : MP_XP_DIFFER;
    snprintf(x->compare_text, sizeof x->compare_text, "model %lld%s: %s",
             model, measured, x->compare == MP_XP_EQUAL ? "equal" : "differ");
}

/* Matches x with its capture rows and explains them. */
static void analyse_inst(mp_xp_inst *x, const mp_capture *c,
                         const mp_capture_status *st, mp_xp_result *r)
{
    x->compare = MP_XP_NOT_COMPARED;
    x->cap = captured(c, x->mangled, x->offset);
    if (!x->cap) {
        const char *left = mp_capture_left(st, x->mangled,
                                           (long long)x->offset);
        snprintf(x->compare_text, sizeof x->compare_text, "not captured: "
                 "%s", left ? left : "the capture holds no row of it");
        return;
    }
    r->captured++;
    if (!x->cap->explained) {
        snprintf(x->compare_text, sizeof x->compare_text, "not explained "
                 "(%s)", x->cap->why);
        return;
    }
    r->explained++;
    x->dropped = st ? mp_capture_dropped(st, x->mangled, (long long)x->offset)
                    : 0;
    explain_inst(x);
    compare_inst(x);
}

void mp_xp_analyse(const mp_prof_data *d, int measured,
                   const mp_prof_offender *o, int no, const mp_capture *c,
                   const mp_capture_status *st, mp_xp_result *r)
{
    memset(r, 0, sizeof *r);
    r->line = mp_xcalloc((size_t)no + 1, sizeof *r->line);
    r->nlines = no;
    for (int k = 0; k < no; k++) {
        mp_xp_line *l = &r->line[k];
        l->off = o[k];
        line_title(&o[k], l->title, sizeof l->title);
        gather(d, &o[k], measured, r, l);
    }
    for (int k = 0; k < r->ninst; k++)
        analyse_inst(&r->inst[k], c, st, r);
}

void mp_xp_result_free(mp_xp_result *r)
{
    free(r->line);
    free(r->inst);
    memset(r, 0, sizeof *r);
}

/* ---- the capture's own counts as a profile ----------------------------- */

/* Instruction in's model counts as a profile row. */
static void capture_row(const mp_capture_inst *in, mp_prof_line *i)
{
    const mp_explain_acc *acc = &in->acc;
    int c = acc->space == MP_SPACE_SHARED ? MP_CLASS_SHARED : MP_CLASS_GLOBAL;
    memset(i, 0, sizeof *i);
    i->kernel = mp_prof_demangle(in->kernel);
    i->mangled = mp_xstrdup(in->kernel);
    i->file = mp_xstrdup("");
    i->opcode = mp_xstrdup(in->opcode);
    i->origin = mp_xstrdup("");
    i->offset = (mp_u64)in->pc;
    i->launches = (mp_u64)in->nlaunches;
    i->m[MP_PM_INST] = (mp_u64)acc->executions;
    i->m[mp_prof_count_of(c)] = (mp_u64)acc->count;
    i->m[mp_prof_ideal_of(c)] = (mp_u64)acc->ideal;
    i->m[MP_PM_LD] = acc->is_store ? 0 : (mp_u64)acc->executions;
}

void mp_xp_capture_profile(const mp_capture *c, mp_prof_data *d)
{
    memset(d, 0, sizeof *d);
    d->i = mp_xcalloc((size_t)c->n + 1, sizeof *d->i);
    for (int k = 0; k < c->n; k++)
        if (c->inst[k].explained && c->inst[k].acc.executions)
            capture_row(&c->inst[k], &d->i[d->ni++]);
    mp_prof_name_kernels(d);
}

/* ---- the want file ------------------------------------------------------ */

int mp_xp_write_want(const mp_prof_data *d, const mp_prof_offender *o,
                     int no, const char *path, int *n, char *err,
                     size_t errlen)
{
    mp_xp_result r;
    mp_capture none = {0};
    mp_xp_analyse(d, 1, o, no, &none, NULL, &r);
    FILE *f = fopen(path, "w");
    *n = 0;
    for (int k = 0; f && k < r.ninst; k++) {
        int again = 0;
        for (int j = 0; j < k && !again; j++)
            again = r.inst[j].offset == r.inst[k].offset
                    && !strcmp(r.inst[j].mangled, r.inst[k].mangled);
        if (!again && ++*n)
            fprintf(f, "%s,0x%llx\n", r.inst[k].mangled, r.inst[k].offset);
    }
    int bad = !f || ferror(f);
    if (f && fclose(f))
        bad = 1;
    if (bad)
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    mp_xp_result_free(&r);
    return bad ? -1 : 0;
}
