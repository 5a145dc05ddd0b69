/*
 * inject_records.h - the SASS records (inject_records.c): flushed from
 * CUPTI after a synchronisation, placed on their source lines, added to
 * the per-instruction table and a launch row.
 */
#ifndef MP_INJECT_RECORDS_H
#define MP_INJECT_RECORDS_H

#include <cupti_sass_metrics.h>
#include <stddef.h>
#include <stdint.h>

#include "inject_state.h"

/* The SASS records of one flush: n records of ninst values each. */
typedef struct {
    CUpti_SassMetrics_Data *d;
    CUpti_SassMetrics_InstanceValue *v;
    size_t n, ninst;
} records;

/* Synchronises c's context and flushes its records into rs: *why says
 * what failed (NULL: fine). free_records frees them. */
void sync_flush(context_info *c, records *rs, const char **why);
void free_records(records *rs);
/* Adds one record to the per-instruction table (its launches: n from
 * launch), and to row's sums and memory instructions when row is given. */
void add_record(const CUpti_SassMetrics_Data *r, size_t ninst,
                const device_info *dev, uint64_t launch, uint64_t n,
                ic_launch *row);

#endif
