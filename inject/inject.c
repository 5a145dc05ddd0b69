/*
 * inject.c - libmemprobe_inject.so: the CUPTI glue of `memprobe profile`.
 *
 * The CUDA driver loads this library into the profiled program
 * (CUDA_INJECTION64_PATH) and calls InitializeInjection at the program's
 * first CUDA call. From then on CUPTI callbacks
 *   - resource: context created (SASS metrics configured for its device
 *     and enabled), module loaded (its cubin kept, keyed by CRC, and
 *     where it came from: the object holding its image, the file loaded,
 *     or the first caller outside the CUDA stack), graph node created (a
 *     kernel node's function and shape remembered);
 *   - driver API: every kernel launch and graph launch, at its exit:
 *     filters, synchronise, flush the SASS metric records, attribute them
 *     to this launch, add them to the per-instruction table; the calls
 *     that load a module from memory or a file (their image or file
 *     remembered while they run);
 *   - NVTX: push and pop of ranges, kept on a per-thread stack;
 * and the raw files of inject/raw.h are written every N launches or T
 * seconds, at NVTX range ends, at exit and from fatal signals.
 * docs/profile-design.md ("The injection library") says how and why.
 *
 * Only libc, libcuda and CUPTI (component headers only: the wheel's
 * cupti.h does not compile against the 13.0 runtime headers). Every CUDA
 * and CUPTI return code goes through note_failure (cu_ok / cupti_ok): a
 * failure is said in status.PID, never fatal to the program.
 */
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_nvtx_cbid.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "inject_core.h"
#include "inject_range.h"
#include "raw.h"
#include "inject_context.h"
#include "inject_module.h"
#include "inject_nvtx.h"
#include "inject_say.h"
#include "inject_state.h"
#include "inject_write.h"

/* Debugging knobs (docs/profile-design.md): where SASS metrics are
 * enabled ("context" at context creation, "launch" at a context's first
 * launch) and lazy patching (1, default) or eager (0). */
#define ENV_ENABLE_AT "MEMPROBE_ENABLE_AT"
#define ENV_LAZY "MEMPROBE_LAZY_PATCHING"
/* And for finding where the time goes (docs/profile-design.md): the
 * most runs a flush may wait for (1-64; default 1, a flush per run) and
 * CUPTI's output granularity (gpu, the default; sm or smsp cost more and
 * their sums differ). */
#define ENV_BATCH_RUNS "MEMPROBE_BATCH_RUNS"
#define ENV_GRANULARITY "MEMPROBE_SASS_GRANULARITY"

/* The parameter blocks CUPTI hands over for the launch calls, as laid out
 * in CUPTI's generated_cuda_meta.h (which does not compile as C against
 * the 13.0 cuda.h, so its three layouts are restated here). */
typedef struct { /* cuLaunchKernel, cuLaunchCooperativeKernel, _ptsz */
    CUfunction f;
    unsigned grid[3], block[3], shared;
    CUstream stream;
} launch_params;
typedef struct { /* cuLaunchKernelEx, _ptsz */
    const CUlaunchConfig *config;
    CUfunction f;
} launch_ex_params;
typedef struct { /* cuGraphLaunch, _ptsz */
    CUgraphExec exec;
    CUstream stream;
} graph_launch_params;

static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGSEGV, SIGABRT};
static struct sigaction old_actions[4];

static void end_run(int can_call, const char *lost_why);
static void end_run_at_exit(void);

static void at_exit(void)
{
    if (!g.on)
        return;
    if (pthread_mutex_trylock(&g_lock) == 0) {
        tl_locked++;
        end_run_at_exit();
        ir_abandon();
        write_all("exit");
        g.on = 0;
        unlock();
    } else {
        write_status("exit"); /* another thread is inside a callback */
    }
}

static void on_signal(int sig)
{
    int i = 0;
    while (i < 3 && fatal_sigs[i] != sig)
        i++;
    if (g.on) {
        char end[32] = "signal ";
        char d[12];
        int n = 0, s = sig;
        do {
            d[n++] = (char)('0' + s % 10);
            s /= 10;
        } while (s);
        size_t len = strlen(end);
        while (n)
            end[len++] = d[--n];
        end[len] = '\0';
        /* the tables only when no thread is changing them */
        if (!tl_locked && pthread_mutex_trylock(&g_lock) == 0) {
            end_run(0, "a signal ended the program before this run of "
                       "launches was flushed");
            if (!ir_on()) {
                ic_write_launches(g.dir, g.pid, &g.rows);
                ic_write_lines(g.dir, g.pid, &g.lines);
                ic_write_modules(g.dir, g.pid, &g.modules);
            }
            ic_write_status(g.dir, g.pid, &g.status, end);
            pthread_mutex_unlock(&g_lock);
        } else {
            ic_write_status(g.dir, g.pid, &g.status, end);
        }
        /* the program's own handler may let it live on: then it goes on
         * being profiled and writes again at exit */
        if (old_actions[i].sa_handler == SIG_DFL)
            g.on = 0;
    }
    sigaction(sig, &old_actions[i], NULL);
    raise(sig);
}

static void in_child(void)
{
    /* a forked child without exec cannot use CUDA: it writes nothing */
    g.on = 0;
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: {
        context_info *c = add_context(rd->context);
        dbg("context %p created (device %d)", (void *)rd->context,
            c ? c->dev : -1);
        if (c && !c->failed && !ir_on()) {   /* no SASS in the range pass */
            int pushed = push_context(rd->context, WARN);
            setup_device(c->dev);
            if (!g.enable_at_launch)
                enable_context(c);
            pop_context(pushed);
        }
        break;
    }
    case CUPTI_CBID_RESOURCE_MODULE_LOADED:
        on_module_loaded(rd->resourceDescriptor);
        break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        on_graph_node(rd->resourceDescriptor);
        break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
        end_run(1, NULL);   /* the run's records, while they can be read */
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
            ir_context_gone(rd->context);
        break;
    default:
        break;
    }
}

/* ---- launches ------------------------------------------------------- */

/* The SASS records of one flush: n records of ninst values each. */
typedef struct {
    CUpti_SassMetrics_Data *d;
    CUpti_SassMetrics_InstanceValue *v;
    size_t n, ninst;
} records;

/* The SASS records gathered since the last flush of ctx into rs (n = 0
 * when none). 0, or -1 when they could not be read. The caller frees
 * them with free_records. */
static int flush_records(CUcontext ctx, records *rs)
{
    memset(rs, 0, sizeof *rs);
    CUpti_SassMetricsGetDataProperties_Params pp = {
        .structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE,
        .ctx = ctx};
    if (!cupti_ok(cuptiSassMetricsGetDataProperties(&pp),
                  "cuptiSassMetricsGetDataProperties", WARN))
        return -1;
    if (!pp.numOfPatchedInstructionRecords || !pp.numOfInstances)
        return 0;
    size_t nr = pp.numOfPatchedInstructionRecords, ni = pp.numOfInstances;
    CUpti_SassMetrics_Data *d = calloc(nr, sizeof *d);
    CUpti_SassMetrics_InstanceValue *v = calloc(nr * ni, sizeof *v);
    if (!d || !v) {
        free(d);
        free(v);
        say(MP_RAW_KEY_WARNING, "out of memory flushing SASS records");
        return -1;
    }
    for (size_t i = 0; i < nr; i++) {
        d[i].structSize = sizeof d[i];
        d[i].pInstanceValues = v + i * ni;
    }
    CUpti_SassMetricsFlushData_Params fp = {
        .structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE,
        .ctx = ctx, .numOfPatchedInstructionRecords = nr,
        .numOfInstances = ni, .pMetricsData = d};
    if (!cupti_ok(cuptiSassMetricsFlushData(&fp), "cuptiSassMetricsFlushData",
                  WARN)) {
        free(d);
        free(v);
        return -1;
    }
    *rs = (records){.d = d, .v = v, .n = nr, .ninst = ni};
    return 0;
}

static void free_records(records *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        free((void *)rs->d[i].functionName); /* CUPTI's copy, ours to free */
    free(rs->d);
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

/* file:line of one instruction from its cubin's line info, into file
 * (empty and 0 without -lineinfo). */
static uint32_t source_line(const CUpti_SassMetrics_Data *r, char *file,
                            size_t len)
{
    file[0] = '\0';
    cubin_info *c = find_cubin(r->cubinCrc);
    if (!c || !r->functionName
        || ic_fnlines_none(&g.fnlines, r->cubinCrc, r->functionIndex))
        return 0;
    CUpti_GetSassToSourceCorrelationParams sp = {
        .size = CUpti_GetSassToSourceCorrelationParamsSize,
        .cubin = c->data, .functionName = r->functionName,
        .cubinSize = c->size, .pcOffset = r->pcOffset};
    double t0 = now_s();
    int ok = cupti_ok(cuptiGetSassToSourceCorrelation(&sp),
                      "cuptiGetSassToSourceCorrelation", QUIET);
    cost(IC_COST_LINES, t0);
    if (!ok) {
        ic_fnlines_note(&g.fnlines, r->cubinCrc, r->functionIndex, 0);
        return 0;
    }
    const char *f = sp.fileName ? sp.fileName : "";
    if (sp.dirName && *sp.dirName && *f && *f != '/')
        snprintf(file, len, "%s/%s", sp.dirName, f);
    else
        snprintf(file, len, "%s", f);
    free(sp.fileName);
    free(sp.dirName);
    ic_fnlines_note(&g.fnlines, r->cubinCrc, r->functionIndex,
                    file[0] || sp.lineNumber);
    return sp.lineNumber;
}

/* Adds one record to the per-instruction table, and to a launch row's
 * sums and memory instructions (ic_launch_op) when row is given. */
static void add_record(const CUpti_SassMetrics_Data *r, size_t ninst,
                       const device_info *dev, uint64_t launch, uint64_t n,
                       ic_launch *row)
{
    ic_line *l = ic_lines_get(&g.lines, r->cubinCrc, r->functionIndex,
                              r->pcOffset);
    if (!l) {
        char file[4096];
        uint32_t line = source_line(r, file, sizeof file);
        l = ic_lines_put(&g.lines, r->cubinCrc, r->functionIndex,
                         r->pcOffset, r->functionName, file, line);
        if (!l) {
            say(MP_RAW_KEY_WARNING, "out of memory in the line table");
            return;
        }
        cubin_info *c = find_cubin(r->cubinCrc);
        if (c && !c->saved) {
            c->saved = 1;
            if (ic_write_cubin(g.dir, r->cubinCrc, c->data, c->size))
                say(MP_RAW_KEY_WARNING, "cannot write " MP_RAW_CUBIN_FMT,
                    r->cubinCrc);
        } else if (!c) {
            dbg("no cubin kept for crc %u (%s)", r->cubinCrc,
                r->functionName ? r->functionName : "");
        }
    }
    uint64_t vals[MP_RAW_NMETRICS] = {0};
    for (size_t i = 0; i < ninst; i++) {
        const CUpti_SassMetrics_InstanceValue *iv = &r->pInstanceValues[i];
        int m = 0;
        while (m < MP_RAW_NMETRICS && dev->ids[m] != iv->metricId)
            m++;
        if (m == MP_RAW_NMETRICS) {
            dbg("record with unknown metric id %llu",
                (unsigned long long)iv->metricId);
            continue;
        }
        ic_line_count_n(l, launch, n, m, iv->value);
        vals[m] += iv->value;
    }
    if (!row)
        return;
    for (int m = 0; m < MP_RAW_NMETRICS; m++)
        row->sum[m] += vals[m];
    if (ic_launch_op(row, r->cubinCrc, r->functionIndex, r->pcOffset, vals))
        say(MP_RAW_KEY_WARNING, "out of memory in a launch's instructions");
}

static int describe_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb,
                           launch_desc *ld)
{
    memset(ld, 0, sizeof *ld);
    ld->name = cb->symbolName;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        ld->ptsz = 1;
        /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
        const launch_params *p = cb->functionParams;
        memcpy(ld->grid, p->grid, sizeof ld->grid);
        memcpy(ld->block, p->block, sizeof ld->block);
        ld->shared = p->shared;
        ld->stream = p->stream;
        if (!ld->name)
            ld->name = function_name(p->f, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        ld->ptsz = 1;
        /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
        const launch_ex_params *p = cb->functionParams;
        const CUlaunchConfig *c = p->config;
        if (c) {
            ld->grid[0] = c->gridDimX;
            ld->grid[1] = c->gridDimY;
            ld->grid[2] = c->gridDimZ;
            ld->block[0] = c->blockDimX;
            ld->block[1] = c->blockDimY;
            ld->block[2] = c->blockDimZ;
            ld->shared = c->sharedMemBytes;
            ld->stream = c->hStream;
        }
        if (!ld->name)
            ld->name = function_name(p->f, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        ld->ptsz = 1;
        /* fall through */
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch: {
        const graph_launch_params *p = cb->functionParams;
        ld->stream = p->stream;
        ld->exec = p->exec;
        ld->graph = 1;
        ld->name = NULL;
        return 1;
    }
    default:
        return 0;
    }
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

/* ---- runs of identical launches ------------------------------------ */

/* A batch: the runs launched on one context since the last flush, not
 * synchronised or flushed yet; per-launch flushes cost 30-45 us each on
 * the H200. By default a batch is up to 32 runs (ENV_BATCH_RUNS): 39 us
 * added to a short launch against 55 with a flush per run, and a
 * training loop's rows no further from a flush per run's than two runs
 * of a flush per run are from each other
 * (results/h200/profile/cost/batches/). SASS records name their
 * function, not their launch, so a batch holds each kernel name in one
 * run only: a launch whose name has another run in the batch ends it
 * first (one synchronisation, one flush, the records shared out to the
 * runs by name). So do a graph launch, a synchronising call of the
 * program, a launch on another context, the context's end, exit,
 * g.batch_runs runs and g.flush_launches launches. */
enum { BATCH_MAX = 64, BATCH_RUNS_DEFAULT = 32 };
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

/* The launch being made on this thread: described and decided at the
 * launch call's entry, counted at its exit. */
static _Thread_local struct {
    int valid, capture;
    size_t pk;      /* its g.kernels entry + 1; 0: none */
    double t_call;  /* when the library's entry work ended (0: not timed) */
    int t_off;      /* SASS metrics were off on its context then */
    int pk_profile; /* the decision counted there */
    launch_key key;
    launch_desc ld;
} cur;

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
static int batch_ends_before(const launch_key *k, CUcontext ctx, int graph)
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

/* Synchronises and flushes: *why says what failed (NULL: fine). */
static void sync_flush(context_info *c, records *rs, const char **why)
{
    *why = NULL;
    if (!c || !c->enabled)
        *why = "SASS metrics are not enabled on this context (see the "
               "status file)";
    else {
        int pushed = push_context(c->ctx, WARN);
        double t0 = now_s();
        int synced = cu_ok(cuCtxSynchronize(), "cuCtxSynchronize", WARN);
        cost(IC_COST_SYNC, t0);
        t0 = now_s();
        if (!synced)
            *why = "cuCtxSynchronize failed";
        else if (flush_records(c->ctx, rs))
            *why = "the SASS records could not be flushed";
        cost(IC_COST_FLUSH, t0);
        g.status.records += rs->n;
        pop_context(pushed);
    }
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
static void end_run(int can_call, const char *lost_why)
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
static void end_run_at_exit(void)
{
    unsigned version;
    int alive = batch.n
                && cuCtxGetApiVersion(batch.ctx, &version) == CUDA_SUCCESS;
    end_run(alive, alive ? NULL : "the program ended before this run of "
            "launches was flushed, and CUDA was shut down by then");
}

/* A graph launch: synchronised and flushed at once; a row per kernel
 * function of its records (shape from the graph's kernel nodes). */
static void graph_launch(const CUpti_CallbackData *cb, uint64_t launch,
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

/* ---- per kernel (--per-kernel) ------------------------------------- */

/* A graph's number in order of first launch: its name in g.kernels
 * (out of memory: every later graph shares the number after the last). */
static size_t graph_number(CUgraphExec exec)
{
    static CUgraphExec *seen;
    static size_t n, cap;
    for (size_t i = 0; i < n; i++)
        if (seen[i] == exec)
            return i;
    if (n == cap) {
        size_t c = cap ? 2 * cap : 64;
        CUgraphExec *v = realloc(seen, c * sizeof *v);
        if (!v)
            return n;
        seen = v;
        cap = c;
    }
    seen[n] = exec;
    return n++;
}

/* Counts the launch under its kernel, grid and block; with --per-kernel
 * a launch the filters passed is profiled only while its kernel has had
 * fewer than N. Sets cur.pk and k->profile. */
static void per_kernel_decide(const launch_desc *ld, launch_key *k)
{
    static const unsigned none[3];
    char gname[48];
    const char *name = ld->name ? ld->name : "";
    if (ld->graph) {
        snprintf(gname, sizeof gname, "(graph %zu)",
                 graph_number(ld->exec));
        name = gname;
    }
    ic_kernel *e = ic_kernels_get(&g.kernels, name,
                                  ld->graph ? none : ld->grid,
                                  ld->graph ? none : ld->block);
    if (!e)
        return;   /* out of memory: not counted, decided by the filters */
    if (k->profile)
        k->profile = ic_kernel_wants(&g.kernels, e);
    cur.pk = (size_t)(e - g.kernels.v) + 1;
    cur.pk_profile = k->profile;
}

/* At a launch's exit: counted under its kernel (made: the call
 * succeeded). */
static void per_kernel_count(int made)
{
    if (cur.pk)
        ic_kernel_done(&g.kernels, &g.kernels.v[cur.pk - 1],
                       cur.pk_profile, made);
    if (made)
        g.pk_streak = cur.pk && cur.pk_profile ? 0 : g.pk_streak + 1;
    cur.pk = 0;
}

/* --per-kernel: once as many launches in a row as there are kernels seen
 * were not profiled (a loop's whole iteration: a program still meeting
 * new kernels does not switch at each), SASS metrics go off on every
 * context: later launches run unpatched, with nothing to synchronise or
 * flush. A launch still wanted (its kernel short of N: one launched once
 * at start stays short for good, so "every kernel has its N" is no
 * condition) turns them on again on its context (per_kernel_resume). */
static void per_kernel_pause(void)
{
    if (!g.kernels.per_kernel || ir_on() || g.stopped
        || g.pk_streak < g.kernels.n)
        return;
    int any = 0;
    for (int i = 0; i < g.nctx; i++)
        any |= g.ctxs[i].enabled;
    if (!any)
        return;
    end_run(1, NULL);
    for (int i = 0; i < g.nctx; i++)
        if (g.ctxs[i].enabled) {
            disable_context(&g.ctxs[i]);
            g.ctxs[i].paused = 1;
            dbg("--per-kernel: every kernel has its launches: SASS "
                "metrics off on context %p", (void *)g.ctxs[i].ctx);
        }
}

static void per_kernel_resume(context_info *c)
{
    if (c && c->paused) {
        dbg("--per-kernel: a launch to profile: SASS metrics on again on "
            "context %p", (void *)c->ctx);
        enable_context(c);
    }
}

/* At a launch call's entry: describe and decide it; end the run when it
 * differs (before its kernel is queued behind the run's). */
static void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    cur.valid = 0;
    cur.pk = 0;
    cur.t_call = 0;
    if (!describe_launch(cbid, cb, &cur.ld))
        return;
    launch_desc *ld = &cur.ld;
    CUstream stream = ld->stream;
    if (!stream && ld->ptsz)
        stream = CU_STREAM_PER_THREAD;
    CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
    cu_ok(cuStreamGetCaptureInfo(stream, &cap, NULL, NULL, NULL, NULL, NULL),
          "cuStreamGetCaptureInfo", QUIET);
    cur.valid = 1;
    cur.capture = cap != CU_STREAM_CAPTURE_STATUS_NONE;
    if (cur.capture)
        return;   /* nothing runs now: never synchronise in a capture */
    launch_key *k = &cur.key;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", ld->name ? ld->name : "");
    memcpy(k->grid, ld->grid, sizeof k->grid);
    memcpy(k->block, ld->block, sizeof k->block);
    k->shared = ld->shared;
    cu_ok(cuStreamGetId(stream, &k->sid), "cuStreamGetId", QUIET);
    const char *names[NVTX_DEPTH];
    size_t depth = nvtx_stack(names, k->nvtx, sizeof k->nvtx);
    k->profile = !g.stopped
                 && ic_filter_decide(&g.filter, ld->name, names, depth);
    per_kernel_decide(ld, k);
    if (ir_on()) {   /* the range pass: no runs, no SASS records */
        context_info *c = context_of(cb->context);
        ir_before_launch(cb->context, c ? c->dev : 0,
                         k->profile && ir_wants(ld->name), ld->graph);
        return;
    }
    if (batch_ends_before(k, cb->context, ld->graph))
        end_run(1, NULL);
    context_info *c = find_context(cb->context);
    if (k->profile)
        per_kernel_resume(c);
    cur.t_off = !c || !c->enabled;
    cur.t_call = now_s();
}

static void on_launch_exit(const CUpti_CallbackData *cb)
{
    if (!cur.valid)
        return;
    cur.valid = 0;
    if (cur.t_call > 0)   /* the driver's and CUPTI's time in the call */
        cost(cur.t_off ? IC_COST_LAUNCH_OFF : IC_COST_LAUNCH, cur.t_call);
    const launch_desc *ld = &cur.ld;
    const CUresult *ret = cb->functionReturnValue;
    if (ret && *ret != CUDA_SUCCESS) {
        dbg("%s returned %d: not counted", cb->functionName, (int)*ret);
        per_kernel_count(0);
        return;
    }
    per_kernel_count(1);
    if (cur.capture) {
        dbg("%s %s during stream capture: recorded when the graph runs",
            cb->functionName, ld->name ? ld->name : "");
        return;
    }
    const launch_key *k = &cur.key;
    uint64_t launch = g.status.seen++;
    g.since_write++;
    if (k->profile)
        g.status.profiled++;
    dbg("launch %llu: %s %s grid %u,%u,%u block %u,%u,%u shared %u "
        "stream %llu nvtx '%s': %s", (unsigned long long)launch,
        cb->functionName, ld->name ? ld->name : "(graph)", ld->grid[0],
        ld->grid[1], ld->grid[2], ld->block[0], ld->block[1], ld->block[2],
        ld->shared, k->sid, k->nvtx, k->profile ? "profiled"
        : "filtered out");
    if (ir_on()) {
        if (!ld->graph) {
            ir_launch il = {.mangled = ld->name};
            memcpy(il.grid, ld->grid, sizeof il.grid);
            memcpy(il.block, ld->block, sizeof il.block);
            ir_after_launch(cb->context, launch,
                            k->profile && ir_wants(ld->name), &il);
        }
    } else if (ld->graph) {
        graph_launch(cb, launch, k);
    } else {
        batch_run *b = batch_extends(k, cb->context);
        if (!b) {
            /* a launch of another thread may have come between */
            if (batch_ends_before(k, cb->context, 0))
                end_run(1, NULL);
            context_of(cb->context);
            b = &batch.r[batch.n++];
            b->key = *k;
            b->first = launch;
            b->n = 0;
            batch.ctx = cb->context;
        }
        b->n++;
        batch.launches++;
    }
    if (ic_filter_done(&g.filter)) {
        end_run(1, NULL);
        stop_all();
    }
    per_kernel_pause();
    maybe_write();
}

/* The program's own synchronising calls (and context teardown) end the
 * run: its launches are flushed before the program reads their results
 * or ends. */
static const CUpti_CallbackId sync_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
    CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload,
};

/* Is cbid one of ids (n)? */
static int cbid_in(const CUpti_CallbackId *ids, size_t n, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == cbid)
            return 1;
    return 0;
}

/* The calls that load a module from memory or from a file: a module that
 * loads inside one comes from its image or file (on_load_call). */
static const CUpti_CallbackId load_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoad,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile,
};

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cbid_in(load_cbids, sizeof load_cbids / sizeof *load_cbids, cbid)) {
        on_load_call(cbid, cb);
        return;
    }
    if (cbid_in(sync_cbids, sizeof sync_cbids / sizeof *sync_cbids, cbid)) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            end_run(1, NULL);
            /* the range pass: the batch is decoded before the program
             * reads results or ends (never inside a launch call of this
             * thread: kernel replay may make such calls itself) */
            if (!cur.valid)
                ir_end_batch(cb->context, cb->functionName);
        }
        return;
    }
    /* subscribed in the range pass only */
    if (cbid_in(ir_capture_cbids, ir_ncapture_cbids, cbid)) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            ir_end_batch(cb->context, cb->functionName);
        return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
        /* "launch" mode: SASS metrics on at a context's first launch */
        if (g.enable_at_launch && !g.stopped && !ir_on()) {
            context_info *c = add_context(cb->context);
            if (c && !c->paused)
                enable_context(c);
        }
        on_launch_enter(cbid, cb);
        return;
    }
    on_launch_exit(cb);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (ir_own_call())
        return;
    lock();
    if (g.on) {
        if (domain == CUPTI_CB_DOMAIN_RESOURCE)
            on_resource(cbid, data);
        else if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
            on_driver(cbid, data);
        else if (domain == CUPTI_CB_DOMAIN_NVTX)
            on_nvtx(cbid, data);
    }
    unlock();
}

/* ---- start ---------------------------------------------------------- */

static const CUpti_CallbackId launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
static const CUpti_CallbackId resource_cbids[] = {
    CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
    CUPTI_CBID_RESOURCE_MODULE_LOADED,
    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
    CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
};
static const CUpti_CallbackId nvtx_cbids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,       CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx,      CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringW,
};

static int enable_callbacks(CUpti_CallbackDomain domain,
                            const CUpti_CallbackId *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char what[96];
        snprintf(what, sizeof what, "cuptiEnableCallback(domain %d, id %u)",
                 (int)domain, ids[i]);
        if (!cupti_ok(cuptiEnableCallback(1, g.sub, domain, ids[i]), what,
                      FATAL))
            return 0;
    }
    return 1;
}

/* A whole number from the environment, or def; -1 when malformed. */
static int env_u64(const char *name, uint64_t def, uint64_t *out)
{
    const char *s = getenv(name);
    *out = def;
    if (!s || !*s)
        return 0;
    if (ic_parse_u64(s, out)) {
        say(MP_RAW_KEY_ERROR, "%s '%s' is not a whole number", name, s);
        return -1;
    }
    return 0;
}

/* start, step 1: the debug switch and the raw directory from the
 * environment, and the run's clocks and tables; 0 (not profiling) when the
 * directory is unset or too long. */
static int start_raw_dir(void)
{
    g.t_start = now_s();
    const char *dbgenv = getenv(MP_ENV_DEBUG);
    g.debug = dbgenv && *dbgenv && strcmp(dbgenv, "0") != 0;
    const char *dir = getenv(MP_ENV_RAW_DIR);
    if (!dir || !*dir) {
        fprintf(stderr, "memprobe-inject: " MP_ENV_RAW_DIR " is not set: "
                "not profiling\n");
        return 0;
    }
    if (strlen(dir) >= sizeof g.dir) {
        fprintf(stderr, "memprobe-inject: " MP_ENV_RAW_DIR " is too long: "
                "not profiling\n");
        return 0;
    }
    snprintf(g.dir, sizeof g.dir, "%s", dir);
    g.pid = (long)getpid();
    ic_lines_init(&g.lines);
    ic_launches_init(&g.rows);
    g.last_write = now_s();
    return 1;
}

/* start, step 2: says CUPTI's version, the process ids and this process's
 * ordinal among the profiled processes. */
static void start_say_process(void)
{
    uint32_t v = 0;
    if (cupti_ok(cuptiGetVersion(&v), "cuptiGetVersion", WARN))
        g.cupti_version = v;
    say(MP_RAW_KEY_CUPTI_VERSION, "%u", g.cupti_version);
    say(MP_RAW_KEY_PID, "%ld", g.pid);
    say(MP_RAW_KEY_PPID, "%ld", (long)getppid());
    g.ordinal = ic_claim_ordinal(g.dir, g.pid, 65536);
    say(MP_RAW_KEY_ORDINAL, "%d", g.ordinal);
}

/* start, step 3: when to write (launches, seconds), lazy patching and when
 * to enable CUPTI, from the environment; 0 on a malformed value. */
static int start_read_settings(void)
{
    uint64_t secs, lazy, per_kernel;
    if (env_u64(MP_ENV_FLUSH_LAUNCHES, MP_FLUSH_LAUNCHES_DEFAULT,
                &g.flush_launches) ||
        env_u64(MP_ENV_FLUSH_SECONDS, MP_FLUSH_SECONDS_DEFAULT, &secs) ||
        env_u64(ENV_LAZY, 1, &lazy) ||
        env_u64(MP_ENV_PER_KERNEL, 0, &per_kernel))
        return 0;
    ic_kernels_init(&g.kernels, per_kernel);
    if (!g.flush_launches)
        g.flush_launches = 1;
    uint64_t runs;
    if (env_u64(ENV_BATCH_RUNS, BATCH_RUNS_DEFAULT, &runs))
        return 0;
    if (runs < 1 || runs > BATCH_MAX) {
        say(MP_RAW_KEY_ERROR, "%s %llu is out of range (1-%d)",
            ENV_BATCH_RUNS, (unsigned long long)runs, BATCH_MAX);
        return 0;
    }
    g.batch_runs = (int)runs;
    const char *gr = getenv(ENV_GRANULARITY);
    g.granularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    if (gr && !strcmp(gr, "sm"))
        g.granularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SM;
    else if (gr && !strcmp(gr, "smsp"))
        g.granularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SMSP;
    else if (gr && *gr && strcmp(gr, "gpu")) {
        say(MP_RAW_KEY_ERROR, "%s '%s' is not gpu, sm or smsp",
            ENV_GRANULARITY, gr);
        return 0;
    }
    g.flush_seconds = (double)secs;
    g.lazy = lazy != 0;
    /* CUPTI 13.0 gave records only when enabled inside a launch; 13.5
     * at context creation too (docs/profile-design.md) */
    const char *at = getenv(ENV_ENABLE_AT);
    g.enable_at_launch = at && *at ? strcmp(at, "launch") == 0
                                   : g.cupti_version < 130500;
    return 1;
}

/* start, step 4: the range pass, the test hook that drops SASS records and
 * the kernel filter; 0 with the error said. */
static int start_pass_and_filter(void)
{
    char err[512];
    const ir_glue glue = {.cupti_ok = cupti_ok, .cu_ok = cu_ok,
                          .vsay = vsay, .vdbg = vdbg,
                          .now = now_s, .dir = g.dir, .pid = g.pid};
    if (ir_init(getenv(MP_ENV_PASS), getenv(MP_ENV_RANGE_KERNEL),
                getenv(MP_ENV_RANGE_GROUP), &glue, err,
                sizeof err)) {
        say(MP_RAW_KEY_ERROR, "%s", err);
        return 0;
    }
    say(MP_RAW_KEY_PASS, "%s", ir_on() ? MP_PASS_RANGE : MP_PASS_SASS);
    const char *hook = getenv(MP_ENV_NO_SASS);
    if (hook && *hook && !ir_on()) {
        if (regcomp(&g.no_sass, hook, REG_EXTENDED | REG_NOSUB)) {
            say(MP_RAW_KEY_ERROR, MP_ENV_NO_SASS " '%.200s' is not a POSIX "
                "extended regular expression", hook);
            return 0;
        }
        g.has_no_sass = 1;
        say(MP_RAW_KEY_WARNING, "test hook " MP_ENV_NO_SASS "='%.200s': "
            "those kernels' SASS records are dropped", hook);
    }
    if (ic_filter_init(&g.filter, getenv(MP_ENV_KERNEL),
                       getenv(MP_ENV_NVTX_INCLUDE),
                       getenv(MP_ENV_LAUNCH_SKIP),
                       getenv(MP_ENV_LAUNCH_COUNT), err, sizeof err)) {
        say(MP_RAW_KEY_ERROR, "%s", err);
        return 0;
    }
    return 1;
}

/* start, step 5: what module origins need: the executable's path
 * (dladdr names it by argv[0]), and backtrace's unwinder loaded now: its
 * first call loads libgcc_s, not a thing to do inside a driver call. */
static void start_origins(void)
{
    ssize_t n = readlink("/proc/self/exe", g.exe, sizeof g.exe - 1);
    g.exe[n > 0 ? n : 0] = '\0';
    void *frame[1];
    backtrace(frame, 1);
    ic_modules_init(&g.modules);
}

/* start, step 6: subscribes to CUPTI, alone: a second subscriber beside
 * it (torch.profiler's Kineto, measured on the H200) left the kernels
 * launched in its session unpatched, without counts; the program's own
 * client is refused and told so (inject/client.c). 0 when refused. */
static int start_subscribe(void)
{
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    CUpti_SubscriberParams sp = {
        .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
        .subscriberName = "memprobe", .oldSubscriberName = old,
        .oldSubscriberSize = sizeof old - 1};
    CUptiResult r = cuptiSubscribe_v2(&g.sub, on_callback, NULL, &sp);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        say(MP_RAW_KEY_ERROR, "cuptiSubscribe refused: another profiler is "
            "attached (%s)", old[0] ? old : "ncu, nsys, cuda-gdb or "
            "compute-sanitizer?");
        return 0;
    }
    if (!cupti_ok(r, "cuptiSubscribe", FATAL))
        return 0;
    if (!enable_callbacks(CUPTI_CB_DOMAIN_RESOURCE, resource_cbids,
                          sizeof resource_cbids / sizeof resource_cbids[0]) ||
        !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, launch_cbids,
                          sizeof launch_cbids / sizeof launch_cbids[0]) ||
        !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, sync_cbids,
                          sizeof sync_cbids / sizeof sync_cbids[0]) ||
        !enable_callbacks(CUPTI_CB_DOMAIN_NVTX, nvtx_cbids,
                          sizeof nvtx_cbids / sizeof nvtx_cbids[0]) ||
        (!ir_on() &&
         !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, load_cbids,
                           sizeof load_cbids / sizeof load_cbids[0])) ||
        (ir_on() &&
         !enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, ir_capture_cbids,
                           ir_ncapture_cbids))) {
        cupti_ok(cuptiUnsubscribe(g.sub), "cuptiUnsubscribe", QUIET);
        return 0;
    }
    return 1;
}

/* Reads the settings and subscribes to CUPTI, in the steps above; 1 when
 * profiling, 0 when not (said why). */
static int start(void)
{
    if (!start_raw_dir())
        return 0;
    start_say_process();
    if (!start_read_settings() || !start_pass_and_filter())
        return 0;
    start_origins();
    dbg("raw dir %s, CUPTI %u, enable at %s, %s patching, write every "
        "%llu launches or %.0f s, flush after up to %d runs, granularity "
        "%d", g.dir, g.cupti_version,
        g.enable_at_launch ? "launch" : "context", g.lazy ? "lazy" : "eager",
        (unsigned long long)g.flush_launches, g.flush_seconds, g.batch_runs,
        g.granularity);
    return start_subscribe();
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int called;
    if (called)
        return 1;
    called = 1;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    /* CUPTI may call back (a module loaded) inside our own calls */
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_lock, &a);
    pthread_mutexattr_destroy(&a);

    lock();
    int ok = start();
    if (ok) {
        g.on = 1;
        atexit(at_exit);
        pthread_atfork(NULL, NULL, in_child);
        for (int i = 0; i < 4; i++) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            if (sigaction(fatal_sigs[i], NULL, &old_actions[i]) == 0 &&
                old_actions[i].sa_handler != SIG_IGN)
                sigaction(fatal_sigs[i], &sa, NULL);
        }
    }
    write_status("flush");
    unlock();
    return 1;
}

/* NVTX's first call in the process loads NVTX_INJECTION64_PATH (this
 * library, from memprobe profile) and calls this: memprobe subscribes
 * now, not at the first CUDA call, so the strings a program registers and
 * the ranges it pushes before it touches CUDA are seen (Thrust's sort
 * test registers its range names first thing in main); then CUPTI's own
 * NVTX entry (MEMPROBE_NVTX_CUPTI) takes NVTX's calls and hands them to
 * the subscriber. 0 (NVTX then calls no tool) when that entry is missing. */
__attribute__((visibility("default"))) int
InitializeInjectionNvtx2(void *get_export_table)
{
    InitializeInjection();
    const char *path = getenv(MP_ENV_NVTX_CUPTI);
    void *h = path && *path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    int (*next)(void *) = NULL;
    void *sym = h ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
    memcpy(&next, &sym, sizeof next);
    if (!next) {
        fprintf(stderr, "memprobe-inject: no NVTX ranges: %s%s has no "
                "InitializeInjectionNvtx2\n", MP_ENV_NVTX_CUPTI "=",
                path ? path : "(unset)");
        return 0;
    }
    dbg("NVTX: started before the first CUDA call; NVTX's calls handed "
        "to CUPTI's NVTX entry in %s", path);
    return next(get_export_table);
}
