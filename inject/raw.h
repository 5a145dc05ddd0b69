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
/* MEMPROBE_PER_KERNEL=N (--per-kernel): of the launches the filters
 * pass, only the first N of each kernel, grid and block are profiled;
 * unset or 0: all of them. */
#define MP_ENV_PER_KERNEL "MEMPROBE_PER_KERNEL"
/* MEMPROBE_DEBUG=1: each callback and flush on stderr, and the SASS
 * metrics of the chip in MP_RAW_SASS_METRICS_FMT. */
#define MP_ENV_DEBUG "MEMPROBE_DEBUG"
/* The libcupti.so.13 whose NVTX entry (InitializeInjectionNvtx2) the
 * injection library hands NVTX's calls to, once subscribed: memprobe
 * profile sets NVTX_INJECTION64_PATH to the injection library itself. */
#define MP_ENV_NVTX_CUPTI "MEMPROBE_NVTX_CUPTI"
/* MEMPROBE_PASS: "sass" (or unset: the first pass, SASS metrics, exact
 * per-line counts) or "range" (the second pass of --level kernel+ and of
 * the fallback: no SASS metrics, CUPTI's range profiler per launch, auto
 * range and kernel replay; writes range.PID.csv; docs/profile-design.md,
 * "The range pass"). */
#define MP_ENV_PASS "MEMPROBE_PASS"
#define MP_PASS_SASS "sass"
#define MP_PASS_RANGE "range"
/* MEMPROBE_RANGE_KERNEL: in the range pass, only launches of kernels
 * whose mangled name matches (POSIX ERE) get ranges; unset: every
 * profiled launch (--level kernel+). */
#define MP_ENV_RANGE_KERNEL "MEMPROBE_RANGE_KERNEL"
/* MEMPROBE_INJECT_NO_SASS=REGEX, a test hook: in the first pass the SASS
 * records of kernels whose mangled name matches are dropped, so their
 * launches have no line counts (as with a CUPTI that patched nothing)
 * and take the range-profiler fallback. */
#define MP_ENV_NO_SASS "MEMPROBE_INJECT_NO_SASS"
#define MP_FLUSH_LAUNCHES_DEFAULT 1000
#define MP_FLUSH_SECONDS_DEFAULT 1

/* ---- file names: a prefix, then the pid (printf formats: PID is
 * getpid() as %ld) --------------------------------------------------- */
#define MP_RAW_STATUS "status."
#define MP_RAW_LAUNCHES "launches."
#define MP_RAW_LINES "lines."
#define MP_RAW_LAUNCH_OPS "launch_ops."
#define MP_RAW_CUBIN "cubin."
#define MP_RAW_RANGE "range."
#define MP_RAW_KERNELS "kernels."
#define MP_RAW_MODULES "modules."
/* ordinal.N: made (O_EXCL) by the N-th process that loaded the library
 * into this raw folder; it holds that process's pid. N, the process's
 * ordinal in start order, is the key that joins the two passes' launches
 * (pids differ between runs). */
#define MP_RAW_ORDINAL "ordinal."
#define MP_RAW_ORDINAL_FMT MP_RAW_ORDINAL "%d"
#define MP_RAW_RANGE_FMT MP_RAW_RANGE "%ld.csv"
#define MP_RAW_STATUS_FMT MP_RAW_STATUS "%ld"
#define MP_RAW_LAUNCHES_FMT MP_RAW_LAUNCHES "%ld.csv"
#define MP_RAW_LINES_FMT MP_RAW_LINES "%ld.csv"
#define MP_RAW_LAUNCH_OPS_FMT MP_RAW_LAUNCH_OPS "%ld.csv"
#define MP_RAW_KERNELS_FMT MP_RAW_KERNELS "%ld.csv"
#define MP_RAW_MODULES_FMT MP_RAW_MODULES "%ld.csv"
/* written to "<lines>.tmp", then renamed over the lines file */
#define MP_RAW_TMP_SUFFIX ".tmp"
/* cubin.CRC: the cubin whose records carry cubin_crc CRC (%u, decimal,
 * the same number as the cubin_crc column) */
#define MP_RAW_CUBIN_FMT MP_RAW_CUBIN "%u"
/* MEMPROBE_DEBUG only: "NAME ID DESCRIPTION" per SASS metric of the chip */
#define MP_RAW_SASS_METRICS_FMT "sass-metrics.%ld.txt"

/* ---- the six per-instruction SASS metrics, in column order ---------- *
 * The last says load or store: an instruction with memory counts whose
 * op_ld count is 0 is a store (or an atomic or reduction), so that the
 * load/store split needs no disassembler. */
#define MP_RAW_NMETRICS 6
#define MP_RAW_METRIC_0 "smsp__sass_inst_executed"
#define MP_RAW_METRIC_1 "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define MP_RAW_METRIC_2 "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"
#define MP_RAW_METRIC_3 "smsp__sass_sectors_mem_global"
#define MP_RAW_METRIC_4 "smsp__sass_sectors_mem_global_ideal"
#define MP_RAW_METRIC_5 "smsp__sass_inst_executed_op_ld"
/* an initializer: static const char *const m[] = MP_RAW_METRIC_NAMES; */
#define MP_RAW_METRIC_NAMES                                                 \
    {MP_RAW_METRIC_0, MP_RAW_METRIC_1, MP_RAW_METRIC_2, MP_RAW_METRIC_3,    \
     MP_RAW_METRIC_4, MP_RAW_METRIC_5}
#define MP_RAW_METRIC_COLUMNS                                               \
    MP_RAW_METRIC_0 "," MP_RAW_METRIC_1 "," MP_RAW_METRIC_2 ","             \
    MP_RAW_METRIC_3 "," MP_RAW_METRIC_4 "," MP_RAW_METRIC_5

/* ---- the per-launch range-profiler metrics (the range pass) ----------
 * named as Nsight Compute names them, in range.PID.csv and profile.csv:
 * four of --level kernel+ (hit rates in percent, DRAM bytes), the
 * fallback's hardware counts of a launch without line counts (shared
 * wavefronts, global sectors and requests, loads and stores), then the
 * two L2 counts memprobe divides for the L2 hit rate (the library never
 * measures the rate itself: its two counts take two replay passes). In
 * profile.csv the first MP_RAW_NRANGE_COLS stand before range_counters
 * and range_why, the L2 counts after them (added later, at the end).
 * Written as %.15g of CUPTI's double; empty = not measured. */
#define MP_RAW_NRANGE 12
#define MP_RAW_NRANGE_COLS 10
#define MP_RAW_RANGES(X)                                                    \
    X(L1_HIT, "l1tex__t_sector_hit_rate.pct")                               \
    X(L2_HIT, "lts__t_sector_hit_rate.pct")                                 \
    X(DRAM_RD, "dram__bytes_read.sum")                                      \
    X(DRAM_WR, "dram__bytes_write.sum")                                     \
    X(SH_LD, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")        \
    X(SH_ST, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")        \
    X(GL_LD, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")              \
    X(GL_ST, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")              \
    X(RQ_LD, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")             \
    X(RQ_ST, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")             \
    X(L2_LOOKUP_HIT, "lts__t_sectors_lookup_hit.sum")                       \
    X(L2_SECTORS, "lts__t_sectors.sum")

/* MEMPROBE_RANGE_GROUP: which metrics one range-pass run measures (each
 * group is one run of the program, docs/profile.md):
 *   cache  - L1 hit rate, DRAM bytes read and written, L2 lookup hits and
 *            the global sectors (loads, stores): one replay pass, the L2
 *            flushed before each measured launch (a cold start, as Nsight
 *            Compute's --cache-control all);
 *   l2     - L2 sectors (lts__t_sectors.sum): one pass, flushed;
 *   counts - the fallback's six hardware counts (several passes: exact
 *            counts, whatever the caches hold). The default. */
#define MP_ENV_RANGE_GROUP "MEMPROBE_RANGE_GROUP"
#define MP_RANGE_GROUP_CACHE "cache"
#define MP_RANGE_GROUP_L2 "l2"
#define MP_RANGE_GROUP_COUNTS "counts"

/* ---- range.PID.csv: one row per launch the range pass profiled ------
 * (appended at each decoded batch): the launch's number (counted as the
 * first pass counts), its kernel and shape (to check the join), why its
 * values are empty when they are, then the MP_RAW_RANGES values. */
#define MP_RAW_RANGE_ROW_COLS(X)                                            \
    X(PID, "pid") X(LAUNCH, "launch") X(MANGLED, "mangled")                 \
    X(GRID_X, "grid_x") X(GRID_Y, "grid_y") X(GRID_Z, "grid_z")             \
    X(BLOCK_X, "block_x") X(BLOCK_Y, "block_y") X(BLOCK_Z, "block_z")       \
    X(WHY, "why")
#define MP_RAW_RANGE_NFIXED 10
#define MP_RAW_COMMA_NAME(id, name) "," name
#define MP_RAW_RANGE_ROW_COLUMNS                                            \
    "pid,launch,mangled,grid_x,grid_y,grid_z,block_x,block_y,block_z,why"   \
    MP_RAW_RANGES(MP_RAW_COMMA_NAME)

/* The metrics and the fixed columns of each file again as X-macro lists
 * (X(ID, "name")), for the reader; tests/test_inject_core.c checks they
 * spell the same columns as the header strings below. */
#define MP_RAW_METRICS(X)                                                   \
    X(INST, MP_RAW_METRIC_0) X(SH, MP_RAW_METRIC_1)                         \
    X(SH_IDEAL, MP_RAW_METRIC_2) X(GL, MP_RAW_METRIC_3)                     \
    X(GL_IDEAL, MP_RAW_METRIC_4) X(LD, MP_RAW_METRIC_5)
#define MP_RAW_LAUNCH_COLS(X)                                               \
    X(PID, "pid") X(LAUNCH, "launch") X(LAUNCHES, "launches")               \
    X(MANGLED, "mangled") X(GRID_X, "grid_x") X(GRID_Y, "grid_y")           \
    X(GRID_Z, "grid_z")                                                     \
    X(BLOCK_X, "block_x") X(BLOCK_Y, "block_y") X(BLOCK_Z, "block_z")       \
    X(DYN_SHARED, "dyn_shared_bytes") X(STREAM, "stream") X(NVTX, "nvtx")   \
    X(GRAPH, "graph") X(LINE_COUNTS, "line_counts") X(WHY, "why")
#define MP_RAW_LINE_COLS(X)                                                 \
    X(PID, "pid") X(CUBIN_CRC, "cubin_crc") X(MANGLED, "mangled")           \
    X(FUNCTION_INDEX, "function_index") X(PC_OFFSET, "pc_offset")           \
    X(FILE, "file") X(LINE, "line") X(LAUNCHES, "launches")
#define MP_RAW_LAUNCH_OP_COLS(X)                                            \
    X(PID, "pid") X(LAUNCH, "launch") X(CUBIN_CRC, "cubin_crc")             \
    X(FUNCTION_INDEX, "function_index") X(PC_OFFSET, "pc_offset")

/* ---- launches.PID.csv: one row per profiled launch, appended --------
 * (or per run of identical launches, `launches` of them from number
 * `launch` on: same kernel, shape, stream, NVTX stack and filter
 * decision one after another are synchronised and flushed once) */
#define MP_RAW_LAUNCH_COLUMNS                                               \
    "pid,launch,launches,mangled,grid_x,grid_y,grid_z,block_x,block_y,"     \
    "block_z,"                                                              \
    "dyn_shared_bytes,stream,nvtx,graph,line_counts,why,"                   \
    MP_RAW_METRIC_COLUMNS
#define MP_RAW_LAUNCH_NCOLUMNS (16 + MP_RAW_NMETRICS)
/* line_counts values */
#define MP_RAW_EXACT "exact"
#define MP_RAW_UNAVAILABLE "unavailable"

/* ---- launch_ops.PID.csv: the memory instructions of each launch ------
 * (a shared or global count not 0), appended with its launch row: the
 * counts of that launch alone, which memprobe splits into loads and
 * stores by opcode. A graph launch's rows share its launch number. */
#define MP_RAW_LAUNCH_OP_COLUMNS                                            \
    "pid,launch,cubin_crc,function_index,pc_offset," MP_RAW_METRIC_COLUMNS
#define MP_RAW_LAUNCH_OP_NCOLUMNS (5 + MP_RAW_NMETRICS)

/* ---- lines.PID.csv: one row per (cubin, function, pc), rewritten ---- */
#define MP_RAW_LINE_COLUMNS                                                 \
    "pid,cubin_crc,mangled,function_index,pc_offset,file,line,launches,"    \
    MP_RAW_METRIC_COLUMNS
#define MP_RAW_LINE_NCOLUMNS (8 + MP_RAW_NMETRICS)

/* ---- kernels.PID.csv: one row per kernel, grid and block launched ---
 * (a graph launch: mangled "(graph N)", N its executable graph's number
 * in order of first launch, grid and block 0), rewritten: the launches
 * made and the launches profiled (counted once a launch returned) */
#define MP_RAW_KERNEL_COLS(X)                                               \
    X(PID, "pid") X(MANGLED, "mangled") X(GRID_X, "grid_x")                 \
    X(GRID_Y, "grid_y") X(GRID_Z, "grid_z") X(BLOCK_X, "block_x")           \
    X(BLOCK_Y, "block_y") X(BLOCK_Z, "block_z")                             \
    X(SEEN, "launches_seen") X(PROFILED, "launches_profiled")
#define MP_RAW_KERNEL_COLUMNS                                               \
    "pid,mangled,grid_x,grid_y,grid_z,block_x,block_y,block_z,"             \
    "launches_seen,launches_profiled"
/* ---- modules.PID.csv: where each kept module came from, rewritten ----
 * One row per module (cubin) the library kept, keyed as lines.PID.csv
 * keys its instructions (cubin_crc); written with the lines file. The
 * library records the fact, memprobe decides what it means (own code or
 * a vendor library: profile/profile_origin.c). origin: the path of the
 * loaded object (the executable or a shared object) the module came
 * from; MP_ORIGIN_RUNTIME for an image in no loaded object (compiled at
 * run time: NVRTC, Triton, XLA, CuPy); MP_ORIGIN_UNKNOWN when nothing
 * placed it. found: how (MP_FOUND_*; docs/profile-design.md, "Module
 * origins"). */
#define MP_RAW_MODULE_COLS(X)                                               \
    X(PID, "pid") X(CUBIN_CRC, "cubin_crc") X(ORIGIN, "origin")             \
    X(FOUND, "found")
#define MP_RAW_MODULE_COLUMNS "pid,cubin_crc,origin,found"
#define MP_RAW_MODULE_NCOLUMNS 4
#define MP_ORIGIN_RUNTIME "(run-time compiled)"
#define MP_ORIGIN_UNKNOWN "(unknown)"
/* the cubin CUPTI handed over lies in a loaded object's memory */
#define MP_FOUND_CUBIN "cubin"
/* loaded inside a load-from-memory call: its image's object, or none */
#define MP_FOUND_IMAGE "image"
/* loaded inside cuModuleLoad / cuLibraryLoadFromFile: the file named */
#define MP_FOUND_FILE "file"
/* the first caller on the stack outside the CUDA stack (lazy loading:
 * the module loads inside the launch of the code that owns it) */
#define MP_FOUND_BACKTRACE "backtrace"
/* nothing placed it: origin MP_ORIGIN_UNKNOWN */
#define MP_FOUND_NONE "none"

/* ---- status.PID: lines "KEY VALUE" ---------------------------------- */
#define MP_RAW_KEY_CUPTI_VERSION "cupti_version"
#define MP_RAW_KEY_PID "pid"
#define MP_RAW_KEY_PPID "ppid"
/* the process's ordinal (MP_RAW_ORDINAL_FMT); -1 when none was free */
#define MP_RAW_KEY_ORDINAL "ordinal"
/* "sass" or "range" */
#define MP_RAW_KEY_PASS "pass"
/* profiling could not be done (subscribe refused, metrics refused ...) */
#define MP_RAW_KEY_ERROR "error"
/* a call failed in a way that cost some data but not the run (a launch
 * that could not be flushed: its row says unavailable and why) */
#define MP_RAW_KEY_WARNING "warning"
#define MP_RAW_KEY_LAUNCHES_SEEN "launches_seen"
#define MP_RAW_KEY_LAUNCHES_PROFILED "launches_profiled"
/* where the library's time in the program went: "NAME COUNT SECONDS"
 * for each of MP_RAW_COST_FIELDS in order, then "records R" (the SASS
 * records flushed). sync: cuCtxSynchronize before a flush; flush:
 * reading the records; attribute: adding them to lines and rows; lines:
 * source-line lookups of new instructions; modules: keeping a loaded
 * module's cubin; writes: the raw files; launch: the program's launch
 * calls from their entry (after the library's own work there) to their
 * exit, the driver's and CUPTI's time inside them, while SASS metrics
 * are on on their context (launch_off: while off); enable/disable: SASS
 * metrics switched on or off on a context. sync counts flushes: a flush
 * ends a batch of runs (inject_flush.c). */
#define MP_RAW_KEY_COST "cost"
#define MP_RAW_COST_FIELDS(X)                                               \
    X(SYNC, "sync") X(FLUSH, "flush") X(ATTRIBUTE, "attribute")             \
    X(LINES, "lines") X(MODULES, "modules") X(WRITES, "writes")             \
    X(ENABLE, "enable") X(DISABLE, "disable") X(LAUNCH, "launch")         \
    X(LAUNCH_OFF, "launch_off")
/* last line: "end exit", "end signal N" or "end flush" (still running) */
#define MP_RAW_KEY_END "end"

#endif
