/*
 * report.h - tables, plot data and the study document built from
 * memprobe's own result CSVs (`memprobe report`).
 *
 * The pieces, in the order they run:
 *   data.c     reads CSVs (libcsv, through csv_table.h), checks that every
 *              column a table needs is there, keeps one row per device and
 *              configuration, and lists the devices;
 *   part.c     the families' parts (part.h), registered by the layer above:
 *              their tables, claims, study sections and plot data;
 *   tables.c   builds the student's tables (bank, padding, coalesce,
 *              bandwidth, layouts, const, texture, reduction) and prints them
 *              as aligned text, Markdown or CSV, one column group per device;
 *              each table's spec is in its family's
 *              probes/NAME/NAME_tables.c (table_spec.h);
 *   plotdata.c writes the data files the gnuplot scripts (the .gp files of
 *              probes/NAME/) read, most through the families'
 *              probes/NAME/NAME_plotdata.c;
 *   study.c    writes docs/study.md: the tables, the plots and the seeds'
 *              claims beside what was measured; the claims are in the
 *              families' probes/NAME/NAME_study.c (claims.h, claims.c).
 * The command line is cli/cmd_report.c.
 *
 * Nothing here needs a GPU. Everything is deterministic: the same CSVs give
 * byte-identical output.
 */
#ifndef MP_REPORT_H
#define MP_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "csv_table.h"

/* ------------------------------------------------------------------ */
/* Loaded rows                                                        */

/* The CSV columns the report reads. X(id, column name). */
#define MP_REP_FIELDS(X)                                                   \
    X(DEVICE, "device_name")                                               \
    X(PROBE, "probe")                                                      \
    X(CONFIG, "config")                                                    \
    X(CC, "cc")                                                            \
    X(SM_COUNT, "sm_count")                                                \
    X(SM_CLOCK, "sm_clock_mhz")                                            \
    X(OP, "op")                                                            \
    X(WIDTH, "width_bytes")                                                \
    X(STRIDE, "stride")                                                    \
    X(BASE, "base")                                                        \
    X(GROUP, "group")                                                      \
    X(PERIOD, "period")                                                    \
    X(PAD, "pad")                                                          \
    X(OFFSET, "offset_bytes")                                              \
    X(LAYOUT, "layout")                                                    \
    X(CACHE, "cache")                                                      \
    X(KERNEL, "kernel")                                                    \
    X(ARRAY_BYTES, "array_bytes")                                          \
    X(SPREAD, "spread")                                                    \
    X(SPACING, "spacing_bytes")                                            \
    X(SOURCE, "source")                                                    \
    X(ACCESS, "access")                                                    \
    X(VARIANT, "variant")                                                  \
    X(WORKLOAD, "workload")                                                \
    X(ELEMENTS, "elements")                                                \
    X(BLOCKS, "blocks")                                                    \
    X(CLOCK_SPAN, "clock64_span_cycles")                                   \
    X(CLOCK_BLOCK, "clock64_block_cycles_median")                          \
    X(ST_INST, "smsp__sass_inst_executed_op_shared_st.sum")                \
    X(ST_WF, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")       \
    X(LD_INST, "smsp__sass_inst_executed_op_shared_ld.sum")                \
    X(LD_WF, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")       \
    X(ST_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum") \
    X(LD_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") \
    X(TIME_NS, "time_ns_median")                                           \
    X(REQUESTS, "requests")                                                \
    X(CYCLES, "cycles_per_request_per_sm")                                 \
    X(BANDWIDTH, "bandwidth_gbs")                                          \
    X(CEILING, "ceiling_gbs")                                              \
    X(FRACTION, "bandwidth_fraction")                                      \
    X(VERIFIED, "verified")                                                \
    X(MODEL_WF, "model_wavefronts_per_request")                            \
    X(MODEL_IDEAL_WF, "model_ideal_wavefronts_per_request")                \
    X(MODEL_WAYS, "model_conflict_ways")                                   \
    X(MODEL_SECTORS, "model_sectors_per_request")                          \
    X(MODEL_IDEAL_SECTORS, "model_ideal_sectors_per_request")              \
    X(MODEL_REPLAYS, "model_replays_per_request")                          \
    X(COUNTERS, "counters_status")                                         \
    X(WF, "wavefronts_per_request")                                        \
    X(SECTORS, "sectors_per_request")                                      \
    X(REPLAYS, "replays_per_request")                                      \
    X(MEMCPY, "memcpy_d2d_gbs")                                            \
    X(OF_MEMCPY, "fraction_of_memcpy")                                     \
    X(MATCH, "model_match")                                                \
    X(LSU_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")       \
    X(LSU_HITS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum") \
    X(TEX_SECTORS, "l1tex__t_sectors_pipe_tex_mem_texture.sum")            \
    X(TEX_HITS, "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum")    \
    X(IDC_REQUESTS, "idc__requests.sum")                                   \
    X(IDC_HITS, "idc__requests_lookup_hit.sum")                            \
    X(DEVICE_ID, "device_id")                                              \
    X(DIRECTION, "direction")                                              \
    X(HOST_MEMORY, "host_memory")                                          \
    X(METHOD, "method")                                                    \
    X(BYTES, "bytes")                                                      \
    X(SRC_DEVICE, "src_device")                                            \
    X(DST_DEVICE, "dst_device")                                            \
    X(PEER_ACCESS, "peer_access")                                          \
    X(PREFETCH, "prefetch")                                                \
    X(LATENCY_US, "latency_us")                                            \
    X(LINK, "link")                                                        \
    X(SWIZZLE, "swizzle")                                                  \
    X(TILE_BYTES, "tile_bytes")                                            \
    X(PASSES, "passes")                                                    \
    X(CLUSTER_SIZE, "cluster_size")                                        \
    X(LATENCY_CYCLES, "latency_cycles")

#define MP_REP_FIELD_ENUM(id, name) MP_F_##id,
enum mp_rep_field { MP_REP_FIELDS(MP_REP_FIELD_ENUM) MP_F_COUNT };
#undef MP_REP_FIELD_ENUM

/* Column name of a field. */
const char *mp_rep_field_name(int field);

typedef struct {
    char *path;            /* as given */
    const char *base;      /* the file name without its directory */
    mp_csv_table t;
    int col[MP_F_COUNT];   /* column of each field, -1 where absent */
} mp_rep_file;

typedef struct {
    int file;     /* index into files */
    int row;      /* row in that file's table */
    int device;   /* index into devices */
} mp_rep_row;

typedef struct {
    int nfiles;
    mp_rep_file *files;
    int nrows;          /* one per device and configuration, file order */
    mp_rep_row *rows;
    int nall;           /* every data row read, before duplicates went */
    mp_rep_row *all;    /* (device is -1 in rows of a device not kept) */
    int ndev;
    char **devices;     /* device names, in order of first appearance */
    int repeats;        /* rows dropped: the configuration came earlier */
    int skipped;        /* files skipped as Nsight Compute output */
} mp_rep_data;

/*
 * Reads memprobe result CSVs. A configuration measured more than once on
 * one device keeps its first row with counters_status "ok" (or its first
 * row if none has counters), in the order the files are given; `repeats`
 * counts the others. `device` (may be NULL) keeps only the rows whose
 * device_name contains it.
 *
 * A file that is Nsight Compute's own CSV output is skipped with one line
 * on `notes` (may be NULL). Everything else that is wrong is an error:
 * returns -1 with one line in err naming the file ("x.csv: empty file",
 * "x.csv: no column 'probe': not a memprobe results CSV", "x.csv: bank
 * rows need column 'pad'", "x.csv: no data rows, only a header: nothing
 * to report", "--device: ..."). On error *d is left empty.
 */
int mp_rep_load(mp_rep_data *d, int nfiles, const char *const *paths,
                const char *device, FILE *notes, char *err, size_t errlen);
void mp_rep_free(mp_rep_data *d);

/* The cell of field f in row r ("" where the column is absent). */
const char *mp_rep_text(const mp_rep_data *d, const mp_rep_row *r, int f);
/* Its number: 0 and *out, or -1 (empty, absent or not a number). */
int mp_rep_num(const mp_rep_data *d, const mp_rep_row *r, int f,
               double *out);
/* The row of `config` on device dev (-1: any device) read from the file
 * whose name (without directory) is `file` (NULL: the kept row of any
 * file). NULL if there is none. */
const mp_rep_row *mp_rep_find(const mp_rep_data *d, const char *file,
                              const char *config, int dev);

/* ------------------------------------------------------------------ */
/* Tables                                                             */

typedef enum { MP_REP_TXT, MP_REP_MD, MP_REP_CSV } mp_rep_format;

typedef struct {
    char *text;   /* "" = no value */
    int mark;     /* measured value the CSV says differs from the model */
} mp_rep_cell;

typedef struct {
    char **keys;          /* nkeys texts */
    double *sort;         /* per key: number to sort by (NAN: by text) */
    mp_rep_cell *cells;   /* [device][group][sub], ndev * ngroups * nsub */
} mp_rep_trow;

typedef struct {
    const char *name;                 /* "bank", ... (--table NAME) */
    const char *title;
    int nkeys;
    const char *const *key_headers;
    int nsub;                         /* values per group */
    const char *const *sub_headers;
    int ngroups;
    char **groups;                    /* "4 B", "stride 2", "" */
    double *group_sort;
    int ndev;
    char **devices;
    int nrows, caprows;
    mp_rep_trow *rows;
    int nfiles;
    char **files;                     /* files that gave rows, in order */
    int marks;                        /* cells marked */
    const char *empty;                /* said instead of a table w/o rows */
    const char *legend;               /* what the mark means here */
    int split;   /* > 0: text and Markdown print one table per combination
                  * of the first `split` keys (named in a line above it,
                  * with only the column groups it has values in); CSV
                  * prints the whole table */
} mp_rep_table;

/* The i-th table's name in the order the report prints them (the
 * families' registered parts, report/part.h), or NULL past the last. */
const char *mp_rep_table_name(int i);

/* Builds table `name` from d; NULL for an unknown name. Free with
 * mp_rep_table_free. */
mp_rep_table *mp_rep_table_build(const mp_rep_data *d, const char *name);
void mp_rep_table_free(mp_rep_table *t);

/* A table built row by row outside the report's families (a profile's,
 * explain's): one device and one unnamed column group, room for cap rows;
 * name is its name and title. Free with mp_rep_table_free. */
mp_rep_table *mp_rep_table_new(const char *name, int nkeys,
                               const char *const *keys, int nsub,
                               const char *const *subs, int cap);
/* Appends a row of nkeys key texts and nsub value texts (copied);
 * nothing past the table's room. */
void mp_rep_table_add(mp_rep_table *t, const char *const *keys,
                      const char *const *vals);

/* Drops the rows for which keep(row keys, ctx) is 0 (for the study's
 * excerpts); `files` and `marks` follow. */
void mp_rep_table_keep(mp_rep_table *t,
                       int (*keep)(char *const *keys, void *ctx), void *ctx);

/* The cell of the row whose keys are `keys` (nkeys texts), for device dev,
 * group label `group` and value column `sub`; NULL if absent. */
const mp_rep_cell *mp_rep_table_cell(const mp_rep_table *t,
                                     const char *const *keys, int dev,
                                     const char *group, const char *sub);

#define MP_REP_NO_TITLE 1   /* print the table without its title lines */

/* Prints one table. Text and Markdown: title, source files, the table
 * (a column group per device when there are several), the legend when a
 * cell is marked; "no rows" and why for an empty table. CSV: one header
 * line starting "table" and one line per row, marks kept as a trailing
 * '*'. */
void mp_rep_table_print(const mp_rep_table *t, mp_rep_format f, int flags,
                        FILE *out);

/* Prints every table (or only `only`, when not NULL) of d. Returns 0;
 * -1 when `only` is no table's name; -2, printing nothing, when none of
 * those tables has a row (d holds only rows no table shows). */
int mp_rep_print_all(const mp_rep_data *d, const char *only,
                     mp_rep_format f, FILE *out);

/* ------------------------------------------------------------------ */
/* Plot data and the study                                            */


/* Opens a plot data file's new file beside dir/name (runtime/replace.h)
 * for writing: the stream, or NULL with a one-line reason.
 * mp_rep_plot_close closes it and renames it over dir/name: 0, or -1
 * with a reason when a write, the close or the rename failed (dir/name
 * then left as it was). */
FILE *mp_rep_plot_open(const char *dir, const char *name, char *err,
                       size_t errlen);
int mp_rep_plot_close(FILE *f, const char *dir, const char *name, char *err,
                      size_t errlen);

/* Writes the gnuplot data files for the first device of d into dir
 * (created if missing). 0, or -1 with a one-line reason. */
int mp_rep_plot_data(const mp_rep_data *d, const char *dir, char *err,
                     size_t errlen);

/* Loads the study's CSVs from results_dir (NULL: mp_study_dir's default,
 * results/h200 here or the installed copy) into d. */
int mp_study_load(mp_rep_data *d, const char *results_dir, char *err,
                  size_t errlen);

/* Writes the study document (Markdown) for the data of mp_study_load to
 * out. results_dir is only named in the text. Returns 0, or -1 with a
 * one-line reason (a write error). */
int mp_study_write(const mp_rep_data *d, const char *results_dir, FILE *out,
                   char *err, size_t errlen);


/* Formats v with up to `decimals` decimals, trailing zeros (and a bare
 * point) removed: 1.0000 -> "1", 4.3968 -> "4.3968", 2.50 -> "2.5". */
void mp_rep_fmt(char *buf, size_t len, double v, int decimals);

#endif
