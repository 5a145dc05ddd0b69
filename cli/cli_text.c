/*
 * cli_text.c - what every command's help and parsing share (cli.h): words
 * wrapped to MP_CLI_WIDTH columns, a parameter's help line, and the
 * parsing of a command whose usage is one fixed text.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"

/* Characters up to the next space outside brackets: "[stsm: compute
 * capability 9.0+]" is one word to mp_cli_wrap, never split. */
static int word_length(const char *s)
{
    int n = 0, depth = 0;
    for (; s[n] && (s[n] != ' ' || depth > 0); n++)
        depth += (s[n] == '[') - (s[n] == ']' && depth > 0);
    return n;
}

void mp_cli_wrap(FILE *out, int col, int indent, const char *text)
{
    int words = 0;   /* on this line */
    for (const char *s = text; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        int n = word_length(s);
        if (col > indent && col + (words > 0) + n > MP_CLI_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
            words = 0;
        }
        if (words++) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, (size_t)n, out);
        col += n;
        s += n;
    }
    fputc('\n', out);
}

/* The columns where mp_cli_param_help's ranges, defaults and
 * descriptions start. */
#define PARAM_RANGE_COLUMN 16
#define PARAM_DEFAULT_COLUMN 30
#define PARAM_HELP_COLUMN 46

/* A parameter's range from column col, a long list of choices broken
 * after a '|' where it would pass MP_CLI_WIDTH, the next part under the
 * first; returns the column where it ends. */
static int put_range(FILE *out, int col, const char *range)
{
    for (const char *s = range; *s;) {
        int n = (int)strcspn(s, "|");
        n += s[n] == '|';
        if (col > PARAM_RANGE_COLUMN && col + n > MP_CLI_WIDTH) {
            fprintf(out, "\n%*s", PARAM_RANGE_COLUMN, "");
            col = PARAM_RANGE_COLUMN;
        }
        fwrite(s, 1, (size_t)n, out);
        col += n;
        s += n;
    }
    return col;
}

void mp_cli_param_help(const mp_param_def *d, FILE *out)
{
    char range[256], def[64], cc[256], text[1024];
    mp_param_describe_range(d, range, sizeof range);
    mp_param_format(d, d->def, def, sizeof def);
    mp_param_describe_cc(d, cc, sizeof cc);
    int col = put_range(out, fprintf(out, "  --%-11s ", d->name), range);
    col += fprintf(out, "%*s default %-6s ",
                   col < PARAM_DEFAULT_COLUMN ? PARAM_DEFAULT_COLUMN - col : 0,
                   "", def);
    snprintf(text, sizeof text, "%s%s", d->help, cc);
    mp_cli_wrap(out, col, PARAM_HELP_COLUMN, text);
}

static void print_line(FILE *out, const void *ctx)
{
    fprintf(out, "%s\n", (const char *)ctx);
}

/* Parses a command whose usage is one fixed text and whose arguments are
 * only the options opts[0 .. nopts) (none: NULL, 0). */
void mp_cli_fixed_usage(const char *cmd, const char *usage,
                              const mp_opt *opts, int nopts, int argc,
                              char **argv)
{
    const mp_opts_spec spec = {.cmd = cmd, .opts = opts, .nopts = nopts,
                               .dashes = MP_OPTS_NONE,
                               .usage_fn = print_line, .usage_ctx = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
}

int mp_cli_no_options(const char *cmd, const char *usage, int argc,
                      char **argv)
{
    mp_cli_fixed_usage(cmd, usage, NULL, 0, argc, argv);
    return 0;
}
