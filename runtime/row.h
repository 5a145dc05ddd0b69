/*
 * row.h - the CSV schema and one result row.
 *
 * The columns are declared once, here, in a fixed order; `memprobe columns`
 * prints this table and the README's schema is taken from it. Units are in
 * the names. After the fixed columns come the hardware counters, one column
 * per metric of every metric set (the metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c), named as Nsight
 * Compute names them. A cell nobody measured stays empty.
 */
#ifndef MP_ROW_H
#define MP_ROW_H

#include <stddef.h>

#define MP_COLUMNS(X)                                                        \
    X(TOOL_VERSION, "tool_version", "memprobe version that wrote the row")  \
    X(TIMESTAMP, "timestamp", "UTC time of the measurement, ISO 8601")      \
    X(DEVICE_NAME, "device_name", "GPU name as CUDA reports it")            \
    X(CC, "cc", "compute capability, major.minor")                          \
    X(SM_COUNT, "sm_count", "streaming multiprocessors")                    \
    X(SM_CLOCK_MHZ, "sm_clock_mhz", "peak SM clock the device reports")     \
    X(PROBE, "probe", "probe family")                                       \
    X(CONFIG, "config", "configuration name, also its NVTX range name")     \
    X(OP, "op", "ld or st")                                                 \
    X(WIDTH, "width_bytes", "bytes per lane access: 4, 8 or 16")            \
    X(STRIDE, "stride", "elements between neighbouring address groups")     \
    X(BASE, "base", "first element index")                                  \
    X(GROUP, "group", "consecutive lanes sharing one address")              \
    X(PERIOD, "period", "lanes after which addresses repeat")               \
    X(PAD, "pad", "padding elements per tile row of `stride` elements")     \
    X(OFFSET, "offset_bytes", "start offset from a 256-byte-aligned base")  \
    X(LAYOUT, "layout", "pattern, soa, aos12, aos16 or aos12-staged")       \
    X(CACHE, "cache", "global loads: default (L1) or cg (L2 only)")         \
    X(KERNEL, "kernel", "bandwidth kernel: read, write or copy")            \
    X(ARRAY_BYTES, "array_bytes", "bytes per array")                        \
    X(SWIZZLE, "swizzle", "tensor-map swizzle: none, 32, 64 or 128 bytes")  \
    X(TILE_BYTES, "tile_bytes", "bytes of the shared tile a block copies")  \
    X(PASSES, "passes", "copies of the whole array per launch")             \
    X(CLUSTER_SIZE, "cluster_size", "blocks per thread-block cluster")      \
    X(LATENCY_CYCLES, "latency_cycles",                                     \
      "cluster chase: clock64 cycles per dependent load, median of blocks") \
    X(SPREAD, "spread", "distinct addresses per warp-level load")           \
    X(SPACING, "spacing_bytes", "bytes between distinct addresses")         \
    X(SOURCE, "source", "where reads come from: constant, global, ldg, tex1d, tex2d") \
    X(ACCESS, "access", "access pattern of a probe with named patterns")    \
    X(VARIANT, "variant", "reduction: which step of the seeds' ladder")      \
    X(WORKLOAD, "workload", "reduction: cubes (ints) or dot (floats)")      \
    X(ELEMENTS, "elements", "elements reduced")                             \
    X(THREADS, "threads_per_block", "threads per block")                    \
    X(BLOCKS, "blocks", "blocks in the grid")                               \
    X(ITERATIONS, "iterations", "accesses per thread per launch")           \
    X(SHARED_BYTES, "shared_bytes_per_block", "dynamic shared memory")      \
    X(WARMUP, "warmup_runs",                                                \
      "launches before the timed samples (fixed, then until settled)")      \
    X(RUNS, "timed_runs",                                                   \
      "timed samples (each launches_per_sample launches)")                  \
    X(TIME_NS_MEDIAN, "time_ns_median",                                     \
      "median time per launch over the samples, CUDA events")               \
    X(TIME_NS_MIN, "time_ns_min",                                           \
      "fastest sample, per launch")                                         \
    X(TIME_NS_COV, "time_ns_cov", "coefficient of variation of the samples")  \
    X(HOST_NS_MEDIAN, "host_ns_median",                                     \
      "host work a variant needs after the kernel (copy back, CPU sum)")    \
    X(REQUESTS, "requests", "warp-level requests in one launch")            \
    X(NS_PER_REQUEST, "ns_per_request_per_sm",                              \
      "median time x SMs / requests: ns one SM spends per request")        \
    X(CYCLES_PER_REQUEST, "cycles_per_request_per_sm",                      \
      "the same in SM clock cycles (at sm_clock_mhz)")                      \
    X(CLOCK64_SPAN, "clock64_span_cycles",                                  \
      "seeds' in-kernel timing: latest block end - earliest block start")  \
    X(CLOCK64_CYCLES_PER_REQUEST, "clock64_cycles_per_request_per_sm",      \
      "clock64 span x SMs / requests")                                      \
    X(CLOCK64_BLOCK_MEDIAN, "clock64_block_cycles_median",                  \
      "median over blocks of end - start, both read on the block's SM")     \
    X(CLOCK64_BLOCK_CYCLES_PER_REQUEST,                                     \
      "clock64_block_cycles_per_request_per_sm",                            \
      "block median x SMs / requests (one wave of co-resident blocks)")     \
    X(BANDWIDTH_GBS, "bandwidth_gbs", "bytes requested by lanes / median time") \
    X(CEILING_GBS, "ceiling_gbs", "device ceiling for this memory")         \
    X(BANDWIDTH_FRACTION, "bandwidth_fraction", "bandwidth / ceiling")      \
    X(VERIFIED, "verified", "output checked against the CPU reference")     \
    X(MODEL_WAVEFRONTS, "model_wavefronts_per_request", "model prediction") \
    X(MODEL_IDEAL, "model_ideal_wavefronts_per_request",                    \
      "model: wavefronts without bank conflicts")                           \
    X(MODEL_CONFLICT_WAYS, "model_conflict_ways", "model: wavefronts / ideal") \
    X(MODEL_SECTORS, "model_sectors_per_request",                           \
      "model: 32-byte sectors per warp-level global request")               \
    X(MODEL_IDEAL_SECTORS, "model_ideal_sectors_per_request",               \
      "model: sectors if the bytes were contiguous and aligned")            \
    X(MODEL_DISTINCT, "model_distinct_addresses",                           \
      "model: distinct addresses in one warp-level request")                \
    X(MODEL_REPLAYS, "model_replays_per_request",                           \
      "model: constant-cache replays per warp-level request")               \
    X(COUNTERS_STATUS, "counters_status",                                   \
      "ok, off, or why hardware counters are missing")                      \
    X(WAVEFRONTS_PER_REQUEST, "wavefronts_per_request",                     \
      "measured: wavefronts / instructions of the probed op")               \
    X(EXCESS_WAVEFRONTS, "excess_wavefronts_per_request",                   \
      "measured wavefronts per request above the model's ideal")           \
    X(SECTORS_PER_REQUEST, "sectors_per_request",                           \
      "measured: L1 sectors / requests of the probed op")                  \
    X(REPLAYS_PER_REQUEST, "replays_per_request",                           \
      "measured: constant-cache replays / LDC instructions")               \
    X(MEMCPY_GBS, "memcpy_d2d_gbs",                                         \
      "cudaMemcpy device-to-device in the same run, bytes read + written")  \
    X(MEMCPY_FRACTION, "fraction_of_memcpy", "bandwidth / memcpy_d2d_gbs")  \
    X(MODEL_MATCH, "model_match", "measured equals predicted: yes or no") \
    X(DEVICE_ID, "device_id", "CUDA ordinal of the device that measured")   \
    X(DIRECTION, "direction",                                               \
      "transfer: h2d, d2h, bidir, d2d, p2p or p2p-bidir")                   \
    X(HOST_MEMORY, "host_memory",                                           \
      "transfer: pinned, pageable, mapped or managed host memory")          \
    X(METHOD, "method", "transfer: memcpy (copy engine) or kernel (SMs); "  \
      "async: staged, cpasync, bulk, tensor; cluster: local, remote")       \
    X(BYTES, "bytes", "transfer: bytes per copy (each way for bidir)")      \
    X(SRC_DEVICE, "src_device", "transfer p2p: source GPU")                 \
    X(DST_DEVICE, "dst_device", "transfer p2p: destination GPU")            \
    X(PEER_ACCESS, "peer_access", "transfer p2p: on, or off (staged)")      \
    X(PREFETCH, "prefetch", "transfer managed: cudaMemPrefetchAsync first") \
    X(LATENCY_US, "latency_us", "transfer: median time of one copy, us")    \
    X(LINK, "link", "transfer: the link crossed and how its ceiling was set") \
    X(FOOTPRINT, "footprint_bytes", "latency: bytes of the chased array")   \
    X(STRIDE_BYTES, "stride_bytes", "latency: bytes between chased elements") \
    X(ORDER, "order", "latency: chain order, seq or random")                \
    X(SPACE, "space", "latency: global, shared or constant memory")         \
    X(LOADS, "loads", "latency: timed dependent loads per launch")          \
    X(WARM_LOADS, "warm_loads", "latency: untimed loads before them, same launch") \
    X(CYCLES_PER_LOAD, "cycles_per_load",                                   \
      "latency: clock64 cycles of the timed loads / loads (median launch)") \
    X(NS_PER_LOAD, "ns_per_load", "cycles_per_load at sm_clock_mhz")        \
    X(MODEL_LEVEL, "model_level",                                           \
      "model: level serving the chase (L1, L2, DRAM, shared, constant)")    \
    X(L1_HIT_RATE, "l1_hit_rate", "L1 hit sectors / global-load sectors")   \
    X(L2_HIT_RATE, "l2_hit_rate", "L2 hit sectors / L2 read sectors")       \
    X(L2_SECTORS_PER_LOAD, "l2_sectors_per_load",                           \
      "L2 read sectors / loads of the launch (warm + timed)")              \
    X(DRAM_BYTES_PER_LOAD, "dram_bytes_per_load",                           \
      "DRAM bytes read / loads of the launch (warm + timed)")              \
    X(COUNTER_LEVEL, "counter_level",                                       \
      "level the counters say served the loads (latency probe)") \
    X(CLOCK_NOTE, "clock_note",                                             \
      "SM clock (NVML) moved during timing or sat below sm_clock_mhz") \
    X(INFLIGHT, "inflight", "bandwidth: independent accesses per thread per step") \
    X(SHAPE, "shape", "bandwidth: auto (search, cache or memo) when the shape was chosen at run time") \
    X(GRID, "grid", "bandwidth: persistent (one wave) or oneshot (many waves)") \
    X(LAUNCHES_PER_SAMPLE, "launches_per_sample",                           \
      "back-to-back launches in one timed sample (times are per launch)")   \
    X(TIME_OUTLIERS, "time_outliers",                                       \
      "timed samples beyond 4 scaled MADs and 1% of the median (kept)")    \
    X(SM_CLOCK_TIMED, "sm_clock_mhz_timed",                                 \
      "SM clock NVML read right after the timed launches")

typedef enum {
#define MP_COL_ENUM(id, name, desc) MP_COL_##id,
    MP_COLUMNS(MP_COL_ENUM)
#undef MP_COL_ENUM
    MP_COL_FIXED_COUNT
} mp_column;

/* Bytes of one cell: counters_status names every metric a chip lacks
 * (three long names overflowed 128 bytes on the H200). */
#define MP_CELL 512

typedef struct {
    int ncols;             /* fixed columns + metric columns */
    char (*cells)[MP_CELL];
} mp_row;

/* The columns the engine (runtime/runner.c) fills in every row: the
 * tool, time, device, configuration name, launch counts, timing,
 * verification, counters and clock notes. The rest are the families'
 * (probes/family.h: mp_family.columns). */
extern const int mp_engine_columns[];
extern const int mp_engine_ncolumns;

/* Number of columns and the name / description of column i. */
int mp_schema_columns(void);
const char *mp_schema_name(int i);
const char *mp_schema_description(int i);
/* Column index of metric `name` ("l1tex__...sum"), or -1. */
int mp_schema_metric_column(const char *name);

int mp_row_init(mp_row *r);     /* all cells empty; -1 on no memory */
void mp_row_free(mp_row *r);
void mp_row_clear(mp_row *r);
void mp_row_set(mp_row *r, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *mp_row_get(const mp_row *r, int col);
/* What a cell of a column may hold, for readers of result CSVs: anything
 * (text), a finite number, or a number >= 0 (counts, sizes, times, cycles,
 * rates, ratios of them, every counter). An empty cell (not measured) is
 * allowed in every column. */
typedef enum {
    MP_VALUE_ANY = 0,
    MP_VALUE_FINITE,
    MP_VALUE_NONNEG
} mp_value_rule;

/* The rule of the column called `name` (MP_VALUE_ANY for a name that is
 * not memprobe's). */
mp_value_rule mp_schema_value_rule(const char *name);

/* Cell pointers for mp_csv_write_row; `out` holds mp_schema_columns(). */
void mp_row_cells(const mp_row *r, const char **out);

#endif
