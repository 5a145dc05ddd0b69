/*
 * cluster_tables.c - the cluster family's report table: distributed
 * shared memory, cycles per dependent load (chase) or GB/s (ld, st), by
 * op, width and target, one column group per cluster size. Built and
 * printed by report/tables.c like every other table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part.h"

#define KL MP_REP_KEYLEN

PROBE_ROWS(cluster_want, "cluster")
TEXT_KEYS(cluster_keys, MP_F_OP, MP_F_WIDTH, MP_F_METHOD)

static double cluster_group(const mp_rep_data *d, const mp_rep_row *r,
                            char *label)
{
    const char *c = mp_rep_text(d, r, MP_F_CLUSTER_SIZE);
    snprintf(label, KL, "cluster %s", c);
    return atof(c);
}

/* The chase's cycles per hop, or the loads' / stores' GB/s. */
static void cluster_values(const mp_rep_data *d, const mp_rep_row *r,
                           char v[][KL], int *mark)
{
    if (put_wrong(v[0], d, r))
        return;
    if (is(d, r, MP_F_OP, "chase"))
        put_count(v[0], d, r, MP_F_LATENCY_CYCLES, 1);
    else
        put_count(v[0], d, r, MP_F_BANDWIDTH, 0);
    mark[0] = is(d, r, MP_F_MATCH, "no");
}

const mp_rep_spec mp_rep_spec_cluster = {
    "cluster",
    "Distributed shared memory: cycles per dependent load of one thread's "
    "chase (op chase) or GB/s of every thread's loads and stores (ld, "
    "st), to the block's own shared memory (local) or the next block's "
    "of its cluster (remote), per cluster size",
    HEADERS("op", "width", "target"), HEADERS("cyc/hop or GB/s"),
    "no rows: no cluster configuration in these CSVs",
    cluster_want, cluster_keys, cluster_group, cluster_values};
