/*
 * inject_module.h - modules and graph nodes (inject_module.c): the
 * cubins kept, where each came from, the kernel nodes of graphs.
 */
#ifndef MP_INJECT_MODULE_H
#define MP_INJECT_MODULE_H

#include <cuda.h>
#include <cupti_callbacks.h>
#include <stdint.h>

#include "inject_state.h"

/* The cubin kept of crc, or NULL. */
cubin_info *find_cubin(uint32_t crc);
/* A module load call's entry and exit (its image or file remembered on
 * this thread while it runs). */
void on_load_call(CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
/* A module loaded: its cubin kept (and where it came from). */
void on_module_loaded(const CUpti_ModuleResourceData *md);
/* The kernel name of a function or library kernel handle. */
const char *function_name(CUfunction f, CUkernel k);
/* The graph kernel node of this name seen last, or NULL. */
graph_kernel *find_graph_kernel(const char *name);
/* A graph node made: a kernel node's function and shape remembered. */
void on_graph_node(const CUpti_GraphData *gd);

#endif
