/*
 * inject_module.c - modules and graph nodes: each loaded module's cubin
 * kept by CRC, where it came from (the object holding its image, the
 * file loaded, or the first caller outside the CUDA stack;
 * docs/profile-design.md), and the shape of each graph kernel node.
 * inject_module.h is the interface.
 */
#include "inject_module.h"

#include <cupti_driver_cbid.h>
#include <cupti_pcsampling.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject_say.h"

/* cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary,
 * cuLibraryLoadData (what: the image) and cuModuleLoad,
 * cuLibraryLoadFromFile (what: the file name): the handle made, then
 * what it is loaded from */
typedef struct {
    void *handle;
    const void *what;
} load_params;

/* The module load call this thread is in: a module loaded inside it
 * comes from its image (a load from memory) or its file. */
static _Thread_local struct {
    int depth;
    const void *image;
    const char *file;
} tl_load;

cubin_info *find_cubin(uint32_t crc)
{
    for (size_t i = 0; i < g.ncubins; i++)
        if ((uint32_t)g.cubins[i].crc == crc)
            return &g.cubins[i];
    return NULL;
}

/* ---- where a module comes from (docs/profile-design.md) ------------ */

enum { MAX_FRAMES = 64 };

/* The loaded object holding address p, by its path (the executable's
 * from /proc/self/exe: dladdr names it by argv[0]); NULL when p lies in
 * none (the heap). */
static const char *object_of(const void *p)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!p || !dladdr1(p, &info, (void **)&map, RTLD_DL_LINKMAP))
        return NULL;
    if (map && !map->l_name[0] && g.exe[0])
        return g.exe;
    return info.dli_fname && info.dli_fname[0] ? info.dli_fname : NULL;
}

/* MEMPROBE_DEBUG: the objects of a module load's call stack, innermost
 * first, each once in a row, the one taken marked with '*'. */
static void debug_frames(uint32_t crc, const char *const *objs, int n,
                         int taken)
{
    char chain[900] = "";
    size_t len = 0;
    for (int i = 0; i < n && len + 1 < sizeof chain; i++) {
        const char *o = objs[i] ? objs[i] : "?";
        if (i && i != taken && objs[i - 1] && objs[i]
            && !strcmp(objs[i - 1], objs[i]))
            continue;
        const char *base = strrchr(o, '/');
        int w = snprintf(chain + len, sizeof chain - len, "%s%s%s",
                         i ? " < " : "", i == taken ? "*" : "",
                         base ? base + 1 : o);
        if (w > 0)
            len += (size_t)w;
    }
    dbg("module crc %u: backtrace of %d frames: %s", crc, n, chain);
}

/* The first caller of this module load outside the CUDA stack
 * (ic_first_own_frame): its object into out; 0 when there is none. */
static int origin_by_backtrace(uint32_t crc, char *out, size_t len)
{
    void *frames[MAX_FRAMES];
    const char *objs[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES);
    for (int i = 0; i < n; i++)   /* a return address: its call is before */
        objs[i] = object_of((const char *)frames[i] - (i > 0));
    int k = ic_first_own_frame(objs, n > 0 ? (size_t)n : 0);
    if (g.debug)
        debug_frames(crc, objs, n, k);
    if (k < 0)
        return 0;
    snprintf(out, len, "%s", objs[k]);
    return 1;
}

/* Where the module being loaded comes from, into out; how it was found
 * (MP_FOUND_*): its cubin in a loaded object's memory; else the image of
 * the load-from-memory call it loads in (in no object: compiled at run
 * time); else the file of a file load; else the first caller outside the
 * CUDA stack (lazy loading: the launch of the code that owns it). */
static const char *module_origin(const CUpti_ModuleResourceData *md,
                                 uint32_t crc, char *out, size_t len)
{
    const char *obj = object_of(md->pCubin);
    if (obj && !ic_cuda_stack_object(obj)) {
        snprintf(out, len, "%s", obj);
        return MP_FOUND_CUBIN;
    }
    if (tl_load.depth && tl_load.image) {
        obj = object_of(tl_load.image);
        snprintf(out, len, "%s", obj ? obj : MP_ORIGIN_RUNTIME);
        return MP_FOUND_IMAGE;
    }
    if (tl_load.depth && tl_load.file) {
        snprintf(out, len, "%s", tl_load.file);
        return MP_FOUND_FILE;
    }
    if (origin_by_backtrace(crc, out, len))
        return MP_FOUND_BACKTRACE;
    snprintf(out, len, "%s", MP_ORIGIN_UNKNOWN);
    return MP_FOUND_NONE;
}

/* Records where a newly kept module came from (once per cubin). */
static void note_origin(const CUpti_ModuleResourceData *md, uint32_t crc)
{
    char origin[4096];
    const char *found = module_origin(md, crc, origin, sizeof origin);
    if (ic_modules_add(&g.modules, crc, origin, found) < 0)
        say(MP_RAW_KEY_WARNING, "out of memory keeping a module's origin");
    dbg("module %u origin: crc %u %s (found by %s)", md->moduleId, crc,
        origin, found);
}

/* A module load call's entry and exit: its image or file remembered on
 * this thread while it runs (nested calls: the outermost one's). */
void on_load_call(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cb->callbackSite != CUPTI_API_ENTER) {
        if (tl_load.depth > 0 && --tl_load.depth == 0)
            tl_load.image = NULL, tl_load.file = NULL;
        return;
    }
    if (tl_load.depth++)
        return;
    const load_params *p = cb->functionParams;
    int file = cbid == CUPTI_DRIVER_TRACE_CBID_cuModuleLoad
               || cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile;
    tl_load.image = file || !p ? NULL : p->what;
    tl_load.file = file && p ? p->what : NULL;
    if (!g.debug)
        return;
    const char *obj = file ? tl_load.file : object_of(tl_load.image);
    dbg("%s: %s %s", cb->functionName, file ? "file" : "image in",
        obj ? obj : file ? "(none)" : "no loaded object");
}

void on_module_loaded(const CUpti_ModuleResourceData *md)
{
    if (!md || !md->pCubin || !md->cubinSize)
        return;
    CUpti_GetCubinCrcParams cp = {.size = CUpti_GetCubinCrcParamsSize,
                                  .cubinSize = md->cubinSize,
                                  .cubin = md->pCubin};
    double t0 = now_s();
    if (!cupti_ok(cuptiGetCubinCrc(&cp), "cuptiGetCubinCrc", WARN))
        return;
    cost(IC_COST_MODULES, t0);
    t0 = now_s();   /* the copy's time joins the same count */
    dbg("module %u loaded: %zu bytes, cubin crc %llu", md->moduleId,
        md->cubinSize, (unsigned long long)cp.cubinCrc);
    if (find_cubin((uint32_t)cp.cubinCrc))
        return;
    cubin_info *v = realloc(g.cubins, (g.ncubins + 1) * sizeof *v);
    char *copy = malloc(md->cubinSize);
    if (!v || !copy) {
        free(copy);
        if (v)
            g.cubins = v;
        say(MP_RAW_KEY_WARNING, "out of memory keeping a cubin");
        return;
    }
    memcpy(copy, md->pCubin, md->cubinSize);
    g.status.cost_s[IC_COST_MODULES] += now_s() - t0;
    g.cubins = v;
    g.cubins[g.ncubins++] = (cubin_info){.crc = cp.cubinCrc, .data = copy,
                                         .size = md->cubinSize};
    if (!ir_on())   /* the range pass writes no lines to place */
        note_origin(md, (uint32_t)cp.cubinCrc);
}

/* The kernel name of a function or library kernel handle. */
const char *function_name(CUfunction f, CUkernel k)
{
    const char *name = NULL;
    if (f)
        cu_ok(cuFuncGetName(&name, f), "cuFuncGetName", QUIET);
    else if (k)
        cu_ok(cuKernelGetName(&name, k), "cuKernelGetName", QUIET);
    return name;
}

graph_kernel *find_graph_kernel(const char *name)
{
    for (size_t i = g.ngk; name && i-- > 0;)
        if (strcmp(g.gk[i].name, name) == 0)
            return &g.gk[i];
    return NULL;
}

void on_graph_node(const CUpti_GraphData *gd)
{
    if (!gd || gd->nodeType != CU_GRAPH_NODE_TYPE_KERNEL)
        return;
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    if (!cu_ok(cuGraphKernelNodeGetParams(gd->node, &p),
               "cuGraphKernelNodeGetParams", WARN))
        return;
    const char *name = function_name(p.func, p.kern);
    dbg("graph kernel node %s grid %u,%u,%u block %u,%u,%u shared %u",
        name ? name : "(unnamed)", p.gridDimX, p.gridDimY, p.gridDimZ,
        p.blockDimX, p.blockDimY, p.blockDimZ, p.sharedMemBytes);
    if (!name)
        return;
    graph_kernel *k = find_graph_kernel(name);
    if (!k) {
        graph_kernel *v = realloc(g.gk, (g.ngk + 1) * sizeof *v);
        char *copy = strdup(name);
        if (!v || !copy) {
            free(copy);
            if (v)
                g.gk = v;
            return;
        }
        g.gk = v;
        k = &g.gk[g.ngk++];
        k->name = copy;
    }
    /* the latest node of a function gives its shape */
    k->grid[0] = p.gridDimX;
    k->grid[1] = p.gridDimY;
    k->grid[2] = p.gridDimZ;
    k->block[0] = p.blockDimX;
    k->block[1] = p.blockDimY;
    k->block[2] = p.blockDimZ;
    k->shared = p.sharedMemBytes;
}
