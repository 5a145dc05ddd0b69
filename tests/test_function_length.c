/*
 * test_function_length.c - no function of the sources is longer than 100
 * lines: a longer one is split into named steps (static helpers, each
 * with a comment saying what it does). The profiler's rooms (inject/,
 * profile/, explain/ with its capture library, crosscheck/) are held to
 * a stricter measure: no function over 80 lines and no file over 1,000
 * (strict_rooms below).
 *
 * The sources: every .c, .cu and .h under the repository root except the
 * tests (tests/, and a family's own tests probes/NAME/test_*.c), the build
 * directories (build*) and hidden folders (.deps, .git). A function's
 * length is counted from the line of its opening brace to the line of its
 * closing one, both included: in the sources' style, where a function's
 * body opens with `{` at column 0 and closes with `}` at column 0, that is
 * the body with its two brace lines.
 *
 * The scanner does not rely on that style alone: it follows the braces of
 * a file (comments, string and character literals and preprocessor lines
 * left out), and a brace at file scope (or directly in a namespace or an
 * `extern "C"` block) opens a function when the text before it ends with
 * `)` (a parameter list, possibly followed by const, noexcept, override or
 * final) and holds no `=`; otherwise it opens a type or an initializer,
 * whose braces are not counted. A file the scanner cannot follow (braces
 * that do not balance) fails, so that no function hides from the count.
 * The scanner runs on made-up files too, so that it is seen to find and
 * to fail.
 *
 * Runs from the repository root (where `make test` runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

/* The longest a function may be, in lines (its brace lines included). */
#define MAX_FUNCTION_LINES 100
/* The longest a function and a file of a strict room may be, in lines. */
#define STRICT_FUNCTION_LINES 80
#define STRICT_FILE_LINES 1000
/* The rooms held to the stricter measure (each a folder, all its
 * sources). */
static const char *const strict_rooms[] = {"inject", "profile", "explain",
                                           "crosscheck"};

/* One function found: its name, the line of its opening brace (from 1)
 * and its length in lines. */
typedef struct {
    char name[128];
    int first, lines;
} function;

typedef void (*found_fn)(const function *f, void *ctx);

/* ---- the scanner ---------------------------------------------------- */

/* Identifiers followed by a parenthesised group that is not the name of
 * the function: attributes and alignment. */
static int is_attribute(const char *id, size_t n)
{
    static const char *const attrs[] = {
        "__attribute__", "__launch_bounds__", "__declspec", "__align__",
        "alignas", "_Alignas", "__nv_register_params__", "decltype",
    };
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
        if (strlen(attrs[i]) == n && !strncmp(attrs[i], id, n))
            return 1;
    return 0;
}

/* The function's name from the text before its `{`: the first identifier
 * followed by `(` outside parentheses, attributes skipped ("?" when there
 * is none). */
static void name_of(const char *head, char *name, size_t len)
{
    int depth = 0;
    for (const char *s = head; *s;) {
        if (*s == '(') {
            depth++;
            s++;
        } else if (*s == ')') {
            depth -= depth > 0;
            s++;
        } else if (isalpha((unsigned char)*s) || *s == '_') {
            const char *id = s;
            while (isalnum((unsigned char)*s) || *s == '_')
                s++;
            size_t n = (size_t)(s - id);
            const char *t = s + strspn(s, " \t");
            if (depth == 0 && *t == '(' && !is_attribute(id, n)) {
                snprintf(name, len, "%.*s", (int)n, id);
                return;
            }
        } else {
            s++;
        }
    }
    snprintf(name, len, "?");
}

/* 1 when the text before a `{` ends a function's head: its last word,
 * after any const, noexcept, override or final, ends with ')', and it
 * holds no '=' outside parentheses and template parameter lists. */
static int is_function_head(const char *head)
{
    int depth = 0;
    for (const char *s = head; *s; s++) {
        if (!strncmp(s, "template", 8)
            && (s == head || !isalnum((unsigned char)s[-1]))) {
            /* template <..., bool R = false>: its defaults are no '=' */
            s += 8 + strspn(s + 8, " \t\n");
            int angle = 0, paren = 0;
            for (; *s; s++) {
                paren += (*s == '(') - (*s == ')');
                angle += paren ? 0 : (*s == '<') - (*s == '>');
                if (angle == 0 && !paren)
                    break;
            }
            if (!*s)
                break;
            continue;
        }
        depth += (*s == '(') - (*s == ')');
        if (*s == '=' && depth == 0)
            return 0;
    }
    size_t n = strlen(head);
    for (;;) {
        while (n && isspace((unsigned char)head[n - 1]))
            n--;
        size_t w = n;
        while (w && (isalnum((unsigned char)head[w - 1]) || head[w - 1] == '_'))
            w--;
        static const char *const quals[] = {"const", "noexcept", "override",
                                            "final"};
        int qual = 0;
        for (size_t q = 0; q < sizeof quals / sizeof *quals; q++)
            if (n - w == strlen(quals[q])
                && !strncmp(head + w, quals[q], n - w))
                qual = 1;
        if (!qual)
            break;
        n = w;
    }
    return n && head[n - 1] == ')';
}

/* 1 when the text before a `{` opens a block whose contents are at file
 * scope again: `namespace [NAME]`, `inline namespace NAME` or
 * `extern "C"` and nothing else (not `extern "C" int f(void)`). */
static int is_transparent_head(const char *head)
{
    const char *s = head + strspn(head, " \t\n");
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 10 && !strncmp(s, "extern \"C\"", 10))
        return 1;
    if (!strncmp(s, "inline", 6) && isspace((unsigned char)s[6]))
        s += 6 + strspn(s + 6, " \t\n");
    if (strncmp(s, "namespace", 9) || (s[9] && !isspace((unsigned char)s[9])))
        return 0;
    for (s += 9; isspace((unsigned char)*s); s++)
        ;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == ':')
        s++;
    return strspn(s, " \t\n") == strlen(s);
}

/* Skips a comment, a string or character literal or a preprocessor line
 * at *p (advancing *p past it and *line by its newlines); 1 when there was
 * one. Literals are copied to lit (for `extern "C"`), at most litlen - 1
 * characters. bol: only blanks so far on this line. */
static int skip_noise(const char **p, int *line, int bol, char *lit,
                      size_t litlen)
{
    const char *s = *p;
    lit[0] = '\0';
    if (s[0] == '/' && s[1] == '*') {
        for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
            *line += *s == '\n';
        *p = *s ? s + 2 : s;
        return 1;
    }
    if (s[0] == '/' && s[1] == '/') {
        while (*s && *s != '\n')
            s++;
        *p = s;
        return 1;
    }
    if (bol && s[0] == '#') {   /* to the line's end, continuations and
                                 * comments that go on past it too */
        for (; *s && *s != '\n'; s++)
            if (s[0] == '\\' && s[1] == '\n') {
                s++;
                (*line)++;
            } else if (s[0] == '/' && s[1] == '*') {
                for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
                    *line += *s == '\n';
                if (!*s)
                    break;
                s++;
            }
        *p = s;
        return 1;
    }
    if (s[0] == '"' || s[0] == '\'') {
        char q = *s++;
        for (; *s && *s != q && *s != '\n'; s++)
            if (s[0] == '\\' && s[1])
                s++;
        if (*s == q)
            s++;
        size_t n = (size_t)(s - *p);
        snprintf(lit, litlen, "%.*s", (int)(n < litlen ? n : litlen - 1), *p);
        *p = s;
        return 1;
    }
    return 0;
}

/* Appends text to the head (the text at file scope since the last `;`,
 * `{` or `}` there), blanks and newlines as one blank; -1 when it does
 * not fit. */
static int head_add(char *head, size_t *n, size_t cap, const char *text,
                    size_t len)
{
    for (; len--; text++) {
        int blank = isspace((unsigned char)*text);
        if (blank && *n && head[*n - 1] == ' ')
            continue;
        if (*n + 1 >= cap)
            return -1;
        head[(*n)++] = blank ? ' ' : *text;
    }
    head[*n] = '\0';
    return 0;
}

/* Scans the text of a C or CUDA file, calling found for each function.
 * Returns the number of functions, or -1 when the file cannot be followed:
 * its braces do not balance (a `}` without its `{`, a `{` never closed,
 * more than 512 open) or a declaration at file scope is over 4 KB. */
static int scan_functions(const char *text, found_fn found, void *ctx)
{
    enum { SCOPE, FUNCTION, OTHER };
    char kind[512], head[4096] = "", lit[256];
    size_t nhead = 0;
    int depth = 0, opaque = 0, line = 1, bol = 1, nfound = 0;
    function f = {"", 0, 0};
    for (const char *p = text; *p;) {
        if (skip_noise(&p, &line, bol, lit, sizeof lit)) {
            if (!opaque && head_add(head, &nhead, sizeof head,
                                    lit[0] ? lit : " ",
                                    lit[0] ? strlen(lit) : 1))
                return -1;
            continue;
        }
        char c = *p++;
        if (c == '\n') {
            line++;
            bol = 1;
        } else if (c != ' ' && c != '\t') {
            bol = 0;
        }
        if (c == '{') {
            if (depth == (int)sizeof kind)
                return -1;
            kind[depth] = opaque ? OTHER
                          : is_transparent_head(head) ? SCOPE
                          : is_function_head(head) ? FUNCTION : OTHER;
            if (kind[depth] == FUNCTION) {
                name_of(head, f.name, sizeof f.name);
                f.first = line;
            }
            opaque += kind[depth++] != SCOPE;
            nhead = 0;
            head[0] = '\0';
        } else if (c == '}') {
            if (depth == 0)
                return -1;
            int k = kind[--depth];
            opaque -= k != SCOPE;
            if (k == FUNCTION) {
                f.lines = line - f.first + 1;
                nfound++;
                if (found)
                    found(&f, ctx);
            }
            nhead = 0;
            head[0] = '\0';
        } else if (!opaque && c == ';') {
            nhead = 0;
            head[0] = '\0';
        } else if (!opaque && head_add(head, &nhead, sizeof head, &c, 1)) {
            return -1;
        }
    }
    return depth ? -1 : nfound;
}

/* ---- the check ------------------------------------------------------ */

/* What one file's check collects: the functions over the limit (max
 * lines) as "PATH:NAME:LINES; " in bad, their count, and the longest
 * function. */
typedef struct {
    int max;
    const char *path;
    char *bad;
    size_t badlen;
    int over, functions;
    function longest;
    char longest_path[512];
} tally;

static void note_function(const function *f, void *ctx)
{
    tally *t = ctx;
    t->functions++;
    if (f->lines > t->longest.lines) {
        t->longest = *f;
        snprintf(t->longest_path, sizeof t->longest_path, "%s", t->path);
    }
    if (f->lines <= t->max)
        return;
    size_t used = strlen(t->bad);
    snprintf(t->bad + used, t->badlen - used, "%s:%s:%d (line %d); ", t->path,
             f->name, f->lines, f->first);
    t->over++;
}

/* Checks one file's text into t; -1 when its braces do not balance
 * (said in t->bad), else its functions over the limit. */
static int check_text(const char *path, const char *text, tally *t)
{
    int over = t->over;
    t->path = path;
    if (scan_functions(text, note_function, t) < 0) {
        size_t used = strlen(t->bad);
        snprintf(t->bad + used, t->badlen - used,
                 "%s: cannot be followed (braces that do not balance?), "
                 "functions not counted; ",
                 path);
        t->over++;
        return -1;
    }
    return t->over - over;
}

static int is_source(const char *name)
{
    size_t n = strlen(name);
    return (n > 2 && (!strcmp(name + n - 2, ".c")
                      || !strcmp(name + n - 2, ".h")))
           || (n > 3 && !strcmp(name + n - 3, ".cu"));
}

/* 1 for what is not a source of the program: the tests (tests/,
 * probes/NAME/test_*.c), build directories and hidden folders. */
static int left_out(const char *dir, const char *name, int is_dir)
{
    if (name[0] == '.')
        return 1;
    if (is_dir)
        return !strcmp(dir, ".") && (!strcmp(name, "tests")
                                     || !strncmp(name, "build", 5));
    return !strncmp(name, "test_", 5) && !strncmp(dir, "./probes/", 9)
           && !strchr(dir + 9, '/');
}

/* The walk's state: the tally, the longest a file may be (0: any) and
 * the files checked. */
typedef struct {
    tally *t;
    int max_file, files;
} walk;

/* The lines of a text, as wc -l counts them (its newlines). */
static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Notes in t a file longer than max lines (max 0: any length is fine). */
static void check_file_length(const char *path, const char *text, int max,
                              tally *t)
{
    int n = count_lines(text);
    if (!max || n <= max)
        return;
    size_t used = strlen(t->bad);
    snprintf(t->bad + used, t->badlen - used, "%s: %d lines (over %d); ",
             path, n, max);
    t->over++;
}

/* cli_walk's visit: a folder walked into unless left out; a source of the
 * program checked. */
static int visit(const char *path, const char *name, int is_dir, void *ctx)
{
    walk *w = ctx;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path),
             path);
    if (left_out(dir, name, is_dir))
        return 0;
    if (is_dir)
        return 1;
    if (is_source(name)) {
        size_t len;
        char *text = cli_read_file(path, &len);
        check_text(path + 2, text, w->t);   /* without the "./" */
        check_file_length(path + 2, text, w->max_file, w->t);
        free(text);
        w->files++;
    }
    return 0;
}

/* Checks every source under dir ("./" first, recursively) into t, each
 * file at most max_file lines (0: any); returns the files checked. */
static int check_tree(const char *dir, tally *t, int max_file)
{
    walk w = {t, max_file, 0};
    if (cli_walk(dir, visit, &w))
        fail_msg("cannot open %s/", dir);
    return w.files;
}

static void test_no_function_over_100_lines(void **state)
{
    (void)state;
    struct stat st;
    if (stat("report/study.c", &st) || stat("cli/main.c", &st))
        fail_msg("no report/study.c or cli/main.c: run from the repository "
                 "root");
    char bad[16384] = "";
    tally t = {.max = MAX_FUNCTION_LINES, .bad = bad, .badlen = sizeof bad};
    int files = check_tree(".", &t, 0);
    print_message("# %d functions in %d files; the longest: %s:%s:%d\n",
                  t.functions, files, t.longest_path, t.longest.name,
                  t.longest.lines);
    /* a scan that finds little read the wrong tree, or nothing */
    assert_true(files >= 200);
    assert_true(t.functions >= 1000);
    if (t.over)
        fail_msg("%d function(s) over %d lines (split them into named "
                 "steps): %s", t.over, MAX_FUNCTION_LINES, bad);
}

/* The strict rooms: no function over STRICT_FUNCTION_LINES, no file over
 * STRICT_FILE_LINES. */
static void test_strict_rooms(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof strict_rooms / sizeof *strict_rooms; i++) {
        char dir[64], bad[16384] = "";
        snprintf(dir, sizeof dir, "./%s", strict_rooms[i]);
        tally t = {.max = STRICT_FUNCTION_LINES, .bad = bad,
                   .badlen = sizeof bad};
        int files = check_tree(dir, &t, STRICT_FILE_LINES);
        print_message("# %s/: %d functions in %d files; the longest: "
                      "%s:%s:%d\n", strict_rooms[i], t.functions, files,
                      t.longest_path, t.longest.name, t.longest.lines);
        assert_true(files >= 2);
        if (t.over)
            fail_msg("%s/ is held to functions of at most %d lines and "
                     "files of at most %d (split them into named steps, "
                     "files by concern): %d over: %s", strict_rooms[i],
                     STRICT_FUNCTION_LINES, STRICT_FILE_LINES, t.over, bad);
    }
}

/* ---- the scanner on made-up files ----------------------------------- */

/* A function `name` of exactly `lines` lines in the sources' style, after
 * `before`, into out (malloc'd). */
static char *function_text(const char *before, const char *name, int lines)
{
    size_t cap = strlen(before) + 256 + (size_t)lines * 32;
    char *s = malloc(cap);
    assert_non_null(s);
    int n = snprintf(s, cap, "%sstatic int %s(int a,\n    int b)\n{\n",
                     before, name);
    for (int i = 0; i < lines - 2; i++)
        n += snprintf(s + n, cap - (size_t)n, "    a += b * %d;\n", i);
    snprintf(s + n, cap - (size_t)n, "}\n");
    return s;
}

static void test_limit_is_counted(void **state)
{
    (void)state;
    char bad[1024] = "";
    tally t = {.max = MAX_FUNCTION_LINES, .bad = bad, .badlen = sizeof bad};
    char *ok = function_text("/* } */\n", "at_limit", MAX_FUNCTION_LINES);
    char *over = function_text("#include <x.h>\n", "one_over",
                               MAX_FUNCTION_LINES + 1);
    assert_int_equal(check_text("ok.c", ok, &t), 0);
    assert_int_equal(t.functions, 1);
    assert_int_equal(t.longest.lines, MAX_FUNCTION_LINES);
    assert_string_equal(t.longest.name, "at_limit");
    assert_int_equal(check_text("x/over.c", over, &t), 1);
    assert_string_equal(bad, "x/over.c:one_over:101 (line 4); ");
    free(ok);
    free(over);
}

/* The strict rooms' limits: a function of 81 lines and a file of 1,001
 * are over them, one of 80 and one of 1,000 are not. */
static void test_strict_limits_are_counted(void **state)
{
    (void)state;
    char bad[1024] = "";
    tally t = {.max = STRICT_FUNCTION_LINES, .bad = bad,
               .badlen = sizeof bad};
    char *ok = function_text("", "at_limit", STRICT_FUNCTION_LINES);
    char *over = function_text("", "one_over", STRICT_FUNCTION_LINES + 1);
    assert_int_equal(check_text("inject/ok.c", ok, &t), 0);
    assert_int_equal(check_text("inject/over.c", over, &t), 1);
    assert_string_equal(bad, "inject/over.c:one_over:81 (line 3); ");
    free(ok);
    free(over);
    char *text = malloc(STRICT_FILE_LINES + 2);
    assert_non_null(text);
    memset(text, '\n', STRICT_FILE_LINES + 1);
    text[STRICT_FILE_LINES + 1] = '\0';
    bad[0] = '\0';
    t.over = 0;
    check_file_length("inject/long.c", text, STRICT_FILE_LINES, &t);
    assert_int_equal(t.over, 1);
    assert_string_equal(bad, "inject/long.c: 1001 lines (over 1000); ");
    text[STRICT_FILE_LINES] = '\0';
    check_file_length("inject/at.c", text, STRICT_FILE_LINES, &t);
    check_file_length("inject/at.c", text, 0, &t);
    assert_int_equal(t.over, 1);
    free(text);
}

/* What one made-up file must give: its functions as "NAME:FIRST:LINES "
 * in order, or NULL for braces that do not balance. */
typedef struct {
    const char *text, *want;
} scan_case;

static const scan_case scan_cases[] = {
    /* the sources' style, and the brace on the head's line */
    {"int f(void)\n{\n    return 0;\n}\n"
     "static void g(int a) {\n    a++;\n}\n", "f:2:3 g:5:3 "},
    /* braces in literals, comments and preprocessor lines do not count */
    {"#define OPEN {\n/* { */\nvoid h(void)\n{\n    puts(\"}{\");\n"
     "    char c = '}';\n    // }\n    c = '\\'';\n#if X /* {\n } */\n"
     "    c = 1;\n#endif\n"
     "}\n", "h:4:10 "},
    /* types and initializers are not functions, nor are their braces */
    {"static const int t[] = {\n    1,\n    2,\n};\n"
     "typedef struct {\n    int a;\n} s;\nstruct q { int (*fp)(void); };\n"
     "static struct {\n    int b;\n} g = {0};\nint k(void)\n{\n}\n",
     "k:13:2 "},
    /* attributes before the name; a kernel's __launch_bounds__ */
    {"__attribute__((visibility(\"default\"))) int Init(void)\n{\n}\n"
     "__global__ void __launch_bounds__(1024)\nkern(float *p)\n{\n}\n",
     "Init:2:2 kern:6:2 "},
    /* a template's default arguments; a default in the parameters */
    {"template <int K, bool R = false, int C = (1 > 0)>\n"
     "static fn pick(int u = 2)\n{\n}\n", "pick:3:2 "},
    /* functions inside a namespace and an extern "C" block; a method in a
     * struct is part of the struct */
    {"namespace {\ntemplate <int W> struct w { int f() { return W; } };\n"
     "__device__ int dev(int x)\n{\n    return x;\n}\n}  // namespace\n"
     "extern \"C\" {\nint c_api(void) const\n{\n}\n}\n"
     "extern \"C\" int one(void) { return 1; }\n"
     "namespace a::b {\nvoid two(void)\n{\n}\n}\n",
     "dev:4:3 c_api:10:2 one:13:1 two:16:2 "},
    /* braces that do not balance */
    {"void f(void)\n{\n", NULL},
    {"}\n", NULL},
};

static void collect(const function *f, void *ctx)
{
    char *out = ctx;
    size_t n = strlen(out);
    snprintf(out + n, 1024 - n, "%s:%d:%d ", f->name, f->first, f->lines);
}

static void test_scanner_finds_functions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof scan_cases / sizeof *scan_cases; i++) {
        char got[1024] = "";
        int n = scan_functions(scan_cases[i].text, collect, got);
        if (!scan_cases[i].want) {
            if (n != -1)
                fail_msg("case %zu: braces do not balance, but %d "
                         "functions found (%s)", i, n, got);
        } else if (n < 0 || strcmp(got, scan_cases[i].want)) {
            fail_msg("case %zu: found %d: '%s', not '%s'", i, n, got,
                     scan_cases[i].want);
        }
    }
    /* a head over 4 KB cannot be followed either: no function hides */
    char *big = malloc(8192);
    assert_non_null(big);
    for (int i = 0; i < 3000; i++)
        memcpy(big + 2 * i, "x ", 2);
    strcpy(big + 6000, "(void)\n{\n}\n");
    assert_int_equal(scan_functions(big, NULL, NULL), -1);
    free(big);
}

/* The files left out: the tests, build directories and hidden folders. */
static void test_tests_left_out(void **state)
{
    (void)state;
    assert_true(left_out(".", "tests", 1));
    assert_true(left_out(".", "build", 1));
    assert_true(left_out(".", ".deps", 1));
    assert_true(left_out("./probes/bank", "test_bank.c", 0));
    assert_false(left_out("./probes", "test_x.c", 0));
    assert_false(left_out("./probes/bank", "bank.c", 0));
    assert_false(left_out("./report", "study.c", 0));
    assert_false(left_out(".", "report", 1));
    assert_false(left_out("./probes", "bank", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanner_finds_functions),
        cmocka_unit_test(test_limit_is_counted),
        cmocka_unit_test(test_strict_limits_are_counted),
        cmocka_unit_test(test_tests_left_out),
        cmocka_unit_test(test_no_function_over_100_lines),
        cmocka_unit_test(test_strict_rooms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
