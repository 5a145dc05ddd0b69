/*
 * raw.h - the raw files the injection library (inject/) writes into
 * MEMPROBE_RAW_DIR and `memprobe profile` (profile/) reads: their names,
 * their CSV columns in order, the status keys and the environment the
 * library reads. The one source of all of them (docs/profile-design.md).
 *
 * Plain macros only, so that both sides (and their tests) can include it
 * without pulling in anything: no CUDA, no memprobe header.
 */
#ifndef MP_RAW_H
#define MP_RAW_H

/* ---- the environment memprobe gives the program -------------------- */
#define MP_ENV_RAW_DIR "MEMPROBE_RAW_DIR"
#define MP_ENV_KERNEL "MEMPROBE_KERNEL"
#define MP_ENV_NVTX_INCLUDE "MEMPROBE_NVTX_INCLUDE"
#define MP_ENV_LAUNCH_SKIP "MEMPROBE_LAUNCH_SKIP"
#define MP_ENV_LAUNCH_COUNT "MEMPROBE_LAUNCH_COUNT"
#define MP_ENV_FLUSH_LAUNCHES "MEMPROBE_FLUSH_LAUNCHES"
#define MP_ENV_FLUSH_SECONDS "MEMPROBE_FLUSH_SECONDS"
/* MEMPROBE_DEBUG=1: each callback and flush on stderr, and the SASS
 * metrics of the chip in MP_RAW_SASS_METRICS_FMT. */
#define MP_ENV_DEBUG "MEMPROBE_DEBUG"
#define MP_FLUSH_LAUNCHES_DEFAULT 1000
#define MP_FLUSH_SECONDS_DEFAULT 1

/* ---- file names (printf formats; PID is getpid() as %ld) ------------ */
#define MP_RAW_STATUS_FMT "status.%ld"
#define MP_RAW_LAUNCHES_FMT "launches.%ld.csv"
#define MP_RAW_LINES_FMT "lines.%ld.csv"
/* written to "<lines>.tmp", then renamed over the lines file */
#define MP_RAW_TMP_SUFFIX ".tmp"
/* cubin.CRC: the cubin whose records carry cubin_crc CRC (%u, decimal,
 * the same number as the cubin_crc column) */
#define MP_RAW_CUBIN_FMT "cubin.%u"
/* MEMPROBE_DEBUG only: "NAME ID DESCRIPTION" per SASS metric of the chip */
#define MP_RAW_SASS_METRICS_FMT "sass-metrics.%ld.txt"

/* ---- the five per-instruction SASS metrics, in column order --------- */
#define MP_RAW_NMETRICS 5
#define MP_RAW_METRIC_0 "smsp__sass_inst_executed"
#define MP_RAW_METRIC_1 "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define MP_RAW_METRIC_2 "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"
#define MP_RAW_METRIC_3 "smsp__sass_sectors_mem_global"
#define MP_RAW_METRIC_4 "smsp__sass_sectors_mem_global_ideal"
/* an initializer: static const char *const m[] = MP_RAW_METRIC_NAMES; */
#define MP_RAW_METRIC_NAMES                                                 \
    {MP_RAW_METRIC_0, MP_RAW_METRIC_1, MP_RAW_METRIC_2, MP_RAW_METRIC_3,    \
     MP_RAW_METRIC_4}
#define MP_RAW_METRIC_COLUMNS                                               \
    MP_RAW_METRIC_0 "," MP_RAW_METRIC_1 "," MP_RAW_METRIC_2 ","             \
    MP_RAW_METRIC_3 "," MP_RAW_METRIC_4

/* ---- launches.PID.csv: one row per profiled launch, appended -------- */
#define MP_RAW_LAUNCH_COLUMNS                                               \
    "pid,launch,mangled,grid_x,grid_y,grid_z,block_x,block_y,block_z,"      \
    "dyn_shared_bytes,stream,nvtx,graph,line_counts,why,"                   \
    MP_RAW_METRIC_COLUMNS
#define MP_RAW_LAUNCH_NCOLUMNS (15 + MP_RAW_NMETRICS)
/* line_counts values */
#define MP_RAW_EXACT "exact"
#define MP_RAW_UNAVAILABLE "unavailable"

/* ---- lines.PID.csv: one row per (cubin, function, pc), rewritten ---- */
#define MP_RAW_LINE_COLUMNS                                                 \
    "pid,cubin_crc,mangled,function_index,pc_offset,file,line,launches,"    \
    MP_RAW_METRIC_COLUMNS
#define MP_RAW_LINE_NCOLUMNS (8 + MP_RAW_NMETRICS)

/* ---- status.PID: lines "KEY VALUE" ---------------------------------- */
#define MP_RAW_KEY_CUPTI_VERSION "cupti_version"
#define MP_RAW_KEY_PID "pid"
#define MP_RAW_KEY_PPID "ppid"
/* profiling could not be done (subscribe refused, metrics refused ...) */
#define MP_RAW_KEY_ERROR "error"
/* a call failed in a way that cost some data but not the run (a launch
 * that could not be flushed: its row says unavailable and why) */
#define MP_RAW_KEY_WARNING "warning"
#define MP_RAW_KEY_LAUNCHES_SEEN "launches_seen"
#define MP_RAW_KEY_LAUNCHES_PROFILED "launches_profiled"
/* last line: "end exit", "end signal N" or "end flush" (still running) */
#define MP_RAW_KEY_END "end"

#endif
