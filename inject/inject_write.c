/*
 * inject_write.c - writing the raw files from the tables: all of them at
 * once (every N launches or T seconds, at NVTX range ends, at exit),
 * through inject_core_write.c's writers. inject_write.h is the interface.
 */
#include "inject_write.h"

#include <stdio.h>

#include "inject_say.h"
#include "inject_state.h"

void write_all(const char *end)
{
    size_t rows = g.rows.n;
    double t0 = now_s();
    /* the range pass writes range.PID.csv itself (inject_range.c) */
    if (!ir_on() && (ic_write_launches(g.dir, g.pid, &g.rows) ||
        ic_write_lines(g.dir, g.pid, &g.lines) ||
        ic_write_kernels(g.dir, g.pid, &g.kernels) ||
        ic_write_modules(g.dir, g.pid, &g.modules))) {
        if (!g.write_failed)
            fprintf(stderr, "memprobe-inject: cannot write the raw files "
                    "in %s\n", g.dir);
        g.write_failed = 1;
    }
    cost(IC_COST_WRITES, t0);
    write_status(end);
    g.since_write = 0;
    g.last_write = now_s();
    dbg("write (%s): %zu launch rows, %zu lines, %llu launches seen, "
        "%llu profiled", end, rows, g.lines.n,
        (unsigned long long)g.status.seen,
        (unsigned long long)g.status.profiled);
}

void maybe_write(void)
{
    if (g.since_write >= g.flush_launches ||
        now_s() - g.last_write >= g.flush_seconds)
        write_all("flush");
}
