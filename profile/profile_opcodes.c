/*
 * profile_opcodes.c - the opcodes of a profile's instructions (the opcode
 * column of profile-lines.csv), from `cuobjdump -sass` of the cubins the
 * injection library saved in the raw directory.
 */
#include "profile_csv.h"
#include "profile_csv_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "raw.h"
#include "stats.h"
#include "subprocess.h"

/* ---- opcodes: cuobjdump -sass of the saved cubins -------------------- */

typedef struct {
    char *cubin, *function, *opcode;
    mp_u64 offset;
} sass_op;

typedef struct {
    sass_op *v;
    int n;
} sass_ops;

/* cuobjdump: $CUDA_HOME/bin, else PATH. */
static int find_cuobjdump(char *out, size_t len)
{
    const char *home = getenv("CUDA_HOME");
    if (home && home[0]) {
        char bin[PATH_MAX];
        snprintf(bin, sizeof bin, "%s/bin", home);
        if (!mp_prof_find_program("cuobjdump", bin, out, len))
            return 0;
    }
    return mp_prof_find_program("cuobjdump", NULL, out, len);
}

/* One line of `cuobjdump -sass`: "Function : NAME" sets the function;
 * "/ *0010* /  [{] [@P0] OPCODE ..." is an instruction. */
static void sass_line(char *line, const char *crc, char *function,
                      size_t flen, sass_ops *ops)
{
    char *s = line + strspn(line, " \t");
    if (!strncmp(s, "Function : ", 11)) {
        snprintf(function, flen, "%s", s + 11);
        function[strcspn(function, " \t\r\n")] = '\0';
        return;
    }
    if (strncmp(s, "/*", 2) || !function[0])
        return;
    char *end;
    mp_u64 off = strtoull(s + 2, &end, 16);
    if (end == s + 2 || strncmp(end, "*/", 2))
        return;
    s = end + 2;
    s += strspn(s, " \t{");
    if (*s == '@') {
        s += strcspn(s, " \t");
        s += strspn(s, " \t");
    }
    size_t n = strcspn(s, " \t;");
    if (!n)
        return;
    ops->v = mp_xrealloc(ops->v, (size_t)(ops->n + 1) * sizeof *ops->v);
    sass_op *o = &ops->v[ops->n++];
    o->cubin = mp_xstrdup(crc);
    o->function = mp_xstrdup(function);
    o->offset = off;
    o->opcode = mp_xmalloc(n + 1);
    memcpy(o->opcode, s, n);
    o->opcode[n] = '\0';
}

/* The instructions of every cubin.CRC of dir; nothing when cuobjdump is
 * not found. */
static void read_opcodes(const char *dir, char **names, int nnames,
                         sass_ops *ops)
{
    char tool[PATH_MAX];
    if (find_cuobjdump(tool, sizeof tool))
        return;
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/sass.txt", dir);
    for (int k = 0; k < nnames; k++) {
        const char *crc = names[k] + strlen(MP_RAW_CUBIN);
        char cubin[PATH_MAX];
        snprintf(cubin, sizeof cubin, "%s/%s", dir, names[k]);
        unlink(out);
        char *argv[] = {tool, "-sass", cubin, NULL};
        int rc = mp_spawn_wait(argv, out);
        FILE *f = fopen(out, "r");
        if (rc == 0 && f) {
            char line[1024], function[512] = "";
            while (fgets(line, sizeof line, f))
                sass_line(line, crc, function, sizeof function, ops);
        } else {
            fprintf(stderr, "memprobe: cuobjdump -sass %s failed (status "
                    "%d): no opcodes for that module\n", names[k], rc);
        }
        if (f)
            fclose(f);
        unlink(out);
    }
}

/* Order of the instructions: cubin, function, offset. */
static int cmp_op_key(const char *cubin, const char *function, mp_u64 off,
                      const sass_op *o)
{
    int c;
    if ((c = strcmp(cubin, o->cubin)) || (c = strcmp(function, o->function)))
        return c;
    return (off > o->offset) - (off < o->offset);
}

static int cmp_op(const void *a, const void *b)
{
    const sass_op *x = a;
    return cmp_op_key(x->cubin, x->function, x->offset, b);
}

/* The opcode of (cubin, function, offset) in ops sorted by cmp_op. */
static const char *find_opcode(const sass_ops *ops, const mp_prof_line *i)
{
    int lo = 0, hi = ops->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = cmp_op_key(i->cubin, i->mangled, i->offset, &ops->v[mid]);
        if (!c)
            return ops->v[mid].opcode;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static void free_opcodes(sass_ops *ops)
{
    for (int k = 0; k < ops->n; k++) {
        free(ops->v[k].cubin);
        free(ops->v[k].function);
        free(ops->v[k].opcode);
    }
    free(ops->v);
}


void mp_prof_set_opcodes(const char *raw_dir, char **cubins, int ncubins,
                         mp_prof_data *d)
{
    sass_ops ops = {0};
    read_opcodes(raw_dir, cubins, ncubins, &ops);
    mp_sort(ops.v, (size_t)ops.n, sizeof *ops.v, cmp_op);
    for (int j = 0; j < d->ni; j++) {
        const char *op = find_opcode(&ops, &d->i[j]);
        if (op) {
            free(d->i[j].opcode);
            d->i[j].opcode = mp_xstrdup(op);
        }
    }
    free_opcodes(&ops);
}
