/*
 * test_layering.c - the rooms' layering (docs/architecture.md) holds, in
 * includes and in calls:
 *
 *   cli/                  the command line: may use every room below
 *   probes/, probes/NAME/ the families: probes/ (family.h and the shared
 *                         helpers), their own folder, report/, runtime/,
 *                         model/; never another family's folder
 *   explain/              memprobe explain: profile/ (its judging and
 *                         its runs of a program), report/, runtime/,
 *                         model/; only cli/ uses it
 *   crosscheck/           the comparisons with Nsight Compute (ncu-check):
 *                         report/, runtime/, model/; only cli/ uses it
 *   profile/              memprobe profile, beside probes/: report/,
 *                         runtime/, model/, and inject/'s headers (only
 *                         included: the library is another binary); only
 *                         cli/ and explain/ use it
 *   report/               report/, runtime/, model/
 *   runtime/              runtime/, model/
 *   model/                model/ only
 *   inject/               the injection library loaded into the user's
 *                         program: uses no other room (libc, CUDA, CUPTI);
 *                         its own files stand in floors (inject_floors
 *                         below), each using only its floor and those
 *                         below it
 *
 * Includes: every `#include "X"` of a room's sources names a header the
 * room may use (a family's own tests, probes/NAME/test_*.c, sit above
 * every room, like tests/). Calls: in the objects of the build, no room
 * refers to an external symbol defined in a room above it, and no two
 * object files refer to each other (no circle); a static function or
 * variable is nobody else's to call, whatever its name. The checkers run
 * on made-up input too, so that a broken rule is seen to fail.
 *
 * Runs from the repository root (where `make test` runs); the objects are
 * those of $MEMPROBE's build (build/, or build/san/ under SANITIZE=1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "mp_skip.h"

/* Rooms from the top down; a room may use itself and those below it, as
 * its rule says. */
enum { CLI, EXPLAIN, CROSSCHECK, PROBES, PROFILE, REPORT, RUNTIME, MODEL,
       INJECT, CAPTURE, NROOMS };
static const char *const room_names[] = {"cli", "explain", "crosscheck",
                                         "probes", "profile", "report",
                                         "runtime", "model", "inject",
                                         "capture"};

/* may[a][b]: room a may include from and call into room b (1), or only
 * include its headers (INC: profile/ reads the raw files whose names
 * inject/raw.h gives, and calls nothing of the library). The capture
 * library (explain/capture/, built as capture/) is a room apart like
 * inject/: loaded into a user's program, it includes only its own. */
enum { INC = 2 };
static const int may[NROOMS][NROOMS] = {
    /*              cli explain cross probes profile report runtime model inject capture */
    [CLI] =        {1,  1,      1,    1,     1,      1,     1,      1,    0,     0},
    [EXPLAIN] =    {0,  1,      0,    0,     1,      1,     1,      1,    0,     0},
    [CROSSCHECK] = {0,  0,      1,    0,     0,      1,     1,      1,    0,     0},
    [PROBES] =     {0,  0,      0,    1,     0,      1,     1,      1,    0,     0},
    [PROFILE] =    {0,  0,      0,    0,     1,      1,     1,      1,    INC,   0},
    [REPORT] =     {0,  0,      0,    0,     0,      1,     1,      1,    0,     0},
    [RUNTIME] =    {0,  0,      0,    0,     0,      0,     1,      1,    0,     0},
    [MODEL] =      {0,  0,      0,    0,     0,      0,     0,      1,    0,     0},
    [INJECT] =     {0,  0,      0,    0,     0,      0,     0,      0,    1,     0},
    [CAPTURE] =    {0,  0,      0,    0,     0,      0,     0,      0,    0,     1},
};

/* A source folder: its room, and for a family folder its path. */
typedef struct {
    char dir[64];
    int room;
} folder;

static folder folders[64];
static int nfolders;

static void add_folder(const char *dir, int room)
{
    assert_true(nfolders < 64);
    snprintf(folders[nfolders].dir, sizeof folders[0].dir, "%s", dir);
    folders[nfolders++].room = room;
}

/* inject/'s files in floors, bottom first (docs/architecture.md): a file
 * may include the headers of, and call into, only its own floor and the
 * floors below it, so that calls go one way between them. A name is a
 * file's without .c, .h or .o; a file of inject/ not listed breaks the
 * rule, so that the list stays whole. client.c is a library of its own
 * and uses nothing of the others. */
static const char *const inject_floors[] = {
    "client",            /* libmemprobe_client.so */
    "raw",               /* the raw files' names, shared with profile/ */
    "inject_core",       /* what needs no CUDA: the tables, the filters */
    "inject_core_write", /* the raw files' writers */
    "inject_range",      /* the range pass (helpers handed over) */
    "inject_state",      /* the one state and its lock */
    "inject_say",        /* status and debug lines, cu_ok, cupti_ok */
    "inject_write",      /* every raw file written */
    "inject_context",    /* devices and contexts, SASS metrics on/off */
    "inject_module",     /* modules, cubins, their origins, graph nodes */
    "inject_nvtx",       /* NVTX range stacks and strings */
    "inject_records",    /* SASS records flushed, onto lines and rows */
    "inject_flush",      /* runs and batches, ended by one flush */
    "inject_switch",     /* --per-kernel */
    "inject_launch",     /* kernel and graph launches */
    "inject_exit",       /* at exit, fatal signals, fork */
    "inject_start",      /* the settings, before subscribing */
    "inject",            /* InitializeInjection, subscription, dispatch */
};
enum { NFLOORS = sizeof inject_floors / sizeof *inject_floors };

/* The floor of a file of inject/ (its name, a path's last part, with or
 * without .c, .h or .o), or -1 when it has none. */
static int inject_floor(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t n = strcspn(base, ".");
    for (int i = 0; i < NFLOORS; i++)
        if (strlen(inject_floors[i]) == n
            && !strncmp(inject_floors[i], base, n))
            return i;
    return -1;
}

/* 1 when a file of inject/ may use file `used` of inject/: both have a
 * floor and used's is not above its own. */
static int inject_may(const char *file, const char *used)
{
    int from = inject_floor(file), to = inject_floor(used);
    return from >= 0 && to >= 0 && to <= from;
}

/* The rooms' folders: cli, explain, crosscheck, probes and each
 * probes/NAME, profile, report, runtime, model, inject, explain/capture. */
static void find_folders(void)
{
    nfolders = 0;
    add_folder("cli", CLI);
    add_folder("explain", EXPLAIN);
    add_folder("crosscheck", CROSSCHECK);
    add_folder("probes", PROBES);
    glob_t g;
    if (glob("probes/*/", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char d[64];
            snprintf(d, sizeof d, "%s", g.gl_pathv[i]);
            d[strlen(d) - 1] = '\0';   /* the trailing '/' */
            add_folder(d, PROBES);
        }
        globfree(&g);
    }
    add_folder("profile", PROFILE);
    add_folder("report", REPORT);
    add_folder("runtime", RUNTIME);
    add_folder("model", MODEL);
    add_folder("inject", INJECT);
    add_folder("explain/capture", CAPTURE);
}

static int file_exists(const char *dir, const char *name)
{
    char path[5000];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* 1 when a file of folder `from` may include `header`: a header of its
 * own folder, or of a folder of a room it may use, except another
 * family's folder; a header of no source folder (the toolkit's, a
 * library's) is outside the rule. */
static int allowed(const folder *from, const char *header)
{
    int found = 0;
    for (int i = 0; i < nfolders; i++) {
        const folder *f = &folders[i];
        if (!file_exists(f->dir, header))
            continue;
        found = 1;
        if (f == from)
            return 1;
        int family = strchr(f->dir, '/') != NULL;
        if (may[from->room][f->room] && !(family && from->room == PROBES))
            return 1;
    }
    return !found;
}

/* Checks the text of one file of folder `from`; appends each include that
 * breaks the rule to bad (as "dir/file: header"). Returns the count. */
static int check_text(const folder *from, const char *file, const char *text,
                      char *bad, size_t badlen)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        const char *s = line + strspn(line, " \t");
        if (*s == '#') {
            s += 1 + strspn(s + 1, " \t");
            if (strncmp(s, "include", 7) == 0) {
                s += 7 + strspn(s + 7, " \t");
                const char *close = *s == '"' ? strchr(s + 1, '"') : NULL;
                if (close && (!end || close < end)) {
                    char header[256];
                    snprintf(header, sizeof header, "%.*s",
                             (int)(close - s - 1), s + 1);
                    if (!allowed(from, header)
                        || (from->room == INJECT
                            && file_exists(from->dir, header)
                            && !inject_may(file, header))) {
                        size_t used = strlen(bad);
                        snprintf(bad + used, badlen - used, "%s/%s: \"%s\"; ",
                                 from->dir, file, header);
                        n++;
                    }
                }
            }
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

static char *read_all(const char *path)
{
    if (!cli_path_exists(path))
        fail_msg("cannot open %s (run from the repository root)", path);
    size_t len;
    return cli_read_file(path, &len);
}

static int is_source(const char *name)
{
    size_t n = strlen(name);
    return (n > 2 && (strcmp(name + n - 2, ".c") == 0
                      || strcmp(name + n - 2, ".h") == 0))
           || (n > 3 && strcmp(name + n - 3, ".cu") == 0);
}

/* The walk of one folder: its files checked, violations counted. */
typedef struct {
    const folder *f;
    char *bad;
    size_t badlen;
    int *violations, files;
} walk;

/* cli_walk's visit: a source of the folder checked (not walked into). */
static int visit(const char *path, const char *name, int is_dir, void *ctx)
{
    walk *w = ctx;
    /* a family's tests (probes/NAME/test_*.c) sit above every room */
    if (is_dir || !is_source(name) || !strncmp(name, "test_", 5))
        return 0;
    char *text = read_all(path);
    *w->violations += check_text(w->f, name, text, w->bad, w->badlen);
    free(text);
    w->files++;
    return 0;
}

/* Every source file of a folder; returns the files checked. */
static int check_dir(const folder *f, char *bad, size_t badlen,
                     int *violations)
{
    walk w = {f, bad, badlen, violations, 0};
    if (cli_walk(f->dir, visit, &w))
        fail_msg("cannot open %s/ (run from the repository root)", f->dir);
    return w.files;
}

static void test_folders_keep_their_layers(void **state)
{
    (void)state;
    find_folders();
    assert_true(nfolders >= 6 + 11);   /* the rooms and 11 families */
    for (int i = 0; i < nfolders; i++) {
        char bad[4096] = "";
        int violations = 0;
        int files = check_dir(&folders[i], bad, sizeof bad, &violations);
        /* Each folder has sources: an empty scan means a wrong working
         * directory, not a clean folder. */
        assert_true(files >= 1);
        if (violations)
            fail_msg("%d include(s) break the layering of %s/ "
                     "(docs/architecture.md): %s", violations,
                     folders[i].dir, bad);
    }
}

static const folder *folder_named(const char *dir)
{
    for (int i = 0; i < nfolders; i++)
        if (!strcmp(folders[i].dir, dir))
            return &folders[i];
    fail_msg("no folder %s", dir);
    return NULL;
}

/* The include checker itself, on made-up files: each case is a folder, a
 * file name in it, its text and how many of its includes break the rule. */
typedef struct {
    const char *dir, *file, *text;
    int breaks;
} include_case;

static const include_case include_cases[] = {
    /* a runtime file may include runtime headers, not a family's */
    {"runtime", "x.c",
     "#include <stdio.h>\n#include \"check.h\"\n#include \"probe.h\"\n", 0},
    {"runtime", "x.c",
     "#include \"check.h\"\n#include \"bank.h\"\n"
     "  #  include \"hazards.h\"\n", 2},
    /* a model file includes no runtime header, a report file no family's */
    {"model", "m.c", "#include \"row.h\"\n", 1},
    {"report", "r.c", "#include \"probe.h\"\n#include \"bank.h\"\n", 1},
    /* a family includes what is below it and its own headers only */
    {"probes/bank", "p.c",
     "#include \"bank_model.h\"\n#include \"runner.h\"\n#include "
     "\"part.h\"\n#include \"family.h\"\n#include \"bank.h\"\n", 0},
    {"probes/bank", "p.c", "#include \"cli.h\"\n#include \"reduce.h\"\n", 2},
    /* profile/: only cli/ and explain/ may use it; it uses report/ and
     * below */
    {"cli", "c.c", "#include \"profile.h\"\n", 0},
    {"profile", "p.c",
     "#include \"report.h\"\n#include \"csv_table.h\"\n#include "
     "\"pattern.h\"\n", 0},
    {"report", "r.c", "#include \"profile_csv.h\"\n", 1},
    {"probes/bank", "p.c", "#include \"profile.h\"\n", 1},
    {"profile", "p.c", "#include \"cli.h\"\n#include \"family.h\"\n", 2},
    /* inject/: includes from no other room; only profile/ includes it */
    {"inject", "i.c", "#include \"check.h\"\n", 1},
    /* inject/'s own files: their floor and those below it, never one
     * above; a file with no floor may include none of them */
    {"inject", "inject_launch.c",
     "#include \"inject_launch.h\"\n#include \"inject_flush.h\"\n"
     "#include \"inject_say.h\"\n#include \"raw.h\"\n#include <cuda.h>\n", 0},
    {"inject", "inject_say.c",
     "#include \"inject_say.h\"\n#include \"inject_launch.h\"\n", 1},
    {"inject", "inject_core.c",
     "#include \"inject_core.h\"\n#include \"inject_state.h\"\n", 1},
    {"inject", "inject_records.h", "#include \"inject_flush.h\"\n", 1},
    {"inject", "inject_new.c", "#include \"raw.h\"\n", 1},
    {"profile", "p.c", "#include \"raw.h\"\n", 0},
    {"cli", "c.c", "#include \"raw.h\"\n", 1},
    /* explain/: above profile/, used by cli/ only */
    {"explain", "x.c",
     "#include \"profile.h\"\n#include \"explain_capture.h\"\n#include "
     "\"explain.h\"\n#include \"device.h\"\n", 0},
    {"cli", "c.c", "#include \"explain_run.h\"\n", 0},
    {"profile", "p.c", "#include \"explain_run.h\"\n", 1},
    {"explain", "x.c", "#include \"cli.h\"\n#include \"bank.h\"\n", 2},
    /* crosscheck/: report/ and below, used by cli/ only; explain's rules
     * are explain/'s, not model/'s or report/'s to include */
    {"crosscheck", "n.c",
     "#include \"ncu_source.h\"\n#include \"csv_table.h\"\n#include "
     "\"probe.h\"\n", 0},
    {"cli", "c.c", "#include \"ncu_check.h\"\n", 0},
    {"report", "r.c", "#include \"ncu_profile.h\"\n", 1},
    {"crosscheck", "n.c",
     "#include \"profile_csv.h\"\n#include \"explain.h\"\n", 2},
    {"model", "m.c", "#include \"explain.h\"\n", 1},
    {"report", "r.c", "#include \"explain_capture.h\"\n", 1},
    /* explain/capture/: its own headers only, and nobody else's to use
     * (explain reads its files, not its code) */
    {"explain/capture", "c.c", "#include \"capture_row.h\"\n", 0},
    {"explain/capture", "c.c", "#include \"explain.h\"\n#include \"row.h\"\n", 2},
    {"explain", "x.c", "#include \"capture.h\"\n", 1},
    {"profile", "p.c", "#include \"capture_row.h\"\n", 1},
};

static void test_checker_catches_breaks(void **state)
{
    (void)state;
    find_folders();
    char bad[1024] = "";
    for (size_t i = 0; i < sizeof include_cases / sizeof *include_cases; i++) {
        const include_case *c = &include_cases[i];
        int n = check_text(folder_named(c->dir), c->file, c->text, bad,
                           sizeof bad);
        if (n != c->breaks)
            fail_msg("%s/%s: %d includes break the rule, not %d", c->dir,
                     c->file, n, c->breaks);
    }
    assert_non_null(strstr(bad, "runtime/x.c: \"bank.h\""));
    assert_non_null(strstr(bad, "runtime/x.c: \"hazards.h\""));
    assert_non_null(strstr(bad, "inject/inject_say.c: \"inject_launch.h\""));
    assert_non_null(strstr(bad, "inject/inject_new.c: \"raw.h\""));
}

/* Every source of inject/ has a floor, and every floor is a file. */
static void test_inject_floors_whole(void **state)
{
    (void)state;
    char missing[4096] = "";
    glob_t g;
    assert_int_equal(glob("inject/*.[ch]", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 10);
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (inject_floor(g.gl_pathv[i]) < 0) {
            size_t used = strlen(missing);
            snprintf(missing + used, sizeof missing - used, "%s ",
                     g.gl_pathv[i]);
        }
    globfree(&g);
    if (missing[0])
        fail_msg("inject/ files without a floor in tests/test_layering.c's "
                 "inject_floors (put each where it belongs: it may use "
                 "only the floors below it): %s", missing);
    for (int i = 0; i < NFLOORS; i++) {
        char c[80], h[80];
        snprintf(c, sizeof c, "%s.c", inject_floors[i]);
        snprintf(h, sizeof h, "%s.h", inject_floors[i]);
        if (!file_exists("inject", c) && !file_exists("inject", h))
            fail_msg("inject_floors names %s, which is no file of inject/",
                     inject_floors[i]);
    }
}

/* ---- calls: the symbols of the build's objects ---------------------- */

#define MAX_OBJS 256

typedef struct {
    char path[256];
    int room;
    char *defined;   /* "\nsym\nsym\n" */
    char *undefined;
} object;

static int has_symbol(const char *list, const char *sym)
{
    char key[300];
    snprintf(key, sizeof key, "\n%s\n", sym);
    return strstr(list, key) != NULL;
}

/* The room of an object build/ROOM/... (its folder under the build
 * directory), or -1. */
static int room_of(const char *rel)
{
    for (int r = 0; r < NROOMS; r++) {
        size_t n = strlen(room_names[r]);
        if (!strncmp(rel, room_names[r], n) && rel[n] == '/')
            return r;
    }
    return -1;
}

static char *nm_list(const char *path, const char *flags)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "nm %s '%s' 2>/dev/null", flags, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 4096, len = 1;
    char *out = malloc(cap), line[1024];
    assert_non_null(out);
    out[0] = '\n';
    out[1] = '\0';
    while (fgets(line, sizeof line, p)) {
        /* "ADDR T name" or "         U name": the last word */
        line[strcspn(line, "\n")] = '\0';
        const char *name = strrchr(line, ' ');
        name = name ? name + 1 : line;
        size_t n = strlen(name);
        if (len + n + 2 > cap) {
            cap = 2 * (len + n + 2);
            out = realloc(out, cap);
            assert_non_null(out);
        }
        memcpy(out + len, name, n);
        len += n;
        out[len++] = '\n';
        out[len] = '\0';
    }
    pclose(p);
    return out;
}

/* Reads every object of build_dir's rooms; returns how many. */
static int load_objects(const char *build_dir, object *objs)
{
    char pattern[512];
    const char *const levels[] = {"*/*.o", "*/*/*.o"};
    int n = 0;
    for (int l = 0; l < 2; l++) {
        snprintf(pattern, sizeof pattern, "%s/%s", build_dir, levels[l]);
        glob_t g;
        if (glob(pattern, 0, NULL, &g))
            continue;
        for (size_t i = 0; i < g.gl_pathc && n < MAX_OBJS; i++) {
            const char *rel = g.gl_pathv[i] + strlen(build_dir) + 1;
            int room = room_of(rel);
            /* only objects of today's sources: X/Y.o of X/Y.c, X/Y.cu.o
             * of X/Y.cu (a build dir may keep objects of moved files) */
            char src[300];
            struct stat st;
            snprintf(src, sizeof src, "%.*s", (int)strlen(rel) - 2, rel);
            if (strlen(src) < 3 || strcmp(src + strlen(src) - 3, ".cu"))
                strcat(src, ".c");
            if (room < 0 || stat(src, &st))
                continue;
            snprintf(objs[n].path, sizeof objs[n].path, "%s", rel);
            objs[n].room = room;
            /* what another object can take: its external symbols (a
             * static of the same name elsewhere is no call) */
            objs[n].defined = nm_list(g.gl_pathv[i],
                                      "--defined-only --extern-only");
            objs[n].undefined = nm_list(g.gl_pathv[i], "-u");
            n++;
        }
        globfree(&g);
    }
    return n;
}

/* Each symbol that objs[a] takes from objs[b]: the first one, or NULL. */
static const char *first_taken(const object *a, const object *b, char *buf,
                               size_t len)
{
    for (const char *s = a->undefined + 1; *s;) {
        const char *e = strchr(s, '\n');
        snprintf(buf, len, "%.*s", (int)(e - s), s);
        if (buf[0] && has_symbol(b->defined, buf))
            return buf;
        s = e + 1;
    }
    return NULL;
}

/* Upward calls and circles among n objects, into bad; returns the count. */
static int check_calls(const object *objs, int n, char *bad, size_t badlen)
{
    int found = 0;
    char sym[300], back[300];
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b || !first_taken(&objs[a], &objs[b], sym, sizeof sym))
                continue;
            size_t used = strlen(bad);
            if (may[objs[a].room][objs[b].room] != 1
                || (objs[a].room == INJECT && objs[b].room == INJECT
                    && !inject_may(objs[a].path, objs[b].path))) {
                snprintf(bad + used, badlen - used, "%s calls up into %s "
                         "(%s); ", objs[a].path, objs[b].path, sym);
                found++;
            } else if (a < b && first_taken(&objs[b], &objs[a], back,
                                             sizeof back)) {
                snprintf(bad + used, badlen - used, "%s <-> %s (%s, %s); ",
                         objs[a].path, objs[b].path, sym, back);
                found++;
            }
        }
    return found;
}

static void free_objects(object *objs, int n)
{
    for (int i = 0; i < n; i++) {
        free(objs[i].defined);
        free(objs[i].undefined);
    }
}

static void test_calls_point_down(void **state)
{
    (void)state;
    char build[256];
    cli_build_dir(build, sizeof build);
    char probe[300];
    snprintf(probe, sizeof probe, "%s/cli/main.o", build);
    struct stat st;
    if (stat(probe, &st))
        MP_SKIP("no objects in the build directory to read");
    if (system("nm --version >/dev/null 2>&1"))
        MP_SKIP("nm (binutils) not installed");
    object *objs = calloc(MAX_OBJS, sizeof *objs);
    assert_non_null(objs);
    int n = load_objects(build, objs);
    assert_true(n >= 50);
    char bad[8192] = "";
    int found = check_calls(objs, n, bad, sizeof bad);
    free_objects(objs, n);
    free(objs);
    if (found)
        fail_msg("%d call(s) break the layering: %s", found, bad);
}

/* The call checker on made-up objects: a runtime object that takes a
 * family's symbol, and two report objects that take each other's. */
static void test_call_checker_catches_breaks(void **state)
{
    (void)state;
    object o[4] = {
        {"runtime/sweep_file.o", RUNTIME, "\nmp_sweep_load\n",
         "\nmp_probe_find\nmp_family_find\n"},
        {"probes/registry.o", PROBES, "\nmp_family_find\n",
         "\nmp_probe_table_set\n"},
        {"report/a.o", REPORT, "\nmp_a\n", "\nmp_b\n"},
        {"report/b.o", REPORT, "\nmp_b\n", "\nmp_a\n"},
    };
    char bad[1024] = "";
    assert_int_equal(check_calls(o, 4, bad, sizeof bad), 2);
    assert_non_null(strstr(bad, "runtime/sweep_file.o calls up into "
                                "probes/registry.o (mp_family_find)"));
    assert_non_null(strstr(bad, "report/a.o <-> report/b.o"));
    o[0].undefined = "\nmp_probe_find\n";
    o[3].undefined = "\n";
    bad[0] = '\0';
    assert_int_equal(check_calls(o, 4, bad, sizeof bad), 0);
    /* profile/ calls report/; report/ may not call profile/, nor profile/
     * the injection library (its headers only) */
    object p[4] = {
        {"profile/profile_report.o", PROFILE, "\nmp_prof_report\n",
         "\nmp_rep_table_print\n"},
        {"report/tables.o", REPORT, "\nmp_rep_table_print\n", "\n"},
        {"report/study.o", REPORT, "\nmp_study_write\n",
         "\nmp_prof_report\n"},
        {"inject/inject.o", INJECT, "\nInitializeInjection\n", "\n"},
    };
    bad[0] = '\0';
    assert_int_equal(check_calls(p, 4, bad, sizeof bad), 1);
    assert_non_null(strstr(bad, "report/study.o calls up into "
                                "profile/profile_report.o"));
    p[2].undefined = "\n";
    p[0].undefined = "\nInitializeInjection\n";
    bad[0] = '\0';
    assert_int_equal(check_calls(p, 4, bad, sizeof bad), 1);
    assert_non_null(strstr(bad, "profile/profile_report.o calls up into "
                                "inject/inject.o"));
    /* explain/ calls profile/; profile/ may not call explain/ (a call
     * up, and with the call down a circle) */
    object x[2] = {
        {"explain/explain_verdict.o", EXPLAIN, "\nmp_xp_explain\n",
         "\nmp_prof_offenders\n"},
        {"profile/profile_check.o", PROFILE, "\nmp_prof_offenders\n",
         "\nmp_xp_explain\n"},
    };
    bad[0] = '\0';
    assert_int_equal(check_calls(x, 2, bad, sizeof bad), 2);
    assert_non_null(strstr(bad, "profile/profile_check.o calls up into "
                                "explain/explain_verdict.o"));
    assert_non_null(strstr(bad, "explain/explain_verdict.o <-> "
                                "profile/profile_check.o"));
    x[1].undefined = "\n";
    bad[0] = '\0';
    assert_int_equal(check_calls(x, 2, bad, sizeof bad), 0);
    /* inject/'s objects: a call down its floors, none up (not even
     * without a circle), none from an object with no floor */
    object j[4] = {
        {"inject/inject_say.o", INJECT, "\nsay\n", "\nend_run\n"},
        {"inject/inject_flush.o", INJECT, "\nend_run\n", "\nsay\n"},
        {"inject/inject_launch.o", INJECT, "\non_launch_exit\n",
         "\nend_run\nsay\n"},
        {"inject/inject_new.o", INJECT, "\nnew_thing\n", "\n"},
    };
    bad[0] = '\0';
    assert_int_equal(check_calls(j, 4, bad, sizeof bad), 1);
    assert_non_null(strstr(bad, "inject/inject_say.o calls up into "
                                "inject/inject_flush.o (end_run)"));
    j[0].undefined = "\n";
    bad[0] = '\0';
    assert_int_equal(check_calls(j, 4, bad, sizeof bad), 0);
    j[3].undefined = "\nsay\n";
    bad[0] = '\0';
    assert_int_equal(check_calls(j, 4, bad, sizeof bad), 1);
    assert_non_null(strstr(bad, "inject/inject_new.o calls up into "
                                "inject/inject_say.o (say)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_catches_breaks),
        cmocka_unit_test(test_folders_keep_their_layers),
        cmocka_unit_test(test_inject_floors_whole),
        cmocka_unit_test(test_call_checker_catches_breaks),
        cmocka_unit_test(test_calls_point_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
