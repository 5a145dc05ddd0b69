/*
 * test_golden.c - what memprobe says, byte for byte, against what it said
 * when tests/golden/manifest.tsv was written: each command of
 * tests/golden/commands.txt (tests/golden/commands.sh: every help text,
 * the listings, a report of every committed CSV, explain on the committed
 * captures, ncu-check --compare and --spread on the committed files,
 * profile --from, bad input) runs from the checkout's top with LC_ALL=C,
 * its standard output and error into one file; its exit status, length and
 * FNV-1a hash must equal the manifest's line. A command whose input files
 * changed since (a results CSV measured again) is not compared, and said. A change of the code that
 * moves files but must change nothing for users is checked by it; a
 * change meant to change an output writes the manifest again:
 *
 *   MEMPROBE_GOLDEN_WRITE=1 build/tests/test_golden
 *
 * and the diff of manifest.tsv shows which commands' outputs changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"
#include "subprocess.h"

#define COMMANDS "tests/golden/commands.txt"
#define MANIFEST "tests/golden/manifest.tsv"
#define MAX_WORDS 64

typedef struct {
    int status;
    size_t len;
    uint64_t hash;
    uint64_t inputs;   /* the files it reads, hashed */
} outcome;

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* h folded with the contents of path (0 bytes when it cannot be read). */
static uint64_t fold_file(uint64_t h, const char *path)
{
    char why[256];
    size_t len = 0;
    char *text = mp_read_file(path, &len, why, sizeof why);
    uint64_t f = text ? fnv1a(text, len) : 0;
    free(text);
    return (h ^ f) * 1099511628211ULL + len;
}

/* The files a command reads: each word that names a file (a profile
 * CSV's -lines.csv beside it), and for explain the family CSVs of
 * results/h200/ (the committed row of a probe command it prints). A
 * changed input is no change of memprobe: its output is not compared. */
static uint64_t inputs_of(char *const argv[])
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 1; argv[i]; i++) {
        if (access(argv[i], R_OK))
            continue;
        h = fold_file(h, argv[i]);
        size_t n = strlen(argv[i]);
        if (n > 4 && !strcmp(argv[i] + n - 4, ".csv")) {
            char lines[4200];
            snprintf(lines, sizeof lines, "%.*s-lines.csv", (int)(n - 4),
                     argv[i]);
            if (!access(lines, R_OK))
                h = fold_file(h, lines);
        }
    }
    if (argv[1] && !strcmp(argv[1], "explain")) {
        glob_t g;
        if (!glob("results/h200/*/*.csv", 0, NULL, &g)) {
            for (size_t i = 0; i < g.gl_pathc; i++)
                h = fold_file(h, g.gl_pathv[i]);
            globfree(&g);
        }
    }
    return h;
}

/* Runs `memprobe LINE` (its words split on spaces) into log. */
static outcome run_line(const char *memprobe, const char *line,
                        const char *log)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", line);
    char *argv[MAX_WORDS + 2];
    int n = 0;
    argv[n++] = (char *)memprobe;
    for (char *w = strtok(buf, " "); w && n <= MAX_WORDS;
         w = strtok(NULL, " "))
        argv[n++] = w;
    argv[n] = NULL;
    outcome o = {0};
    o.inputs = inputs_of(argv);
    unlink(log);   /* the spawn appends */
    o.status = mp_spawn_wait_timeout(argv, log, 120);
    char why[256];
    size_t len = 0;
    char *text = mp_read_file(log, &len, why, sizeof why);
    o.len = text ? len : 0;
    o.hash = text ? fnv1a(text, len) : 0;
    free(text);
    return o;
}

static void test_outputs_unchanged(void **state)
{
    (void)state;
    const char *mp = getenv("MEMPROBE");
    char memprobe[4096];
    if (!mp)
        mp = "./memprobe";
    if (!realpath(mp, memprobe))
        fail_msg("no memprobe at %s", mp);
    FILE *cmds = fopen(COMMANDS, "r");
    if (!cmds)
        fail_msg("%s: cannot open (run from the checkout's top)", COMMANDS);
    int write = getenv("MEMPROBE_GOLDEN_WRITE") != NULL;
    FILE *man = fopen(MANIFEST, write ? "w" : "r");
    if (!man)
        fail_msg("%s: cannot open", MANIFEST);
    char log[] = "/tmp/memprobe-golden-XXXXXX";
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    setenv("LC_ALL", "C", 1);
    char line[4096], want[4400];
    int n = 0, differ = 0, stale = 0, compared = 0;
    while (fgets(line, sizeof line, cmds)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0])
            continue;
        outcome o = run_line(memprobe, line, log);
        n++;
        char got[4400];
        snprintf(got, sizeof got, "%016llx\t%d\t%zu\t%016llx\t%s\n",
                 (unsigned long long)o.inputs, o.status, o.len,
                 (unsigned long long)o.hash, line);
        if (write) {
            fputs(got, man);
            continue;
        }
        if (!fgets(want, sizeof want, man)) {
            printf("# %s: no line in %s\n", line, MANIFEST);
            differ++;
            break;
        }
        if (strncmp(got, want, 17)) {   /* its inputs changed since */
            stale++;
            continue;
        }
        compared++;
        if (strcmp(got, want)) {
            printf("# differs: memprobe %s\n#   now  %s#   then %s", line,
                   got, want);
            differ++;
        }
    }
    if (!write && fgets(want, sizeof want, man)) {
        printf("# %s has more lines than %s\n", MANIFEST, COMMANDS);
        differ++;
    }
    fclose(cmds);
    assert_int_equal(fclose(man), 0);
    unlink(log);
    printf("# %d commands %s: %d compared, %d differ; %d not compared "
           "(a file they read changed since the manifest)\n", n,
           write ? "written" : "run", compared, differ, stale);
    assert_true(n > 300);
    assert_true(write || compared >= 40);   /* help, predict, bad input */
    assert_int_equal(differ, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
