/*
 * bank_model.c - shared-memory wavefront model (see bank_model.h).
 *
 * The request is cut into phases of consecutive lanes. Within a phase each
 * bank delivers one distinct 4-byte word per wavefront (lanes asking for the
 * same word share it), so a phase costs as many wavefronts as its busiest
 * bank has distinct words; the request costs the sum over its phases.
 *
 * How many lanes make a phase was measured on the H200 (sm_90) with
 * ncu, 1020 configurations of results/h200 (strides 0..64, group/period
 * patterns, padding), not taken from the documentation:
 *
 *   width  load                          store
 *   4      32 lanes                      32 lanes
 *   8      16 lanes, or 32 when paired   16 lanes
 *   16      8 lanes, or 16 when paired    8 lanes
 *
 * "Paired": every pair of lanes (2i, 2i+1) reads the same address. Then a
 * load moves one element per pair, and twice as many lanes fit in a phase
 * (stride 0 with 8-byte loads costs 1 wavefront, not 2; with 16-byte loads
 * 2, not 4). Lanes that repeat an address further away (period 16 or 8)
 * are NOT merged: lane 16 re-reading lane 0's element still costs its own
 * phase. Stores never merge.
 */
#include "bank_model.h"

#include <string.h>

/* Distinct words per bank for the lanes [first, first+count) of `a`;
 * returns the worst bank's count (0 if no lane is active). */
static int busiest_bank(const mp_warp_access *a, int first, int count,
                        int *distinct_words)
{
    /* Each lane touches at most 4 words, so 128 words at most. */
    long long words[MP_WARP_SIZE * 4];
    int nwords = 0;
    int per_bank[MP_SHARED_BANKS];
    memset(per_bank, 0, sizeof per_bank);

    for (int lane = first; lane < first + count; lane++) {
        if (!(a->active >> lane & 1u))
            continue;
        long long w0 = a->offset[lane] / MP_BANK_BYTES;
        for (int j = 0; j < a->width / MP_BANK_BYTES; j++) {
            long long w = w0 + j;
            int seen = 0;
            for (int i = 0; i < nwords && !seen; i++)
                seen = words[i] == w;
            if (seen)
                continue;
            words[nwords++] = w;
            per_bank[w % MP_SHARED_BANKS]++;
        }
    }
    int worst = 0;
    for (int b = 0; b < MP_SHARED_BANKS; b++)
        if (per_bank[b] > worst)
            worst = per_bank[b];
    if (distinct_words)
        *distinct_words = nwords;
    return worst;
}

/* True when every pair of lanes (2i, 2i+1) that are both active touches
 * one address. */
static int lanes_paired(const mp_warp_access *a)
{
    for (int lane = 0; lane < MP_WARP_SIZE; lane += 2) {
        int both = (a->active >> lane & 3u) == 3u;
        if (both && a->offset[lane] != a->offset[lane + 1])
            return 0;
    }
    return 1;
}

/* Lanes per phase: 128 bytes' worth, doubled for paired wide loads. */
static int phase_lanes(const mp_warp_access *a)
{
    int lanes = 128 / a->width;
    if (!a->is_store && a->width > 4 && lanes_paired(a))
        lanes *= 2;
    return lanes;
}

void mp_bank_predict(const mp_warp_access *a, mp_bank_prediction *p)
{
    int lanes = phase_lanes(a);
    memset(p, 0, sizeof *p);
    for (int first = 0; first < MP_WARP_SIZE; first += lanes) {
        int words = 0;
        int w = busiest_bank(a, first, lanes, &words);
        p->wavefronts += w;
        /* Without conflicts a phase needs one wavefront per 32 words. */
        if (w > 0)
            p->ideal += (words + MP_SHARED_BANKS - 1) / MP_SHARED_BANKS;
    }
    p->max_words_per_bank =
        busiest_bank(a, 0, MP_WARP_SIZE, &p->distinct_words);
    p->conflict_ways = p->ideal ? (double)p->wavefronts / p->ideal : 0.0;
}

void mp_bank_predict_pattern(const mp_pattern *pattern, int width,
                             int is_store, mp_bank_prediction *p)
{
    mp_warp_access a;
    a.width = width;
    a.is_store = is_store;
    a.active = 0xffffffffu;
    mp_pattern_offsets(pattern, width, a.offset);
    mp_bank_predict(&a, p);
}

void mp_bank_predict_block(const long long *offset, int threads, int width,
                           int is_store, mp_bank_block_prediction *p)
{
    long long wf = 0, ideal = 0, words = 0;
    int warps = 0;
    memset(p, 0, sizeof *p);
    for (int first = 0; first < threads; first += MP_WARP_SIZE, warps++) {
        mp_warp_access a;
        mp_bank_prediction w;
        a.width = width;
        a.is_store = is_store;
        a.active = 0;
        for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
            a.offset[lane] = 0;
            if (first + lane < threads) {
                a.offset[lane] = offset[first + lane];
                a.active |= 1u << lane;
            }
        }
        mp_bank_predict(&a, &w);
        wf += w.wavefronts;
        ideal += w.ideal;
        words += w.distinct_words;
        if (w.wavefronts > p->worst_warp)
            p->worst_warp = w.wavefronts;
        if (w.max_words_per_bank > p->max_words_per_bank)
            p->max_words_per_bank = w.max_words_per_bank;
    }
    if (warps == 0)
        return;
    p->wavefronts = (double)wf / warps;
    p->ideal = (double)ideal / warps;
    p->distinct_words = (double)words / warps;
    p->conflict_ways = ideal ? (double)wf / (double)ideal : 0.0;
}

/* ldmatrix / stmatrix - HYPOTHESIS, not yet measured: each of the N
 * matrices is its own phase of 8 rows x 16 bytes = 128 bytes; a 16-byte
 * row covers the 4 banks of group (address / 16) % 8, so a matrix costs as
 * many wavefronts as its busiest group has distinct rows (rows with the
 * same address share), and ideal = N. This is exactly the 16-byte
 * store's rule (8 lanes a phase, no pair merging), applied to the row
 * addresses; .trans moves the same bytes and is predicted the same. The
 * GPU test (tests/gpu/test_gpu_matrix.c) compares it with the LDSM/STSM
 * counters of every configuration of configs/matrix.conf. */
void mp_bank_predict_matrix(const long long *row_offset, int matrices,
                            mp_bank_prediction *p)
{
    mp_warp_access a;
    a.width = 16;
    a.is_store = 1;    /* never merge lane pairs */
    a.active = 0;
    for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
        int used = lane < 8 * matrices;
        a.offset[lane] = used ? row_offset[lane] : 0;
        if (used)
            a.active |= 1u << lane;
    }
    mp_bank_predict(&a, p);
}

/* Distinct values among the n in v[] (n <= 4 x 32). */
static int distinct(const long long *v, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = v[j] == v[i];
        d += !seen;
    }
    return d;
}

/* Whether lanes a and b of a copy read the same 128-byte line (both
 * zero fills count as one group). */
static int same_line(const long long *src, int a, int b)
{
    if (src[a] == MP_COPY_NO_SOURCE || src[b] == MP_COPY_NO_SOURCE)
        return src[a] == src[b];
    return src[a] / 128 == src[b] / 128;
}

/* An LDGSTS's shared wavefronts (docs/findings.md, "LDGSTS"), fitted to
 * the async family's replays of single copies (--offsets, --src-offsets)
 * and met on the captured copies of cuBLAS, CUTLASS, Triton and
 * copy_tile. The copy writes its words line by line: the source lines in
 * the order of their first lanes (line k = 0, 1, ...), a line's lanes in
 * lane order, a lane's words in address order. Each word has a place,
 * its 4-byte offset in its 128-byte source line. A write to bank b goes
 * out at step k plus the number of earlier writes to b from another
 * place, and after b's previous write; a line finishes at its last
 * write's step, or one after the line before it, whichever is later
 * (lines finish in order); the copy costs its last line's finish + 1,
 * and at least its destinations' bank rule as one store (zero-fill
 * lanes count there only). Words from the same place meet on a bank
 * without waiting: the same destinations cost 4 wavefronts from four
 * lines read at one place and 7 from four places. Where it misses:
 * 16-byte .cg copies (LDGSTS.E.BYPASS) measured up to twice it. */
void mp_bank_predict_copy(const mp_warp_access *dst, const long long *src,
                          mp_copy_prediction *p)
{
    mp_bank_prediction whole;
    long long sector[MP_WARP_SIZE * 2], line[MP_WARP_SIZE];
    int nsec = 0, nline = 0;
    memset(p, 0, sizeof *p);
    mp_bank_predict(dst, &whole);
    p->dst_wavefronts = whole.wavefronts;
    p->ideal = whole.ideal;
    for (int lane = 0; lane < MP_WARP_SIZE; lane++) {
        if (!(dst->active >> lane & 1u) || src[lane] == MP_COPY_NO_SOURCE)
            continue;
        sector[nsec++] = src[lane] / 32;
        if ((src[lane] + dst->width - 1) / 32 != src[lane] / 32)
            sector[nsec++] = (src[lane] + dst->width - 1) / 32;
        line[nline++] = src[lane] / 128;
    }
    p->src_sectors = distinct(sector, nsec);
    p->src_lines = distinct(line, nline);

    /* per bank: its last step, its writes, its writes from each place */
    int last[MP_SHARED_BANKS], total[MP_SHARED_BANKS] = {0};
    unsigned char from[MP_SHARED_BANKS][MP_SHARED_BANKS] = {{0}};
    int done = -1;   /* the step the lines so far finished at */
    for (int b = 0; b < MP_SHARED_BANKS; b++)
        last[b] = -1;
    uint32_t left = 0;
    for (int lane = 0; lane < MP_WARP_SIZE; lane++)
        if ((dst->active >> lane & 1u) && src[lane] != MP_COPY_NO_SOURCE)
            left |= 1u << lane;
    for (int k = 0; left; k++) {
        int first = __builtin_ctz(left);
        long long words[MP_WARP_SIZE * 4];
        int nwords = 0, finish = -1;
        for (int lane = first; lane < MP_WARP_SIZE; lane++) {
            if (!(left >> lane & 1u) || !same_line(src, first, lane))
                continue;
            left &= ~(1u << lane);
            for (int j = 0; j < dst->width / MP_BANK_BYTES; j++) {
                long long w = dst->offset[lane] / MP_BANK_BYTES + j;
                int seen = 0;   /* a word the line already wrote */
                for (int i = 0; i < nwords && !seen; i++)
                    seen = words[i] == w;
                if (seen)
                    continue;
                words[nwords++] = w;
                int b = (int)(w % MP_SHARED_BANKS);
                int place = (int)(src[lane] % 128 / MP_BANK_BYTES + j)
                            % MP_SHARED_BANKS;
                int waits = total[b] - from[b][place];
                int step = k + waits > last[b] ? k + waits : last[b] + 1;
                last[b] = step;
                total[b]++;
                from[b][place]++;
                if (waits > p->place_waits)
                    p->place_waits = waits;
                if (step > finish)
                    finish = step;
            }
        }
        done = finish > done ? finish : done + 1;   /* lines finish in order */
    }
    p->wavefronts = done + 1;
    if (p->wavefronts < p->dst_wavefronts)
        p->wavefronts = p->dst_wavefronts;
}
