/*
 * fake_app.c - a stand-in for a CUDA program run under `memprobe profile`,
 * for the CPU tests (tests/test_profile.c): it acts as if the injection
 * library were loaded into it. When CUDA_INJECTION64_PATH and
 * MEMPROBE_RAW_DIR are set it "launches" a fixed sequence of kernels,
 * applies the filters of the environment (MEMPROBE_KERNEL on the mangled
 * name, MEMPROBE_LAUNCH_SKIP, MEMPROBE_LAUNCH_COUNT) and writes the raw
 * files of docs/profile-design.md with known counts: status.PID,
 * launches.PID.csv, launch_ops.PID.csv, lines.PID.csv, kernels.PID.csv
 * (MEMPROBE_PER_KERNEL=N: the first N launches of each kernel after the
 * other filters) and cubin.CRC (whose text is the SASS
 * listing that tests/profile/fakecuda/bin/cuobjdump prints).
 *
 * The kernels, per launch (file:line, pc offset, opcode, instructions,
 * shared wavefronts/ideal, global sectors/ideal):
 *   transpose_naive  app.cu:19 0x100 LDG.E 1024 -/-  6144/4096
 *                    app.cu:19 0x110 STS   1024 (W x 1024)/1024 -/-
 *                    app.cu:21 0x200 LDS   1024 1024/1024 -/-
 *                    app.cu:21 0x210 STG.E 1024 -/- 32768/4096
 *                    app.cu:22 0x220 IMAD  2048 -/- -/-
 *   transpose_pad    app.cu:40 0x100 LDG.E 1024 -/- 4096/4096
 *                    app.cu:40 0x110 STS   1024 1024/1024 -/-
 *                    app.cu:42 0x200 LDS   1024 1024/1024 -/-
 *                    app.cu:42 0x210 STG.E 1024 -/- 4096/4096
 *   copy_kernel      copy.cu:5 0x80 LDG.E  16 -/- 40/32
 *                    copy.cu:5 0x90 STG.E  16 -/- 56/32
 * launched in the order naive, pad (in NVTX range outer/step), naive, copy,
 * repeated to --launches N (default 4). W is --conflict (default 32).
 *
 * --templates launches other kernels in their places, with names as C++
 * and PyTorch have them (two instantiations of one template, and kernels
 * without line info, file empty and line 0):
 *   void scale<float>(float const*, float*, int, float)     (for naive)
 *                    scale.cu:7 0x80 LDG.E 16 -/- 64/32
 *                    scale.cu:7 0x90 STG.E 16 -/- 32/32
 *   void scale<double>(double const*, double*, int, double) (for pad)
 *                    - 0x80 LDG.E 16 -/- 64/64
 *                    - 0x90 STG.E 16 -/- (S x 64)/64
 *   PyTorch's copy kernel at::native::elementwise_kernel<128, 2, ...>
 *   (the H200's mangled name, 814 characters demangled)     (for copy)
 *                    - 0x13c0 LDG.E 16 -/- 192/32
 *                    - 0x2770 STG.E 16 -/- 32/32
 * S is --scatter (default 4).
 *
 * Options: --launches N, --conflict W, --fork (a child process runs the
 * same and writes its own files; the parent waits for it), --crash
 * (flush after two profiled launches, start a third row, then SIGSEGV),
 * --cost (a fixed cost line in the status, as the library writes one),
 * --exit N, --error TEXT (profiling refused: an error line, no launches),
 * --no-status (never initialises "CUDA": writes nothing),
 * --ignore-kernel-filter (profiles every kernel, like a library that
 * cannot match the name), --no-cubin, --unavailable (no line counts for
 * any launch, as with a CUPTI that patched nothing), --ready FILE (after writing, make
 * FILE and wait for a signal).
 * Each process claims its ordinal (ordinal.N, O_EXCL, as the library
 * does; a forking parent before the fork) and writes "ordinal N" in its
 * status file.
 * MEMPROBE_INJECT_NO_SASS=REGEX: launches of matching kernels get no line
 * counts (why names the hook), as the library's test hook does.
 * MEMPROBE_PASS=range (a range run): no launches/lines files; instead
 * range.PID.csv, one row per profiled launch whose kernel matches
 * MEMPROBE_RANGE_KERNEL (all when unset), with per kernel the values
 * (l1 %, l2 % (always empty: the library never measures it), dram read,
 * dram write, shared wavefronts ld, st, global sectors ld, st, global
 * requests ld, st, L2 lookup hits, L2 sectors):
 *   naive  25,,1048576,524288,1024,W*1024,6144,32768,1024,1024,3000,4000
 *   pad    87.5,,4096,8192,1024,1024,4096,4096,1024,1024,500,1000
 *   copy   0,,512,0,0,0,40,56,16,16,24,32
 * of which only MEMPROBE_RANGE_GROUP's are written, the others empty:
 * cache l1, dram read and write, L2 hits, global sectors; l2 the L2
 * sectors; counts (or unset) the six hardware counts.
 * (the shared and global counts equal the SASS sums of the same launch);
 * --nondeterministic makes the second run's launch 1 a copy_kernel.
 * --run: after the launches, a run of two copy_kernel launches (numbers
 * N and N+1, one launch row of launches=2, no filters applied); in the
 * range pass the second has three times the first's traffic (L2: 96 hits
 * of 96 sectors):
 *   copy (2nd)  60,,1536,0,0,0,120,168,48,48,96,96
 * modules.PID.csv names each cubin's origin as the library does: by
 * default both are the program's own (its path, /proc/self/exe);
 * --library makes cubin 12345 (copy_kernel, or PyTorch's copy kernel with
 * --templates) a vendor library's: LIBRARY_PATH, or TORCH_PATH with
 * --templates (a comma in the path: quoted in the CSV); --all-library
 * makes both cubins LIBRARY_PATH's; --jit makes
 * cubin 3735928559 compiled at run time; --no-modules writes no modules
 * file (a library from before origins: every module unknown).
 * --cub ROOT launches, in copy_kernel's place, a kernel of CUB's compiled
 * into the program (cub::detail::radix_sort::
 * DeviceRadixSortHistogramKernel()), cubin 12345:
 *                    ROOT/include/cub/agent/agent_radix_sort_histogram.cuh:180
 *                        0x80 LDG.E 16 -/- 32/32
 *                    ROOT/include/device_atomic_functions.hpp:112
 *                        0x90 ATOMS.ADD 16 96/32 -/-
 * --print-preload prints its LD_PRELOAD to stdout after its own line.
 * --subscribe calls cuptiSubscribe as a program with its own CUPTI client
 * does (looked up at run time: the preloaded stand-in CUPTI of
 * tests/profile/fake_cupti.c, behind memprobe's client library) and prints
 * its result.
 * Always prints one line to stdout and one to stderr, its own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define METRICS 6

typedef struct {
    const char *file;
    int line;
    unsigned off;
    const char *op;
    unsigned long long m[METRICS];   /* inst, sh, sh ideal, gl, gl ideal,
                                        load instructions */
} instr;

typedef struct {
    const char *mangled, *cubin, *nvtx;
    int ninstr;
    instr in[5];
} kernel;

static kernel base_kernels[3] = {
    {"_Z15transpose_naivePfPKfi", "3735928559", "", 5, {
        {"/src/app.cu", 19, 0x100, "LDG.E", {1024, 0, 0, 6144, 4096, 1024}},
        {"/src/app.cu", 19, 0x110, "STS", {1024, 32768, 1024, 0, 0, 0}},
        {"/src/app.cu", 21, 0x200, "LDS", {1024, 1024, 1024, 0, 0, 1024}},
        {"/src/app.cu", 21, 0x210, "STG.E", {1024, 0, 0, 32768, 4096, 0}},
        {"/src/app.cu", 22, 0x220, "IMAD", {2048, 0, 0, 0, 0, 0}}}},
    {"_Z13transpose_padPfPKfi", "3735928559", "outer/step", 4, {
        {"/src/app.cu", 40, 0x100, "LDG.E", {1024, 0, 0, 4096, 4096, 1024}},
        {"/src/app.cu", 40, 0x110, "STS", {1024, 1024, 1024, 0, 0, 0}},
        {"/src/app.cu", 42, 0x200, "LDS", {1024, 1024, 1024, 0, 0, 1024}},
        {"/src/app.cu", 42, 0x210, "STG.E", {1024, 0, 0, 4096, 4096, 0}}}},
    {"copy_kernel", "12345", "", 2, {
        {"/src/copy.cu", 5, 0x80, "LDG.E", {16, 0, 0, 40, 32, 16}},
        {"/src/copy.cu", 5, 0x90, "STG.E", {16, 0, 0, 56, 32, 0}}}},
};
/* --templates: in the places of base_kernels' */
static kernel template_kernels[3] = {
    {"_Z5scaleIfEvPKT_PS0_iS0_", "3735928559", "", 2, {
        {"/src/scale.cu", 7, 0x80, "LDG.E", {16, 0, 0, 64, 32, 16}},
        {"/src/scale.cu", 7, 0x90, "STG.E", {16, 0, 0, 32, 32, 0}}}},
    {"_Z5scaleIdEvPKT_PS0_iS0_", "3735928559", "", 2, {
        {"", 0, 0x80, "LDG.E", {16, 0, 0, 64, 64, 16}},
        {"", 0, 0x90, "STG.E", {16, 0, 0, 256, 64, 0}}}},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_"
     "nocastIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUl"
     "vE1_clEvENKUlvE5_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_", "12345", "", 2, {
        {"", 0, 0x13c0, "LDG.E", {16, 0, 0, 192, 32, 16}},
        {"", 0, 0x2770, "STG.E", {16, 0, 0, 32, 32, 0}}}},
};
/* --cub ROOT: in copy_kernel's place, a kernel of CUB's compiled into
 * the program, its lines in ROOT/include/ (a toolkit's headers when
 * ROOT/bin/nvcc exists): one in CUB's header, one in the intrinsic
 * header beside it, an atomic 3x its ideal */
static char cub_header[PATH_MAX], cub_atomics[PATH_MAX];
static const kernel cub_kernel = {
    "_ZN3cub6detail10radix_sort30DeviceRadixSortHistogramKernelEv", "12345",
    "", 2, {
        {cub_header, 180, 0x80, "LDG.E", {16, 0, 0, 32, 32, 16}},
        {cub_atomics, 112, 0x90, "ATOMS.ADD", {16, 96, 32, 0, 0, 0}}}};
static kernel *kernels = base_kernels;
static const int order[4] = {0, 1, 0, 2};

static const char *const metric_names[METRICS] = {
    "smsp__sass_inst_executed",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_inst_executed_op_ld"};

#define LIBRARY_PATH "/opt/vendor,x/lib/libcublasLt.so.13"
#define TORCH_PATH "/site-packages/torch/lib/libtorch_cuda.so"

static const char *raw;
static int unavailable, range_pass, nondeterministic, copy_run, print_preload;
static int cost_line;   /* --cost: a cost line in the status, as the library's */
static int library, all_library, jit, no_modules;
static int subscribe;
static int ordinal = -1;
enum { NRANGE = 12 };
static const char *const range_values[4][NRANGE] = {
    {"25", "", "1048576", "524288", "1024", "W", "6144", "32768", "1024",
     "1024", "3000", "4000"},
    {"87.5", "", "4096", "8192", "1024", "1024", "4096", "4096", "1024",
     "1024", "500", "1000"},
    {"0", "", "512", "0", "0", "0", "40", "56", "16", "16", "24", "32"},
    /* --run: the second launch of the copy_kernel run in the range pass */
    {"60", "", "1536", "0", "0", "0", "120", "168", "48", "48", "96", "96"}};
/* which values each MEMPROBE_RANGE_GROUP writes (columns as above) */
static const char groups[3][NRANGE + 1] = {
    "000011111100" /* counts */, "000000000001" /* l2 */,
    "101100110010" /* cache */};
static int group;   /* 0 counts, 1 l2, 2 cache */

/* The first free ordinal.N of the raw folder, as the library claims it. */
static int claim_ordinal(void)
{
    for (int k = 0; k < 1000; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/ordinal.%d", raw, k);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            return k;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* MEMPROBE_INJECT_NO_SASS matches the kernel. */
static int no_sass(int k)
{
    const char *re_text = getenv("MEMPROBE_INJECT_NO_SASS");
    regex_t re;
    if (!re_text || !re_text[0] || range_pass
        || regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB))
        return 0;
    int m = !regexec(&re, kernels[k].mangled, 0, NULL, 0);
    regfree(&re);
    return m;
}
static char launches_csv[4096], lines_csv[4096], status_path[4096];
static FILE *ops_f;   /* launch_ops.PID.csv */

static FILE *open_in(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (!f) {
        perror(path);
        exit(70);
    }
    return f;
}

static void metrics_header(FILE *f)
{
    for (int m = 0; m < METRICS; m++)
        fprintf(f, ",%s", metric_names[m]);
    fprintf(f, "\n");
}

static void write_status(const char *extra, unsigned long long seen,
                         unsigned long long profiled, const char *end)
{
    FILE *f = open_in(status_path, "w");
    fprintf(f, "cupti_version 130005\npid %d\nppid %d\nordinal %d\npass %s\n",
            (int)getpid(), (int)getppid(), ordinal,
            range_pass ? "range" : "sass");
    if (extra)
        fprintf(f, "%s\n", extra);
    fprintf(f, "launches_seen %llu\nlaunches_profiled %llu\n", seen,
            profiled);
    if (cost_line)
        fprintf(f, "cost sync 3 0.250000 flush 3 0.500000 attribute 3 "
                "0.700000 lines 10 0.600000 modules 2 0.040000 writes 1 "
                "0.010000 enable 1 0.000000 disable 0 0.000000 launch 8 "
                "0.200000 launch_off 5 0.030000 records 77\n");
    if (end)
        fprintf(f, "end %s\n", end);
    fclose(f);
}

/* kernels.PID.csv: per kernel (one grid and block each) the launches
 * seen and profiled. */
static void write_kernels(const unsigned long long *seen,
                          const unsigned long long *prof)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/kernels.%d.csv", raw, (int)getpid());
    FILE *f = open_in(path, "w");
    fprintf(f, "pid,mangled,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
            "launches_seen,launches_profiled\n");
    for (int k = 0; k < 3; k++)
        if (seen[k])
            fprintf(f, "%d,%s,64,64,1,32,8,1,%llu,%llu\n", (int)getpid(),
                    kernels[k].mangled, seen[k], prof[k]);
    fclose(f);
}

/* lines.PID.csv, whole: every instruction of the kernels profiled. */
static void write_lines(const int *count)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", lines_csv);
    FILE *f = open_in(tmp, "w");
    fprintf(f, "pid,cubin_crc,mangled,function_index,pc_offset,file,line,"
            "launches");
    metrics_header(f);
    for (int k = 0; k < 3; k++) {
        if (!count[k])
            continue;
        for (int i = 0; i < kernels[k].ninstr; i++) {
            const instr *in = &kernels[k].in[i];
            fprintf(f, "%d,%s,%s,%d,%u,%s,%d,%d", (int)getpid(),
                    kernels[k].cubin, kernels[k].mangled, k, in->off,
                    in->file, in->line, count[k]);
            for (int m = 0; m < METRICS; m++)
                fprintf(f, ",%llu", in->m[m] * (unsigned long long)count[k]);
            fprintf(f, "\n");
        }
    }
    fclose(f);
    rename(tmp, lines_csv);
}

static void launch_row(FILE *f, int launch, int k, int n)
{
    int un = unavailable || no_sass(k);
    unsigned long long sum[METRICS] = {0};
    for (int i = 0; i < kernels[k].ninstr; i++)
        for (int m = 0; m < METRICS; m++)
            sum[m] += kernels[k].in[i].m[m];
    fprintf(f, "%d,%d,%d,%s,64,64,1,32,8,1,0,0x7f00,%s,0,%s",
            (int)getpid(), launch, n, kernels[k].mangled, kernels[k].nvtx,
            !un ? "exact," : unavailable ? "unavailable,CUPTI 13.0 patched "
            "no code for this kernel" : "unavailable,no SASS records: "
            "dropped by the test hook MEMPROBE_INJECT_NO_SASS");
    for (int m = 0; m < METRICS; m++)
        fprintf(f, ",%llu", un ? 0ULL : sum[m] * (unsigned long long)n);
    fprintf(f, "\n");
    /* its memory instructions, as the library appends them */
    for (int i = 0; i < kernels[k].ninstr && !un; i++) {
        const instr *in = &kernels[k].in[i];
        if (!(in->m[1] | in->m[2] | in->m[3] | in->m[4]))
            continue;
        fprintf(ops_f, "%d,%d,%s,%d,%u", (int)getpid(), launch,
                kernels[k].cubin, k, in->off);
        for (int m = 0; m < METRICS; m++)
            fprintf(ops_f, ",%llu", in->m[m] * (unsigned long long)n);
        fprintf(ops_f, "\n");
    }
}

/* The range pass's row of one launch (range.PID.csv): the values of
 * row v of range_values that this run's group measures. */
static void range_row(FILE *f, int launch, int k, int v)
{
    const char *on = groups[group];
    fprintf(f, "%d,%d,%s,64,64,1,32,8,1,", (int)getpid(), launch,
            kernels[k].mangled);
    for (int c = 0; c < NRANGE; c++) {
        const char *x = on[c] == '1' ? range_values[v][c] : "";
        if (!strcmp(x, "W"))
            fprintf(f, ",%llu", kernels[0].in[1].m[1]);
        else
            fprintf(f, ",%s", x);
    }
    fprintf(f, "\n");
}

/* modules.PID.csv: each cubin's origin (the program's own path, or as
 * --library and --jit say). */
static void write_modules(void)
{
    if (no_modules)
        return;
    char exe[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    snprintf(path, sizeof path, "%s/modules.%d.csv", raw, (int)getpid());
    FILE *f = open_in(path, "w");
    fprintf(f, "pid,cubin_crc,origin,found\n");
    if (all_library)
        fprintf(f, "%d,3735928559,\"" LIBRARY_PATH "\",cubin\n",
                (int)getpid());
    else
        fprintf(f, "%d,3735928559,%s,%s\n", (int)getpid(),
                jit ? "(run-time compiled)" : exe, jit ? "image"
                : "backtrace");
    if (!library && !all_library)
        fprintf(f, "%d,12345,%s,backtrace\n", (int)getpid(), exe);
    else if (kernels == template_kernels)
        fprintf(f, "%d,12345," TORCH_PATH ",backtrace\n", (int)getpid());
    else
        fprintf(f, "%d,12345,\"" LIBRARY_PATH "\",cubin\n", (int)getpid());
    fclose(f);
}

/* The SASS listing of each module, as cuobjdump -sass prints it. */
static void write_cubins(void)
{
    const char *crcs[2] = {"3735928559", "12345"};
    for (int c = 0; c < 2; c++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/cubin.%s", raw, crcs[c]);
        FILE *f = open_in(path, "w");
        fprintf(f, "\n\tcode for sm_90\n");
        for (int k = 0; k < 3; k++) {
            if (strcmp(kernels[k].cubin, crcs[c]))
                continue;
            fprintf(f, "\t\tFunction : %s\n\t.headerflags\t@\"EF_CUDA_SM90 "
                    "EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n",
                    kernels[k].mangled);
            fprintf(f, "        /*0000*/                   LDC R1, "
                    "c[0x0][0x28] ;              /* 0x00000a00ff017b82 */\n"
                    "                                                       "
                    "/* 0x000fe40000000800 */\n");
            for (int i = 0; i < kernels[k].ninstr; i++)
                fprintf(f, "        /*%04x*/              %s %s R2, [R3] ;"
                        "                    /* 0x0000000000007919 */\n",
                        kernels[k].in[i].off, i == 1 ? "@!P0" : "    ",
                        kernels[k].in[i].op);
            fprintf(f, "        /*0300*/                   EXIT ;\n"
                    "\t\t..........\n\n");
        }
        fclose(f);
    }
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v && v[0] ? atol(v) : def;
}

/* One process's run: the launches, the filters, the raw files. */
static void run(int nlaunch, int crash, int ignore_filter, int cubins)
{
    snprintf(status_path, sizeof status_path, "%s/status.%d", raw,
             (int)getpid());
    snprintf(launches_csv, sizeof launches_csv, "%s/launches.%d.csv", raw,
             (int)getpid());
    snprintf(lines_csv, sizeof lines_csv, "%s/lines.%d.csv", raw,
             (int)getpid());
    const char *re_text = getenv("MEMPROBE_KERNEL");
    regex_t re;
    int has_re = re_text && re_text[0] && !ignore_filter
                 && !regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB);
    long skip = env_long("MEMPROBE_LAUNCH_SKIP", 0);
    long max = env_long("MEMPROBE_LAUNCH_COUNT", -1);
    if (range_pass) {
        const char *rk = getenv("MEMPROBE_RANGE_KERNEL");
        regex_t rre;
        int has_rre = rk && rk[0]
                      && !regcomp(&rre, rk, REG_EXTENDED | REG_NOSUB);
        char path[4200];
        snprintf(path, sizeof path, "%s/range.%d.csv", raw, (int)getpid());
        FILE *f = open_in(path, "w");
        fprintf(f, "pid,launch,mangled,grid_x,grid_y,grid_z,block_x,"
                "block_y,block_z,why,l1tex__t_sector_hit_rate.pct,"
                "lts__t_sector_hit_rate.pct,dram__bytes_read.sum,"
                "dram__bytes_write.sum,"
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
                "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
                "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
                "lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum\n");
        int matching = 0, profiled = 0;
        for (int l = 0; l < nlaunch; l++) {
            int k = nondeterministic && l == 1 ? 2 : order[l % 4];
            if (has_re && regexec(&re, kernels[k].mangled, 0, NULL, 0))
                continue;
            if (matching++ < skip || (max >= 0 && profiled >= max))
                continue;
            profiled++;
            if (!has_rre || !regexec(&rre, kernels[k].mangled, 0, NULL, 0))
                range_row(f, l, k, k);
        }
        if (copy_run) {   /* the run: same kernel and shape, 3x traffic */
            range_row(f, nlaunch, 2, 2);
            range_row(f, nlaunch + 1, 2, 3);
            profiled += 2;
        }
        fclose(f);
        if (has_rre)
            regfree(&rre);
        if (has_re)
            regfree(&re);
        write_status(NULL, (unsigned long long)(nlaunch + 2 * copy_run),
                     (unsigned long long)profiled, "exit");
        return;
    }
    FILE *f = open_in(launches_csv, "w");
    fprintf(f, "pid,launch,launches,mangled,grid_x,grid_y,grid_z,block_x,"
            "block_y,block_z,dyn_shared_bytes,stream,nvtx,graph,line_counts,"
            "why");
    metrics_header(f);
    char ops_csv[4096];
    snprintf(ops_csv, sizeof ops_csv, "%s/launch_ops.%d.csv", raw,
             (int)getpid());
    ops_f = open_in(ops_csv, "w");
    fprintf(ops_f, "pid,launch,cubin_crc,function_index,pc_offset");
    metrics_header(ops_f);
    int count[3] = {0}, matching = 0, profiled = 0;
    long per_kernel = env_long("MEMPROBE_PER_KERNEL", 0);
    unsigned long long seen_k[3] = {0}, prof_k[3] = {0};
    for (int l = 0; l < nlaunch; l++) {
        int k = order[l % 4];
        seen_k[k]++;
        if (has_re && regexec(&re, kernels[k].mangled, 0, NULL, 0))
            continue;
        if (matching++ < skip || (max >= 0 && profiled >= max))
            continue;
        if (per_kernel && prof_k[k] >= (unsigned long long)per_kernel)
            continue;   /* --per-kernel: after the filters */
        prof_k[k]++;
        if (crash && profiled == 2) {
            /* flushed so far; the next row is cut off by the crash */
            fflush(f);
            fflush(ops_f);
            write_lines(count);
            write_modules();
            write_status(NULL, (unsigned long long)l, 2, "flush");
            if (cubins)
                write_cubins();
            fprintf(f, "%d,%d,1,%s,64", (int)getpid(), l,
                    kernels[k].mangled);
            fflush(f);
            raise(SIGSEGV);
        }
        launch_row(f, l, k, 1);
        count[k] += !unavailable && !no_sass(k);
        profiled++;
    }
    if (copy_run) {   /* one row for the run of two launches */
        launch_row(f, nlaunch, 2, 2);
        count[2] += 2 * (!unavailable && !no_sass(2));
        profiled += 2;
        seen_k[2] += 2;
        prof_k[2] += 2;
    }
    fclose(f);
    write_kernels(seen_k, prof_k);
    fclose(ops_f);
    if (has_re)
        regfree(&re);
    write_lines(count);
    write_modules();
    if (cubins)
        write_cubins();
    write_status(NULL, (unsigned long long)(nlaunch + 2 * copy_run),
                 (unsigned long long)profiled, "exit");
}

/* --subscribe: the program's own CUPTI client subscribes. */
static void own_cupti_client(void)
{
    int (*sub)(void **, void *, void *) =
        (int (*)(void **, void *, void *))dlsym(RTLD_DEFAULT,
                                                "cuptiSubscribe");
    void *handle = NULL;
    printf("fake_app: cuptiSubscribe %s\n",
           !sub ? "missing" : sub(&handle, NULL, NULL) ? "refused" : "ok");
}

int main(int argc, char **argv)
{
    int nlaunch = 4, do_fork = 0, crash = 0, status = 0, no_status = 0;
    int ignore_filter = 0, cubins = 1;
    const char *error = NULL, *ready = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--launches"))
            nlaunch = atoi(v), i++;
        else if (!strcmp(a, "--conflict"))
            base_kernels[0].in[1].m[1] = 1024ULL * (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--scatter"))
            template_kernels[1].in[1].m[3] = 64ULL * (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--templates"))
            kernels = template_kernels;
        else if (!strcmp(a, "--exit"))
            status = atoi(v), i++;
        else if (!strcmp(a, "--error"))
            error = v, i++;
        else if (!strcmp(a, "--fork"))
            do_fork = 1;
        else if (!strcmp(a, "--crash"))
            crash = 1;
        else if (!strcmp(a, "--no-status"))
            no_status = 1;
        else if (!strcmp(a, "--ignore-kernel-filter"))
            ignore_filter = 1;
        else if (!strcmp(a, "--ready"))
            ready = v, i++;
        else if (!strcmp(a, "--cost"))
            cost_line = 1;
        else if (!strcmp(a, "--unavailable"))
            unavailable = 1;
        else if (!strcmp(a, "--no-cubin"))
            cubins = 0;
        else if (!strcmp(a, "--nondeterministic"))
            nondeterministic = 1;
        else if (!strcmp(a, "--run"))
            copy_run = 1;
        else if (!strcmp(a, "--print-preload"))
            print_preload = 1;
        else if (!strcmp(a, "--subscribe"))
            subscribe = 1;
        else if (!strcmp(a, "--library"))
            library = 1;
        else if (!strcmp(a, "--all-library"))
            all_library = 1;
        else if (!strcmp(a, "--cub")) {
            snprintf(cub_header, sizeof cub_header,
                     "%s/include/cub/agent/agent_radix_sort_histogram.cuh", v);
            snprintf(cub_atomics, sizeof cub_atomics,
                     "%s/include/device_atomic_functions.hpp", v);
            base_kernels[2] = cub_kernel;
            i++;
        } else if (!strcmp(a, "--jit"))
            jit = 1;
        else if (!strcmp(a, "--no-modules"))
            no_modules = 1;
        else {
            fprintf(stderr, "fake_app: unknown argument %s\n", a);
            return 64;
        }
    }
    printf("fake_app: the program's own stdout\n");
    if (print_preload)
        printf("LD_PRELOAD=%s\n", getenv("LD_PRELOAD") ? getenv("LD_PRELOAD")
                                                         : "");
    if (subscribe)
        own_cupti_client();
    fflush(stdout);
    fprintf(stderr, "fake_app: the program's own stderr\n");
    const char *inject = getenv("CUDA_INJECTION64_PATH");
    raw = getenv("MEMPROBE_RAW_DIR");
    if (no_status || !inject || !inject[0] || !raw || !raw[0])
        return status;   /* no library loaded: nothing written */
    if (error) {
        snprintf(status_path, sizeof status_path, "%s/status.%d", raw,
                 (int)getpid());
        char line[600];
        snprintf(line, sizeof line, "error %s", error);
        write_status(line, 0, 0, "exit");
        return status;
    }
    const char *pass = getenv("MEMPROBE_PASS");
    range_pass = pass && !strcmp(pass, "range");
    const char *grp = getenv("MEMPROBE_RANGE_GROUP");
    group = !grp || !*grp || !strcmp(grp, "counts") ? 0
            : !strcmp(grp, "l2") ? 1 : !strcmp(grp, "cache") ? 2 : -1;
    if (group < 0) {
        fprintf(stderr, "fake_app: MEMPROBE_RANGE_GROUP '%s'\n", grp);
        return 2;
    }
    ordinal = claim_ordinal();
    pid_t child = -1;
    if (do_fork) {
        child = fork();
        if (child < 0)
            return 71;
        if (child == 0)
            ordinal = claim_ordinal();
    }
    run(nlaunch, crash && child != 0, ignore_filter, cubins);
    if (child == 0)
        _exit(0);
    if (child > 0) {
        int st;
        waitpid(child, &st, 0);
    }
    if (ready) {
        FILE *f = open_in(ready, "w");
        fclose(f);
        for (int i = 0; i < 600; i++)
            sleep(1);   /* until a signal ends it (10 minutes at most) */
    }
    return status;
}
