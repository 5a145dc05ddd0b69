/*
 * inject_records.c - the SASS records: synchronise a context and flush
 * the records CUPTI gathered, each instruction's source line from its
 * cubin, and the values added to the per-instruction table and to a
 * launch row. inject_records.h is the interface.
 */
#include "inject_records.h"

#include <cupti_pcsampling.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject_context.h"
#include "inject_module.h"
#include "inject_say.h"

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

void free_records(records *rs)
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
void add_record(const CUpti_SassMetrics_Data *r, size_t ninst,
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

/* Synchronises and flushes: *why says what failed (NULL: fine). */
void sync_flush(context_info *c, records *rs, const char **why)
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
