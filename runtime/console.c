/*
 * console.c - a probe's console table, one line at a time (console.h).
 */
#include "console.h"

#include <stdio.h>
#include <string.h>

/* Appends text at *at in buf, padded to width (on the right when left,
 * else on the left), never past len; *at moves to the end of what fit. */
static void put(char *buf, size_t len, size_t *at, const char *text,
                int width, int left)
{
    if (*at >= len)
        return;
    int n = snprintf(buf + *at, len - *at, left ? "%-*s" : "%*s", width,
                     text);
    if (n > 0)
        *at += (size_t)n < len - *at ? (size_t)n : len - *at - 1;
}

/* The width of a column: its least width, or its heading's length. */
static int col_width(const mp_console_col *c)
{
    int h = (int)strlen(c->heading);
    return c->width > h ? c->width : h;
}

static const char *cell(const mp_row *row, int col)
{
    const char *v = mp_row_get(row, col);
    return v[0] ? v : "-";
}

void mp_console_line(const mp_probe *p, const mp_row *row, int label_width,
                     char *buf, size_t len)
{
    size_t at = 0;
    if (!len)
        return;
    buf[0] = 0;
    if (label_width < MP_CONSOLE_LABEL_WIDTH)
        label_width = MP_CONSOLE_LABEL_WIDTH;
    put(buf, len, &at, row ? mp_row_get(row, MP_COL_CONFIG)
                           : "configuration", label_width, 1);
    for (int k = 0; k < p->nconsole; k++) {
        const mp_console_col *c = &p->console[k];
        put(buf, len, &at, " ", 0, 1);
        put(buf, len, &at, row ? cell(row, c->col) : c->heading,
            col_width(c), 0);
    }
    put(buf, len, &at, " ", 0, 1);
    put(buf, len, &at, row ? cell(row, MP_COL_VERIFIED) : "ok", 4, 0);
    if (row && strcmp(mp_row_get(row, MP_COL_MODEL_MATCH), "no") == 0)
        put(buf, len, &at, "  MODEL MISMATCH", 0, 1);
}
