/*
 * test_layering.c - the folders' layering (docs/architecture.md) holds:
 * every `#include "X"` of the source folders names a header the folder may
 * use. runtime/ (the engine) uses only runtime/ and the generic probe
 * interface probes/probe.h; runtime/main.c is the top and may use all.
 * model/ uses only model/. probes/ uses probes/, runtime/ and model/.
 * report/ uses report/, runtime/, model/ and probe.h, never a probe
 * family's header. The checker is also run on made-up sources, so that a
 * broken rule is seen to fail.
 *
 * Runs from the repository root (where `make test` runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A folder's rule: the folders whose headers it may include, and the
 * single headers of other folders it may include besides. */
typedef struct {
    const char *dir;
    const char *may_use[4];       /* folders, NULL-terminated */
    const char *also[2];          /* "folder/header.h", NULL-terminated */
    const char *top;              /* a file of dir exempt from the rule */
} layer_rule;

static const layer_rule rules[] = {
    {"runtime", {"runtime", NULL}, {"probes/probe.h", NULL}, "main.c"},
    {"model", {"model", NULL}, {NULL}, NULL},
    {"probes", {"probes", "runtime", "model", NULL}, {NULL}, NULL},
    {"report", {"report", "runtime", "model", NULL}, {"probes/probe.h", NULL},
     NULL},
};

static const char *const source_dirs[] = {"runtime", "model", "probes",
                                          "report", NULL};

static int file_exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* 1 when `header` (as written in the include) may be used from `r`. */
static int allowed(const layer_rule *r, const char *header)
{
    for (int i = 0; r->may_use[i]; i++)
        if (file_exists(r->may_use[i], header))
            return 1;
    for (int i = 0; r->also[i]; i++) {
        const char *slash = strrchr(r->also[i], '/');
        if (slash && strcmp(slash + 1, header) == 0)
            return 1;
    }
    /* A header of no source folder (the CUDA toolkit's, a library's) is
     * outside the rule. */
    for (int i = 0; source_dirs[i]; i++)
        if (file_exists(source_dirs[i], header))
            return 0;
    return 1;
}

/* Checks the text of one file of rule r's folder; appends each include
 * that breaks the rule to bad (as "file: header"). Returns the count. */
static int check_text(const layer_rule *r, const char *file, const char *text,
                      char *bad, size_t badlen)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#') {
            s++;
            while (*s == ' ' || *s == '\t')
                s++;
            if (strncmp(s, "include", 7) == 0) {
                s += 7;
                while (*s == ' ' || *s == '\t')
                    s++;
                const char *close = *s == '"' ? strchr(s + 1, '"') : NULL;
                if (close && (!end || close < end)) {
                    char header[256];
                    snprintf(header, sizeof header, "%.*s",
                             (int)(close - s - 1), s + 1);
                    if (!allowed(r, header)) {
                        size_t used = strlen(bad);
                        snprintf(bad + used, badlen - used, "%s/%s: \"%s\"; ",
                                 r->dir, file, header);
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
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (run from the repository root)", path);
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    char chunk[4096];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + len, chunk, got);
        len += got;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    assert_non_null(buf);
    buf[len] = '\0';
    return buf;
}

static int is_source(const char *name)
{
    size_t n = strlen(name);
    return (n > 2 && (strcmp(name + n - 2, ".c") == 0
                      || strcmp(name + n - 2, ".h") == 0))
           || (n > 3 && strcmp(name + n - 3, ".cu") == 0);
}

/* Every source file of rule r's folder; returns the files checked. */
static int check_dir(const layer_rule *r, char *bad, size_t badlen,
                     int *violations)
{
    DIR *d = opendir(r->dir);
    if (!d)
        fail_msg("cannot open %s/ (run from the repository root)", r->dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_source(e->d_name))
            continue;
        if (r->top && strcmp(e->d_name, r->top) == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", r->dir, e->d_name);
        char *text = read_all(path);
        *violations += check_text(r, e->d_name, text, bad, badlen);
        free(text);
        files++;
    }
    closedir(d);
    return files;
}

static void test_folders_keep_their_layers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        char bad[4096] = "";
        int violations = 0;
        int files = check_dir(&rules[i], bad, sizeof bad, &violations);
        /* Each folder has several files: an empty scan means a wrong
         * working directory, not a clean folder. */
        assert_true(files >= 3);
        if (violations)
            fail_msg("%d include(s) break the layering of %s/ "
                     "(docs/architecture.md): %s", violations, rules[i].dir,
                     bad);
    }
}

/* The checker itself: a runtime file that includes a probe family's
 * header, a model file that includes a runtime header, and a report file
 * that includes a family header are caught; allowed ones pass. */
static void test_checker_catches_breaks(void **state)
{
    (void)state;
    char bad[1024] = "";
    assert_int_equal(check_text(&rules[0], "x.c",
                                "#include <stdio.h>\n#include \"check.h\"\n"
                                "#include \"probe.h\"\n", bad, sizeof bad), 0);
    assert_int_equal(check_text(&rules[0], "x.c",
                                "#include \"check.h\"\n#include \"bank.h\"\n"
                                "  #  include \"hazards.h\"\n", bad,
                                sizeof bad), 2);
    assert_non_null(strstr(bad, "runtime/x.c: \"bank.h\""));
    assert_non_null(strstr(bad, "runtime/x.c: \"hazards.h\""));
    assert_int_equal(check_text(&rules[1], "m.c", "#include \"row.h\"\n", bad,
                                sizeof bad), 1);
    assert_int_equal(check_text(&rules[3], "r.c",
                                "#include \"probe.h\"\n#include \"bank.h\"\n",
                                bad, sizeof bad), 1);
    assert_int_equal(check_text(&rules[2], "p.c",
                                "#include \"bank_model.h\"\n#include "
                                "\"runner.h\"\n#include \"report.h\"\n", bad,
                                sizeof bad), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_catches_breaks),
        cmocka_unit_test(test_folders_keep_their_layers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
