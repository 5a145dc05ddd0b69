/*
 * inject_core.c - what the injection library does without CUDA: the
 * per-instruction table, the launch rows, the filters, the status lines,
 * the modules' origins (and which frames of a call stack are CUDA's),
 * the functions without line information, the per-kernel counts and the
 * NVTX strings (inject_core.h; the writers of the raw files are
 * inject_core_write.c's). Tested by tests/test_inject_core.c.
 */
#include "inject_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-instruction aggregation ------------------------------------ */

void ic_lines_init(ic_lines *t)
{
    memset(t, 0, sizeof *t);
}

void ic_lines_free(ic_lines *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].mangled);
        free(t->v[i].file);
    }
    free(t->v);
    free(t->slot);
    ic_lines_init(t);
}

static size_t key_hash(uint32_t crc, uint32_t fn, uint32_t pc)
{
    uint64_t h = ((uint64_t)crc << 32 | fn) * 0x9e3779b97f4a7c15ull;
    h ^= (h >> 29) + (uint64_t)pc * 0xbf58476d1ce4e5b9ull;
    return (size_t)(h ^ (h >> 31));
}

/* The slot holding (crc, fn, pc), or the empty slot where it would go. */
static size_t *find_slot(const ic_lines *t, uint32_t crc, uint32_t fn,
                         uint32_t pc)
{
    size_t mask = t->nslot - 1;
    for (size_t i = key_hash(crc, fn, pc) & mask;; i = (i + 1) & mask) {
        size_t s = t->slot[i];
        if (!s)
            return &t->slot[i];
        const ic_line *l = &t->v[s - 1];
        if (l->crc == crc && l->function_index == fn && l->pc_offset == pc)
            return &t->slot[i];
    }
}

ic_line *ic_lines_get(ic_lines *t, uint32_t crc, uint32_t function_index,
                      uint32_t pc_offset)
{
    if (!t->nslot)
        return NULL;
    size_t s = *find_slot(t, crc, function_index, pc_offset);
    return s ? &t->v[s - 1] : NULL;
}

/* An open-addressing index of a table's rows (slot: row + 1, 0 = empty;
 * nslot a power of two) made ready for one more row: when half full, a
 * new one of twice the slots (the first: `first`), each of the n rows
 * placed again at slot_of(t, row) (the table's own lookup, which reads
 * the new slots). 0, or -1 out of memory (the old index kept). */
static int index_grow(size_t **slot, size_t *nslot, size_t n, size_t first,
                      size_t *(*slot_of)(const void *t, size_t row),
                      const void *t)
{
    if (*nslot > 2 * (n + 1))
        return 0;
    size_t ns = *nslot ? 2 * *nslot : first;
    size_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    free(*slot);
    *slot = s;
    *nslot = ns;
    for (size_t i = 0; i < n; i++)
        *slot_of(t, i) = i + 1;
    return 0;
}

static size_t *line_slot(const void *tbl, size_t row)
{
    const ic_lines *t = tbl;
    const ic_line *l = &t->v[row];
    return find_slot(t, l->crc, l->function_index, l->pc_offset);
}

/* Doubles the index (and rehashes) when it is half full. */
static int grow_index(ic_lines *t)
{
    return index_grow(&t->slot, &t->nslot, t->n, 1024, line_slot, t);
}

ic_line *ic_lines_put(ic_lines *t, uint32_t crc, uint32_t function_index,
                      uint32_t pc_offset, const char *mangled,
                      const char *file, uint32_t line)
{
    if (grow_index(t))
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        ic_line *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    ic_line *l = &t->v[t->n];
    memset(l, 0, sizeof *l);
    l->crc = crc;
    l->function_index = function_index;
    l->pc_offset = pc_offset;
    l->line = line;
    l->mangled = strdup(mangled ? mangled : "");
    l->file = strdup(file ? file : "");
    if (!l->mangled || !l->file) {
        free(l->mangled);
        free(l->file);
        return NULL;
    }
    *find_slot(t, crc, function_index, pc_offset) = ++t->n;
    return l;
}

void ic_line_count_n(ic_line *l, uint64_t launch, uint64_t n, int m,
                     uint64_t value)
{
    if (l->last_launch != launch + 1) {
        l->last_launch = launch + 1;
        l->launches += n;
    }
    if (m >= 0 && m < MP_RAW_NMETRICS)
        l->sum[m] += value;
}

void ic_line_count(ic_line *l, uint64_t launch, int m, uint64_t value)
{
    ic_line_count_n(l, launch, 1, m, value);
}

int ic_metric_index(const char *name)
{
    static const char *const names[MP_RAW_NMETRICS] = MP_RAW_METRIC_NAMES;
    for (int m = 0; name && m < MP_RAW_NMETRICS; m++)
        if (strcmp(name, names[m]) == 0)
            return m;
    return -1;
}

/* ---- batches of runs ------------------------------------------------ */

int ic_batch_admits(const char *const *names, int n, int max_runs,
                    const char *name)
{
    if (n >= max_runs)
        return 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name ? name : ""))
            return 0;
    return 1;
}

/* ---- launch rows ---------------------------------------------------- */

void ic_launches_init(ic_launches *b)
{
    memset(b, 0, sizeof *b);
}

int ic_launch_op(ic_launch *r, uint32_t crc, uint32_t function_index,
                 uint32_t pc_offset, const uint64_t *v)
{
    /* a memory instruction: shared or global counts, or load instructions
     * (CUPTI can bring a pc's op_ld count in a record of its own: kept, it
     * joins the pc's other counts, and the split sees the load) */
    if (!(v[1] | v[2] | v[3] | v[4] | v[5]))
        return 0;
    ic_op *o = NULL;
    for (size_t i = 0; i < r->nops && !o; i++)
        if (r->ops[i].crc == crc && r->ops[i].function_index == function_index
            && r->ops[i].pc_offset == pc_offset)
            o = &r->ops[i];
    if (!o) {
        if (r->nops == r->capops) {
            size_t cap = r->capops ? 2 * r->capops : 8;
            ic_op *ops = realloc(r->ops, cap * sizeof *ops);
            if (!ops)
                return -1;
            r->ops = ops;
            r->capops = cap;
        }
        o = &r->ops[r->nops++];
        memset(o, 0, sizeof *o);
        o->crc = crc;
        o->function_index = function_index;
        o->pc_offset = pc_offset;
    }
    for (int m = 0; m < MP_RAW_NMETRICS; m++)
        o->v[m] += v[m];
    return 0;
}

void ic_launches_clear(ic_launches *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->v[i].ops);
        free(b->v[i].mangled);
        free(b->v[i].nvtx);
        free(b->v[i].why);
    }
    b->n = 0;
}

void ic_launches_free(ic_launches *b)
{
    ic_launches_clear(b);
    free(b->v);
    ic_launches_init(b);
}

ic_launch *ic_launches_add(ic_launches *b, uint64_t launch,
                           const char *mangled, const char *nvtx)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        ic_launch *v = realloc(b->v, cap * sizeof *v);
        if (!v)
            return NULL;
        b->v = v;
        b->cap = cap;
    }
    ic_launch *r = &b->v[b->n];
    memset(r, 0, sizeof *r);
    r->launch = launch;
    r->launches = 1;
    r->exact = 1;
    r->mangled = strdup(mangled ? mangled : "");
    r->nvtx = strdup(nvtx ? nvtx : "");
    r->why = strdup("");
    if (!r->mangled || !r->nvtx || !r->why) {
        free(r->mangled);
        free(r->nvtx);
        free(r->why);
        return NULL;
    }
    b->n++;
    return r;
}

void ic_launch_unavailable(ic_launch *r, const char *why)
{
    char *w = strdup(why ? why : "");
    if (w) {
        free(r->why);
        r->why = w;
    }
    r->exact = 0;
}

/* ---- filters -------------------------------------------------------- */

int ic_parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int ic_filter_init(ic_filter *f, const char *kernel, const char *nvtx,
                   const char *skip, const char *count, char *err,
                   size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->count = UINT64_MAX;
    err[0] = '\0';
    if (skip && *skip && ic_parse_u64(skip, &f->skip)) {
        snprintf(err, errlen, MP_ENV_LAUNCH_SKIP " '%s' is not a count", skip);
        return -1;
    }
    if (count && *count && ic_parse_u64(count, &f->count)) {
        snprintf(err, errlen, MP_ENV_LAUNCH_COUNT " '%s' is not a count",
                 count);
        return -1;
    }
    if (nvtx && strlen(nvtx) >= sizeof f->nvtx) {
        snprintf(err, errlen, MP_ENV_NVTX_INCLUDE " is longer than %zu bytes",
                 sizeof f->nvtx - 1);
        return -1;
    }
    snprintf(f->nvtx, sizeof f->nvtx, "%s", nvtx ? nvtx : "");
    if (kernel && *kernel) {
        int rc = regcomp(&f->regex, kernel, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char why[128];
            regerror(rc, &f->regex, why, sizeof why);
            snprintf(err, errlen, MP_ENV_KERNEL " '%s' is not a regular "
                     "expression: %s", kernel, why);
            return -1;
        }
        f->has_regex = 1;
    }
    return 0;
}

void ic_filter_free(ic_filter *f)
{
    if (f->has_regex)
        regfree(&f->regex);
    f->has_regex = 0;
}

int ic_nvtx_match(const char *include, const char *const *stack,
                  size_t depth)
{
    if (!include || !*include)
        return 1;
    /* "A/" (Nsight Compute's spelling of a push/pop range) is "A" */
    size_t n = strlen(include);
    while (n && include[n - 1] == '/')
        n--;
    if (!n)
        return 0;
    /* one name (a range may have a slash in its name) */
    for (size_t i = 0; i < depth; i++)
        if (strlen(stack[i]) == n && memcmp(stack[i], include, n) == 0)
            return 1;
    /* A/B/...: consecutive ranges, starting anywhere on the stack */
    const char *end = include + n;
    for (size_t start = 0; start < depth; start++) {
        const char *p = include;
        for (size_t k = start; k < depth; k++) {
            const char *slash = memchr(p, '/', (size_t)(end - p));
            size_t len = slash ? (size_t)(slash - p) : (size_t)(end - p);
            if (strlen(stack[k]) != len || memcmp(stack[k], p, len) != 0)
                break;
            if (!slash)
                return 1;
            p = slash + 1;
        }
    }
    return 0;
}

int ic_kernel_match(const ic_filter *f, const char *mangled)
{
    if (!f->has_regex || !mangled)
        return 1;
    return regexec(&f->regex, mangled, 0, NULL, 0) == 0;
}

int ic_filter_decide(ic_filter *f, const char *mangled,
                     const char *const *stack, size_t depth)
{
    if (!ic_kernel_match(f, mangled) || !ic_nvtx_match(f->nvtx, stack, depth))
        return 0;
    uint64_t m = f->matched++;
    if (m < f->skip)
        return 0;
    return f->count == UINT64_MAX || m - f->skip < f->count;
}

int ic_filter_done(const ic_filter *f)
{
    if (f->count == UINT64_MAX)
        return 0;
    return f->matched >= f->skip && f->matched - f->skip >= f->count;
}

/* ---- status --------------------------------------------------------- */

int ic_status_event(ic_status *s, const char *key, const char *value)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s\n", key, value ? value : "");
    if (n < 0)
        return -1;
    if ((size_t)n >= sizeof line) {
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    for (int i = 0; i < n - 1; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    /* said once: a repeated failure is one line */
    for (const char *p = s->text; p && p < s->text + s->len;) {
        if (strncmp(p, line, (size_t)n) == 0)
            return 0;
        p = memchr(p, '\n', (size_t)(s->text + s->len - p));
        p = p ? p + 1 : NULL;
    }
    if (s->len + (size_t)n >= sizeof s->text)
        return -1;
    memcpy(s->text + s->len, line, (size_t)n);
    s->len += (size_t)n;
    s->text[s->len] = '\0';
    return 1;
}

/* ---- module origins ------------------------------------------------- */

void ic_modules_init(ic_modules *m)
{
    memset(m, 0, sizeof *m);
}

void ic_modules_free(ic_modules *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].origin);
    free(m->v);
    ic_modules_init(m);
}

int ic_modules_add(ic_modules *m, uint32_t crc, const char *origin,
                   const char *found)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].crc == crc)
            return 0;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        ic_module *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return -1;
        m->v = v;
        m->cap = cap;
    }
    char *copy = strdup(origin ? origin : "");
    if (!copy)
        return -1;
    ic_module *e = &m->v[m->n++];
    e->crc = crc;
    e->origin = copy;
    snprintf(e->found, sizeof e->found, "%s", found ? found : "");
    return 1;
}

/* File-name prefixes of the objects between a program's code and the
 * module-loaded callback (inject_core.h). "libcuda.so", not "libcuda":
 * libcudart is listed on its own, and no vendor library is caught. */
static const char *const cuda_stack[] = {
    "libcuda.so", "libcudart", "libcudadebugger", "libnvidia-", "libcupti",
    "libnvperf", "libmemprobe_", "libc.so", "libc-", "libpthread", "libdl",
    "ld-linux", "ld64.so", "libgcc_s", "libstdc++",
};

int ic_cuda_stack_object(const char *path)
{
    if (!path || !path[0])
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof cuda_stack / sizeof *cuda_stack; i++)
        if (!strncmp(base, cuda_stack[i], strlen(cuda_stack[i])))
            return 1;
    return 0;
}

int ic_first_own_frame(const char *const *objects, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (objects[i] && objects[i][0] && !ic_cuda_stack_object(objects[i]))
            return (int)i;
    return -1;
}

/* ---- functions without line information ------------------------------ */

void ic_fnlines_free(ic_fnlines *t)
{
    free(t->key);
    free(t->misses);
    free(t->used);
    memset(t, 0, sizeof *t);
}

static size_t fn_slot(const ic_fnlines *t, uint64_t key)
{
    size_t mask = t->nslot - 1;
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & mask;
    while (t->used[i] && t->key[i] != key)
        i = (i + 1) & mask;
    return i;
}

int ic_fnlines_none(const ic_fnlines *t, uint32_t crc, uint32_t fn)
{
    if (!t->nslot)
        return 0;
    size_t i = fn_slot(t, (uint64_t)crc << 32 | fn);
    return t->used[i] && t->misses[i] >= IC_NOLINE_AFTER;
}

static int fn_grow(ic_fnlines *t)
{
    if (t->nslot > 2 * (t->n + 1))
        return 0;
    ic_fnlines b = {.nslot = t->nslot ? 2 * t->nslot : 256};
    b.key = calloc(b.nslot, sizeof *b.key);
    b.misses = calloc(b.nslot, sizeof *b.misses);
    b.used = calloc(b.nslot, 1);
    if (!b.key || !b.misses || !b.used) {
        ic_fnlines_free(&b);
        return -1;
    }
    for (size_t i = 0; i < t->nslot; i++)
        if (t->used[i]) {
            size_t j = fn_slot(&b, t->key[i]);
            b.used[j] = 1;
            b.key[j] = t->key[i];
            b.misses[j] = t->misses[i];
        }
    b.n = t->n;
    ic_fnlines_free(t);
    *t = b;
    return 0;
}

int ic_fnlines_note(ic_fnlines *t, uint32_t crc, uint32_t fn, int found)
{
    if (fn_grow(t))
        return -1;
    uint64_t key = (uint64_t)crc << 32 | fn;
    size_t i = fn_slot(t, key);
    if (!t->used[i]) {
        t->used[i] = 1;
        t->key[i] = key;
        t->misses[i] = 0;
        t->n++;
    }
    if (found)
        t->misses[i] = -1;
    else if (t->misses[i] >= 0)
        t->misses[i]++;
    return 0;
}

/* ---- per kernel ------------------------------------------------------ */

void ic_kernels_init(ic_kernels *t, uint64_t per_kernel)
{
    memset(t, 0, sizeof *t);
    t->per_kernel = per_kernel;
}

void ic_kernels_free(ic_kernels *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].mangled);
    free(t->v);
    free(t->slot);
    ic_kernels_init(t, 0);
}

static size_t kernel_hash(const char *m, const unsigned *grid,
                          const unsigned *block)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *m; m++)
        h = (h ^ (unsigned char)*m) * 0x100000001b3ull;
    for (int i = 0; i < 3; i++)
        h = (h ^ grid[i]) * 0x100000001b3ull ^ block[i] * 0x9e3779b9u;
    return (size_t)(h ^ (h >> 31));
}

static int kernel_is(const ic_kernel *k, const char *m, const unsigned *grid,
                     const unsigned *block)
{
    return !memcmp(k->grid, grid, sizeof k->grid)
           && !memcmp(k->block, block, sizeof k->block)
           && !strcmp(k->mangled, m);
}

static size_t *kernel_slot(const ic_kernels *t, const char *m,
                           const unsigned *grid, const unsigned *block)
{
    size_t mask = t->nslot - 1;
    for (size_t i = kernel_hash(m, grid, block) & mask;; i = (i + 1) & mask)
        if (!t->slot[i] || kernel_is(&t->v[t->slot[i] - 1], m, grid, block))
            return &t->slot[i];
}

static size_t *kernel_row_slot(const void *tbl, size_t row)
{
    const ic_kernels *t = tbl;
    const ic_kernel *k = &t->v[row];
    return kernel_slot(t, k->mangled, k->grid, k->block);
}

/* Room for one more entry: the array and, half full, the index doubled. */
static int kernels_grow(ic_kernels *t)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        ic_kernel *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    return index_grow(&t->slot, &t->nslot, t->n, 256, kernel_row_slot, t);
}

ic_kernel *ic_kernels_get(ic_kernels *t, const char *mangled,
                          const unsigned grid[3], const unsigned block[3])
{
    if (!mangled)
        mangled = "";
    if (t->nslot) {
        size_t s = *kernel_slot(t, mangled, grid, block);
        if (s)
            return &t->v[s - 1];
    }
    char *m = strdup(mangled);
    if (!m || kernels_grow(t)) {
        free(m);
        return NULL;
    }
    ic_kernel *k = &t->v[t->n];
    memset(k, 0, sizeof *k);
    k->mangled = m;
    memcpy(k->grid, grid, sizeof k->grid);
    memcpy(k->block, block, sizeof k->block);
    *kernel_slot(t, m, grid, block) = ++t->n;
    return k;
}

int ic_kernel_wants(ic_kernels *t, ic_kernel *k)
{
    if (!t->per_kernel)
        return 1;
    if (k->profiled + k->pending >= t->per_kernel)
        return 0;
    if (!k->wanted) {
        k->wanted = 1;
        t->incomplete++;
    }
    k->pending++;
    return 1;
}

void ic_kernel_done(ic_kernels *t, ic_kernel *k, int decided, int made)
{
    if (decided && t->per_kernel && k->pending)
        k->pending--;
    if (!made)
        return;
    k->seen++;
    if (!decided)
        return;
    k->profiled++;
    if (t->per_kernel && k->wanted && k->profiled >= t->per_kernel) {
        k->wanted = 0;
        t->incomplete--;
    }
}

/* ---- NVTX registered strings --------------------------------------- */

void ic_nvtx_name(char *out, const char *ascii, const wchar_t *wide)
{
    size_t n = 0;
    if (ascii)
        for (; ascii[n] && n < IC_NVTX_NAME - 1; n++)
            out[n] = ascii[n];
    else if (wide)
        for (; wide[n] && n < IC_NVTX_NAME - 1; n++)
            out[n] = wide[n] > 0 && wide[n] < 128 ? (char)wide[n] : '?';
    out[n] = '\0';
}

void ic_nvtx_register(ic_nvtx *t, const void *handle, const char *ascii,
                      const wchar_t *wide)
{
    if (!handle)
        return;
    int k = 0;
    while (k < t->n && t->v[k].handle != handle)
        k++;
    if (k == IC_NVTX_STRINGS)
        return;
    t->v[k].handle = handle;
    ic_nvtx_name(t->v[k].name, ascii, wide);
    if (k == t->n)
        t->n++;
}

const char *ic_nvtx_lookup(const ic_nvtx *t, const void *handle)
{
    for (int k = 0; k < t->n; k++)
        if (t->v[k].handle == handle)
            return t->v[k].name;
    return NULL;
}
