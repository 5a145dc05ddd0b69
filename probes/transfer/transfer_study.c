/*
 * transfer_study.c - the study's section on host transfers (pinned, pageable,
 * mapped, managed memory) and peer access, computed from
 * results/h200/transfer/transfer.csv (one GPU) and
 * results/h200x2/transfer-p2p.csv (two GPUs) when they are committed;
 * otherwise it says plainly that no measurement is there yet. Every number is
 * read from the CSVs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transfer_plotdata.h"

/* The row of a host/device copy on the first device: direction, host
 * memory ("" for d2d), method memcpy, no prefetch, `bytes`. */
static const mp_rep_row *find(const mp_rep_data *d, const char *dir,
                              const char *host, const char *src,
                              const char *peer, double bytes)
{
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double b;
        if (r->device != 0
            || strcmp(mp_rep_text(d, r, MP_F_PROBE), "transfer")
            || strcmp(mp_rep_text(d, r, MP_F_DIRECTION), dir)
            || strcmp(mp_rep_text(d, r, MP_F_HOST_MEMORY), host)
            || strcmp(mp_rep_text(d, r, MP_F_METHOD), "memcpy")
            || !strcmp(mp_rep_text(d, r, MP_F_PREFETCH), "on")
            || strcmp(mp_rep_text(d, r, MP_F_VERIFIED), "yes")
            || (src && strcmp(mp_rep_text(d, r, MP_F_SRC_DEVICE), src))
            || (peer && strcmp(mp_rep_text(d, r, MP_F_PEER_ACCESS), peer))
            || mp_rep_num(d, r, MP_F_BYTES, &b) || b != bytes)
            continue;
        return r;
    }
    return NULL;
}

/* The largest size measured for direction/host memory, 0 if none. */
static double largest(const mp_rep_data *d, const char *dir,
                      const char *host)
{
    double best = 0;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        double b;
        if (r->device == 0
            && !strcmp(mp_rep_text(d, r, MP_F_PROBE), "transfer")
            && !strcmp(mp_rep_text(d, r, MP_F_DIRECTION), dir)
            && !strcmp(mp_rep_text(d, r, MP_F_HOST_MEMORY), host)
            && mp_rep_num(d, r, MP_F_BYTES, &b) == 0 && b > best)
            best = b;
    }
    return best;
}

/* "52.1 GB/s (82.7% of pcie gen5 x16)" or "-". */
static void describe(const mp_rep_data *d, const mp_rep_row *r, char *buf,
                     size_t len)
{
    double g, f;
    if (!r || mp_rep_num(d, r, MP_F_BANDWIDTH, &g)) {
        snprintf(buf, len, "not measured");
        return;
    }
    if (mp_rep_num(d, r, MP_F_FRACTION, &f) == 0)
        snprintf(buf, len, "%.1f GB/s (%.1f%% of %s)", g, 100 * f,
                 mp_rep_text(d, r, MP_F_LINK));
    else
        snprintf(buf, len, "%.1f GB/s (link ceiling unknown: %s)", g,
                 mp_rep_text(d, r, MP_F_LINK));
}

static double gbs(const mp_rep_data *d, const mp_rep_row *r)
{
    double g;
    return r && mp_rep_num(d, r, MP_F_BANDWIDTH, &g) == 0 ? g : NAN;
}

static void size_text(double b, char *buf, size_t len)
{
    if (b >= 1 << 30)
        snprintf(buf, len, "%g GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        snprintf(buf, len, "%g MiB", b / (1 << 20));
    else
        snprintf(buf, len, "%g KiB", b / 1024);
}

static void host_part(const mp_rep_data *d, const char *dir, FILE *out)
{
    double big = largest(d, "h2d", "pinned");
    if (big == 0) {
        fprintf(out, "No H200 measurement of host transfers is committed "
                "yet: `scripts/gpu-check.sh build transfer` writes %s/"
                "transfer/transfer.csv (configs/transfer.conf), and this "
                "section is computed from it.\n\n", dir);
        return;
    }
    char sz[32], a[256], b[256];
    size_text(big, sz, sizeof sz);
    fprintf(out, "From `%s/transfer/transfer.csv` (copy engines, "
            "`cudaMemcpyAsync`; every copy verified), at %s per copy:\n\n",
            dir, sz);
    static const char *const dirs[] = {"h2d", "d2h", "bidir"};
    for (int k = 0; k < 3; k++) {
        const mp_rep_row *pin = find(d, dirs[k], "pinned", NULL, NULL, big);
        const mp_rep_row *pag = find(d, dirs[k], "pageable", NULL, NULL,
                                     big);
        describe(d, pin, a, sizeof a);
        describe(d, pag, b, sizeof b);
        fprintf(out, "- **%s**: pinned %s, pageable %s", dirs[k], a, b);
        double r = gbs(d, pin) / gbs(d, pag);
        if (isfinite(r))
            fprintf(out, ": pinned memory moves %.2fx as much per second",
                    r);
        fprintf(out, ".\n");
    }
    static const char *const kinds[] = {"mapped", "managed"};
    for (int k = 0; k < 2; k++) {
        describe(d, find(d, "h2d", kinds[k], NULL, NULL, big), a, sizeof a);
        fprintf(out, "- **h2d from %s memory** (copy engines): %s.\n",
                kinds[k], a);
    }
    double small = big;
    for (int i = 0; i < d->nrows; i++) {
        double x;
        const mp_rep_row *r = &d->rows[i];
        if (r->device == 0
            && !strcmp(mp_rep_text(d, r, MP_F_PROBE), "transfer")
            && mp_rep_num(d, r, MP_F_BYTES, &x) == 0 && x < small)
            small = x;
    }
    const mp_rep_row *lp = find(d, "h2d", "pinned", NULL, NULL, small);
    const mp_rep_row *lg = find(d, "h2d", "pageable", NULL, NULL, small);
    double us1, us2;
    if (lp && lg && mp_rep_num(d, lp, MP_F_LATENCY_US, &us1) == 0
        && mp_rep_num(d, lg, MP_F_LATENCY_US, &us2) == 0) {
        size_text(small, sz, sizeof sz);
        fprintf(out, "- **Small copies** (%s): one h2d copy takes %.1f us "
                "from pinned and %.1f us from pageable memory: at this "
                "size the fixed cost of a copy, not the link, sets the "
                "time.\n", sz, us1, us2);
    }
    double dbig = largest(d, "d2d", "");
    describe(d, find(d, "d2d", "", NULL, NULL, dbig), a, sizeof a);
    size_text(dbig, sz, sizeof sz);
    if (dbig > 0)
        fprintf(out, "- **d2d** (%s, bytes copied per second): %s.\n", sz, a);
    fprintf(out, "\nBandwidth against size: ![transfer bandwidth]"
            "(plots/transfer-bandwidth.svg)\n\n");
}

static void peer_part(const char *dir, FILE *out)
{
    /* The two-GPU runs sit beside the one-GPU folder: results/h200x2. */
    char two[4096], path[4200];
    snprintf(two, sizeof two, "%s", dir);
    char *slash = strrchr(two, '/');
    snprintf(slash ? slash + 1 : two, sizeof two - (size_t)(slash ? slash + 1 - two : 0),
             "h200x2");
    snprintf(path, sizeof path, "%s/transfer-p2p.csv", two);
    mp_rep_data p;
    char err[512];
    const char *paths[] = {path};
    if (access(path, R_OK)
        || mp_rep_load(&p, 1, paths, NULL, NULL, err, sizeof err)) {
        fprintf(out, "No two-GPU measurement is committed yet: "
                "`scripts/gpu-check.sh build multigpu` on the two-GPU H200 "
                "writes %s (configs/transfer-p2p.conf: both ways, peer "
                "access on and off).\n", path);
        return;
    }
    double big = 0;
    for (int i = 0; i < p.nrows; i++) {
        double b;
        if (!strcmp(mp_rep_text(&p, &p.rows[i], MP_F_DIRECTION), "p2p")
            && mp_rep_num(&p, &p.rows[i], MP_F_BYTES, &b) == 0 && b > big)
            big = b;
    }
    char sz[32], a[256], b[256];
    size_text(big, sz, sizeof sz);
    fprintf(out, "From `%s` (two GPUs, `cudaMemcpyPeerAsync`), at %s:\n\n",
            path, sz);
    static const char *const srcs[] = {"0", "1"};
    for (int k = 0; k < 2; k++) {
        const mp_rep_row *on = find(&p, "p2p", "", srcs[k], "on", big);
        const mp_rep_row *off = find(&p, "p2p", "", srcs[k], "off", big);
        describe(&p, on, a, sizeof a);
        describe(&p, off, b, sizeof b);
        fprintf(out, "- **GPU %s to GPU %s**: peer access on %s; off "
                "(staged through the host) %s", srcs[k], srcs[1 - k], a, b);
        double r = gbs(&p, on) / gbs(&p, off);
        if (isfinite(r))
            fprintf(out, ": direct access moves %.1fx as much", r);
        fprintf(out, ".\n");
    }
    fprintf(out, "\n");
    mp_rep_table *t = mp_rep_table_build(&p, "peers");
    mp_rep_table_print(t, MP_REP_MD, 0, out);
    mp_rep_table_free(t);
    mp_rep_free(&p);
}

void mp_study_transfer(const mp_rep_data *d, const char *results_dir,
                       FILE *out)
{
    fprintf(out, "\n## Host transfers and peer access\n\n"
            "`memprobe transfer` copies between host and device (pinned, "
            "pageable, mapped and managed host memory), within the device "
            "and between two GPUs, and sets each copy against the ceiling "
            "of the link it crosses (PCIe generation and width, NVLink "
            "count and version, as the driver's NVML reports them).\n\n"
            "### Pinned against pageable host memory\n\n");
    host_part(d, results_dir, out);
    fprintf(out, "### Peer access\n\n");
    peer_part(results_dir, out);
}
