/*
 * reduce_study.c - the study's reduction claims (the tree in shared memory,
 * clock() timing, the barrier in divergent code) and the reduction table
 * section. report/claims.h says what a claim group holds;
 * report/study.c writes the document.
 */
#include "claims.h"

static double red_us(ctx *c, const char *variant, const char *work,
                     const char *blocks)
{
    char cfg[96];
    snprintf(cfg, sizeof cfg, "reduce/%s/%s/n%s/t256/%s", variant, work,
             strcmp(work, "dot") ? "1048576" : "33792", blocks);
    return v(c, cfg, MP_F_TIME_NS) / 1e3;
}

static verdict reduction(ctx *c, char *m, char *why, size_t len)
{
    double s32 = red_us(c, "thread0-serial", "dot", "b32");
    double t32 = red_us(c, "tree-sequential", "dot", "b32");
    double w32 = red_us(c, "warp-shuffle", "dot", "b32");
    double sc = red_us(c, "thread0-serial", "cubes", "b32");
    double tc = red_us(c, "tree-sequential", "cubes", "b32");
    double sf = red_us(c, "thread0-serial", "cubes", "b0");
    double tf = red_us(c, "tree-sequential", "cubes", "b0");
    double wf = red_us(c, "warp-shuffle", "cubes", "b0");
    double big_s = v(c, "reduce/thread0-serial/dot/n67108864/t256/b0",
                     MP_F_TIME_NS) / 1e3;
    double big_t = v(c, "reduce/tree-sequential/dot/n67108864/t256/b0",
                     MP_F_TIME_NS) / 1e3;
    say(m, len, "Dot product of 33792 floats on the seeds' 32 blocks of "
        "256 threads: thread 0 adding the block's 256 partials %s us, the "
        "halving tree %s us, warp shuffles %s us. Sum of 2^20 cubes: %s "
        "against %s us on 32 blocks, %s against %s us (shuffles %s us) on "
        "a full GPU. A 2^26-float dot product: %s against %s us.", F1(s32),
        F1(t32), F1(w32), F1(sc), F1(tc), F1(sf), F1(tf), F1(wf),
        F1(big_s), F1(big_t));
    char tree_wins[512];
    say(tree_wins, sizeof tree_wins, "The tree's log2(256) = 8 steps beat "
        "255 serial additions (%sx on the seeds' dot product), and warp "
        "shuffles, which need no shared memory for 31 of every 32 partials, "
        "beat the tree; once the input is large the loads dominate and "
        "every way of combining the partials costs within %s%% of the "
        "others.", F1(s32 / t32), F1(100 * fabs(big_s - big_t) / big_t));
    return verdict_of(c, t32 < s32 && tc < sc && tf < sf, why, len,
                      tree_wins, "Thread 0 alone is as fast as the tree here.");
}

static verdict clock_timing(ctx *c, char *m, char *why, size_t len)
{
    const char *cfg = "reduce/tree-sequential/cubes/n1048576/t256/b32";
    double span = v(c, cfg, MP_F_CLOCK_SPAN);
    double block = v(c, cfg, MP_F_CLOCK_BLOCK);
    double ns = v(c, cfg, MP_F_TIME_NS);
    double mhz = v(c, cfg, MP_F_SM_CLOCK);
    double event = ns * mhz / 1e3;   /* the event time in SM cycles */
    say(m, len, "Sum of 2^20 cubes on 32 blocks: CUDA events time the "
        "launch at %s us, %s SM cycles at %s MHz; clock64() from the "
        "earliest block start to the latest block end spans %s cycles, the "
        "median block %s.", F1(ns / 1e3), N0(event), N0(mhz), N0(span),
        N0(block));
    char apart[512];
    say(apart, sizeof apart, "Each SM counts its own clock and the counters "
        "are not in step, so a span across blocks on different SMs is %sx "
        "the real time; a single block's own start and end are meaningful "
        "(%s%% of the event time here, blocks overlap), but the kernel's "
        "time needs CUDA events.", N0(span / event), N0(100 * block / event));
    return OUTCOMES(c, why, len,
        {span > 1.5 * event || span < 0.5 * event, FAILS, apart},
        {1, HOLDS, "The span agrees with the event time."});
}

/* The hazard catalogue's CSV (`memprobe hazards`, committed from make
 * test-gpu): one row per hazard, block size and tool. */
#define HAZARDS_CSV "hazards/catalogue/hazards.csv"

static verdict divergent_barrier(ctx *c, char *m, char *why, size_t len)
{
    static const char *const tools[] = {"memcheck", "racecheck",
                                        "synccheck", "initcheck"};
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", c->dir, HAZARDS_CSV);
    mp_csv_table t;
    if (mp_csv_table_read(path, &t, err, sizeof err)) {
        snprintf(c->missing, sizeof c->missing, "%.200s", err);
        return UNMEASURED;
    }
    note_source(c, HAZARDS_CSV);
    int hz = mp_csv_column(&t, "hazard"), tool = mp_csv_column(&t, "tool");
    int outcome = mp_csv_column(&t, "outcome");
    int result = mp_csv_column(&t, "result");
    int threads = mp_csv_column(&t, "threads");
    int blocks = mp_csv_column(&t, "blocks");
    const char *plain = NULL, *said[4] = {NULL, NULL, NULL, NULL};
    const char *nthreads = "?", *nblocks = "?";
    int caught = 0, timeouts = 0;
    for (int r = 0; hz >= 0 && tool >= 0 && outcome >= 0 && result >= 0
                    && threads >= 0 && blocks >= 0 && r < t.nrows; r++) {
        char *const *row = t.cells[r];
        if (strcmp(row[hz], "sync-in-divergent-if"))
            continue;
        nthreads = row[threads];
        nblocks = row[blocks];
        timeouts += !strcmp(row[outcome], "timeout");
        if (!strcmp(row[tool], "none"))
            plain = row[result];
        for (int k = 0; k < 4; k++)
            if (!strcmp(row[tool], tools[k])) {
                said[k] = strcmp(row[outcome], "caught") ? "not caught"
                                                         : "CAUGHT";
                caught += !strcmp(row[outcome], "caught");
            }
    }
    verdict vd = UNMEASURED;
    if (!plain || !said[0] || !said[1] || !said[2] || !said[3]) {
        snprintf(c->missing, sizeof c->missing, "no complete "
                 "sync-in-divergent-if rows in `%s`", HAZARDS_CSV);
    } else {
        say(m, len, "The seed's kernel with `__syncthreads()` inside `if "
            "(cacheIndex < i)`, %s threads per block, %s blocks: %d of its "
            "5 runs hit the time limit; the plain run's sum was %s; "
            "memcheck %s, racecheck %s, synccheck %s, initcheck %s.",
            nthreads, nblocks, timeouts, plain, said[0], said[1], said[2],
            said[3]);
        if (!strcmp(plain, "right") && caught == 0 && timeouts == 0) {
            say(why, len, "The compiler turned the barrier into a predicated "
                "`@!P BAR.SYNC` "
                "(results/h200/hazards/sass-reduce-hazards.txt); warps "
                "whose threads all skip it run on to their exit, and "
                "threads that have exited do not hold a barrier up, so the "
                "block completes. The code is still wrong (a barrier in "
                "divergent code is undefined behaviour in CUDA), but on this "
                "GPU nothing shows it, not even synccheck.");
            vd = FAILS;
        } else {
            say(why, len, "The divergent barrier shows: it hangs, a tool "
                "reports it, or the result is wrong.");
            vd = HOLDS;
        }
    }
    mp_csv_free(&t);
    return vd;
}

static const claim claims[] = {
    {"Tree reduction in shared memory", "003 and 000 (reductions)",
     "Summing a block's values by halving the active threads each step in "
     "shared memory beats letting one thread add them all.",
     NULL, reduction},
    {"Timing with clock() in the kernel", "000 (reductions)",
     "Each block's thread 0 records clock() at its start and end; the "
     "latest end minus the earliest start is the kernel's running time.",
     NULL, clock_timing},
    {"`__syncthreads()` inside an `if` deadlocks", "003 (reductions)",
     "If `__syncthreads()` is placed inside an `if` that some threads skip, "
     "the threads that entered wait for the others forever: a deadlock.",
     NULL, divergent_barrier},
};

static const section sections[] = {
    {"reduction", "reduction", "Reductions", "The seeds' shared-memory reduction ladder.",
     NULL, NULL},
};

const mp_study_group mp_study_reduce = {claims, N_OF(claims), sections,
    N_OF(sections)};
