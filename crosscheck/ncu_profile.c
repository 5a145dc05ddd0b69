/*
 * ncu_profile.c - ncu's source counters against memprobe profile's
 * per-instruction rows (see ncu_profile.h).
 */
#include "ncu_profile.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ncu_check.h"
#include "stats.h"
#include "subprocess.h"

const char *const mp_ncu_profile_columns[MP_SRC_VALUES] = {
    "smsp__sass_inst_executed",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
};

/* Kernel name without a leading "void " and with blanks single. */
static void normalise(const char *in, char *out, size_t outlen)
{
    while (*in == ' ')
        in++;
    if (!strncmp(in, "void ", 5))
        in += 5;
    size_t n = 0;
    for (; *in && n + 1 < outlen; in++) {
        if (*in == ' ' && (n == 0 || out[n - 1] == ' '))
            continue;
        out[n++] = *in;
    }
    while (n && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

int mp_ncu_profile_same_kernel(const char *ncu, const char *kernel,
                               const char *mangled)
{
    char a[2048], b[2048];
    if (mangled && mangled[0] && !strcmp(ncu, mangled))
        return 1;
    normalise(ncu, a, sizeof a);
    normalise(kernel, b, sizeof b);
    if (!strcmp(a, b))
        return 1;
    char *pa = strchr(a, '('), *pb = strchr(b, '(');
    if (pa && pb)
        return 0;
    size_t la = pa ? (size_t)(pa - a) : strlen(a);
    size_t lb = pb ? (size_t)(pb - b) : strlen(b);
    return la == lb && la > 0 && !strncmp(a, b, la);
}

typedef struct {
    int kernel;           /* index into the kernel list */
    long long offset;
    int side;             /* 0 memprobe, 1 ncu, 2 memprobe's repeat */
    const char *text;     /* opcode or SASS text, for the messages */
    double value[MP_SRC_VALUES];
} entry;

static int by_instruction(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->kernel != b->kernel)
        return a->kernel < b->kernel ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->side - b->side;
}

typedef struct {
    const char **names;   /* memprobe's kernels, then ncu's unmatched */
    const char **mangled;
    int *seen;            /* bit 0 memprobe, bit 1 ncu, bit 2 the repeat */
    double *launches;     /* memprobe's launches of it (most on a line) */
    double *launches2;    /* the same in memprobe's repeat */
    int *varies;          /* its counts differ between memprobe's runs */
    int *tables, *last;   /* ncu's tables of it; the last one counted */
    int n;
} kernels;

static int kernel_of_memprobe(kernels *k, const char *name,
                              const char *mangled)
{
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->names[i], name))
            return i;
    k->names[k->n] = name;
    k->mangled[k->n] = mangled;
    k->seen[k->n] = 0;
    k->last[k->n] = -1;
    return k->n++;
}

static int kernel_of_ncu(kernels *k, int nmemprobe, const char *name)
{
    for (int i = 0; i < nmemprobe; i++)
        if (mp_ncu_profile_same_kernel(name, k->names[i], k->mangled[i]))
            return i;
    for (int i = nmemprobe; i < k->n; i++)
        if (!strcmp(k->names[i], name))
            return i;
    k->names[k->n] = name;
    k->mangled[k->n] = "";
    k->seen[k->n] = 0;
    k->last[k->n] = -1;
    return k->n++;
}

static int parse_offset(const char *text, long long *out)
{
    char *end;
    if (!text[0])
        return -1;
    *out = strtoll(text, &end, 0);
    return *end ? -1 : 0;
}

/* Reads memprobe's rows into e as side 0 (its run) or 2 (its repeat);
 * -1 with err on a bad table. */
static int read_memprobe(const mp_csv_table *t, int side, kernels *k,
                         entry *e, int *ne, int *has_inst, char *err,
                         size_t errlen)
{
    static const char who[] = "profile lines CSV";
    int cm = mp_csv_column(t, "mangled"), cop = mp_csv_column(t, "opcode");
    int cl = mp_csv_column(t, "launches");
    int ck = mp_csv_need_column(t, "kernel", who, err, errlen);
    int co = ck < 0 ? -1 : mp_csv_need_column(t, "function_offset", who,
                                              err, errlen);
    if (co < 0)
        return -1;
    int cv[MP_SRC_VALUES];
    for (int v = 0; v < MP_SRC_VALUES; v++) {
        cv[v] = v == MP_SRC_INST   /* optional: compared where both have it */
                ? mp_csv_column(t, mp_ncu_profile_columns[v])
                : mp_csv_need_column(t, mp_ncu_profile_columns[v], who, err,
                                     errlen);
        if (cv[v] < 0 && v != MP_SRC_INST)
            return -1;
    }
    *has_inst = cv[MP_SRC_INST] >= 0;
    for (int r = 0; r < t->nrows; r++) {
        entry *x = &e[(*ne)++];
        memset(x, 0, sizeof *x);
        x->kernel = kernel_of_memprobe(k, t->cells[r][ck],
                                       cm >= 0 ? t->cells[r][cm] : "");
        k->seen[x->kernel] |= side ? 4 : 1;
        x->side = side;
        double *most = side ? k->launches2 : k->launches;
        x->text = cop >= 0 ? t->cells[r][cop] : "";
        double launches = 0;
        if (cl >= 0 && !mp_csv_parse_number(t->cells[r][cl], &launches)
            && launches > most[x->kernel])
            most[x->kernel] = launches;
        if (parse_offset(t->cells[r][co], &x->offset)) {
            mp_reason(err, errlen, "profile lines CSV: data row %d: "
                      "function_offset '%s' is not a number", r + 1,
                      t->cells[r][co]);
            return -1;
        }
        for (int v = 0; v < MP_SRC_VALUES; v++) {
            const char *cell = cv[v] >= 0 ? t->cells[r][cv[v]] : "";
            if (cell[0] && mp_csv_parse_number(cell, &x->value[v])) {
                mp_reason(err, errlen, "profile lines CSV: data row %d: %s "
                          "'%s' is not a number", r + 1,
                          mp_ncu_profile_columns[v], cell);
                return -1;
            }
        }
    }
    return 0;
}

/* The comparison's working set: both sides' entries and their kernels. */
typedef struct {
    entry *e;
    int ne;
    kernels k;
} entries;

/* Room for `total` entries and kernels; -1 when out of memory (what was
 * allocated is freed by entries_free). */
static int entries_alloc(entries *x, int total)
{
    x->e = calloc((size_t)(total ? total : 1), sizeof *x->e);
    size_t nk = (size_t)(total ? total : 1);
    kernels k = {.names = calloc(nk, sizeof(char *)),
                 .mangled = calloc(nk, sizeof(char *)),
                 .seen = calloc(nk, sizeof(int)),
                 .launches = calloc(nk, sizeof(double)),
                 .launches2 = calloc(nk, sizeof(double)),
                 .varies = calloc(nk, sizeof(int)),
                 .tables = calloc(nk, sizeof(int)),
                 .last = calloc(nk, sizeof(int))};
    x->k = k;
    x->ne = 0;
    return !x->e || !k.names || !k.mangled || !k.seen || !k.launches
           || !k.launches2 || !k.varies || !k.tables || !k.last ? -1 : 0;
}

static void entries_free(entries *x)
{
    free(x->e);
    free(x->k.names);
    free(x->k.mangled);
    free(x->k.seen);
    free(x->k.launches);
    free(x->k.launches2);
    free(x->k.varies);
    free(x->k.tables);
    free(x->k.last);
}

/* Appends ncu's rows to x, each paired by name with one of the first
 * nmemprobe kernels (memprobe's) or a kernel of ncu's own; counts each
 * kernel's tables. */
static void read_ncu(const mp_ncu_source *ncu, entries *x, int nmemprobe)
{
    for (int r = 0; r < ncu->nrows; r++) {
        const mp_ncu_source_row *s = &ncu->rows[r];
        entry *y = &x->e[x->ne++];
        y->kernel = kernel_of_ncu(&x->k, nmemprobe, s->kernel);
        x->k.seen[y->kernel] |= 2;
        if (x->k.last[y->kernel] != s->table) {
            x->k.last[y->kernel] = s->table;
            x->k.tables[y->kernel]++;
        }
        y->offset = s->offset;
        y->side = 1;
        y->text = s->source;
        memcpy(y->value, s->value, sizeof y->value);
    }
}

/* The counts of the comparison: `varying` of the differences are in
 * kernels whose counts differ between memprobe's two runs. */
typedef struct {
    long compared, equal, shown, unpaired, varying;
} tally;

/* One instruction, the sorted entries [i, j) of one kernel and offset:
 * prints its values that differ as the next difference shown, while
 * fewer than `show` were. sum: each side's sums; nl, nt: memprobe's
 * launches and ncu's tables of the kernel; first: the first value
 * compared. */
static void show_difference(const entries *x, int i, const char *text,
                            double sum[3][MP_SRC_VALUES], double nl,
                            double nt, int first, tally *t, int show,
                            FILE *out)
{
    if (t->shown >= show)
        return;
    if (t->shown++ == 0)
        fprintf(out, "first differences (memprobe / ncu):\n");
    fprintf(out, "  %s +0x%llx %s:", x->k.names[x->e[i].kernel],
            (unsigned long long)x->e[i].offset, text);
    for (int v = first; v < MP_SRC_VALUES; v++)
        if (sum[0][v] * nt != sum[1][v] * nl)
            fprintf(out, " %s %.6g / %.6g%s;",
                    mp_ncu_source_columns[v],
                    nl == nt ? sum[0][v] : sum[0][v] / nl,
                    nl == nt ? sum[1][v] : sum[1][v] / nt,
                    nl == nt ? "" : " per launch");
    fputc('\n', out);
}

/* The end of the sorted entries of e[i]'s instruction (kernel and
 * offset), each side's values summed into sum, its text (ncu's first)
 * into *text. */
static int group(const entries *x, int i, double sum[3][MP_SRC_VALUES],
                 const char **text)
{
    const entry *e = x->e;
    int j = i;
    memset(sum, 0, 3 * sizeof *sum);
    *text = "";
    for (; j < x->ne && e[j].kernel == e[i].kernel
           && e[j].offset == e[i].offset; j++) {
        for (int v = 0; v < MP_SRC_VALUES; v++)
            sum[e[j].side][v] += e[j].value[v];
        if (e[j].text[0] && (!(*text)[0] || e[j].side == 1))
            *text = e[j].text;
    }
    return j;
}

/* With memprobe's repeat: a kernel varies when the two runs differ at
 * one of its instructions (per launch), or only one of them has it. */
static void mark_varying(const entries *x)
{
    const kernels *k = &x->k;
    for (int i = 0; i < k->n; i++)
        k->varies[i] = (k->seen[i] & 1) != ((k->seen[i] >> 2) & 1)
                       && (k->seen[i] & 5);
    for (int i = 0; i < x->ne;) {
        double sum[3][MP_SRC_VALUES];
        const char *text;
        int j = group(x, i, sum, &text), kn = x->e[i].kernel;
        double a = k->launches[kn], b = k->launches2[kn];
        if (!(a > 0 && b > 0))
            a = b = 1;
        for (int v = 0; v < MP_SRC_VALUES; v++)
            if (sum[0][v] * b != sum[2][v] * a)
                k->varies[kn] = 1;
        i = j;
    }
}

/* Compares the sorted entries instruction by instruction (kernel and
 * offset), both sides summed, into t; shows the first `show`
 * differences, those of kernels that vary from run to run counted
 * apart. */
static void compare_entries(const entries *x, int compare_inst, int show,
                            tally *t, FILE *out)
{
    const entry *e = x->e;
    for (int i = 0; i < x->ne;) {
        double sum[3][MP_SRC_VALUES];
        const char *text;
        int j = group(x, i, sum, &text);
        if ((x->k.seen[e[i].kernel] & 3) != 3) {   /* on one side only */
            t->unpaired++;
            i = j;
            continue;
        }
        t->compared++;
        /* Per launch: memprobe's sum over its launches against ncu's over
         * its tables (ncu 2025.3 prints each launch's table twice), as
         * sum_m * tables == sum_n * launches, exact in whole numbers. */
        double nl = x->k.launches[e[i].kernel], nt = x->k.tables[e[i].kernel];
        if (!(nl > 0 && nt > 0))
            nl = nt = 1;
        int same = 1;
        for (int v = compare_inst ? 0 : 1; v < MP_SRC_VALUES; v++)
            if (sum[0][v] * nt != sum[1][v] * nl)
                same = 0;
        if (same)
            t->equal++;
        else if (x->k.varies[e[i].kernel])
            t->varying++;
        else
            show_difference(x, i, text, sum, nl, nt, compare_inst ? 0 : 1,
                            t, show, out);
        i = j;
    }
}

/* The kernels on one side only, those that vary from run to run and
 * those compared per launch (a kernel of memprobe's repeat alone is
 * none of them); returns how many kernels are on both sides, and the
 * number of kernels of either side in *nk. */
static int say_kernels(const kernels *k, int *nk, FILE *out)
{
    *nk = 0;
    for (int i = 0; i < k->n; i++)
        *nk += (k->seen[i] & 3) != 0;
    for (int i = 0; i < k->n; i++)
        if (!(k->seen[i] & 3))
            continue;
        else if ((k->seen[i] & 3) != 3)
            fprintf(out, "kernel %s: only in %s\n", k->names[i],
                    k->seen[i] & 1 ? "memprobe's profile" : "ncu's report");
        else if (k->varies[i])
            fprintf(out, "kernel %s: its counts vary from run to run "
                    "(memprobe's two runs of the program differ): its "
                    "differences from ncu's run are not disagreements\n",
                    k->names[i]);
        else if (k->launches[i] != k->tables[i])
            fprintf(out, "kernel %s: %.0f launches in memprobe's profile, %d "
                    "tables in ncu's report (compared per launch)\n",
                    k->names[i], k->launches[i], k->tables[i]);
    int paired = 0;
    for (int i = 0; i < k->n; i++)
        paired += (k->seen[i] & 3) == 3;
    return paired;
}

/* The summary line, and the line saying that no kernel paired. */
static void say_summary(const tally *t, int paired, int nkernels,
                        int compare_inst, FILE *out)
{
    fprintf(out, "ncu-check --profile: %ld instructions compared (%d of %d "
            "kernels paired by name; %s), %ld equal, %ld different",
            t->compared, paired, nkernels, compare_inst ? "executed "
            "instructions, shared wavefronts and global sectors with their "
            "ideal" : "shared wavefronts and global sectors with their ideal",
            t->equal, t->compared - t->equal - t->varying);
    if (t->varying)
        fprintf(out, ", %ld in kernels whose counts vary from run to run",
                t->varying);
    if (t->unpaired)
        fprintf(out, "; %ld instructions of kernels on one side only not "
                "compared", t->unpaired);
    fputc('\n', out);
    if (!paired && nkernels)
        fprintf(out, "ncu-check --profile: no kernel of memprobe's profile "
                "pairs with one of ncu's report (the names above): nothing "
                "compared\n");
}

int mp_ncu_profile_compare(const mp_ncu_source *ncu,
                           const mp_csv_table *lines,
                           const mp_csv_table *repeat, FILE *out, int show,
                           char *err, size_t errlen)
{
    entries x;
    int has_inst = 0, has2 = 0, rc = 0;
    if (entries_alloc(&x, lines->nrows + ncu->nrows
                              + (repeat ? repeat->nrows : 0))) {
        mp_reason(err, errlen, "out of memory");
        rc = MP_EXIT_USAGE;
        goto done;
    }
    if (read_memprobe(lines, 0, &x.k, x.e, &x.ne, &has_inst, err, errlen)
        || (repeat && read_memprobe(repeat, 2, &x.k, x.e, &x.ne, &has2, err,
                                    errlen))) {
        rc = MP_EXIT_USAGE;
        goto done;
    }
    int nmemprobe = x.k.n;
    read_ncu(ncu, &x, nmemprobe);
    int compare_inst = has_inst && ncu->has[MP_SRC_INST];
    mp_sort(x.e, (size_t)x.ne, sizeof *x.e, by_instruction);
    if (repeat)
        mark_varying(&x);

    tally t = {0, 0, 0, 0, 0};
    compare_entries(&x, compare_inst, show, &t, out);
    int nk;
    int paired = say_kernels(&x.k, &nk, out);
    say_summary(&t, paired, nk, compare_inst, out);
    /* comparing nothing, or leaving a kernel out, is no pass; differences
     * in kernels that vary from run to run are none */
    rc = !paired && !nk ? MP_EXIT_COUNTERS
         : paired == nk && t.equal + t.varying == t.compared
           ? MP_EXIT_OK : MP_EXIT_FAIL;
done:
    entries_free(&x);
    return rc;
}

char **mp_ncu_profile_command(const char *const *head, char *const *args)
{
    int nh = 0, na = 0;
    while (head[nh])
        nh++;
    while (args[na])
        na++;
    char **v = mp_xcalloc((size_t)(nh + na + 1), sizeof *v);
    for (int i = 0; i < nh; i++)
        v[i] = (char *)head[i];
    for (int i = 0; i < na; i++)
        v[nh + i] = args[i];
    return v;
}

int mp_ncu_profile_memprobe(const char *level, const char *csv,
                            char *const *argv, const char *log)
{
    const char *with[] = {mp_self_path(), "profile", "-o", csv, "--level",
                          level, "--", NULL};
    const char *without[] = {mp_self_path(), "profile", "-o", csv, "--",
                             NULL};
    char **cmd = mp_ncu_profile_command(level ? with : without, argv);
    int rc = mp_spawn_wait(cmd, log);
    free(cmd);
    if (rc == 0)
        return 0;
    fprintf(stderr, "memprobe: ncu-check: memprobe profile failed (exit %d); "
            "see %s\n", rc, log);
    return rc == MP_EXIT_USAGE || rc == MP_EXIT_COUNTERS ? rc : MP_EXIT_FAIL;
}

/* What mp_ncu_profile_check's comparison reads: ncu's source page and
 * memprobe's lines CSV in dir, and the program to run again. */
typedef struct {
    const char *dir, *page, *lines;
    char *const *argv;
} runs;

/* Reads and compares (repeat: memprobe's repeat lines CSV, or NULL)
 * into out: the comparison's status, 1 when a file cannot be read. */
static int compare_files(const runs *r, const char *repeat, FILE *out)
{
    mp_ncu_source src;
    mp_csv_table t, t2;
    char err[1024];
    if (mp_ncu_source_read(r->page, &src, err, sizeof err)) {
        fprintf(stderr, "memprobe: ncu-check: %s\n", err);
        return MP_EXIT_FAIL;
    }
    if (mp_table_read_or_say(mp_csv_table_read, r->lines, &t, "ncu-check")) {
        mp_ncu_source_free(&src);
        return MP_EXIT_FAIL;
    }
    if (repeat
        && mp_table_read_or_say(mp_csv_table_read, repeat, &t2, "ncu-check")) {
        mp_csv_free(&t);
        mp_ncu_source_free(&src);
        return MP_EXIT_FAIL;
    }
    int rc = mp_ncu_profile_compare(&src, &t, repeat ? &t2 : NULL, out, 20,
                                    err, sizeof err);
    if (rc == MP_EXIT_USAGE) {
        fprintf(stderr, "memprobe: ncu-check: %s: %s\n", r->lines, err);
        rc = MP_EXIT_FAIL;
    }
    if (repeat)
        mp_csv_free(&t2);
    mp_csv_free(&t);
    mp_ncu_source_free(&src);
    return rc;
}

/* The comparison; where memprobe and ncu differ, memprobe profiles the
 * program again, and the kernels whose counts differ between its two
 * runs (CUB's onesweep radix sort spins on a look-back) are said to
 * vary from run to run instead of disagreeing. *compared: 1 when the
 * comparison that is printed compared (0 or 1). */
static int compare_runs(const runs *r, FILE *out, int *compared)
{
    FILE *first = tmpfile();
    int rc = compare_files(r, NULL, first ? first : out);
    *compared = rc == MP_EXIT_OK || rc == MP_EXIT_FAIL;
    if (rc != MP_EXIT_FAIL || !first) {
        if (first) {   /* no difference: the comparison as it is */
            rewind(first);
            int c;
            while ((c = getc(first)) != EOF)
                putc(c, out);
            fclose(first);
        }
        return rc;
    }
    fclose(first);
    char csv2[4096], lines2[4096], plog2[4096];
    mp_ncu_check_fresh_path(csv2, sizeof csv2, r->dir, "profile-repeat.csv");
    mp_ncu_check_fresh_path(lines2, sizeof lines2, r->dir,
                            "profile-repeat-lines.csv");
    mp_ncu_check_fresh_path(plog2, sizeof plog2, r->dir, "profile-repeat.log");
    fprintf(out, "ncu-check --profile: memprobe and ncu differ: memprobe "
            "profile -- %s again, to find the kernels whose counts vary "
            "from run to run\n", r->argv[0]);
    rc = mp_ncu_profile_memprobe(NULL, csv2, r->argv, plog2)
         ? compare_files(r, NULL, out) : compare_files(r, lines2, out);
    *compared = rc == MP_EXIT_OK || rc == MP_EXIT_FAIL;
    return rc;
}

int mp_ncu_profile_check(const char *ncu, const char *dir,
                         char *const *argv, FILE *out, int *compared)
{
    *compared = 0;
    char csv[4096], lines[4096], rep[4096], rep_file[4096], page[4096];
    char plog[4096], nlog[4096];
    snprintf(rep, sizeof rep, "%s/source", dir);   /* ncu adds .ncu-rep */
    mp_ncu_check_fresh_path(csv, sizeof csv, dir, "profile.csv");
    mp_ncu_check_fresh_path(lines, sizeof lines, dir, "profile-lines.csv");
    mp_ncu_check_fresh_path(rep_file, sizeof rep_file, dir,
                            "source.ncu-rep");
    mp_ncu_check_fresh_path(page, sizeof page, dir, "source.csv");
    mp_ncu_check_fresh_path(plog, sizeof plog, dir, "profile.log");
    mp_ncu_check_fresh_path(nlog, sizeof nlog, dir, "ncu.log");

    fprintf(out, "ncu-check --profile: memprobe profile -- %s\n", argv[0]);
    int rc = mp_ncu_profile_memprobe(NULL, csv, argv, plog);
    if (rc)
        return rc;

    const char *head2[] = {ncu, "--section", "SourceCounters",
                           "--clock-control", "none", "-f", "-o", rep, NULL};
    char **cmd = mp_ncu_profile_command(head2, argv);
    fprintf(out, "ncu-check --profile: %s --section SourceCounters -- %s\n",
            ncu, argv[0]);
    rc = mp_spawn_wait(cmd, nlog);
    free(cmd);
    if (rc == 0) {
        /* mangled names: the demangled ones differ between memprobe
         * (c++filt's "float const*") and ncu ("const float *") */
        const char *page_argv[] = {ncu, "-i", rep_file, "--page", "source",
                                   "--csv", "--print-source", "sass",
                                   "--print-kernel-base", "mangled", NULL};
        rc = mp_spawn_wait((char *const *)page_argv, page);
    }
    if (rc != 0) {
        fprintf(stderr, "memprobe: ncu-check: %s %s (exit %d); see %s\n", ncu,
                rc == 127 ? "not found" : "failed", rc, nlog);
        return rc == 127 ? MP_EXIT_USAGE : MP_EXIT_FAIL;
    }

    const runs r = {dir, page, lines, argv};
    return compare_runs(&r, out, compared);
}
