/*
 * sector_model.c - global-memory sector model and the layouts' instruction
 * lists (see sector_model.h).
 *
 * Sectors: the distinct 32-byte sectors the active lanes touch. A lane
 * accessing `width` <= 16 bytes touches one sector, or two when its bytes
 * cross a sector boundary (impossible when the address is a multiple of
 * the width, as in every probe configuration: 4, 8 and 16 all divide 32).
 * Lines: the same with 128-byte lines. Ideal: the distinct bytes (the
 * union of the lanes' byte ranges) packed from an aligned address:
 * ceil(bytes / 32).
 *
 * Requests per instruction: 1 for every width. NVIDIA describes L1TEX on
 * Volta and later as receiving ONE request per warp-level global, local or
 * shared instruction, cut internally into wavefronts when it needs more
 * lines or sectors than one cycle handles (Nsight Compute forum, "What's
 * the difference between wavefronts and sectors/req"). The seeds' era
 * split 64- and 128-bit accesses into half- and quarter-warp transactions
 * instead. Which holds for l1tex__t_requests_pipe_lsu_mem_global_op_
 * {ld,st}.sum on sm_90 is what the H200 run decides (requests against
 * warps x iterations); sectors per instruction do not depend on it,
 * sectors per request do. Also open until measured: whether a sector that
 * two wavefronts of one request both need (16-byte lanes repeating with
 * period 8, say) is counted once, as here, or once per wavefront.
 */
#include "sector_model.h"

#include <stdlib.h>
#include <string.h>

const char *const mp_layout_names[] = {
    [MP_LAYOUT_PATTERN] = "pattern",
    [MP_LAYOUT_SOA] = "soa",
    [MP_LAYOUT_AOS12] = "aos12",
    [MP_LAYOUT_AOS16] = "aos16",
    [MP_LAYOUT_AOS12_STAGED] = "aos12-staged",
    [MP_LAYOUT_COUNT] = NULL,
};

/* Requests one warp-level instruction makes; see the top of the file. */
static int requests_per_instruction(int width, int is_store)
{
    (void)width;
    (void)is_store;
    return 1;
}

/* Adds x to set[0..*n) unless it is there already. */
static void add_distinct(long long *set, int *n, long long x)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == x)
            return;
    set[(*n)++] = x;
}

/* Counts the distinct units of `unit` bytes that [a, a+w) of every lane
 * touches. Each lane touches at most 2 (w <= 16 <= unit). */
static int distinct_units(const mp_global_access *a, long long unit)
{
    long long seen[2 * MP_WARP_SIZE];
    int n = 0;
    for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
        if (!(a->active >> lane & 1u))
            continue;
        long long first = a->addr[lane] / unit;
        long long last = (a->addr[lane] + a->width - 1) / unit;
        for (long long u = first; u <= last; u++)
            add_distinct(seen, &n, u);
    }
    return n;
}

static int compare_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* Bytes in the union of the active lanes' [addr, addr + width). */
static int union_bytes(const mp_global_access *a)
{
    long long start[MP_WARP_SIZE];
    int n = 0;
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        if (a->active >> lane & 1u)
            start[n++] = a->addr[lane];
    qsort(start, (size_t)n, sizeof start[0], compare_ll);
    long long bytes = 0, covered = -1;   /* first byte not yet counted */
    for (int i = 0; i < n; i++) {
        long long lo = start[i] > covered ? start[i] : covered;
        long long hi = start[i] + a->width;
        if (hi > lo)
            bytes += hi - lo;
        if (hi > covered)
            covered = hi;
    }
    return (int)bytes;
}

void mp_sector_predict(const mp_global_access *a, mp_sector_prediction *p)
{
    memset(p, 0, sizeof *p);
    long long addrs[MP_WARP_SIZE];
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        if (a->active >> lane & 1u)
            add_distinct(addrs, &p->distinct_addresses, a->addr[lane]);
    if (p->distinct_addresses == 0)
        return;
    p->sectors = distinct_units(a, MP_SECTOR_BYTES);
    p->lines = distinct_units(a, MP_LINE_BYTES);
    p->bytes = union_bytes(a);
    p->ideal_sectors = (p->bytes + MP_SECTOR_BYTES - 1) / MP_SECTOR_BYTES;
    p->requests = requests_per_instruction(a->width, a->is_store);
    p->sectors_per_request = (double)p->sectors / p->requests;
}

void mp_sector_predict_pattern(const mp_pattern *pattern, long long offset,
                               int width, int is_store,
                               mp_sector_prediction *p)
{
    mp_pattern flat = *pattern;
    flat.pad = 0;
    mp_global_access a;
    a.width = width;
    a.is_store = is_store;
    a.active = 0xffffffffu;
    mp_pattern_offsets(&flat, width, a.addr);
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        a.addr[lane] += offset;
    mp_sector_predict(&a, p);
}

/* ---- layouts ------------------------------------------------------------
 *
 * Element e of a warp is e0 + lane with e0 a multiple of 32, so an array of
 * S-byte elements puts lane 0 at S * e0 = 32 * S * m bytes, a multiple of
 * 128 for S = 4, 12 and 16: every instruction below starts 128-byte
 * aligned. PTX from nvcc 13.0 -arch=sm_90 (probes/coalesce/coalesce.cu):
 *   soa           ld.global.f32 x3 (x[e], y[e], z[e]), lanes 4 B apart
 *   aos12         ld.global.f32 x3 at +0, +4, +8 of a 12-byte struct
 *   aos16         ld.global.v4.f32 x1 (the padded struct in one load)
 *   aos12-staged  ld.global.f32 x3: fdata[tid + k * blockDim.x], lanes
 *                 4 B apart, then ld.shared temp[tid * 3 + k]
 *   every layout  st.global.f32 out[e], lanes 4 B apart
 * The SASS must show LDG.E / LDG.E.128 / STG.E the same way (the lead
 * checks it with cuobjdump -sass on the GPU machine). */

int mp_layout_instructions(mp_layout layout,
                           mp_layout_inst out[MP_LAYOUT_MAX_INST])
{
    int n = 0;
    switch (layout) {
    case MP_LAYOUT_SOA:
        out[n++] = (mp_layout_inst){"LDG.32 x[e]", 0, 4, 0, 4};
        out[n++] = (mp_layout_inst){"LDG.32 y[e]", 0, 4, 0, 4};
        out[n++] = (mp_layout_inst){"LDG.32 z[e]", 0, 4, 0, 4};
        break;
    case MP_LAYOUT_AOS12:
        out[n++] = (mp_layout_inst){"LDG.32 data[e].x", 0, 4, 0, 12};
        out[n++] = (mp_layout_inst){"LDG.32 data[e].y", 0, 4, 4, 12};
        out[n++] = (mp_layout_inst){"LDG.32 data[e].z", 0, 4, 8, 12};
        break;
    case MP_LAYOUT_AOS16:
        out[n++] = (mp_layout_inst){"LDG.128 data[e]", 0, 16, 0, 16};
        break;
    case MP_LAYOUT_AOS12_STAGED:
        out[n++] = (mp_layout_inst){"LDG.32 fdata[tid]", 0, 4, 0, 4};
        out[n++] = (mp_layout_inst){"LDG.32 fdata[tid+T]", 0, 4, 0, 4};
        out[n++] = (mp_layout_inst){"LDG.32 fdata[tid+2T]", 0, 4, 0, 4};
        break;
    default:
        return 0;
    }
    out[n++] = (mp_layout_inst){"STG.32 out[e]", 1, 4, 0, 4};
    return n;
}

int mp_layout_predict(mp_layout layout, mp_layout_prediction *p)
{
    mp_layout_inst inst[MP_LAYOUT_MAX_INST];
    int n = mp_layout_instructions(layout, inst);
    memset(p, 0, sizeof *p);
    if (n == 0)
        return -1;
    for (int i = 0; i < n; i++) {
        mp_global_access a;
        a.width = inst[i].width;
        a.is_store = inst[i].is_store;
        a.active = 0xffffffffu;
        for (int lane = 0; lane < MP_WARP_SIZE; lane++)
            a.addr[lane] = inst[i].first + lane * inst[i].lane_stride;
        mp_sector_prediction s;
        mp_sector_predict(&a, &s);
        if (inst[i].is_store) {
            p->st_instructions++;
            p->st_requests += s.requests;
            p->st_sectors += s.sectors;
        } else {
            p->ld_instructions++;
            p->ld_requests += s.requests;
            p->ld_sectors += s.sectors;
            p->ld_ideal_sectors += s.ideal_sectors;
            p->ld_lines += s.lines;
            p->ld_bytes += s.bytes;
        }
    }
    return 0;
}
