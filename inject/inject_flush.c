/*
 * inject_flush.c - runs of identical launches and their batches: a
 * launch queued at its exit, the batch ended (one synchronisation and
 * SASS flush) when a launch, a synchronising call, a context's end or
 * exit must not wait, its records shared out to its runs' rows by
 * function name; a graph launch synchronised and flushed at once, a row
 * per kernel of its records. inject_flush.h is the interface.
 */
#include "inject_flush.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "inject_context.h"
#include "inject_module.h"
#include "inject_records.h"
#include "inject_say.h"

/* A run of the batch (inject_flush.h says what a batch is), and the
 * batch. */
typedef struct {
    launch_key key;
    uint64_t first, n;
    uint64_t records;   /* of the flush, this run's */
    size_t row;         /* its row's index in g.rows + 1; 0: none (an
                         * index: making a later run's row may move the
                         * table) */
    int no_sass;        /* the test hook drops its SASS counts */
} batch_run;

static struct {
    int n;              /* runs; 0: no batch */
    uint64_t launches;
    CUcontext ctx;
    batch_run r[BATCH_MAX];
} batch;

static int same_key(const launch_key *a, const launch_key *b)
{
    return !strcmp(a->name, b->name) && !memcmp(a->grid, b->grid,
           sizeof a->grid) && !memcmp(a->block, b->block, sizeof a->block)
           && a->shared == b->shared && a->sid == b->sid
           && !strcmp(a->nvtx, b->nvtx) && a->profile == b->profile;
}

/* The batch's last run when k extends it; NULL otherwise. */
static batch_run *batch_extends(const launch_key *k, CUcontext ctx)
{
    batch_run *last = batch.n ? &batch.r[batch.n - 1] : NULL;
    return last && batch.ctx == ctx && same_key(&last->key, k) ? last
                                                               : NULL;
}

/* 1 when a launch of k must end the batch before it is queued. */
int batch_ends_before(const launch_key *k, CUcontext ctx, int graph)
{
    if (!batch.n)
        return 0;
    if (graph || batch.ctx != ctx || batch.launches >= g.flush_launches)
        return 1;
    if (batch_extends(k, ctx))
        return 0;
    const char *names[BATCH_MAX];
    for (int i = 0; i < batch.n; i++)
        names[i] = batch.r[i].key.name;
    return !ic_batch_admits(names, batch.n, g.batch_runs, k->name);
}

/* Queues launch number `launch` of k on ctx: the batch's last run when k
 * extends it, else a new run (ending the batch first when it must). */
void batch_add(const launch_key *k, CUcontext ctx, uint64_t launch)
{
    batch_run *b = batch_extends(k, ctx);
    if (!b) {
        /* a launch of another thread may have come between */
        if (batch_ends_before(k, ctx, 0))
            end_run(1, NULL);
        context_of(ctx);
        b = &batch.r[batch.n++];
        b->key = *k;
        b->first = launch;
        b->n = 0;
        batch.ctx = ctx;
    }
    b->n++;
    batch.launches++;
}

static int in_end_run;

/* The test hook MEMPROBE_INJECT_NO_SASS: this kernel's SASS records are
 * dropped, as if CUPTI had patched nothing for it. */
#define NO_SASS_WHY "no SASS records: dropped by the test hook " \
    MP_ENV_NO_SASS
static int no_sass(const char *mangled)
{
    return g.has_no_sass && mangled
           && regexec(&g.no_sass, mangled, 0, NULL, 0) == 0;
}

/* The batch's run of a record's function (the last one matched first:
 * a flush brings a function's records together); -1: none. A batch of
 * one run takes every record, whatever name CUPTI gives it (as a flush
 * per run always did). */
static int batch_run_of(const CUpti_SassMetrics_Data *r, int hint)
{
    if (batch.n == 1)
        return 0;
    const char *fn = r->functionName ? r->functionName : "";
    if (hint >= 0 && !strcmp(batch.r[hint].key.name, fn))
        return hint;
    for (int i = 0; i < batch.n; i++)
        if (!strcmp(batch.r[i].key.name, fn))
            return i;
    return -1;
}

/* The run's row, or NULL. */
static ic_launch *batch_row(const batch_run *b)
{
    return b->row ? &g.rows.v[b->row - 1] : NULL;
}

/* A row for each profiled run of the batch, before its records come. */
static void batch_rows(void)
{
    for (int i = 0; i < batch.n; i++) {
        batch_run *b = &batch.r[i];
        b->row = 0;
        b->records = 0;
        b->no_sass = no_sass(b->key.name);
        if (!b->key.profile)
            continue;
        ic_launch *r = ic_launches_add(&g.rows, b->first, b->key.name,
                                       b->key.nvtx);
        if (r) {
            r->launches = b->n;
            memcpy(r->grid, b->key.grid, sizeof r->grid);
            memcpy(r->block, b->key.block, sizeof r->block);
            r->dyn_shared = b->key.shared;
            r->stream = b->key.sid;
            b->row = (size_t)(r - g.rows.v) + 1;
        }
    }
}

/* Ends the batch: one synchronisation and flush, then a row for each
 * profiled run with the records of its function. can_call 0 (a signal,
 * or exit after CUDA went): no CUDA call, the rows say their counts were
 * not flushed. */
void end_run(int can_call, const char *lost_why)
{
    if (!batch.n || in_end_run)
        return;
    in_end_run = 1;
    records rs = {0};
    const char *why = lost_why;
    context_info *c = NULL;
    if (can_call) {
        c = find_context(batch.ctx);
        sync_flush(c, &rs, &why);
    }
    batch_rows();
    double t0 = now_s();
    size_t unmatched = 0;
    const char *stray = "";
    int hint = -1;
    for (size_t i = 0; !why && i < rs.n; i++) {
        int k = batch_run_of(&rs.d[i], hint);
        if (k < 0) {
            if (!unmatched++ && rs.d[i].functionName)
                stray = rs.d[i].functionName;
            continue;
        }
        hint = k;
        batch_run *b = &batch.r[k];
        b->records++;
        if (b->row && !b->no_sass)
            add_record(&rs.d[i], rs.ninst, device_of(c), b->first, b->n,
                       batch_row(b));
    }
    cost(IC_COST_ATTRIBUTE, t0);
    if (unmatched)
        say(MP_RAW_KEY_WARNING, "%zu SASS records of a flush named no "
            "kernel launched since the one before (first: %.200s); not "
            "counted", unmatched, stray);
    for (int i = 0; i < batch.n; i++) {
        batch_run *b = &batch.r[i];
        dbg("run of %llu launches of %s from %llu ends: %llu records x "
            "%zu instances%s", (unsigned long long)b->n, b->key.name,
            (unsigned long long)b->first, (unsigned long long)b->records,
            rs.ninst, b->key.profile ? "" : " (dropped: filtered out)");
        if (!b->row)
            continue;
        const char *w = why;
        char whybuf[160];
        if (!w && b->no_sass)
            w = NO_SASS_WHY;
        if (!w && !b->records) {
            snprintf(whybuf, sizeof whybuf, "CUPTI %u patched no code for "
                     "this kernel", g.cupti_version);
            w = whybuf;
        }
        if (w)
            ic_launch_unavailable(batch_row(b), w);
    }
    free_records(&rs);
    batch.n = 0;
    batch.launches = 0;
    in_end_run = 0;
}

/* At exit: a program that ends without synchronising after its last
 * launches (a Python program, often) gets them synchronised and flushed
 * here while its context is alive; only when CUDA is gone already are
 * their counts lost, and their rows say so. */
void end_run_at_exit(void)
{
    unsigned version;
    int alive = batch.n
                && cuCtxGetApiVersion(batch.ctx, &version) == CUDA_SUCCESS;
    end_run(alive, alive ? NULL : "the program ended before this run of "
            "launches was flushed, and CUDA was shut down by then");
}

/* The row of `name` among this launch's rows (from index first), made
 * when missing. */
static ic_launch *graph_row(size_t first, uint64_t launch, const char *name,
                            const char *nvtx, uint64_t stream)
{
    for (size_t i = first; i < g.rows.n; i++)
        if (strcmp(g.rows.v[i].mangled, name) == 0)
            return &g.rows.v[i];
    ic_launch *r = ic_launches_add(&g.rows, launch, name, nvtx);
    if (!r)
        return NULL;
    r->graph = 1;
    r->stream = stream;
    const graph_kernel *k = find_graph_kernel(name);
    if (k) {
        memcpy(r->grid, k->grid, sizeof r->grid);
        memcpy(r->block, k->block, sizeof r->block);
        r->dyn_shared = k->shared;
    }
    return r;
}

/* A graph launch: synchronised and flushed at once; a row per kernel
 * function of its records (shape from the graph's kernel nodes). */
void graph_launch(const CUpti_CallbackData *cb, uint64_t launch,
                         const launch_key *k)
{
    context_info *c = context_of(cb->context);
    records rs = {0};
    const char *why;
    sync_flush(c, &rs, &why);
    dbg("flush after graph launch %llu: %zu records x %zu instances%s",
        (unsigned long long)launch, rs.n, rs.ninst,
        k->profile ? "" : " (dropped: filtered out)");
    if (k->profile) {
        size_t first = g.rows.n;
        double t0 = now_s();
        for (size_t i = 0; i < rs.n; i++) {
            const CUpti_SassMetrics_Data *rec = &rs.d[i];
            const char *fn = rec->functionName ? rec->functionName : "";
            if (!ic_kernel_match(&g.filter, fn))
                continue;
            ic_launch *r = graph_row(first, launch, fn, k->nvtx, k->sid);
            if (no_sass(fn)) {   /* the row stays, without line counts */
                if (r)
                    ic_launch_unavailable(r, NO_SASS_WHY);
                continue;
            }
            add_record(rec, rs.ninst, device_of(c), launch, 1, r);
        }
        cost(IC_COST_ATTRIBUTE, t0);
        if (g.rows.n == first && (why || !rs.n)) {
            ic_launch *r = ic_launches_add(&g.rows, launch, "", k->nvtx);
            if (r) {
                char whybuf[160];
                r->graph = 1;
                r->stream = k->sid;
                if (!why) {
                    snprintf(whybuf, sizeof whybuf, "CUPTI %u patched no "
                             "code for this graph's kernels",
                             g.cupti_version);
                    why = whybuf;
                }
                ic_launch_unavailable(r, why);
            }
        }
    }
    free_records(&rs);
}
