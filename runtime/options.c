/*
 * options.c - the option parser of every command (options.h).
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Is arg "--name" (or, with_value, "--name=...")? */
static int is_long(const char *arg, const char *name, int with_value)
{
    size_t n = strlen(name);
    return strncmp(arg, "--", 2) == 0 && strncmp(arg + 2, name, n) == 0
           && (arg[2 + n] == '\0' || (with_value && arg[2 + n] == '='));
}

static int matches(const mp_opt *o, const char *arg)
{
    if (o->alias && !strcmp(arg, o->alias))
        return 1;
    int with_value = o->kind == MP_OPT_FLAG ? o->value_error
                     : o->kind != MP_OPT_ARGV;
    return is_long(arg, o->name, with_value);
}

static int is_option(mp_opts_dashes d, const char *arg)
{
    switch (d) {
    case MP_OPTS_DASH_ANY: return arg[0] == '-';
    case MP_OPTS_DASH_ONE: return arg[0] == '-' && arg[1] != '\0';
    case MP_OPTS_DASH_TWO: return strncmp(arg, "--", 2) == 0;
    case MP_OPTS_ALL: return 1;
    case MP_OPTS_NONE: return 0;
    }
    return 0;
}

/* 1 (with the message in err) when option o, used before, may be given
 * only once. */
static int twice(const mp_opt *o, int given, char *err, size_t errlen)
{
    if (!given || !o->once)
        return 0;
    mp_reason(err, errlen, "--%s: given twice", o->name);
    return 1;
}

/* One option at argv[*i]: 0, or -1 with the message in err. */
static int take(const mp_opts_spec *s, const mp_opt *o, int *given, int argc,
                char **argv, int *i, char *err, size_t errlen)
{
    const char *arg = argv[*i];
    if (s->twice_first && twice(o, given[0], err, errlen))
        return -1;
    if (o->kind == MP_OPT_FLAG) {
        if (twice(o, given[0], err, errlen))
            return -1;
        if (strchr(arg, '=') && strncmp(arg, "--", 2) == 0) {
            mp_reason(err, errlen, "--%s: takes no value", o->name);
            return -1;
        }
        given[0]++;
        if (o->dest)
            ++*(int *)o->dest;
        return 0;
    }
    if (o->kind == MP_OPT_ARGV) {
        given[0]++;
        return o->argv_fn(argc, argv, i, o->dest, err, errlen);
    }
    /* "--name=value" or "--name value" ("-o value") */
    const char *eq = strchr(arg, '=');
    const char *val;
    if (eq) {
        val = eq + 1;
    } else if (*i + 1 >= argc) {
        mp_reason(err, errlen, "--%s: needs a value", o->name);
        return -1;
    } else {
        val = argv[++*i];
    }
    if (!s->twice_first && twice(o, given[0], err, errlen))
        return -1;
    given[0]++;
    switch (o->kind) {
    case MP_OPT_TEXT:
        if (o->empty && !val[0]) {
            mp_reason(err, errlen, "--%s: %s", o->name, o->empty);
            return -1;
        }
        *(const char **)o->dest = val;
        return 0;
    case MP_OPT_VALUE:
        return mp_param_parse_value(o->def, val, (long long *)o->dest, err,
                                    errlen) ? -1 : 0;
    case MP_OPT_LIST: {
        mp_value_list **list = o->dest;
        *list = malloc(sizeof **list);
        if (!*list) {
            mp_reason(err, errlen, "out of memory");
            return -1;
        }
        return mp_param_parse_list(o->def, val, *list, err, errlen) ? -1 : 0;
    }
    case MP_OPT_FN:
        return o->fn(val, o->dest, err, errlen);
    case MP_OPT_FLAG: case MP_OPT_ARGV:
        break;
    }
    return 0;
}

int mp_opts_read(const mp_opts_spec *s, int argc, char **argv, int *given,
                 char *err, size_t errlen)
{
    int own[MP_OPTS_MAX] = {0};
    if (!given) {
        if (s->nopts > MP_OPTS_MAX) {
            mp_reason(err, errlen, "%s: too many options", s->cmd);
            return MP_OPTS_ERROR;
        }
        given = own;
    } else {
        memset(given, 0, (size_t)s->nopts * sizeof *given);
    }
    if (s->nrest)
        *s->nrest = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
            return MP_OPTS_HELP;
        int k = 0;
        while (k < s->nopts && !matches(&s->opts[k], arg))
            k++;
        if (k < s->nopts) {
            if (take(s, &s->opts[k], &given[k], argc, argv, &i, err, errlen))
                return MP_OPTS_ERROR;
            continue;
        }
        if (is_option(s->dashes, arg)
            || (s->option_too && !strcmp(arg, s->option_too))) {
            mp_reason(err, errlen, "%s: unknown option '%s'%s", s->cmd, arg,
                      s->unknown_tail ? s->unknown_tail : "");
            return MP_OPTS_ERROR;
        }
        if (!s->rest || *s->nrest >= s->max_rest) {
            mp_reason(err, errlen, "%s: unexpected argument '%s'%s", s->cmd,
                      arg, s->unexpected_tail ? s->unexpected_tail : "");
            return MP_OPTS_ERROR;
        }
        s->rest[(*s->nrest)++] = arg;
        if (s->stop_when_full && *s->nrest == s->max_rest)
            break;
    }
    return MP_OPTS_OK;
}

int mp_opt_take_program(int argc, char **argv, int *i, void *dest,
                        char *err, size_t errlen)
{
    mp_opt_program *p = dest;
    (void)err;
    (void)errlen;
    p->seen = 1;
    p->argv = argv + *i + 1;
    p->n = argc - *i - 1;
    *i = argc;
    return 0;
}

void mp_opts_parse(const mp_opts_spec *s, int argc, char **argv, int *given)
{
    char err[1024];
    int rc = mp_opts_read(s, argc, argv, given, err, sizeof err);
    if (rc == MP_OPTS_HELP) {
        if (s->usage_fn)
            s->usage_fn(stdout, s->usage_ctx);
        else if (s->usage)
            fputs(s->usage, stdout);
        exit(MP_EXIT_OK);
    }
    if (rc == MP_OPTS_ERROR)
        mp_usage_error("%s", err);
}

int mp_split_words(const char *text, char **words, int max, char **buf)
{
    size_t len = strlen(text) + 1;
    *buf = mp_xmalloc(len);
    memcpy(*buf, text, len);
    int n = 0;
    for (char *w = strtok(*buf, " "); w; w = strtok(NULL, " ")) {
        if (n == max)
            return -1;
        words[n++] = w;
    }
    return n;
}
