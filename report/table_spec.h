/*
 * table_spec.h - what one report table is made of, for the families'
 * *_tables.c files that define tables; report/tables.c builds and prints
 * them, in the order the families register them (report/part.h).
 *
 * A table is an mp_rep_spec: which rows it takes (want), the row keys
 * (keys), the column group a row goes into (group), and the values of its
 * cells (values).
 */
#ifndef MP_TABLE_SPEC_H
#define MP_TABLE_SPEC_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define MP_REP_KEYLEN 64     /* longest key or value text */
#define KEYLEN MP_REP_KEYLEN

typedef struct {
    const char *name, *title;
    int nkeys;
    const char *const *key_headers;
    int nsub;
    const char *const *sub_headers;
    const char *empty;    /* said when the table has no rows */
    int (*want)(const mp_rep_data *d, const mp_rep_row *r);
    void (*keys)(const mp_rep_data *d, const mp_rep_row *r,
                 char k[][KEYLEN]);
    /* label of the column group; returns the number groups sort by */
    double (*group)(const mp_rep_data *d, const mp_rep_row *r, char *label);
    void (*values)(const mp_rep_data *d, const mp_rep_row *r,
                   char v[][KEYLEN], int *mark);
} mp_rep_spec;

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

/* HEADERS("op", "stride"): a header list in place in a spec, its count
 * and the strings (fills nkeys and key_headers, or nsub and
 * sub_headers). */
#define HEADERS(...)                                                     \
    N(((const char *const[]){__VA_ARGS__})), (const char *const[]){__VA_ARGS__}

/* Spec functions that only name fields (the spec's own ones are written
 * out where they compute something):
 *   PROBE_ROWS(fn, "bank")        want: the rows of that probe;
 *   TEXT_KEYS(fn, MP_F_A, ...)    keys: the texts of the fields listed;
 *   FIELD_GROUP(fn, f, pre, post) group: field_group() of field f;
 *   VS_MODEL_CYCLES(fn, measured, model)  values: put_vs_model() of the
 *                                 two fields, then cycles (2 decimals). */
#define PROBE_ROWS(fn, probe)                                            \
    static int fn(const mp_rep_data *d, const mp_rep_row *r)            \
    {                                                                    \
        return is(d, r, MP_F_PROBE, probe);                              \
    }
#define TEXT_KEYS(fn, ...)                                               \
    static void fn(const mp_rep_data *d, const mp_rep_row *r,           \
                   char k[][KEYLEN])                                     \
    {                                                                    \
        PUT_TEXTS(k, d, r, __VA_ARGS__);                                 \
    }
#define FIELD_GROUP(fn, f, pre, post)                                    \
    static double fn(const mp_rep_data *d, const mp_rep_row *r,         \
                     char *label)                                        \
    {                                                                    \
        return field_group(label, d, r, f, pre, post);                   \
    }
#define VS_MODEL_CYCLES(fn, measured, model)                             \
    static void fn(const mp_rep_data *d, const mp_rep_row *r,           \
                   char v[][KEYLEN], int *mark)                          \
    {                                                                    \
        put_vs_model(v, mark, d, r, measured, model);                    \
        put(v[2], d, r, MP_F_CYCLES, 2);                                 \
    }

/* ---- helpers for the specs ---------------------------------------- */

static inline const char *txt(const mp_rep_data *d, const mp_rep_row *r, int f)
{
    return mp_rep_text(d, r, f);
}

static inline int is(const mp_rep_data *d, const mp_rep_row *r, int f,
              const char *want)
{
    return !strcmp(txt(d, r, f), want);
}

/* The field as a number; NAN when empty or not a number. */
static inline double num(const mp_rep_data *d, const mp_rep_row *r, int f)
{
    double v;
    return mp_rep_num(d, r, f, &v) == 0 ? v : NAN;
}

/* Integer-valued field equals n. */
static inline int num_is(const mp_rep_data *d, const mp_rep_row *r, int f, double n)
{
    return num(d, r, f) == n;
}

/* Formats field f with `dec` decimals into out ("" when it has no
 * value): put() keeps every decimal (times, cycles, bandwidths), put_count()
 * drops trailing zeros (counts per request: "4", "4.3968"). */
static inline void put_value(char *out, double v, int dec)
{
    if (isnan(v) || isinf(v))
        out[0] = '\0';
    else
        snprintf(out, KEYLEN, "%.*f", dec, v);
}

static inline void put_count_value(char *out, double v, int dec)
{
    if (isnan(v) || isinf(v))
        out[0] = '\0';
    else
        mp_rep_fmt(out, KEYLEN, v, dec);
}

static inline void put(char *out, const mp_rep_data *d, const mp_rep_row *r, int f,
                int dec)
{
    put_value(out, num(d, r, f), dec);
}

static inline void put_count(char *out, const mp_rep_data *d, const mp_rep_row *r,
                      int f, int dec)
{
    put_count_value(out, num(d, r, f), dec);
}

/* A measured value: "wrong" when the kernel's output was wrong (such rows
 * carry no numbers), and marked when the CSV says it differs from the
 * model. */
static inline void put_measured(char *out, int *mark, const mp_rep_data *d,
                         const mp_rep_row *r, int f, int dec)
{
    if (is(d, r, MP_F_VERIFIED, "no")) {
        snprintf(out, KEYLEN, "wrong");
        return;
    }
    put_count(out, d, r, f, dec);
    *mark = out[0] && is(d, r, MP_F_MATCH, "no");
}

/* The measured value of field `measured` (put_measured) in out[0] and
 * the model's, field `model`, in out[1]: both per request, 4 decimals. */
static inline void put_vs_model(char out[][KEYLEN], int *mark,
                                const mp_rep_data *d, const mp_rep_row *r,
                                int measured, int model)
{
    put_measured(out[0], mark, d, r, measured, 4);
    put_count(out[1], d, r, model, 4);
}

/* The time of one launch in microseconds, 1 decimal. */
static inline void put_us(char *out, const mp_rep_data *d,
                          const mp_rep_row *r)
{
    put_value(out, num(d, r, MP_F_TIME_NS) / 1e3, 1);
}

/* A fraction of field f as a percentage, 1 decimal. */
static inline void put_percent(char *out, const mp_rep_data *d,
                               const mp_rep_row *r, int f)
{
    put_value(out, num(d, r, f) * 100, 1);
}

/* Digits of the path segment "/<prefix><digits>" in config ("-" if none):
 * the texture probe's n4096, for instance. */
static inline void config_token(char *out, const char *config, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *s = strchr(config, '/'); s; s = strchr(s + 1, '/')) {
        if (!strncmp(s + 1, prefix, n) && s[1 + n] >= '0' && s[1 + n] <= '9') {
            size_t k = strspn(s + 1 + n, "0123456789");
            snprintf(out, KEYLEN, "%.*s", (int)k, s + 1 + n);
            return;
        }
    }
    snprintf(out, KEYLEN, "-");
}

/* What a bandwidth configuration's name has after its size segment
 * "/b<bytes>" (the in-flight count and cache hint: "i1/cs"), or "-". */
static inline void config_variant(char *out, const char *config)
{
    for (const char *s = strstr(config, "/b"); s; s = strstr(s + 1, "/b")) {
        size_t k = strspn(s + 2, "0123456789");
        if (k > 0 && (s[2 + k] == '/' || s[2 + k] == '\0')) {
            snprintf(out, KEYLEN, "%s", s[2 + k] ? s + 3 + k : "-");
            return;
        }
    }
    snprintf(out, KEYLEN, "-");
}

/* Key columns k[0..n): the text of fields f[0..n) as they stand. */
static inline void put_texts(char k[][KEYLEN], const mp_rep_data *d,
                             const mp_rep_row *r, const int *f, int n)
{
    for (int i = 0; i < n; i++)
        snprintf(k[i], KEYLEN, "%s", txt(d, r, f[i]));
}

/* PUT_TEXTS(k, d, r, MP_F_A, MP_F_B, ...): k[0] the text of field A, k[1]
 * of B, and so on (put_texts with the fields listed). */
#define PUT_TEXTS(k, d, r, ...)                                          \
    put_texts((k), (d), (r), (const int[]){__VA_ARGS__},                \
              (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int)))

/* A row whose kernel output was wrong: "wrong" in out, and 1 (the caller
 * fills nothing else); 0 for a verified row. */
static inline int put_wrong(char *out, const mp_rep_data *d,
                            const mp_rep_row *r)
{
    if (!is(d, r, MP_F_VERIFIED, "no"))
        return 0;
    snprintf(out, KEYLEN, "wrong");
    return 1;
}

/* A column group named by field f: label pre + its text + post, ordered
 * by its number. */
static inline double field_group(char *label, const mp_rep_data *d,
                                 const mp_rep_row *r, int f, const char *pre,
                                 const char *post)
{
    snprintf(label, KEYLEN, "%s%s%s", pre, txt(d, r, f), post);
    return num(d, r, f);
}

/* The one column group of a table without groups. */
static inline double no_group(const mp_rep_data *d, const mp_rep_row *r,
                       char *label)
{
    (void)d;
    (void)r;
    label[0] = '\0';
    return 0;
}

#endif
