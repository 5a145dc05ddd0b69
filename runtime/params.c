/*
 * params.c - parsing and describing probe parameters (see params.h).
 *
 * Ranges step by adding (a..b:s) or by multiplying (a..b:xF).
 * Numbers are parsed strictly: decimal digits with an optional leading
 * minus sign, nothing else; values beyond long long are reported as out of
 * range rather than wrapped. mp_param_check_multiple words the families'
 * "--NAME: V is not a multiple of M" checks once.
 */
#include "params.h"

#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The texts of TEXT parameters parsed so far; handle h is texts[h - 1]. */
#define MAX_TEXTS 4096
static char *texts[MAX_TEXTS];
static int ntexts;

static void free_texts(void)
{
    for (int i = 0; i < ntexts; i++)
        free(texts[i]);
    ntexts = 0;
}

/* Handle of `text` (the same text, the same handle); 0 when the table is
 * full. */
static long long intern(const char *text)
{
    for (int i = 0; i < ntexts; i++)
        if (!strcmp(texts[i], text))
            return i + 1;
    if (ntexts == MAX_TEXTS)
        return 0;
    if (ntexts == 0)
        atexit(free_texts);
    size_t n = strlen(text) + 1;
    texts[ntexts] = mp_xmalloc(n);
    memcpy(texts[ntexts], text, n);
    return ++ntexts;
}

const char *mp_param_text(long long handle)
{
    return handle >= 1 && handle <= ntexts ? texts[handle - 1] : "none";
}

void mp_param_describe_range(const mp_param_def *d, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (d->kind == MP_PARAM_TEXT) {
        snprintf(buf, len, "none or '%s'", d->text_form);
    } else if (d->kind == MP_PARAM_CHOICE) {
        for (int i = 0; d->choices[i]; i++)
            used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                             i ? "|" : "", d->choices[i]);
    } else if (d->allowed) {
        for (int i = 0; i < d->nallowed; i++)
            used += snprintf(buf + used, used < len ? len - used : 0,
                             "%s%lld", i ? "|" : "", d->allowed[i]);
    } else {
        snprintf(buf, len, "%lld..%lld", d->min, d->max);
    }
}

void mp_param_format(const mp_param_def *d, long long v, char *buf,
                     size_t len)
{
    if (d->kind == MP_PARAM_TEXT)
        snprintf(buf, len, "%s", mp_param_text(v));
    else if (d->kind == MP_PARAM_CHOICE)
        snprintf(buf, len, "%s", d->choices[v]);
    else
        snprintf(buf, len, "%lld", v);
}

int mp_param_value_cc(const mp_param_def *d, long long v)
{
    if (d->kind != MP_PARAM_CHOICE || !d->choice_cc)
        return 0;
    return d->choice_cc[v];
}

int mp_param_check_cc(const mp_param_def *defs, int n, const long long *v,
                      int gpu_cc, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        int need = mp_param_value_cc(&defs[i], v[i]);
        if (need > gpu_cc) {
            snprintf(err, errlen, "--%s %s needs compute capability %d.%d "
                     "or newer; this GPU is %d.%d", defs[i].name,
                     defs[i].choices[v[i]], need / 10, need % 10,
                     gpu_cc / 10, gpu_cc % 10);
            return -1;
        }
    }
    return 0;
}

void mp_param_describe_cc(const mp_param_def *d, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (d->kind != MP_PARAM_CHOICE || !d->choice_cc)
        return;
    for (int i = 0; d->choices[i]; i++)
        if (d->choice_cc[i])
            used += snprintf(buf + used, used < len ? len - used : 0,
                             " [%s: compute capability %d.%d+]",
                             d->choices[i], d->choice_cc[i] / 10,
                             d->choice_cc[i] % 10);
}

int mp_param_find(const mp_param_def *defs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(defs[i].name, name) == 0)
            return i;
    return -1;
}

int mp_param_check_multiple(const char *name, long long v, long long m,
                            char *err, size_t errlen)
{
    if (v % m == 0)
        return 0;
    snprintf(err, errlen, "--%s: %lld is not a multiple of %lld", name, v, m);
    return -1;
}

/* Strict decimal integer: returns 0 and *out, 1 if not a number, 2 if it
 * does not fit in a long long. */
static int parse_integer(const char *s, long long *out)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '\0')
        return 1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return 2;
    *out = v;
    return 0;
}

int mp_param_parse_value(const mp_param_def *d, const char *text,
                         long long *out, char *err, size_t errlen)
{
    char range[256];
    mp_param_describe_range(d, range, sizeof range);

    if (d->kind == MP_PARAM_TEXT) {
        char why[256] = "";
        if (!strcmp(text, "none")) {
            *out = 0;
            return 0;
        }
        if (d->text_check && d->text_check(text, why, sizeof why)) {
            snprintf(err, errlen, "--%s: %s (allowed: %s)", d->name, why,
                     range);
            return -1;
        }
        long long h = intern(text);
        if (h == 0) {
            snprintf(err, errlen, "--%s: more than %d different values",
                     d->name, MAX_TEXTS);
            return -1;
        }
        *out = h;
        return 0;
    }
    if (d->kind == MP_PARAM_CHOICE) {
        for (int i = 0; d->choices[i]; i++) {
            if (strcmp(text, d->choices[i]) == 0) {
                *out = i;
                return 0;
            }
        }
        snprintf(err, errlen, "--%s: '%s' is not one of %s", d->name, text,
                 range);
        return -1;
    }

    long long v = 0;
    int rc = parse_integer(text, &v);
    if (rc == 1) {
        snprintf(err, errlen, "--%s: '%s' is not a whole number (allowed: %s)",
                 d->name, text, range);
        return -1;
    }
    if (rc == 2 || v < d->min || v > d->max) {
        snprintf(err, errlen, "--%s: %s is out of range (allowed: %s)",
                 d->name, text, range);
        return -1;
    }
    if (d->allowed) {
        int ok = 0;
        for (int i = 0; i < d->nallowed; i++)
            ok |= d->allowed[i] == v;
        if (!ok) {
            snprintf(err, errlen, "--%s: %s is not allowed (allowed: %s)",
                     d->name, text, range);
            return -1;
        }
    }
    *out = v;
    return 0;
}

static int append(const mp_param_def *d, mp_value_list *out, long long v,
                  char *err, size_t errlen)
{
    if (out->n >= MP_MAX_LIST) {
        snprintf(err, errlen, "--%s: more than %d values", d->name,
                 MP_MAX_LIST);
        return -1;
    }
    out->v[out->n++] = v;
    return 0;
}

/* One item of a list: a value, or for INT parameters "a..b" or "a..b:s". */
static int parse_item(const mp_param_def *d, char *item, mp_value_list *out,
                      char *err, size_t errlen)
{
    char *dots = d->kind == MP_PARAM_INT ? strstr(item, "..") : NULL;
    if (!dots) {
        long long v;
        if (mp_param_parse_value(d, item, &v, err, errlen))
            return -1;
        return append(d, out, v, err, errlen);
    }
    *dots = '\0';
    char *hi_text = dots + 2;
    char *colon = strchr(hi_text, ':');
    long long lo, hi, step = 1;
    if (colon)
        *colon = '\0';
    if (mp_param_parse_value(d, item, &lo, err, errlen)
        || mp_param_parse_value(d, hi_text, &hi, err, errlen))
        return -1;
    /* ":xF" multiplies by F instead of adding a step. */
    int geometric = colon && colon[1] == 'x';
    if (geometric) {
        if (parse_integer(colon + 2, &step) != 0 || step < 2) {
            snprintf(err, errlen, "--%s: step factor '%s' must be a whole number "
                     ">= 2", d->name, colon + 2);
            return -1;
        }
    } else if (colon && (parse_integer(colon + 1, &step) != 0 || step < 1)) {
        snprintf(err, errlen, "--%s: step '%s' must be a whole number >= 1",
                 d->name, colon + 1);
        return -1;
    }
    if (lo > hi) {
        snprintf(err, errlen, "--%s: range %lld..%lld is empty", d->name, lo,
                 hi);
        return -1;
    }
    if (geometric && lo < 1) {
        snprintf(err, errlen, "--%s: range %lld..%lld:x%lld must start at 1 "
                 "or more to grow by a factor", d->name, lo, hi, step);
        return -1;
    }
    /* One loop for both kinds of range: they differ only in the next value
     * and in the test that it is past hi (without overflowing). */
    for (long long v = lo;;) {
        long long checked;
        char text[32];
        snprintf(text, sizeof text, "%lld", v);
        if (mp_param_parse_value(d, text, &checked, err, errlen)
            || append(d, out, checked, err, errlen))
            return -1;
        if (geometric ? v > hi / step : hi - v < step)   /* next is past hi */
            break;
        v = geometric ? v * step : v + step;
    }
    return 0;
}

int mp_param_parse_list(const mp_param_def *d, const char *text,
                        mp_value_list *out, char *err, size_t errlen)
{
    out->n = 0;
    if (text[0] == '\0') {
        snprintf(err, errlen, "--%s: empty value", d->name);
        return -1;
    }
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
        snprintf(err, errlen, "--%s: out of memory", d->name);
        return -1;
    }
    memcpy(copy, text, len + 1);
    int rc = 0;
    char *item = copy;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (*item == '\0') {
            snprintf(err, errlen, "--%s: empty item in '%s'", d->name, text);
            rc = -1;
            break;
        }
        if (parse_item(d, item, out, err, errlen)) {
            rc = -1;
            break;
        }
        if (!comma)
            break;
        item = comma + 1;
    }
    free(copy);
    return rc;
}

