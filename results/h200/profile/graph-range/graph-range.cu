// graph-range.cu - exploration (issue 26, graph launches at --level
// kernel+): does CUPTI's range profiler, in auto range with kernel replay
// (as inject/inject_range.c runs it), give one range per kernel node of a
// cudaGraphLaunch, one for the whole graph, or none? For a one-pass and a
// two-pass metric set. Prints each range's name and values.
// Kept beside its output (results/h200/profile/graph-range/), not in
// scripts/explore: it came after the session's last gated commit.
//   make build/lib/libmemprobe_inject.so   (unpacks CUPTI 13.5)
//   nvcc -O2 -arch=sm_90 -Ibuild/cupti/nvidia/cu13/include \
//       results/h200/profile/graph-range/graph-range.cu -Lbuild/lib -l:libcupti.so.13 \
//       -lcuda -Xlinker -rpath=build/lib -o graph-range && ./graph-range
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CK(call)                                                             \
    do {                                                                     \
        CUptiResult r_ = (call);                                             \
        if (r_ != CUPTI_SUCCESS) {                                           \
            const char *s_ = "?";                                            \
            cuptiGetResultString(r_, &s_);                                   \
            printf("FAILED %s: %s\n", #call, s_);                            \
            return 1;                                                        \
        }                                                                    \
    } while (0)
#define CR(call)                                                             \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            printf("FAILED %s: %s\n", #call, cudaGetErrorString(e_));         \
            return 1;                                                        \
        }                                                                    \
    } while (0)

__global__ void fill(float *a, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = v + i;
}

__global__ void sum2(const float *a, float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i] * 2.0f;
}

/* run, step 1: buffers a and b of n floats, a stream and a graph of three
 * kernel nodes (fill, sum2, fill) captured from it, instantiated. */
static int make_graph(int n, float **a, float **b, cudaStream_t *st,
                      cudaGraph_t *g, cudaGraphExec_t *ge)
{
    CR(cudaMalloc(a, n * sizeof(float)));
    CR(cudaMalloc(b, n * sizeof(float)));
    CR(cudaStreamCreateWithFlags(st, cudaStreamNonBlocking));
    CR(cudaStreamBeginCapture(*st, cudaStreamCaptureModeGlobal));
    fill<<<n / 256, 256, 0, *st>>>(*a, n, 1.0f);
    sum2<<<n / 256, 256, 0, *st>>>(*a, *b, n);
    fill<<<n / 256, 256, 0, *st>>>(*b, n, 3.0f);
    CR(cudaStreamEndCapture(*st, g));
    CR(cudaGraphInstantiate(ge, *g, 0));
    CR(cudaDeviceSynchronize());
    return 0;
}

/* run, step 2: the host object for device 0's chip with the metrics, its
 * config image into config and its number of passes into np. */
static int make_config(const char *const *metrics, size_t nm,
                       CUpti_Profiler_Host_Initialize_Params *hi,
                       std::vector<uint8_t> *config,
                       CUpti_Profiler_Host_GetNumOfPasses_Params *np)
{
    CUpti_Device_GetChipName_Params cp = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cp.deviceIndex = 0;
    CK(cuptiDeviceGetChipName(&cp));
    *hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi->profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi->pChipName = cp.pChipName;
    CK(cuptiProfilerHostInitialize(hi));
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = hi->pHostObject;
    am.ppMetricNames = (const char **)metrics;
    am.numMetrics = nm;
    CK(cuptiProfilerHostConfigAddMetrics(&am));
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = hi->pHostObject;
    CK(cuptiProfilerHostGetConfigImageSize(&cs));
    config->resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params ci = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = hi->pHostObject;
    ci.configImageSize = config->size();
    ci.pConfigImage = config->data();
    CK(cuptiProfilerHostGetConfigImage(&ci));
    *np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np->configImageSize = config->size();
    np->pConfigImage = config->data();
    CK(cuptiProfilerHostGetNumOfPasses(np));
    return 0;
}

/* run, step 3: enables the range profiler on ctx, makes its counter data
 * image (up to 32 ranges) in data, sets the config (auto range, kernel
 * replay, one nesting level) and starts it. */
static int start_session(CUcontext ctx, const char *const *metrics, size_t nm,
                         std::vector<uint8_t> &config,
                         std::vector<uint8_t> *data,
                         CUpti_RangeProfiler_Enable_Params *en)
{
    *en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en->ctx = ctx;
    CK(cuptiRangeProfilerEnable(en));
    const size_t maxr = 32;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = en->pRangeProfilerObject;
    ds.pMetricNames = (const char **)metrics;
    ds.numMetrics = nm;
    ds.maxNumOfRanges = maxr;
    ds.maxNumRangeTreeNodes = maxr;
    CK(cuptiRangeProfilerGetCounterDataSize(&ds));
    data->resize(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di = {CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = en->pRangeProfilerObject;
    di.counterDataSize = data->size();
    di.pCounterData = data->data();
    CK(cuptiRangeProfilerCounterDataImageInitialize(&di));
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = en->pRangeProfilerObject;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = data->size();
    sc.pCounterDataImage = data->data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = maxr;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.targetNestingLevel = 1;
    CK(cuptiRangeProfilerSetConfig(&sc));
    CUpti_RangeProfiler_Start_Params ss = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    ss.pRangeProfilerObject = en->pRangeProfilerObject;
    CK(cuptiRangeProfilerStart(&ss));
    return 0;
}

/* run, step 4: stops the session (on failure says so, disables it and
 * returns 1), decodes it and prints each range's name and values. */
static int print_ranges(const char *const *metrics, size_t nm, int graph,
                        const CUpti_Profiler_Host_Initialize_Params &hi,
                        const CUpti_Profiler_Host_GetNumOfPasses_Params &np,
                        std::vector<uint8_t> &data,
                        const CUpti_RangeProfiler_Enable_Params &en)
{
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = en.pRangeProfilerObject;
    CUptiResult stop = cuptiRangeProfilerStop(&sp);
    if (stop != CUPTI_SUCCESS) {
        const char *s_ = "?";
        cuptiGetResultString(stop, &s_);
        printf("  cuptiRangeProfilerStop: %s\n", s_);
        CUpti_RangeProfiler_Disable_Params d0 = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        d0.pRangeProfilerObject = en.pRangeProfilerObject;
        cuptiRangeProfilerDisable(&d0);
        return 1;
    }
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = en.pRangeProfilerObject;
    CK(cuptiRangeProfilerDecodeData(&dd));
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    gi.pCounterDataImage = data.data();
    gi.counterDataImageSize = data.size();
    CK(cuptiRangeProfilerGetCounterDataInfo(&gi));
    printf("  %zu metric(s), %zu pass(es): %zu ranges (dropped %zu) for 2 "
           "plain launches%s\n", nm, (size_t)np.numOfPasses,
           (size_t)gi.numTotalRanges, (size_t)dd.numOfRangeDropped,
           graph ? " + a graph of 3 kernel nodes" : "");
    for (size_t i = 0; i < gi.numTotalRanges; i++) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
        ri.pCounterDataImage = data.data();
        ri.counterDataImageSize = data.size();
        ri.rangeIndex = i;
        ri.rangeDelimiter = "/";
        CK(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
        std::vector<double> v(nm);
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = hi.pHostObject;
        ev.pCounterDataImage = data.data();
        ev.counterDataImageSize = data.size();
        ev.rangeIndex = i;
        ev.ppMetricNames = (const char **)metrics;
        ev.numMetrics = nm;
        ev.pMetricValues = v.data();
        CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
        printf("  range %zu %s:", i, ri.rangeName ? ri.rangeName : "?");
        for (size_t k = 0; k < nm; k++)
            printf(" %s=%.6g", metrics[k], v[k]);
        printf("\n");
    }
    return 0;
}

/* One session with the metrics, in the steps above: the graph, the range
 * profiler's config, a session around one plain launch, the graph (when
 * graph is 1) and one more plain launch, its ranges; then the cleanup. */
static int run(const char *const *metrics, size_t nm, const char *label,
               int graph)
{
    const int n = 1 << 20;
    float *a, *b;
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    if (make_graph(n, &a, &b, &st, &g, &ge))
        return 1;

    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    CUpti_Profiler_Host_Initialize_Params hi;
    std::vector<uint8_t> config;
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    if (make_config(metrics, nm, &hi, &config, &np))
        return 1;

    CUpti_RangeProfiler_Enable_Params en;
    std::vector<uint8_t> data;
    if (start_session(ctx, metrics, nm, config, &data, &en))
        return 1;

    // one plain launch, the graph (3 kernel nodes), one plain launch
    sum2<<<n / 256, 256, 0, st>>>(b, a, n);
    cudaError_t gl = graph ? cudaGraphLaunch(ge, st) : cudaSuccess;
    sum2<<<n / 256, 256, 0, st>>>(a, b, n);
    cudaError_t sy = cudaStreamSynchronize(st);
    printf("%s, graph %d: graph launch %s, sync %s\n", label, graph,
           cudaGetErrorString(gl), cudaGetErrorString(sy));
    fflush(stdout);

    if (print_ranges(metrics, nm, graph, hi, np, data, en))
        return 1;
    CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = en.pRangeProfilerObject;
    CK(cuptiRangeProfilerDisable(&dis));
    CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    hd.pHostObject = hi.pHostObject;
    CK(cuptiProfilerHostDeinitialize(&hd));
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(st);
    cudaFree(a);
    cudaFree(b);
    return 0;
}

int main()
{
    CR(cudaFree(0));
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CK(cuptiProfilerInitialize(&pi));
    const char *one[] = {"dram__bytes_read.sum", "dram__bytes_write.sum",
                         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"};
    const char *two[] = {"lts__t_sector_hit_rate.pct",
                         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"};
    int rc = run(one, 3, "one-pass set", 0);
    rc |= run(one, 3, "one-pass set", 1);
    rc |= run(two, 2, "two-pass set", 0);
    rc |= run(two, 2, "two-pass set", 1);
    return rc;
}
