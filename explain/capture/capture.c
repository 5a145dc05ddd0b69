/*
 * capture.c - the capture library of `memprobe explain`: preloaded into a
 * CUDA program (LD_PRELOAD), it patches every loaded module's global and
 * shared memory accesses with compute-sanitizer's patching API
 * (capture_patches.cu) and records, for the instructions it is told to
 * want, each warp's execution in the first launch of each kernel, grid
 * and block (a graph's kernel node apart from a stream launch, as
 * memprobe profile counts them): the lanes that ran it and their
 * addresses. Other launches
 * of those modules run the patched code with no capture block (their
 * callbacks return at once); modules without a wanted kernel's name in
 * their cubin are not patched. One capture at a time: a wanted launch
 * made while another thread's is under way is said "busy" and left. The
 * files are made at the process's first CUDA callback, and only by the
 * first process of the run to get there (open_files).
 *
 * Environment (set by memprobe explain; explain/):
 *   MEMPROBE_CAPTURE_FILE     the capture CSV to write (the format of
 *                             docs/explain-design.md; the kernel column is
 *                             the mangled name), FILE.status beside it
 *   MEMPROBE_CAPTURE_WANT     a file: "MANGLED,0xOFFSET" a line
 *   MEMPROBE_CAPTURE_MAX_WARPS  executions kept an instruction (default
 *                             65536; more are counted and said dropped)
 *   MEMPROBE_CAPTURE_PATCHES  the patches' fatbin (default: beside this
 *                             library, memprobe_capture_patches.fatbin)
 *   MEMPROBE_CAPTURE_TRACE    1: a "trace" status line at every callback
 *
 * The status file says per captured instruction "captured MANGLED 0xOFF
 * launch L executions N", "dropped MANGLED 0xOFF launch L executions N"
 * past the cap, "left MANGLED 0xOFF: WHY" for a want past the
 * MP_CAPTURE_MAX_WANT of its kernel, "error TEXT" for a failed call, and
 * at the end where the run's time went ("time ...").
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sanitizer.h>

#include "capture.h"
#include "capture_row.h"

_Static_assert(MP_CAPTURE_READ == SANITIZER_MEMORY_DEVICE_FLAG_READ
               && MP_CAPTURE_WRITE == SANITIZER_MEMORY_DEVICE_FLAG_WRITE,
               "capture_row.h's access flags are the sanitizer's");

#define DEFAULT_CAP 65536u
/* the most device memory one launch's records take (a pool the
 * instructions share: one with fewer executions leaves room to another),
 * and the least tried when the device has less free */
#define MAX_BYTES ((size_t)2 << 30)
#define MIN_BYTES ((size_t)64 << 20)
#define PATCHES_NAME "memprobe_capture_patches.fatbin"
enum { MAX_SEEN = 16384 };

static int tracing;   /* MEMPROBE_CAPTURE_TRACE=1 */

/* an instruction to capture */
typedef struct {
    char *mangled;
    uint32_t offset;
    int first;          /* the first want of its kernel (they are ordered) */
} want;

/* a kernel, grid and block already captured (its first launch), apart
 * for a graph's kernel node (as memprobe profile keys them) */
typedef struct {
    char *mangled;
    uint32_t grid[3], block[3];
    int graph;
} seen_key;

/* the capture of the launch under way, until its end */
typedef struct {
    int on;
    int graph;          /* a graph's kernel node: read at the graph
                           launch's end, on the graph's stream */
    char *mangled;
    uint64_t launch;
    CUcontext ctx;
    Sanitizer_StreamHandle stream;
    CUfunction function;
    mp_capture_block host;
    mp_capture_block *dev;
    mp_capture_rec *rec;
    double t0;          /* when its launch began (now()) */
} pending;

/* Where a capture run's time went, said at the end ("time ..."). */
typedef struct {
    double scan, patch, run, write;   /* seconds: looking for wanted
                                         kernels in modules; patching
                                         them; captured launches, begin
                                         to end; their rows */
    unsigned long long scanned, modules, launches, rows;
} timing;

static struct {
    char file[4096];    /* MEMPROBE_CAPTURE_FILE */
    FILE *out, *status;
    char patches[4096];
    uint32_t cap;
    want *wants;
    size_t nwants;
    seen_key *seen;
    size_t nseen;
    uint64_t launches;
    CUcontext patched_ctx[64];
    int npatched;
    CUmodule *mods;     /* the modules patched */
    size_t nmods;
    pending cur;
    timing t;
} g;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every sanitizer result through here: 1 when fine, else a status line. */
static int san_ok(SanitizerResult r, const char *what)
{
    if (r == SANITIZER_SUCCESS)
        return 1;
    const char *s = NULL;
    sanitizerGetResultString(r, &s);
    if (g.status)
        fprintf(g.status, "error %s: %d %s\n", what, (int)r, s ? s : "");
    return 0;
}

static void say_error(const char *what)
{
    if (g.status)
        fprintf(g.status, "error %s\n", what);
}

/* ---- settings ---------------------------------------------------------- */

/* The wanted instructions from the file's "MANGLED,0xOFFSET" lines. */
static int read_wants(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        char *comma = strrchr(line, ',');
        if (!comma)
            continue;
        *comma = '\0';
        char *end;
        unsigned long off = strtoul(comma + 1, &end, 0);
        if (end == comma + 1 || !line[0])
            continue;
        want *w = realloc(g.wants, (g.nwants + 1) * sizeof *w);
        char *name = strdup(line);
        if (!w || !name) {
            free(name);
            if (w)
                g.wants = w;
            fclose(f);
            return -1;
        }
        g.wants = w;
        g.wants[g.nwants++] = (want){name, (uint32_t)off, 0};
    }
    fclose(f);
    return 0;
}

static int want_order(const void *a, const void *b)
{
    const want *x = a, *y = b;
    int c = strcmp(x->mangled, y->mangled);
    return c ? c : (x->offset > y->offset) - (x->offset < y->offset);
}

/* The wants sorted by kernel and offset, each once (a kernel's offsets
 * go to the device in ascending order); those of a kernel past the
 * MP_CAPTURE_MAX_WANT it follows are said "left" in the status file and
 * dropped. */
static void order_wants(void)
{
    if (!g.nwants)
        return;
    qsort(g.wants, g.nwants, sizeof *g.wants, want_order);
    size_t n = 0, of_kernel = 0;
    for (size_t i = 0; i < g.nwants; i++) {
        want *w = &g.wants[i];
        int same_kernel = n && !strcmp(g.wants[n - 1].mangled, w->mangled);
        if (same_kernel && g.wants[n - 1].offset == w->offset) {
            free(w->mangled);
            continue;
        }
        of_kernel = same_kernel ? of_kernel + 1 : 1;
        if (of_kernel > MP_CAPTURE_MAX_WANT) {
            fprintf(g.status, "left %s 0x%x: past the %d instructions one "
                    "kernel's capture follows\n", w->mangled, w->offset,
                    MP_CAPTURE_MAX_WANT);
            free(w->mangled);
            continue;
        }
        w->first = of_kernel == 1;
        g.wants[n++] = *w;
    }
    g.nwants = n;
}

/* The patches' fatbin: MEMPROBE_CAPTURE_PATCHES, else beside this
 * library. */
static void find_patches(void)
{
    const char *env = getenv("MEMPROBE_CAPTURE_PATCHES");
    if (env && *env) {
        snprintf(g.patches, sizeof g.patches, "%s", env);
        return;
    }
    Dl_info info;
    if (dladdr((void *)find_patches, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        int dir = slash ? (int)(slash - info.dli_fname) : 0;
        snprintf(g.patches, sizeof g.patches, "%.*s%s" PATCHES_NAME, dir,
                 info.dli_fname, slash ? "/" : "");
    } else {
        snprintf(g.patches, sizeof g.patches, PATCHES_NAME);
    }
}

/* ---- modules ----------------------------------------------------------- */

/* 1 when the module holds a wanted kernel: only those modules are
 * patched (a library's other modules run as they are). Its cubin names
 * it, or, where the image does not show the name (a library's
 * compressed image), the module has a function of that name. */
static int module_wanted(const Sanitizer_ResourceModuleData *md)
{
    if (!md->pCubin || !md->cubinSize)
        return 1;   /* nothing to look in: patched, to be safe */
    for (size_t i = 0; i < g.nwants; i++)   /* each kernel once */
        if (g.wants[i].first
            && memmem(md->pCubin, md->cubinSize, g.wants[i].mangled,
                      strlen(g.wants[i].mangled) + 1))
            return 1;
    for (size_t i = 0; i < g.nwants; i++) {
        uint64_t pc = 0, size = 0;
        if (g.wants[i].first
            && sanitizerGetFunctionPcAndSize(md->module, g.wants[i].mangled,
                                             &pc, &size) == SANITIZER_SUCCESS)
            return 1;
    }
    if (tracing)
        fprintf(g.status, "trace module %p (%zu bytes) not patched: no "
                "wanted kernel in it\n", (void *)md->module,
                (size_t)md->cubinSize);
    return 0;
}

/* The patches loaded into ctx once; the global and shared accesses and
 * the asynchronous copies of a module with a wanted kernel patched. */
static void on_module(const Sanitizer_ResourceModuleData *md)
{
    double t0 = now();
    int wanted = module_wanted(md);
    g.t.scan += now() - t0;
    g.t.scanned++;
    if (!wanted)
        return;
    t0 = now();
    int loaded = 0;
    for (int i = 0; i < g.npatched; i++)
        loaded |= g.patched_ctx[i] == md->context;
    if (!loaded) {
        if (!san_ok(sanitizerAddPatchesFromFile(g.patches, md->context),
                    "sanitizerAddPatchesFromFile"))
            return;
        if (g.npatched < 64)
            g.patched_ctx[g.npatched++] = md->context;
    }
    /* each kind of memory instruction and the patch that records it */
    static const struct {
        Sanitizer_InstructionId id;
        const char *patch, *what;
    } kinds[] = {
        {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "mp_capture_global",
         "sanitizerPatchInstructions global"},
        {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "mp_capture_shared",
         "sanitizerPatchInstructions shared"},
        {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "mp_capture_memcpy_async",
         "sanitizerPatchInstructions memcpy async"},
        {SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "mp_capture_matrix",
         "sanitizerPatchInstructions matrix"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        san_ok(sanitizerPatchInstructions(kinds[i].id, md->module,
                                          kinds[i].patch),
               kinds[i].what);
    if (san_ok(sanitizerPatchModule(md->module), "sanitizerPatchModule")) {
        CUmodule *m = realloc(g.mods, (g.nmods + 1) * sizeof *m);
        if (m) {
            g.mods = m;
            g.mods[g.nmods++] = md->module;
        }
    }
    g.t.patch += now() - t0;
    g.t.modules++;
}

/* 1 when module was patched. */
static int module_patched(CUmodule module)
{
    for (size_t i = 0; i < g.nmods; i++)
        if (g.mods[i] == module)
            return 1;
    return 0;
}

/* ---- launches ---------------------------------------------------------- */

/* 1 when this kernel, grid and block had its launch; else noted as had. */
static int seen_before(const Sanitizer_LaunchData *ld, int graph)
{
    uint32_t grid[3] = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z};
    uint32_t block[3] = {ld->blockDim_x, ld->blockDim_y, ld->blockDim_z};
    for (size_t i = 0; i < g.nseen; i++)
        if (!strcmp(g.seen[i].mangled, ld->functionName)
            && !memcmp(g.seen[i].grid, grid, sizeof grid)
            && !memcmp(g.seen[i].block, block, sizeof block)
            && g.seen[i].graph == graph)
            return 1;
    if (g.nseen < MAX_SEEN) {
        seen_key *s = realloc(g.seen, (g.nseen + 1) * sizeof *s);
        char *name = strdup(ld->functionName);
        if (s)
            g.seen = s;
        if (!s || !name) {
            free(name);
            return 0;
        }
        g.seen[g.nseen] = (seen_key){.mangled = name, .graph = graph};
        memcpy(g.seen[g.nseen].grid, grid, sizeof grid);
        memcpy(g.seen[g.nseen].block, block, sizeof block);
        g.nseen++;
    }
    return 0;
}

/* The wanted offsets of kernel `mangled` into b (ascending: the wants
 * are ordered); their number. */
static uint32_t wanted_offsets(const char *mangled, mp_capture_block *b)
{
    uint32_t n = 0;
    for (size_t i = 0; i < g.nwants && n < MP_CAPTURE_MAX_WANT; i++)
        if (!strcmp(g.wants[i].mangled, mangled))
            b->want[n++] = g.wants[i].offset;
    return n;
}

/* The records' pool of a capture of n instructions of up to cap
 * executions each: as many as they may take, at most MAX_BYTES, less
 * (halving down to MIN_BYTES) when the device has not that much free.
 * Its bytes and *rec, or 0 and *rec NULL (an error line said why). A
 * pool smaller than the instructions may take is said in a "cap" line. */
static size_t alloc_pool(CUcontext ctx, const char *name, uint64_t launch,
                         uint32_t n, uint32_t cap, void **rec)
{
    size_t most = (size_t)n * cap * sizeof(mp_capture_rec);
    size_t bytes = most < MAX_BYTES ? most : MAX_BYTES;
    *rec = NULL;
    while (sanitizerAlloc(ctx, rec, bytes) != SANITIZER_SUCCESS) {
        *rec = NULL;
        if (bytes <= MIN_BYTES) {
            fprintf(g.status, "error %s launch %llu: no %zu MiB of device "
                    "memory for its records\n", name,
                    (unsigned long long)launch, bytes >> 20);
            return 0;
        }
        bytes /= 2;
    }
    if (bytes < most)
        fprintf(g.status, "cap %s launch %llu: %zu records (%zu MiB) for %u "
                "instructions of up to %u executions each\n", name,
                (unsigned long long)launch, bytes / sizeof(mp_capture_rec),
                bytes >> 20, n, cap);
    return bytes;
}

/* A capture block for this launch (graph: a graph's kernel node), or
 * none (NULL userdata). */
static void on_launch_begin(const Sanitizer_LaunchData *ld, int graph)
{
    uint64_t launch = g.launches++;
    void *userdata = NULL;
    if (g.cur.on) {   /* another thread's capture still under way */
        fprintf(g.status, "busy %s launch %llu: not captured\n",
                ld->functionName ? ld->functionName : "",
                (unsigned long long)launch);
        san_ok(sanitizerSetCallbackData(ld->function, NULL),
               "sanitizerSetCallbackData");
        return;
    }
    memset(&g.cur, 0, sizeof g.cur);
    const char *name = ld->functionName ? ld->functionName : "";
    mp_capture_block h = {0};
    h.nwant = wanted_offsets(name, &h);
    uint64_t size = 0;
    int first = h.nwant && !seen_before(ld, graph);
    if (first && !module_patched(ld->module)) {
        fprintf(g.status, "error %s launch %llu: its module was not "
                "patched (no wanted kernel found in it when it loaded)\n",
                name, (unsigned long long)launch);
        first = 0;
    }
    if (first
        && san_ok(sanitizerGetFunctionPcAndSize(ld->module, name, &h.base,
                                                &size),
                  "sanitizerGetFunctionPcAndSize")) {
        h.cap = g.cap;
        void *rec = NULL;
        size_t bytes = alloc_pool(ld->context, name, launch, h.nwant, h.cap,
                                  &rec);
        h.pool = (uint32_t)(bytes / sizeof(mp_capture_rec));
        void *dev = NULL;
        if (rec
            && san_ok(sanitizerAlloc(ld->context, &dev, sizeof h),
                      "sanitizerAlloc block")) {
            h.rec = rec;
            g.cur = (pending){.on = 1, .graph = graph,
                              .mangled = strdup(name),
                              .launch = launch, .ctx = ld->context,
                              .stream = ld->hStream,
                              .function = ld->function, .host = h,
                              .dev = dev, .rec = rec, .t0 = now()};
            /* from g.cur, which outlives the copy (h does not) */
            san_ok(sanitizerMemcpyHostToDeviceAsync(dev, &g.cur.host,
                                                    sizeof h, ld->hStream),
                   "sanitizerMemcpyHostToDeviceAsync");
            userdata = dev;
        } else {
            if (rec)
                sanitizerFree(ld->context, rec);
        }
    }
    san_ok(sanitizerSetCallbackData(ld->function, userdata),
           "sanitizerSetCallbackData");
}

/* The records of capture p (its block read back in h) to the file,
 * grouped by instruction (they lie in the pool in the order taken), and
 * each instruction's "captured" and "dropped" lines. */
static void write_records(const pending *p, const mp_capture_block *h)
{
    uint32_t n = h->used < p->host.pool ? h->used : p->host.pool;
    const uint32_t nwant = p->host.nwant;
    static uint32_t start[MP_CAPTURE_MAX_WANT + 1], at[MP_CAPTURE_MAX_WANT];
    mp_capture_rec *recs = n ? malloc(sizeof *recs * n) : NULL;
    uint32_t *order = n ? malloc(sizeof *order * n) : NULL;
    char *line = p->mangled ? malloc(MP_CAPTURE_ROW_MAX(strlen(p->mangled)))
                            : NULL;
    if ((n && (!recs || !order)) || !line) {
        say_error("out of memory reading a capture");
        n = 0;   /* every execution said dropped */
    } else if (n && !san_ok(sanitizerMemcpyDeviceToHost(recs, p->rec,
                                                        sizeof *recs * n,
                                                        p->stream),
                            "sanitizerMemcpyDeviceToHost records")) {
        n = 0;
    }
    /* a counting sort by instruction: start[k] its first in order[] */
    memset(start, 0, sizeof start);
    for (uint32_t i = 0; i < n; i++)
        if (recs[i].want < nwant)
            start[recs[i].want + 1]++;
    for (uint32_t k = 0; k < nwant; k++)
        start[k + 1] += start[k];
    memcpy(at, start, sizeof at);
    for (uint32_t i = 0; i < n; i++)
        if (recs[i].want < nwant)
            order[at[recs[i].want]++] = i;
    for (uint32_t k = 0; k < nwant; k++) {
        uint32_t kept = 0;   /* executions: a copy's source row is not one */
        for (uint32_t i = start[k]; i < start[k + 1]; i++) {
            fwrite(line, 1, mp_capture_row(line, p->mangled,
                                           p->host.want[k], p->launch,
                                           &recs[order[i]]), g.out);
            kept += !(recs[order[i]].flags & MP_CAPTURE_SOURCE);
        }
        g.t.rows += start[k + 1] - start[k];
        fprintf(g.status, "captured %s 0x%x launch %llu executions %u\n",
                p->mangled, p->host.want[k], (unsigned long long)p->launch,
                kept);
        if (h->count[k] > kept)
            fprintf(g.status, "dropped %s 0x%x launch %llu executions %u\n",
                    p->mangled, p->host.want[k],
                    (unsigned long long)p->launch, h->count[k] - kept);
    }
    free(recs);
    free(order);
    free(line);
}

/* The capture's end: its records to the file, its memory freed, the
 * kernel's later launches without a block. A graph's node ends with the
 * graph's launch: graph is 1 there, and stream the graph's. */
static void on_launch_end(int graph, Sanitizer_StreamHandle stream)
{
    pending *p = &g.cur;
    if (!p->on || p->graph != graph)
        return;
    if (graph)
        p->stream = stream;
    p->on = 0;
    mp_capture_block h;
    int ok = san_ok(sanitizerStreamSynchronize(p->stream),
                    "sanitizerStreamSynchronize")
             && san_ok(sanitizerMemcpyDeviceToHost(&h, p->dev, sizeof h,
                                                   p->stream),
                       "sanitizerMemcpyDeviceToHost block");
    double t1 = now();
    g.t.run += t1 - p->t0;
    g.t.launches++;
    if (ok)
        write_records(p, &h);
    fflush(g.out);
    fflush(g.status);
    g.t.write += now() - t1;
    sanitizerFree(p->ctx, p->rec);
    sanitizerFree(p->ctx, p->dev);
    san_ok(sanitizerSetCallbackData(p->function, NULL),
           "sanitizerSetCallbackData");
    free(p->mangled);
    p->mangled = NULL;
}

/* MEMPROBE_CAPTURE_TRACE=1: a status line at each callback, written at
 * once, to see where a program stops. */
static _Thread_local int in_callback;   /* this thread's callback depth */

static void trace(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                  const void *data)
{
    if (!tracing)
        return;
    const char *name = "";
    if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
        const Sanitizer_LaunchData *ld = data;
        name = ld->functionName ? ld->functionName : "";
    } else if (domain == SANITIZER_CB_DOMAIN_GRAPHS
               && cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
        const Sanitizer_GraphNodeLaunchData *nd = data;
        if (nd->nodeType == CU_GRAPH_NODE_TYPE_KERNEL)
            name = nd->launchData.functionName ? nd->launchData.functionName
                                               : "";
    }
    fprintf(g.status, "trace domain %d cbid %d depth %d %s\n", (int)domain,
            (int)cbid, in_callback, name);
    fflush(g.status);
}

/* The callbacks one at a time: the patching calls must not run
 * concurrently, and the capture under way is one. A callback made
 * inside another on the same thread (loading the patches loads a
 * module) runs under the lock its caller holds: a second lock there
 * would never return. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int open_files(void);

static void SANITIZERAPI on_callback(void *userdata,
                                     Sanitizer_CallbackDomain domain,
                                     Sanitizer_CallbackId cbid,
                                     const void *data)
{
    (void)userdata;
    int outer = !in_callback;
    if (outer)
        pthread_mutex_lock(&lock);
    in_callback++;
    if (!open_files())
        goto out;
    trace(domain, cbid, data);
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE
        && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
        on_module(data);
    else if (domain == SANITIZER_CB_DOMAIN_LAUNCH
             && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
        on_launch_begin(data, 0);
    else if (domain == SANITIZER_CB_DOMAIN_LAUNCH
             && cbid == SANITIZER_CBID_LAUNCH_END)
        on_launch_end(0, NULL);
    else if (domain == SANITIZER_CB_DOMAIN_GRAPHS
             && cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
        const Sanitizer_GraphNodeLaunchData *nd = data;
        if (nd->nodeType == CU_GRAPH_NODE_TYPE_KERNEL && !nd->isGraphUpload)
            on_launch_begin(&nd->launchData, 1);
    } else if (domain == SANITIZER_CB_DOMAIN_GRAPHS
               && cbid == SANITIZER_CBID_GRAPHS_LAUNCH_END) {
        const Sanitizer_GraphLaunchData *gd = data;
        if (!gd->isGraphUpload)
            on_launch_end(1, gd->hStream);
    }
out:
    in_callback--;
    if (outer)
        pthread_mutex_unlock(&lock);
}

/* ---- start and end ----------------------------------------------------- */

static void at_exit(void)
{
    if (g.status)
        fprintf(g.status, "time scanning %.3f s (%llu modules), patching "
                "%.3f s (%llu modules), captured launches %.3f s (%llu), "
                "reading and writing their rows %.3f s (%llu rows)\n",
                g.t.scan, g.t.scanned, g.t.patch, g.t.modules, g.t.run,
                g.t.launches, g.t.write, g.t.rows);
    if (g.out)
        fclose(g.out);
    if (g.status)
        fclose(g.status);
    g.out = g.status = NULL;
    for (size_t i = 0; i < g.nwants; i++)
        free(g.wants[i].mangled);
    for (size_t i = 0; i < g.nseen; i++)
        free(g.seen[i].mangled);
    free(g.wants);
    free(g.seen);
    free(g.mods);
    g.wants = NULL;
    g.seen = NULL;
    g.mods = NULL;
    g.nwants = g.nseen = g.nmods = 0;
}

/* path created anew for writing: NULL when it exists already (another
 * process of the run has it) or cannot be made. */
static FILE *create(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

/* The capture file and its status, made at this process's first CUDA
 * callback (or at once to say a setting's error), and only when they do
 * not exist yet (memprobe explain removes them before the run): the
 * helpers a program runs (ldconfig, a compiler, a CUDA worker) load this
 * library too, and opening the files in each of them truncated the ones
 * the first CUDA process was writing. Such a later process captures
 * nothing. 1 when open. */
static int open_files(void)
{
    static int tried;
    if (tried)
        return g.out != NULL;
    tried = 1;
    char st[sizeof g.file + 8];
    snprintf(st, sizeof st, "%s.status", g.file);
    g.status = create(st);
    g.out = g.status ? create(g.file) : NULL;
    if (!g.status || !g.out) {
        if (g.status)
            say_error("cannot make the capture file");
        at_exit();
        return 0;
    }
    setvbuf(g.out, NULL, _IOFBF, (size_t)1 << 20);   /* rows in large writes */
    char header[MP_CAPTURE_ROW_MAX(0)];
    fwrite(header, 1, mp_capture_header(header), g.out);
    fprintf(g.status, "start patches %s cap %u wants %zu\n", g.patches,
            g.cap, g.nwants);
    order_wants();
    fflush(g.status);
    return 1;
}

/* A setting's error: the files opened to say it; the library stays off. */
static void start_error(const char *what)
{
    if (open_files())
        say_error(what);
}

__attribute__((constructor)) static void start(void)
{
    const char *file = getenv("MEMPROBE_CAPTURE_FILE");
    const char *wantf = getenv("MEMPROBE_CAPTURE_WANT");
    const char *cap = getenv("MEMPROBE_CAPTURE_MAX_WARPS");
    if (!file || !*file)
        return;   /* loaded without memprobe explain: does nothing */
    snprintf(g.file, sizeof g.file, "%s", file);
    atexit(at_exit);
    find_patches();
    g.cap = DEFAULT_CAP;
    if (cap && *cap) {
        char *end;
        unsigned long v = strtoul(cap, &end, 10);
        if (*end || !v || v > (1ul << 24)) {
            start_error("MEMPROBE_CAPTURE_MAX_WARPS is not 1-16777216");
            return;
        }
        g.cap = (uint32_t)v;
    }
    if (!wantf || read_wants(wantf)) {
        start_error("MEMPROBE_CAPTURE_WANT names no readable file");
        return;
    }
    const char *tr = getenv("MEMPROBE_CAPTURE_TRACE");
    tracing = tr && *tr == '1';
    Sanitizer_SubscriberHandle sub;
    SanitizerResult r = sanitizerSubscribe(&sub, on_callback, NULL);
    if (r != SANITIZER_SUCCESS) {
        if (open_files())
            san_ok(r, "sanitizerSubscribe");
        return;
    }
    static const Sanitizer_CallbackDomain domains[] = {
        SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CB_DOMAIN_LAUNCH,
        SANITIZER_CB_DOMAIN_GRAPHS};
    for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++) {
        r = sanitizerEnableDomain(1, sub, domains[i]);
        if (r != SANITIZER_SUCCESS && open_files())
            san_ok(r, "sanitizerEnableDomain");
    }
}
