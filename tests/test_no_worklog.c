/*
 * test_no_worklog.c - the tree speaks about the software, not about how it
 * was made: no issue numbers, no numbered rounds or sessions of work, no
 * names of work-in-progress branches, and none of the words of the
 * environment memprobe was built in: the docs say how a developer runs
 * scripts/gpu-check.sh on a GPU machine (the patterns below show what each
 * finds) in
 *
 *   docs/NAME.md and README.md               (test docs_and_readme)
 *   every README* under results/             (test results_readmes)
 *   Makefile, .ci/run, scripts/, configs/    (test build_files_and_scripts)
 *   the .c .h .cu .sh .gp .mk .conf .py files of cli explain probes profile
 *   inject runtime model report tests shim, less tests/fuzz/corpus/ (fuzz inputs)
 *                                            (test sources)
 *
 * A comment says what a rule, measurement or commit is; the notes of the
 * work belong in git history. Each failing test lists every offending
 * PATH:LINE with the line, as TAP diagnostics and in its failure message.
 *
 * The patterns want a number right after "issue", "round" or "session",
 * so "the collector session", "range profiler sessions", "the first round
 * of the shape search" and "rounds to even" pass, and "issues 4 TEX
 * requests" (issue as a verb, then a count of something the hardware
 * does) passes too. A call with a number counts as a unit of work unless
 * a count of something a program does follows ("calls 3 kernels"), and a
 * name ending in "call" (can_call 0) is no mention. A mention broken
 * across two lines is found at its first line. Only this file's own
 * pattern text (between the off and on marker lines below) is left out.
 *
 * MP_WORKLOG_SKIP="PREFIX ..." leaves out the files whose path starts
 * with one of the prefixes (e.g. "docs/ README.md results/"); a test
 * whose files are all left out skips, saying so. Runs from the repository
 * root (where `make test` runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "mp_skip.h"

#define SELF "tests/test_no_worklog.c"
#define OFF_MARK "/* worklog-check: off */"
#define ON_MARK "/* worklog-check: on */"

/* ---- the patterns ---------------------------------------------------- */

/* Start of a word: the line's start or a character that is no part of a
 * name (POSIX ERE has no \b). */
#define W "(^|[^A-Za-z0-9_])"

typedef struct {
    const char *what;
    const char *re;
    /* after the match: a regex that, when it matches there, excuses it */
    const char *unless;
    regex_t rx, unless_rx;
} rule;

/* worklog-check: the patterns and the made-up lines below mention what
 * they look for; the marker lines leave them out of this file's check. */
/* worklog-check: off */
static rule rules[] = {
    /* "issue 24", "Issue 8's", "issues 12 and 14", "issue #7", "issue-4",
     * "diag-issue25"; not "issues 4 TEX requests", "issue 2 loads" */
    {"issue number", W "[Ii]ssues? ?[#-]?[0-9]+",
     "^ (([A-Z][A-Z0-9.]*|memory|shared|global|more|extra) )?"
     "(requests?|loads?|stores?|instructions?|transactions?|wavefronts?|"
     "sectors?|bytes?|copies|copy|reads?|writes?|launch(es)?)"
     "([^A-Za-z]|$)", {0}, {0}},
    /* "round 8", "rounds 2-5"; not "round(x)", "the first round" */
    {"numbered round of work", W "[Rr]ounds? [0-9]+", NULL, {0}, {0}},
    {"round of work", W "duplicates? rounds?([^A-Za-z]|$)", NULL, {0}, {0}},
    /* "session 12", "sessions 6-8", "session-7", "session7-pending" */
    {"numbered session of work", W "[Ss]essions? ?-?[0-9]+", NULL, {0}, {0}},
    {"numbered session of work",
     W "(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
       "eleventh|twelfth|[0-9]+(st|nd|rd|th)) sessions?([^A-Za-z]|$)",
     NULL, {0}, {0}},
    /* branches of work in progress: s12-pending, s11-l2exp, wt-k2,
     * session7-pending-gate, "on branch X", "branch `X`" (not main) */
    {"work-in-progress branch", W "s[0-9]+-[a-z]", NULL, {0}, {0}},
    {"work-in-progress branch", W "wt-[a-z0-9]", NULL, {0}, {0}},
    {"work-in-progress branch", "pending-gate", NULL, {0}, {0}},
    {"work-in-progress branch", W "branch `", "^main`", {0}, {0}},
    {"work-in-progress branch", W "[Oo]n branch ",
     "^(`|main([^A-Za-z0-9_-]|$))", {0}, {0}},
    /* the environment memprobe was built in: "the device tool", "device
     * budget", "one device call", "carry: [\".deps\"]", "the lent H200",
     * "this session", "measured in call 2", "calls 3-5"; not "calls 3
     * kernels", "a call 1 launch long", "can_call 0" */
    {"the environment's device tool", W "[Dd]evice[ -]tools?([^A-Za-z]|$)",
     NULL, {0}, {0}},
    {"the environment's device budget", W "[Dd]evice budgets?", NULL, {0},
     {0}},
    {"a call of the environment's device tool",
     W "[Dd]evice calls?([^A-Za-z]|$)", NULL, {0}, {0}},
    {"a folder carried by the environment", W "carry:", NULL, {0}, {0}},
    {"the environment's lent GPU", W "[Ll]ent (NVIDIA )?[A-Z]+[0-9]+",
     NULL, {0}, {0}},
    {"a session of work", W "[Tt]his session([^A-Za-z]|$)", NULL, {0}, {0}},
    {"numbered call of work", W "[Cc]alls? ?#?[0-9]+",
     "^ (([a-z]+) )?"
     "(times?|kernels?|launch(es)?|functions?|arguments?|args?|threads?|"
     "warps?|blocks?|bytes?|records?|ranges?|passes?|instructions?|"
     "requests?|loads?|stores?|copies|cop(y|ies)|seconds?|us|ms|ns|"
     "lines?|rows?|levels?|deep|long)([^A-Za-z]|$)", {0}, {0}},
};
/* worklog-check: on */
#define NRULES (sizeof rules / sizeof *rules)

static void compile_rules(void)
{
    static int done;
    if (done)
        return;
    for (size_t i = 0; i < NRULES; i++) {
        if (regcomp(&rules[i].rx, rules[i].re, REG_EXTENDED))
            fail_msg("bad pattern: %s", rules[i].re);
        if (rules[i].unless
            && regcomp(&rules[i].unless_rx, rules[i].unless,
                       REG_EXTENDED | REG_NOSUB))
            fail_msg("bad pattern: %s", rules[i].unless);
    }
    done = 1;
}

/* The first mention that starts within the first `len` characters of
 * text (a line, maybe followed by the next one): its rule's name, or
 * NULL. */
static const char *mention(const char *text, size_t len)
{
    compile_rules();
    for (size_t i = 0; i < NRULES; i++) {
        const rule *r = &rules[i];
        size_t off = 0;
        regmatch_t m[1];
        while (off < len
               && regexec(&r->rx, text + off, 1, m, off ? REG_NOTBOL : 0)
                      == 0) {
            size_t start = off + (size_t)m[0].rm_so;
            size_t end = off + (size_t)m[0].rm_eo;
            /* the word-start character the match may begin with */
            if (!isalnum((unsigned char)text[start]) && text[start] != '_'
                && start + 1 < end)
                start++;
            if (start >= len)
                break;
            if (!r->unless
                || regexec(&r->unless_rx, text + end, 0, NULL, 0))
                return r->what;
            off = end > start ? end : start + 1;
        }
    }
    return NULL;
}

/* ---- files --------------------------------------------------------- */

typedef struct {
    char *list;          /* "PATH:LINE: text\n" for each mention */
    size_t len, cap;
    int hits, files, left_out;
} findings;

static void add(findings *f, const char *path, int line, const char *what,
                const char *text, size_t textlen)
{
    char buf[400];
    if (textlen > 160)
        textlen = 160;
    int n = snprintf(buf, sizeof buf, "%s:%d: %s: %.*s\n", path, line, what,
                     (int)textlen, text);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    if (f->len + (size_t)n + 1 > f->cap) {
        f->cap = 2 * (f->len + (size_t)n + 1);
        f->list = realloc(f->list, f->cap);
        assert_non_null(f->list);
    }
    memcpy(f->list + f->len, buf, (size_t)n + 1);
    f->len += (size_t)n;
    f->hits++;
}

/* The text after a line's leading blanks and comment markers (" * ",
 * "# ", "// "), for joining a mention broken across two lines. */
static const char *after_marker(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s + 1 < end && s[0] == '/' && (s[1] == '/' || s[1] == '*'))
        s += 2;
    else if (s < end && (*s == '*' || *s == '#'))
        s++;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

/* Checks one text; path names it in the findings. */
static void check_text(findings *f, const char *path, const char *text)
{
    int self = !strcmp(path, SELF), off = 0, lineno = 0;
    size_t cap = 1024;
    char *joined = malloc(cap);
    assert_non_null(joined);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        size_t len = (size_t)(end - line);
        lineno++;
        if (self && len == strlen(OFF_MARK) && !strncmp(line, OFF_MARK, len))
            off = 1;
        else if (self && len == strlen(ON_MARK)
                 && !strncmp(line, ON_MARK, len))
            off = 0;
        else if (!off) {
            /* this line, a blank and the next line's text */
            const char *next = *end ? end + 1 : end;
            const char *nend = strchr(next, '\n');
            if (!nend)
                nend = next + strlen(next);
            const char *nt = after_marker(next, nend);
            size_t need = len + 1 + (size_t)(nend - nt) + 1;
            if (need > cap) {
                cap = 2 * need;
                joined = realloc(joined, cap);
                assert_non_null(joined);
            }
            memcpy(joined, line, len);
            joined[len] = ' ';
            memcpy(joined + len + 1, nt, (size_t)(nend - nt));
            joined[need - 1] = '\0';
            const char *what = mention(joined, len);
            if (what)
                add(f, path, lineno, what, line, len);
        }
        line = *end ? end + 1 : end;
    }
    free(joined);
}

static int left_out(const char *path)
{
    const char *skip = getenv("MP_WORKLOG_SKIP");
    if (!skip)
        return 0;
    char *copy = strdup(skip), *save = NULL;
    assert_non_null(copy);
    int out = 0;
    for (char *p = strtok_r(copy, " \t", &save); p && !out;
         p = strtok_r(NULL, " \t", &save))
        out = !strncmp(path, p, strlen(p));
    free(copy);
    return out;
}

static void check_file(findings *f, const char *path)
{
    if (left_out(path)) {
        f->left_out++;
        return;
    }
    size_t len;
    char *text = cli_read_file(path, &len);
    /* a binary file (NUL inside) is no text to read */
    if (memchr(text, '\0', len) == NULL) {
        check_text(f, path, text);
        f->files++;
    }
    free(text);
}

static int has_ext(const char *name, const char *const *exts)
{
    if (!exts)
        return 1;
    size_t n = strlen(name);
    for (; *exts; exts++) {
        size_t e = strlen(*exts);
        if (n > e && !strcmp(name + n - e, *exts))
            return 1;
    }
    return 0;
}

/* The walk's state: where findings go and which files count. */
typedef struct {
    findings *f;
    const char *const *exts;
    int readme;
} walk;

/* cli_walk's visit: hidden names and the fuzz inputs (test data, byte
 * for byte) left out; a file checked when its name fits. */
static int visit(const char *path, const char *name, int is_dir, void *ctx)
{
    walk *w = ctx;
    if (name[0] == '.')
        return 0;
    if (is_dir)
        return strcmp(path, "tests/fuzz/corpus") != 0;
    if (w->readme ? !strncmp(name, "README", 6) : has_ext(name, w->exts))
        check_file(w->f, path);
    return 0;
}

/* Every regular file under dir (recursively, hidden names left out)
 * whose name ends in one of exts (NULL: every file) or, with readme,
 * starts with "README". */
static void check_tree(findings *f, const char *dir,
                       const char *const *exts, int readme)
{
    walk w = {f, exts, readme};
    if (strcmp(dir, "tests/fuzz/corpus"))
        cli_walk(dir, visit, &w);
}

/* "PATH (N), PATH (N)" from a list of "PATH:LINE: ...\n" lines, in a
 * static buffer (at most 600 characters, then "..."). */
static const char *by_file(const char *list)
{
    static char out[640];
    size_t used = 0;
    out[0] = '\0';
    const char *s = list;
    while (*s) {
        size_t plen = strcspn(s, ":");
        int n = 0;
        const char *t = s;
        while (*t && strcspn(t, ":") == plen && !strncmp(t, s, plen)) {
            n++;
            t = strchr(t, '\n') + 1;
        }
        int w = snprintf(out + used, sizeof out - used, "%s%.*s (%d)",
                         used ? ", " : "", (int)plen, s, n);
        if (w < 0 || used + (size_t)w >= 600) {
            snprintf(out + (used < 600 ? used : 600), 8, ", ...");
            break;
        }
        used += (size_t)w;
        s = t;
    }
    return out;
}

/* Fails the test, listing every mention; skips when every file was left
 * out by MP_WORKLOG_SKIP; fails when nothing was read (a wrong working
 * directory, not a clean tree). */
static void verdict(findings *f, const char *area)
{
    if (f->hits) {
        print_message("# %d mention(s) of issues, rounds or sessions of "
                      "work, work-in-progress branches or the words of the "
                      "environment memprobe was built in, in %s:\n",
                      f->hits, area);
        for (const char *s = f->list; *s;) {
            const char *e = strchr(s, '\n');
            print_message("#   %.*s\n", (int)(e - s), s);
            s = e + 1;
        }
        const char *files = by_file(f->list);
        free(f->list);
        fail_msg("%d mention(s) in %s, by file: %s (each PATH:LINE "
                 "listed above): say what the rule, measurement or commit "
                 "is instead", f->hits, area, files);
    }
    free(f->list);
    if (!f->files && f->left_out)
        MP_SKIP("all %d files of %s left out by MP_WORKLOG_SKIP",
                f->left_out, area);
    if (!f->files)
        fail_msg("no file of %s read (run from the repository root)", area);
}

/* the .md files of docs/, the folder itself only */
static int docs_visit(const char *path, const char *name, int is_dir,
                      void *ctx)
{
    walk *w = ctx;
    if (!is_dir && name[0] != '.' && has_ext(name, w->exts))
        check_file(w->f, path);
    return 0;
}

static void test_docs_and_readme(void **state)
{
    (void)state;
    findings f = {0};
    static const char *const md[] = {".md", NULL};
    walk w = {&f, md, 0};
    cli_walk("docs", docs_visit, &w);
    check_file(&f, "README.md");
    verdict(&f, "docs/NAME.md and README.md");
}

static void test_results_readmes(void **state)
{
    (void)state;
    findings f = {0};
    check_tree(&f, "results", NULL, 1);
    verdict(&f, "the READMEs under results/");
}

static void test_build_files_and_scripts(void **state)
{
    (void)state;
    findings f = {0};
    check_file(&f, "Makefile");
    check_file(&f, ".ci/run");
    check_tree(&f, "scripts", NULL, 0);
    check_tree(&f, "configs", NULL, 0);
    verdict(&f, "Makefile, .ci/run, scripts/ and configs/");
}

static void test_sources(void **state)
{
    (void)state;
    findings f = {0};
    static const char *const exts[] = {".c", ".h", ".cu", ".sh", ".gp",
                                       ".mk", ".conf", ".py", NULL};
    static const char *const dirs[] = {"cli", "explain", "probes",
                                       "profile", "inject", "runtime",
                                       "model", "report", "tests", "shim"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        check_tree(&f, dirs[i], exts, 0);
    verdict(&f, "the sources of cli explain probes profile inject runtime "
                "model report tests shim");
}

/* ---- the matcher on made-up lines ------------------------------------ */

typedef struct {
    const char *text;
    int mentions;   /* 1: the first line holds a mention */
} line_case;

/* worklog-check: off */
static const line_case line_cases[] = {
    /* mentions */
    {"# Issue 8's reliability checks: the same suite", 1},
    {" * (issue 24): no row off the model.", 1},
    {"see issues 12 and 14", 1},
    {"(issue 27 item 3)", 1},
    {"Issues 26 and 27 were submitted", 1},
    {"the issue-4 targets", 1},
    {"# diag-issue25.sh - one-off", 1},
    {"issue #7 asked for it", 1},
    {"docs: issue 25 round 8 in architecture.md", 1},
    {"the seventh duplicate round", 1},
    {"rounds 2-5 of the duplicates", 1},
    {"notes: session 12, the collector flush", 1},
    {"## Session 7 (2026-12-02)", 1},
    {"the gates of sessions 6-8", 1},
    {"the session-7 branch", 1},
    {"in the 11th session", 1},
    {"wait on branch s12-pending", 1},
    {"(branch `session7-pending-gate`)", 1},
    {"the draft is branch wt-k2,", 1},
    {"the s10-pending branch", 1},
    {"cb6b959 (branch s11-l2exp)", 1},
    /* across a line break: found at the first line */
    {"     * cubes ran 50 us (H200, session\n     * 4, with the flush)", 1},
    {"# the GPU gate (issue\n# 24): code lands", 1},
    /* legitimate text */
    {"Texture: tex1Dfetch issues 4 TEX requests per warp", 0},
    {"each warp issues 2 loads and 1 store", 0},
    {"one collector session each", 0},
    {"CUPTI range profiler sessions per context", 0},
    {"a sanitizer session ends", 0},
    {"The final round: the FINALISTS fastest of the first round", 0},
    {"#define ROUNDS 3", 0},
    {"%.6g rounds the tie to even", 0},
    {"round(s16) == round(s32)", 0},
    {"in interleaved rounds so that drift hits every variant", 0},
    {"    assert_string_equal(buf, \"coalesce/aos12-staged\");", 0},
    {"--layout soa,aos12,aos16,aos12-staged", 0},
    {"static void issue(transfer_state *s, copy_pair *p)", 0},
    {"a branch-free OR of the differences", 0},
    {"the SASS branches around the body", 0},
    {"merged into branch `main`", 0},
    {"the first run's process (range run 1 of 2)", 0},
    {"the session\n * ends: 4 passes", 0},
    /* the environment's words: mentions */
    {"The device tool returns at most 8 files from", 1},
    {"# device tool: build, SASS check", 1},
    {"within the device budget", 1},
    {"Everything goes through one device call:", 1},
    {"and pass `carry: [\".deps\"]` with every call", 1},
    {"# one device call, carry: .deps", 1},
    {"The numbers measured on the lent NVIDIA H200", 1},
    {"what the lent H200 measured", 1},
    {"`ncu/`: the first call of this session, with ncu", 1},
    {"measured in call 2 at 665077e", 1},
    {"(call 4)", 1},
    {"calls 3-5 of the gate", 1},
    {"Call 7's build failed", 1},
    {"measured in call\n * 3 of the day", 1},
    /* legitimate text */
    {"it calls 3 kernels per launch", 0},
    {"a call 1 launch long", 0},
    {"can_call 0 (a signal, a crash)", 0},
    {"the wrapper calls 2 functions", 0},
    {"on a GPU machine: OUT=dir scripts/gpu-check.sh build gate", 0},
    {"the device's tools (ncu, compute-sanitizer)", 0},
    {"excellent H200 numbers", 0},
    {"the collector session profiles the group", 0},
};
/* A text of four lines and the list of its two mentions. */
static const char list_text[] = "ok\n/* issue 7 */\nok\nsession 3\n";
static const char list_want[] =
    "x/y.c:2: issue number: /* issue 7 */\n"
    "x/y.c:4: numbered session of work: session 3\n";
/* worklog-check: on */

static void test_matcher(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof line_cases / sizeof *line_cases; i++) {
        const line_case *c = &line_cases[i];
        findings f = {0};
        check_text(&f, "made-up.c", c->text);
        int first = f.hits && !strncmp(f.list, "made-up.c:1:", 12);
        if (first != c->mentions)
            fail_msg("\"%s\": %s", c->text,
                     c->mentions ? "mention not found" : f.list);
        free(f.list);
    }
    /* the list names each offending line */
    findings f = {0};
    check_text(&f, "x/y.c", list_text);
    assert_int_equal(f.hits, 2);
    assert_string_equal(f.list, list_want);
    free(f.list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matcher),
        cmocka_unit_test(test_build_files_and_scripts),
        cmocka_unit_test(test_sources),
        cmocka_unit_test(test_docs_and_readme),
        cmocka_unit_test(test_results_readmes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
