/*
 * inject_switch.c - per kernel (--per-kernel, MEMPROBE_PER_KERNEL=N):
 * each launch counted under its kernel, grid and block (a graph under its
 * number), only the first N of each profiled, and SASS metrics switched
 * off on every context once a loop's whole iteration needed none, on
 * again on a context for a launch still wanted. inject_switch.h is the
 * interface.
 */
#include "inject_switch.h"

#include <stdio.h>
#include <stdlib.h>

#include "inject_context.h"
#include "inject_flush.h"
#include "inject_say.h"

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
 * fewer than N. Sets *pk, *pk_profile and k->profile. */
void per_kernel_decide(const launch_desc *ld, launch_key *k, size_t *pk,
                       int *pk_profile)
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
    *pk = (size_t)(e - g.kernels.v) + 1;
    *pk_profile = k->profile;
}

/* At a launch's exit: counted under its kernel (made: the call
 * succeeded). */
void per_kernel_count(size_t pk, int pk_profile, int made)
{
    if (pk)
        ic_kernel_done(&g.kernels, &g.kernels.v[pk - 1],
                       pk_profile, made);
    if (made)
        g.pk_streak = pk && pk_profile ? 0 : g.pk_streak + 1;
}

/* --per-kernel: once as many launches in a row as there are kernels seen
 * were not profiled (a loop's whole iteration: a program still meeting
 * new kernels does not switch at each), SASS metrics go off on every
 * context: later launches run unpatched, with nothing to synchronise or
 * flush. A launch still wanted (its kernel short of N: one launched once
 * at start stays short for good, so "every kernel has its N" is no
 * condition) turns them on again on its context (per_kernel_resume). */
void per_kernel_pause(void)
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

void per_kernel_resume(context_info *c)
{
    if (c && c->paused) {
        dbg("--per-kernel: a launch to profile: SASS metrics on again on "
            "context %p", (void *)c->ctx);
        enable_context(c);
    }
}
