/*
 * test_maps.c - the tree's maps name what is there: a source file's first
 * comment names that file, and the paths the docs and the help texts cite
 * exist.
 *
 *   first_comments  every .c .h .cu .cuh .sh .gp .mk .py .awk file of cli
 *                   explain probes profile inject runtime model report
 *                   capture shim tests scripts (less tests/fuzz/corpus/,
 *                   fuzz inputs): its first comment (the first C comment;
 *                   in the others the first run of '#' lines, a "#!" line
 *                   left out) holds the file's own name, and every path it
 *                   cites and every bare NAME.c it names exists
 *   doc_paths       every word inside `backticks` in docs/NAME.md,
 *                   README.md and the READMEs under results/ that is a
 *                   path (below) exists, from the repository root or from
 *                   the page's own folder (fenced code blocks left out)
 *   doc_links       every relative Markdown link or image of those pages
 *                   resolves to a file or folder inside the repository
 *   help_paths      every path in `memprobe --help` and in `memprobe NAME
 *                   --help` of each command and probe it lists exists
 *
 * A path is a word that starts with a folder at the repository root
 * (computed from the tree: hidden folders and the build outputs build*
 * and gpu-out left out) and a '/', or with "../" or "./", or that holds a
 * '/' and ends in ".md". Before the check the word loses its surrounding
 * brackets, quotes and punctuation, a trailing "'s", a "#anchor", a
 * ":LINE" or ":LINE-LINE" and everything up to its last '=' (OUT=dir).
 * "{h,c}" stands for each of its alternatives. A word with a placeholder
 * (a run of capitals and digits standing alone, like NAME, FAMILY, K or
 * COMMIT; '*'; "..."; "<...>") is a pattern: some path of the tree must
 * fit it (probes/NAME/ fits probes/bank/). `git show REV:PATH` names a
 * path of another commit; it starts with the commit, so it is no path
 * here. A path directly in results/ whose first name is not there
 * (results/latest.csv, results/hazards.csv, results/fleet/) is where a
 * run writes, not a file of the tree.
 *
 * Each failing test lists every offender as PATH:LINE: WHAT: WORD (TAP
 * diagnostics), and counts them in its failure message. Runs from the
 * repository root (where `make test` runs); the help texts need the
 * built memprobe ($MEMPROBE, default ./memprobe).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "mp_skip.h"

#define WORDLEN 512

/* ---- the tree ------------------------------------------------------- */

typedef struct {
    char **v;
    size_t n, cap;
} strlist;

static strlist tree;   /* every file and folder, "DIR/NAME" from the root */
static strlist tops;   /* the folders at the root */

static void list_add(strlist *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n] = strdup(s);
    assert_non_null(l->v[l->n]);
    l->n++;
}

/* Hidden names and, at the root, the build outputs left out. */
static int tree_visit(const char *path, const char *name, int is_dir,
                      void *ctx)
{
    (void)ctx;
    if (name[0] == '.')
        return 0;
    const char *rel = path + 2;   /* past "./" */
    int at_root = strchr(rel, '/') == NULL;
    if (at_root && is_dir
        && (!strncmp(name, "build", 5) || !strcmp(name, "gpu-out")))
        return 0;
    list_add(&tree, rel);
    if (at_root && is_dir)
        list_add(&tops, rel);
    return is_dir;
}

/* Into the repository root (the group runs in a temporary folder), and
 * the tree listed once. */
static void enter_repo(void)
{
    if (chdir(cli_in_repo(".")))
        fail_msg("cannot enter the repository root %s", cli_in_repo("."));
    if (!tree.n)
        cli_walk(".", tree_visit, NULL);
    if (!tops.n)
        fail_msg("no folder at the repository root %s", cli_in_repo("."));
}

/* ---- what a word names ---------------------------------------------- */

static int starts_with(const char *s, const char *p)
{
    return !strncmp(s, p, strlen(p));
}

static int ends_with(const char *s, const char *p)
{
    size_t n = strlen(s), m = strlen(p);
    return n >= m && !strcmp(s + n - m, p);
}

/* A placeholder: a run of capitals and digits, starting with a capital,
 * with no letter or digit on either side. Its length, or 0. */
static size_t placeholder_at(const char *w, size_t i)
{
    if (!isupper((unsigned char)w[i])
        || (i > 0 && isalnum((unsigned char)w[i - 1])))
        return 0;
    size_t j = i;
    while (isupper((unsigned char)w[j]) || isdigit((unsigned char)w[j]))
        j++;
    return isalnum((unsigned char)w[j]) ? 0 : j - i;
}

static int is_pattern(const char *w)
{
    if (strpbrk(w, "*<") || strstr(w, "...") || strstr(w, "\xe2\x80\xa6"))
        return 1;
    for (size_t i = 0; w[i]; i++)
        if (placeholder_at(w, i))
            return 1;
    return 0;
}

/* The pattern as an anchored POSIX ERE: a placeholder, '*' or "<...>"
 * for one name, "..." or "**" for any part of a path. */
static void to_regex(const char *w, char *re, size_t size)
{
    size_t o = 0;
    o += (size_t)snprintf(re + o, size - o, "^");
    for (size_t i = 0; w[i] && o + 8 < size;) {
        size_t ph = placeholder_at(w, i);
        const char *gt = w[i] == '<' ? strchr(w + i, '>') : NULL;
        if (starts_with(w + i, "...") || starts_with(w + i, "**")) {
            o += (size_t)snprintf(re + o, size - o, ".*");
            i += w[i] == '.' ? 3 : 2;
        } else if (starts_with(w + i, "\xe2\x80\xa6")) {
            o += (size_t)snprintf(re + o, size - o, ".*");
            i += 3;
        } else if (w[i] == '*' || ph || gt) {
            o += (size_t)snprintf(re + o, size - o, "[^/]+");
            i = gt ? (size_t)(gt - w) + 1 : i + (ph ? ph : 1);
        } else {
            if (strchr(".[]()+?{}^$|\\", w[i]))
                re[o++] = '\\';
            re[o++] = w[i++];
        }
    }
    snprintf(re + o, size - o, "$");
}

/* "a/./b/../c" as "a/c" into out; -1 when it leaves the root. */
static int normalize(const char *in, char *out, size_t size)
{
    char buf[WORDLEN];
    snprintf(buf, sizeof buf, "%s", in);
    size_t o = 0;
    out[0] = '\0';
    char *save = NULL;
    for (char *s = strtok_r(buf, "/", &save); s;
         s = strtok_r(NULL, "/", &save)) {
        if (!strcmp(s, "."))
            continue;
        if (!strcmp(s, "..")) {
            if (!o)
                return -1;
            while (o > 0 && out[o - 1] != '/')
                o--;
            o = o ? o - 1 : 0;
            out[o] = '\0';
            continue;
        }
        o += (size_t)snprintf(out + o, size - o, "%s%s", o ? "/" : "", s);
        if (o >= size)
            return -1;
    }
    return 0;
}

/* Some file or folder of the tree is, or fits, w (relative to the root). */
static int names_something(const char *w)
{
    char norm[WORDLEN];
    if (normalize(w, norm, sizeof norm))
        return 0;
    if (!is_pattern(norm)) {
        struct stat st;
        return norm[0] && stat(norm, &st) == 0;
    }
    char re[4 * WORDLEN];
    regex_t rx;
    to_regex(norm, re, sizeof re);
    if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
        return 0;
    int found = 0;
    for (size_t i = 0; i < tree.n && !found; i++)
        found = regexec(&rx, tree.v[i], 0, NULL, 0) == 0;
    regfree(&rx);
    return found;
}

/* w names something from the root or from base (a page's folder); each
 * alternative of a "{a,b}" must. */
static int exists_from(const char *w, const char *base)
{
    const char *open = strchr(w, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    if (close) {
        char alt[WORDLEN], one[WORDLEN];
        snprintf(alt, sizeof alt, "%.*s", (int)(close - open - 1), open + 1);
        char *save = NULL;
        for (char *a = strtok_r(alt, ",", &save); a;
             a = strtok_r(NULL, ",", &save)) {
            snprintf(one, sizeof one, "%.*s%s%s", (int)(open - w), w, a,
                     close + 1);
            if (!exists_from(one, base))
                return 0;
        }
        return 1;
    }
    char rel[2 * WORDLEN];
    int relative = starts_with(w, "./") || starts_with(w, "../");
    if (!relative && names_something(w))
        return 1;
    if (!base || !base[0])
        return 0;
    snprintf(rel, sizeof rel, "%s/%s", base, w);
    return names_something(rel);
}

/* The word without what surrounds a path in prose (see the top). */
static void clean(const char *in, char *w, size_t size)
{
    while (*in && strchr("([{\"'<", *in) && !(in[0] == '{' && strchr(in, '}')))
        in++;
    const char *eq = strrchr(in, '=');
    if (eq)
        in = eq + 1;
    snprintf(w, size, "%s", in);
    w[strcspn(w, "\"'()[]`;|&$!?")] = '\0';
    char *hash = strchr(w, '#');
    if (hash)
        *hash = '\0';
    for (size_t n = strlen(w); n > 0; n = strlen(w)) {
        char c = w[n - 1];
        if (strchr("),.;:\"']>", c)
            || (c == '}' && !strchr(w, '{')))
            w[n - 1] = '\0';
        else if (n > 2 && !strcmp(w + n - 2, "'s"))
            w[n - 2] = '\0';
        else
            break;
    }
    /* ":LINE" or ":LINE-LINE" */
    char *colon = strrchr(w, ':');
    if (colon && colon[1] && strspn(colon + 1, "0123456789-")
                                 == strlen(colon + 1))
        *colon = '\0';
}

/* A word that cites a path (see the top); "../" counts only on a page
 * (up_ok), where it starts from the page's folder. */
static int is_path(const char *w, int up_ok)
{
    const char *colon = strchr(w, ':'), *slash = strchr(w, '/');
    if (strstr(w, "://") || (colon && slash && colon < slash))
        return 0;   /* a URL, or REV:PATH of another commit */
    if (starts_with(w, "../"))
        return up_ok && w[3];
    if (slash && ends_with(w, ".md"))
        return 1;
    for (size_t i = 0; i < tops.n; i++) {
        size_t n = strlen(tops.v[i]);
        if (!strncmp(w, tops.v[i], n) && w[n] == '/')
            return 1;
    }
    return 0;
}

/* results/NAME... where results/ has no NAME: where a run writes. */
static int run_output(const char *w)
{
    if (!starts_with(w, "results/"))
        return 0;
    char first[WORDLEN];
    snprintf(first, sizeof first, "%s", w);
    char *slash = strchr(first + strlen("results/"), '/');
    if (slash)
        *slash = '\0';
    struct stat st;
    return first[strlen("results/")] && stat(first, &st) != 0
           && !is_pattern(first);
}

/* A program or library the build makes from a source beside it:
 * tests/profile/app from tests/profile/app.cu, fake_capture.so from
 * fake_capture.c. */
static int built_from(const char *w, const char *base)
{
    char src[WORDLEN];
    static const char *const exts[] = {".c", ".cu"};
    size_t n = strlen(w);
    if (ends_with(w, ".so") || ends_with(w, ".o"))
        n = (size_t)(strrchr(w, '.') - w);
    else if (strchr(strrchr(w, '/') ? strrchr(w, '/') : w, '.'))
        return 0;   /* a name with an extension of its own */
    for (size_t i = 0; i < 2; i++) {
        snprintf(src, sizeof src, "%.*s%s", (int)n, w, exts[i]);
        if (exists_from(src, base))
            return 1;
    }
    return 0;
}

/* NULL when the raw word cites nothing missing, else the cleaned word
 * (in a static buffer). base: the folder relative paths start from on a
 * page, NULL in a source or a help text. */
static const char *missing(const char *raw, const char *base)
{
    static char w[WORDLEN];
    clean(raw, w, sizeof w);
    if (!w[0] || !is_path(w, base != NULL) || run_output(w))
        return NULL;
    return exists_from(w, base) || built_from(w, base) ? NULL : w;
}

/* ---- findings -------------------------------------------------------- */

typedef struct {
    int hits, files;
} findings;

static void found(findings *f, const char *path, int line, const char *what,
                  const char *word)
{
    print_message("# %s:%d: %s: %s\n", path, line, what, word);
    f->hits++;
}

static void verdict(const findings *f, const char *area, const char *fix)
{
    if (f->hits)
        fail_msg("%d offender(s) in %s (each PATH:LINE listed above): %s",
                 f->hits, area, fix);
    if (!f->files)
        fail_msg("no file of %s read (run from the repository root)", area);
}

static int line_at(const char *text, const char *p)
{
    int n = 1;
    for (const char *s = text; s < p; s++)
        n += *s == '\n';
    return n;
}

/* Every path word of the text from s to end; line numbers from text. */
static void check_words(findings *f, const char *path, const char *base,
                        const char *text, const char *s, const char *end,
                        const char *what)
{
    char raw[WORDLEN];
    while (s < end) {
        while (s < end && isspace((unsigned char)*s))
            s++;
        const char *e = s;
        while (e < end && !isspace((unsigned char)*e))
            e++;
        if (e > s) {
            snprintf(raw, sizeof raw, "%.*s", (int)(e - s), s);
            const char *m = missing(raw, base);
            if (m)
                found(f, path, line_at(text, s), what, m);
        }
        s = e;
    }
}

/* ---- Markdown pages -------------------------------------------------- */

/* A copy of the text with fenced code blocks (``` lines and what is
 * between them) blanked, line breaks kept. */
static char *without_fences(const char *text)
{
    char *t = strdup(text);
    assert_non_null(t);
    int fenced = 0;
    for (char *line = t; *line;) {
        char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        const char *s = line + strspn(line, " ");
        int fence = starts_with(s, "```");
        if (fence || fenced)
            memset(line, ' ', (size_t)(end - line));
        fenced ^= fence;
        line = *end ? end + 1 : end;
    }
    return t;
}

/* Every `span` (a run of k backticks up to the next run of k). */
static void check_spans(findings *f, const char *path, const char *base,
                        const char *t)
{
    for (const char *s = t; (s = strchr(s, '`'));) {
        size_t k = strspn(s, "`");
        const char *open = s + k, *close = open;
        while ((close = strchr(close, '`')) && strspn(close, "`") != k)
            close += strspn(close, "`");
        if (!close)
            break;
        check_words(f, path, base, t, open, close, "cites a missing path");
        s = close + k;
    }
}

/* Every relative link or image target "](TARGET)" resolves inside the
 * repository. */
static void check_links(findings *f, const char *path, const char *base,
                        const char *t)
{
    for (const char *s = t; (s = strstr(s, "](")); s += 2) {
        const char *start = s + 2;
        size_t n = strcspn(start, ") \t\n");
        char target[WORDLEN], rel[2 * WORDLEN], norm[2 * WORDLEN];
        snprintf(target, sizeof target, "%.*s", (int)n, start);
        char *hash = strchr(target, '#');
        if (hash)
            *hash = '\0';
        if (!target[0] || strchr(target, ':'))
            continue;   /* an anchor of the page, or a URL */
        snprintf(rel, sizeof rel, "%s%s%s", base, base[0] ? "/" : "",
                 target);
        struct stat st;
        if (normalize(rel, norm, sizeof norm))
            found(f, path, line_at(t, s), "links outside the repository",
                  target);
        else if (stat(norm[0] ? norm : ".", &st))
            found(f, path, line_at(t, s), "links to a missing path", target);
    }
}

/* The folder of path ("" at the root) into out. */
static void folder_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, size, "%.*s", slash ? (int)(slash - path) : 0, path);
}

typedef void (*page_check)(findings *, const char *, const char *,
                           const char *);

static void check_page(findings *f, const char *path, page_check check)
{
    size_t len;
    char *text = cli_read_file(path, &len);
    char *t = without_fences(text);
    char base[WORDLEN];
    folder_of(path, base, sizeof base);
    check(f, path, base, t);
    free(t);
    free(text);
    f->files++;
}

/* docs/NAME.md, README.md and every README* under results/. */
static void check_pages(findings *f, page_check check)
{
    for (size_t i = 0; i < tree.n; i++) {
        const char *p = tree.v[i], *name = strrchr(p, '/');
        name = name ? name + 1 : p;
        int doc = starts_with(p, "docs/") && !strchr(p + 5, '/')
                  && ends_with(p, ".md");
        int readme = !strcmp(p, "README.md")
                     || (starts_with(p, "results/")
                         && starts_with(name, "README"));
        if (doc || readme)
            check_page(f, p, check);
    }
}

static void test_doc_paths(void **state)
{
    (void)state;
    enter_repo();
    findings f = {0, 0};
    check_pages(&f, check_spans);
    verdict(&f, "the backticked paths of docs/, README.md and results/",
            "cite the path as it is now");
}

static void test_doc_links(void **state)
{
    (void)state;
    enter_repo();
    findings f = {0, 0};
    check_pages(&f, check_links);
    verdict(&f, "the links of docs/, README.md and results/",
            "link to a page of the repository");
}

/* ---- first comments -------------------------------------------------- */

static int c_like(const char *path)
{
    return ends_with(path, ".c") || ends_with(path, ".h")
           || ends_with(path, ".cu") || ends_with(path, ".cuh");
}

static int hash_like(const char *path)
{
    return ends_with(path, ".sh") || ends_with(path, ".gp")
           || ends_with(path, ".mk") || ends_with(path, ".py")
           || ends_with(path, ".awk");
}

/* The first comment of a file's text: *start and *end, or 0 when none. */
static int first_comment(const char *path, const char *text,
                         const char **start, const char **end)
{
    if (c_like(path)) {
        const char *block = strstr(text, "/*"), *line = strstr(text, "//");
        if (line && (!block || line < block)) {
            *start = line;
            for (*end = line; starts_with(*end + strspn(*end, " \t"), "//");)
                *end = strchr(*end, '\n') ? strchr(*end, '\n') + 1
                                          : *end + strlen(*end);
            return 1;
        }
        *start = block;
        *end = block ? strstr(block + 2, "*/") : NULL;
        return *end != NULL;
    }
    const char *s = text;
    if (starts_with(s, "#!"))
        s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s);
    while (*s && *s != '#')   /* blank or code lines before it */
        s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s);
    *start = *end = s;
    while (**end == '#')
        *end = strchr(*end, '\n') ? strchr(*end, '\n') + 1
                                  : *end + strlen(*end);
    return *end > *start;
}

/* name occurs in [s, end) as a whole file name (a '/' may precede it). */
static int names_file(const char *s, const char *end, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = s; p + n <= end; p++)
        if (!strncmp(p, name, n)
            && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'
                            || p[-1] == '-' || p[-1] == '.'))
            && (p + n == end || !(isalnum((unsigned char)p[n])
                                  || p[n] == '_')))
            return 1;
    return 0;
}

/* Some file of the tree is called name. */
static int is_file_name(const char *name)
{
    for (size_t i = 0; i < tree.n; i++) {
        const char *slash = strrchr(tree.v[i], '/');
        if (!strcmp(slash ? slash + 1 : tree.v[i], name))
            return 1;
    }
    return 0;
}

/* Each bare NAME.c of [s, end) (no '/' or '.' before it) is a file of
 * the tree. */
static void check_bare_c(findings *f, const char *path, const char *text,
                         const char *s, const char *end)
{
    for (const char *p = s; p + 2 < end; p++) {
        if (strncmp(p, ".c", 2) || isalnum((unsigned char)p[2])
            || p[2] == '_')
            continue;
        const char *b = p;
        while (b > s && (isalnum((unsigned char)b[-1]) || b[-1] == '_'
                         || b[-1] == '-'))
            b--;
        if (b == p || !isalnum((unsigned char)*b)
            || (b > s && strchr("/.*<>{}", b[-1])))
            continue;
        char name[WORDLEN];
        snprintf(name, sizeof name, "%.*s.c", (int)(p - b), b);
        if (!is_pattern(name) && !is_file_name(name))
            found(f, path, line_at(text, b), "names a missing file", name);
    }
}

/* One source file: its first comment names it, and what it cites
 * exists. */
static void check_source(findings *f, const char *path)
{
    size_t len;
    char *text = cli_read_file(path, &len);
    const char *s, *e;
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    if (!first_comment(path, text, &s, &e))
        found(f, path, 1, "has no first comment naming it", name);
    else {
        if (!names_file(s, e, name))
            found(f, path, line_at(text, s),
                  "first comment does not name the file", name);
        check_words(f, path, NULL, text, s, e,
                    "first comment cites a missing path");
        check_bare_c(f, path, text, s, e);
    }
    free(text);
    f->files++;
}

static const char *const source_dirs[] = {
    "cli/", "explain/", "probes/", "profile/", "inject/", "runtime/",
    "model/", "report/", "crosscheck/", "shim/", "tests/", "scripts/",
};

static int is_source(const char *path)
{
    if (starts_with(path, "tests/fuzz/corpus/")
        || !(c_like(path) || hash_like(path)))
        return 0;
    for (size_t i = 0; i < sizeof source_dirs / sizeof *source_dirs; i++)
        if (starts_with(path, source_dirs[i]))
            return 1;
    return 0;
}

static void test_first_comments(void **state)
{
    (void)state;
    enter_repo();
    findings f = {0, 0};
    for (size_t i = 0; i < tree.n; i++) {
        struct stat st;
        if (is_source(tree.v[i]) && !stat(tree.v[i], &st)
            && S_ISREG(st.st_mode))
            check_source(&f, tree.v[i]);
    }
    verdict(&f, "the first comments of the sources",
            "name the file and the files it cites as they are now");
}

/* ---- help texts ------------------------------------------------------ */

/* The commands and probes `memprobe --help` lists: its lines "  NAME
 * summary", each NAME copied into names[] (at most max). */
static int listed_names(const char *help, char names[][64], int max)
{
    int n = 0;
    for (const char *line = help; *line && n < max;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        if (starts_with(line, "  ") && isalpha((unsigned char)line[2])) {
            size_t w = strcspn(line + 2, " \n");
            snprintf(names[n++], 64, "%.*s", (int)w, line + 2);
        }
        line = *end ? end + 1 : end;
    }
    return n;
}

static void check_help(findings *f, const char *name)
{
    const char *args[] = {name ? name : "--help", name ? "--help" : NULL,
                          NULL};
    cli_result r;
    cli_run(args, &r);
    char what[128];
    snprintf(what, sizeof what, "memprobe %s%s", name ? name : "",
             name ? " --help" : "--help");
    check_words(f, what, NULL, r.out, r.out, r.out + r.outlen,
                "cites a missing path");
    check_words(f, what, NULL, r.err, r.err, r.err + r.errlen,
                "cites a missing path");
    f->files++;
    cli_result_free(&r);
}

static void test_help_paths(void **state)
{
    (void)state;
    enter_repo();
    if (!cli_path_exists(cli_exe()))
        MP_SKIP("no memprobe binary at %s to print its help", cli_exe());
    const char *args[] = {"--help", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    char names[128][64];
    int n = listed_names(r.out, names, 128);
    cli_result_free(&r);
    if (n < 2)
        fail_msg("memprobe --help lists %d commands", n);
    findings f = {0, 0};
    check_help(&f, NULL);
    for (int i = 0; i < n; i++)
        check_help(&f, names[i]);
    verdict(&f, "the help texts", "cite the path as it is now");
}

/* ---- the rules on made-up words and comments --------------------------- */

typedef struct {
    const char *word, *base;
    int missing;   /* 1: the word cites a path that is not there */
} word_case;

static const word_case word_cases[] = {
    {"`probes/NAME/`", "", 0},
    {"probes/bank/bank.cu:42,", "", 0},
    {"(runtime/collector.{h,c})", "", 0},
    {"docs/usage.md#building", "", 0},
    {"docs/profile.md's", "", 0},
    {"OUT=results/h200/FAMILY/", "", 0},
    {"probes/NAME/NAME_family.c", "", 0},
    {"probes/*/*.gp", "", 0},
    {"results/h200/suite/gate-COMMIT/", "", 0},
    {"results/latest.csv", "", 0},
    {"75adc08:results/h200/gone.txt", "", 0},
    {"../README.md", "docs", 0},
    {"h200/README.md", "results", 0},
    {"bank.md", "docs", 0},
    {"b112147:results/h200/gone/README.md", "", 0},
    {"../shared/seeds/004_*.txt", NULL, 0},
    {"tests/profile/app", NULL, 0},
    {"tests/explain/fake_capture.so", NULL, 0},
    {"(scripts/csv.awk)\"'PROGRAM", NULL, 0},
    {"scripts/plots/*.gp", "", 1},
    {"probes/bank.*", "", 1},
    {"probes/bandwidth.{h,cu,c}", "", 1},
    {"cli/sweep.c", "", 1},
    {"../shared/docs/cupti-notes.md", "docs", 1},
    {"shared/docs/cupti-notes.md", "docs", 1},
    {"../../notes.md", "docs", 1},
    {"results/h200/NOSUCH/NOSUCH/gone.txt", "", 1},
    {"tests/profile/gone", NULL, 1},
    {"runtime/main.c", NULL, 1},
};

typedef struct {
    const char *path, *text;
    int names;   /* 1: the first comment names the file */
} comment_case;

static const comment_case comment_cases[] = {
    {"cli/cmd_sweep.c", "/*\n * cmd_sweep.c - `memprobe sweep`\n */\n", 1},
    {"cli/cmd_sweep.c", "/*\n * sweep.c - `memprobe sweep`\n */\n", 0},
    {"report/report.c", "/* cmd_report.c - no */\n/* report.c */\n", 0},
    {"probes/bank/bank.c", "// probes/bank/bank.c: the family\nint x;\n", 1},
    {"probes/bank/bank.c", "/* bank.cu - the kernels */\n", 0},
    {"scripts/x.sh", "#!/bin/sh\n# x.sh - does x\nset -e\n", 1},
    {"scripts/x.sh", "#!/bin/sh\nset -e\n# x.sh - later\n", 1},
    {"scripts/x.sh", "#!/bin/sh\n# y.sh - another\n", 0},
    {"scripts/x.sh", "", 0},
};

static void test_rules(void **state)
{
    (void)state;
    enter_repo();
    for (size_t i = 0; i < sizeof word_cases / sizeof *word_cases; i++) {
        const word_case *c = &word_cases[i];
        if ((missing(c->word, c->base) != NULL) != c->missing)
            fail_msg("\"%s\" from \"%s\": %s", c->word,
                     c->base ? c->base : "(a source)",
                     c->missing ? "missing path not found"
                                : "taken for a missing path");
    }
    for (size_t i = 0; i < sizeof comment_cases / sizeof *comment_cases;
         i++) {
        const comment_case *c = &comment_cases[i];
        const char *s, *e, *name = strrchr(c->path, '/') + 1;
        int names = first_comment(c->path, c->text, &s, &e)
                    && names_file(s, e, name);
        if (names != c->names)
            fail_msg("%s \"%s\": %s", c->path, c->text,
                     c->names ? "its name not found" : "taken as named");
    }
    /* links: one outside, one missing; a URL, an anchor and a page of
     * the repository pass */
    findings f = {0, 0};
    check_links(&f, "docs/made-up.md", "docs",
                "[a](../../notes.md) [b](gone.md) [c](https://example.org)"
                " [d](#top) [e](findings.md#timing)"
                " ![f](plots/bank-heatmap.svg) [g](../README.md)");
    assert_int_equal(f.hits, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_first_comments),
        cmocka_unit_test(test_doc_paths),
        cmocka_unit_test(test_doc_links),
        cmocka_unit_test(test_help_paths),
    };
    return CLI_RUN_TESTS("maps", tests);
}
