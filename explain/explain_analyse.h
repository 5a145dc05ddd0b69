/*
 * explain_analyse.h - the analysis of `memprobe explain`: the offending
 * source lines' instructions (from a profile, or from a capture's own
 * counts), each matched with its captured warp executions, explained by
 * the core (explain/explain.h: the model's count, the pattern, the probe
 * command, the ranked fixes) and its model count compared with the
 * measured one where both count the same launches.
 */
#ifndef MP_EXPLAIN_ANALYSE_H
#define MP_EXPLAIN_ANALYSE_H

#include "explain.h"
#include "explain_capture.h"
#include "profile_check.h"

/* Model against measurement. */
enum { MP_XP_EQUAL, MP_XP_DIFFER, MP_XP_NOT_COMPARED };

/* One instruction of an offending line. Its strings point into the
 * profile and the capture it was built from. */
typedef struct {
    const char *name;            /* the kernel's printed name */
    const char *mangled, *file;
    const char *prof_opcode;     /* the profile's opcode ("" unknown) */
    long line;
    mp_u64 offset;               /* function_offset / pc_offset */
    int cls, dir;                /* the offence's class and direction */
    int measured_known;          /* 1: measured comes from a profile */
    mp_u64 measured, measured_ideal, launches;   /* over its processes */
    const mp_capture_inst *cap;  /* its capture rows, or NULL */
    long long dropped;           /* executions past the capture's cap */
    int has_pattern;             /* explained and captured */
    mp_explain_pattern p;
    long long addresses;         /* distinct addresses of p's execution */
    char probe[1024];            /* the probe command, or why none */
    int has_probe;               /* 1: probe is a command */
    char h200[1200];             /* the committed H200 row of the probe's
                                    configuration, or that none is; ""
                                    without a probe command */
    double h200_per_request;     /* its count per request */
    int has_h200;                /* 1: a row is committed */
    char h200_file[320];         /* its file, from results/ on */
    mp_explain_fixes fixes;
    int compare;                 /* MP_XP_* */
    char compare_text[256];      /* "model 128, measured 128: equal" */
    const char *why_not;         /* not compared: why (in compare_text) */
    char why_buf[160];
} mp_xp_inst;

/* One offending line: what --check says of it, its instructions. */
typedef struct {
    mp_prof_offender off;
    char title[1200];   /* "transpose_naive app.cu:21: shared load (LDS):
                           32.0x ideal (128 wavefronts, ideal 4)" */
    int first, n;       /* its instructions: inst[first .. first + n) */
} mp_xp_line;

typedef struct {
    mp_xp_line *line;
    int nlines;
    mp_xp_inst *inst;
    int ninst;
    int captured;       /* instructions with capture rows */
    int explained;      /* of them, of opcodes the model explains */
} mp_xp_result;

/* Builds r from the offenders o (no of them) of profile d: each line's
 * instructions in the offence's class and direction (one per kernel and
 * offset, summed over processes, in offset order), matched with c's
 * instruction of the same kernel (mangled) and offset; st (may be NULL)
 * says which dropped executions past the cap. measured: d's counts are a
 * profile's (else the capture's own, compared with nothing). */
void mp_xp_analyse(const mp_prof_data *d, int measured,
                   const mp_prof_offender *o, int no, const mp_capture *c,
                   const mp_capture_status *st, mp_xp_result *r);
void mp_xp_result_free(mp_xp_result *r);

/* A profile of the capture's own counts, for --check to judge without a
 * measured profile: one instruction row per explained instruction with
 * active lanes (no file, line 0; the model's count and ideal in its
 * class; its distinct launches), kernels named from their mangled names.
 * Free with mp_prof_free. */
void mp_xp_capture_profile(const mp_capture *c, mp_prof_data *d);

/* The capture library's want file: one "MANGLED,0xOFFSET" line per
 * instruction of the offenders, each once. 0 and their number in *n, or
 * -1 with the reason in err. */
int mp_xp_write_want(const mp_prof_data *d, const mp_prof_offender *o,
                     int no, const char *path, int *n, char *err,
                     size_t errlen);

#endif
