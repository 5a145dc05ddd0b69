/*
 * transfer_tables.c - the report tables of the transfer probe:
 *
 *   transfers  host <-> device and device copies: GB/s, % of the link's
 *              ceiling and the median time of one copy, by direction,
 *              method and size, one column group per host memory kind
 *   peers      copies between GPUs: the peer matrix, by direction, peer
 *              access, method, size and source GPU, one column group per
 *              destination GPU
 *
 * Built and printed by report/tables.c like every other table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part.h"

#define KL MP_REP_KEYLEN

static int transfer_row(const mp_rep_data *d, const mp_rep_row *r)
{
    return !strcmp(mp_rep_text(d, r, MP_F_PROBE), "transfer");
}

static int is_peer(const mp_rep_data *d, const mp_rep_row *r)
{
    return !strncmp(mp_rep_text(d, r, MP_F_DIRECTION), "p2p", 3);
}

/* GB/s, % of the link (empty without a ceiling), microseconds. */
static void copy_values(const mp_rep_data *d, const mp_rep_row *r,
                        char v[][KL], int *mark)
{
    (void)mark;
    if (put_wrong(v[0], d, r))
        return;
    double x;
    if (mp_rep_num(d, r, MP_F_BANDWIDTH, &x) == 0)
        mp_rep_fmt(v[0], KL, x, x < 10 ? 2 : 1);
    if (mp_rep_num(d, r, MP_F_FRACTION, &x) == 0)
        mp_rep_fmt(v[1], KL, 100 * x, 1);
    if (mp_rep_num(d, r, MP_F_LATENCY_US, &x) == 0)
        mp_rep_fmt(v[2], KL, x, x < 100 ? 2 : 0);
}

/* ---- transfers ---- */

static int host_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return transfer_row(d, r) && !is_peer(d, r);
}

TEXT_KEYS(host_keys, MP_F_DIRECTION, MP_F_METHOD, MP_F_BYTES)

static double host_group(const mp_rep_data *d, const mp_rep_row *r,
                         char *label)
{
    static const char *const order[] = {"pinned", "pageable", "mapped",
                                        "managed"};
    const char *h = mp_rep_text(d, r, MP_F_HOST_MEMORY);
    int pf = !strcmp(mp_rep_text(d, r, MP_F_PREFETCH), "on");
    if (!h[0]) {
        snprintf(label, KL, "device");
        return 10;
    }
    snprintf(label, KL, "%s%s", h, pf ? " + prefetch" : "");
    for (int i = 0; i < 4; i++)
        if (!strcmp(order[i], h))
            return i + (pf ? 0.5 : 0);
    return 9;
}

/* ---- peers ---- */

static int peer_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return transfer_row(d, r) && is_peer(d, r);
}

static void peer_keys(const mp_rep_data *d, const mp_rep_row *r,
                      char k[][KL])
{
    PUT_TEXTS(k, d, r, MP_F_DIRECTION, MP_F_PEER_ACCESS, MP_F_METHOD,
              MP_F_BYTES);
    snprintf(k[4], KL, "GPU %s", mp_rep_text(d, r, MP_F_SRC_DEVICE));
}

static double peer_group(const mp_rep_data *d, const mp_rep_row *r,
                         char *label)
{
    const char *dst = mp_rep_text(d, r, MP_F_DST_DEVICE);
    snprintf(label, KL, "to GPU %s", dst);
    return atof(dst);
}

/* Both tables' value columns (copy_values). */
static const char *const copy_sh[] = {"GB/s", "% link", "us"};

const mp_rep_spec mp_rep_transfer_specs[2] = {
    {"transfers",
     "Transfers: bandwidth (bytes moved / median time), share of the "
     "link's ceiling (PCIe generation x width from NVML, per direction; "
     "d2d: DRAM peak / 2) and the median time of one copy, by direction, "
     "method and size, per host memory kind",
     HEADERS("direction", "method", "bytes"), N(copy_sh), copy_sh,
     "no rows: no transfer configuration in these CSVs",
     host_want, host_keys, host_group, copy_values},
    {"peers",
     "Peer matrix: copies from one GPU (row) to another (column), with "
     "peer access on (direct, over NVLink or PCIe) or off (staged through "
     "the host): bandwidth, share of the link and time of one copy",
     HEADERS("direction", "peer", "method", "bytes", "from"),
     N(copy_sh), copy_sh,
     "no rows: no peer copy in these CSVs (they need two GPUs)",
     peer_want, peer_keys, peer_group, copy_values},
};

