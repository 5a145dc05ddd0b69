/*
 * raw_cols.h - the raw files the injection library writes into
 * MEMPROBE_RAW_DIR, as docs/profile-design.md ("Raw files") states them.
 *
 * TEMPORARY: inject/raw.h (the injection library's side) is the source of
 * these names; until it lands this header restates the contract, and
 * profile/ switches to including inject/raw.h when both are merged.
 */
#ifndef MP_PROFILE_RAW_COLS_H
#define MP_PROFILE_RAW_COLS_H

/* File names: PREFIX + pid (+ ".csv"); cubin.CRC. */
#define MP_RAW_STATUS "status."
#define MP_RAW_LAUNCHES "launches."
#define MP_RAW_LINES "lines."
#define MP_RAW_CUBIN "cubin."

/* The five per-instruction CUPTI SASS metrics, in this order, after the
 * fixed columns of both raw files. */
#define MP_RAW_METRICS(X)                                          \
    X(INST, "smsp__sass_inst_executed")                            \
    X(SH, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared")       \
    X(SH_IDEAL, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal") \
    X(GL, "smsp__sass_sectors_mem_global")                         \
    X(GL_IDEAL, "smsp__sass_sectors_mem_global_ideal")

/* launches.PID.csv: one row per profiled launch. */
#define MP_RAW_LAUNCH_COLS(X)                                      \
    X(PID, "pid") X(LAUNCH, "launch") X(MANGLED, "mangled")        \
    X(GRID_X, "grid_x") X(GRID_Y, "grid_y") X(GRID_Z, "grid_z")    \
    X(BLOCK_X, "block_x") X(BLOCK_Y, "block_y") X(BLOCK_Z, "block_z") \
    X(DYN_SHARED, "dyn_shared_bytes") X(STREAM, "stream")          \
    X(NVTX, "nvtx") X(GRAPH, "graph") X(LINE_COUNTS, "line_counts") \
    X(WHY, "why")

/* lines.PID.csv: one row per (cubin, function, SASS instruction). */
#define MP_RAW_LINE_COLS(X)                                        \
    X(PID, "pid") X(CUBIN_CRC, "cubin_crc") X(MANGLED, "mangled")  \
    X(FUNCTION_INDEX, "function_index") X(PC_OFFSET, "pc_offset")  \
    X(FILE, "file") X(LINE, "line") X(LAUNCHES, "launches")

#endif
