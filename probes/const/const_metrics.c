/*
 * const_metrics.c - the constant family's metric set: LDC instructions,
 * IDC requests and divergence, constant-cache hits and misses.
 */
#include "metric_set.h"

static const mp_metric constant_set[] = {
    { "smsp__inst_executed_op_ldc.sum", "instructions",
      "warp-level LDC (load from constant bank) instructions executed", EXACT },
    { "idc__requests.sum", "requests",
      "requests to the immediate constant cache (IDC)", EXACT },
    { "sm__idc_divergent_instructions.sum", "instructions",
      "instructions sent to the IDC whose addresses diverged within the warp", EXACT },
    { "sm__idc_divergent_instruction_replays.sum", "replays",
      "IDC instruction replays caused by address divergence", EXACT },
    { "idc__requests_lookup_hit.sum", "requests",
      "IDC requests that hit in the constant cache", CACHED_IDC },
    { "idc__requests_lookup_miss.sum", "requests",
      "IDC requests that missed in the constant cache", CACHED_IDC },
    TIME_ROW
};

MP_METRIC_SET_DEF(mp_set_constant, constant_set, "constant", 0);
