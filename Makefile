# memprobe - GPU memory-behaviour microbenchmarks.
#
#   make                      build ./memprobe
#   make probe-bank STRIDE=4  measure one bank configuration (needs a GPU)
#   make predict-bank ...     the model's prediction only (no GPU)
#   make test                 CPU tests (no GPU needed); TAP_LOG=file keeps
#                             their TAP (default build/test.tap)
#   make bench-verify         host verification cost, 1 vs all CPU threads
#   make test-gpu             GPU tests (on the GPU machine); TAP_LOG=file
#                             (default build/test-gpu.tap)
#   make test-slurm           the fleet scripts under a one-node Slurm on
#                             localhost (root, slurm-wlm, munge; else a skip)
#   make sweep CONFIG=f.conf  run a sweep file (docs/sweep-files.md)
#   make study                the study sweep, configs/study.conf (GPU)
#   make install PREFIX=dir   memprobe, its libraries and data under dir
#                             (default /usr/local; DESTDIR=stage too);
#                             make uninstall removes them
#   make test-install         install, move the prefix, run from elsewhere
#   make clean
#
# Host code is C11 compiled by gcc; kernels are CUDA C compiled by nvcc.
# Objects go to build/.
#
# What is built or measured counts only from the command line (make X=1,
# not X=1 make): a shell that happens to export STRIDE, CONFIG or ARCH
# (ARCH=x86_64 is common) cannot change the build or a measurement behind
# the user's back. $(call cmdline,VAR) is VAR's value when it came from the
# command line, else empty. The paths that say only where files go count
# from the environment too, as users and packaging tools give them: OUT
# (OUT=x make probe-bank is make probe-bank OUT=x), and install's PREFIX
# and DESTDIR. $(call fromuser,VAR) is VAR's value from the command line or
# the environment, else empty.
cmdline = $(if $(filter command line,$(origin $(1))),$($(1)))
fromuser = $(if $(filter command line environment,$(origin $(1))),$($(1)))
OUT_FILE := $(call fromuser,OUT)

CUDA_HOME ?= /usr/local/cuda
CC ?= gcc
NVCC ?= $(CUDA_HOME)/bin/nvcc

# ARCH: the GPU architectures to build SASS for, as compute capabilities
# without the dot ("90", "80 90"). Default: every sm_NN this nvcc can
# generate (nvcc --list-gpu-code), so one ./memprobe runs on every GPU CUDA
# supports, plus the PTX of the newest for GPUs after it. A kernel that
# uses an instruction some of them lack is guarded (probes/arch.h), and the
# host refuses the option on such a GPU (the `cc` field of its parameter).
ALL_ARCHS := $(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$$/\1/p' | sort -n)
# The sanitizer and fuzz builds (SANITIZE=1, FUZZ=1) test host code: they
# build sm_90 only unless ARCH is given.
ARCH := $(or $(call cmdline,ARCH),$(if $(filter 1,$(call cmdline,SANITIZE) $(call cmdline,FUZZ)),90),$(ALL_ARCHS),90)
NEWEST_ARCH := $(lastword $(shell printf '%s\n' $(ARCH) | sort -n))
GENCODE := $(foreach a,$(ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(NEWEST_ARCH),code=compute_$(NEWEST_ARCH)

BUILD := build
# shim/ holds an empty <string> so that cupti_profiler_host.h compiles as C;
# it must not reach nvcc, whose C++ headers need the real one.
# The rooms (docs/architecture.md): cli/ on top, the families in probes/
# (one folder each) and profile/ (memprobe profile) beside them, explain/
# (memprobe explain) above profile/, crosscheck/ (the comparisons with
# Nsight Compute) beside them, report/ and runtime/ below them, model/
# at the bottom; inject/ and explain/capture/ apart (libraries loaded into a
# user's program).
FAMILY_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard probes/*/*.c probes/*/*.cu))))
INCLUDES := -Icli -Iexplain -Iprofile -Iinject -Iruntime -Imodel -Iprobes $(addprefix -I,$(FAMILY_DIRS)) \
	-Icrosscheck -Ireport -I$(CUDA_HOME)/include
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -D_GNU_SOURCE -Ishim $(INCLUDES) -MMD -MP
# -pthread: verification splits its compares across CPU threads
# (probes/verify_par.c); the binary and every test link with it.
CFLAGS += -pthread
LDFLAGS += -pthread
NVCCFLAGS ?= -O3 -lineinfo
# --threads 0: nvcc compiles the architectures of one file in parallel
# (bandwidth.cu alone is about 40 s of CPU for all of them).
NVCCFLAGS += -std=c++17 $(GENCODE) --threads 0 \
	$(INCLUDES) -Xcompiler -Wall,-Wextra -MMD -MP
LDLIBS := -L$(CUDA_HOME)/lib64 -Wl,--disable-new-dtags,-rpath,$(CUDA_HOME)/lib64 \
	-lcupti -lcudart_static -lcsv -linih -lstdc++ -ldl -lpthread -lrt -lm

# libcsv, inih and cmocka: from the system when the compiler finds them;
# else scripts/deps.sh unpacks their Debian packages into DEPS_DIR (.deps/)
# without root and the build uses them; else make stops with one line naming
# the packages to install. DEPS=dir uses a directory unpacked before (the
# GPU machine, which reaches no package registry: scripts/fetch-gpu-deps.sh).
# `make clean` checks nothing.
DEPS_DIR := $(or $(call cmdline,DEPS_DIR),.deps)
DEPS := $(call cmdline,DEPS)
ifeq ($(DEPS),)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
DEPS := $(shell scripts/deps.sh '$(CC)' '$(DEPS_DIR)')
ifneq ($(filter !%,$(firstword $(DEPS))),)
$(error $(patsubst !%,%,$(DEPS)))
endif
endif
endif
ifneq ($(DEPS),)
DEPS_LIB := $(abspath $(DEPS))/usr/lib/x86_64-linux-gnu
CFLAGS += -I$(DEPS)/usr/include
LDLIBS := -L$(DEPS_LIB) -Wl,-rpath,$(DEPS_LIB) $(LDLIBS)
endif

# SANITIZE=1: the host code with AddressSanitizer and UndefinedBehavior-
# Sanitizer (every report fatal), in build/san/, so that the plain build is
# left alone; `make test SANITIZE=1` runs the CPU suite against
# build/san/memprobe.
BIN := memprobe
ifeq ($(call cmdline,FUZZ),1)
# FUZZ=1: the host code built by clang with libFuzzer's coverage hooks,
# ASan and UBSan, in build/fuzz/ (`make fuzz` sets it).
CC := clang
BUILD := build/fuzz
CFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ifeq ($(call cmdline,SANITIZE),1)
BUILD := build/san
BIN := $(BUILD)/memprobe
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:exitcode=99
endif

# A family's CPU tests live in its folder (probes/NAME/test_*.c) and build
# to $(BUILD)/tests/NAME/; the rest are tests/test_*.c.
FAMILY_TESTS := $(wildcard probes/*/test_*.c)
LIB_C := $(filter-out cli/main.c $(FAMILY_TESTS),$(wildcard cli/*.c explain/*.c profile/*.c crosscheck/*.c runtime/*.c model/*.c probes/*.c probes/*/*.c report/*.c))
LIB_CU := $(wildcard runtime/*.cu probes/*.cu probes/*/*.cu)
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o) $(LIB_CU:%.cu=$(BUILD)/%.cu.o)
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c)) \
	$(patsubst probes/%.c,$(BUILD)/tests/%,$(FAMILY_TESTS))
GPU_TESTS := $(patsubst tests/gpu/%.c,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/test_*.c))
GPU_UTIL := tests/gpu/gpu_util.c
# The harness of the CPU tests that run ./memprobe (tests/cli_util.c, not a
# test itself), compiled once by the %.o rule and linked into every test.
CLI_UTIL := $(BUILD)/tests/cli_util.o
.SECONDARY: $(CLI_UTIL)

.PHONY: all clean test test-gpu ncu-check sweep study hazards
all: $(BIN)

# ./memprobe, or build/san/memprobe under SANITIZE=1 (never the one from
# the other's objects).
$(BIN): $(BUILD)/cli/main.o $(BUILD)/libmemprobe.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libmemprobe.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The host's verification loops (words compared with generated patterns,
# inputs generated) vectorise at -O3 only (gcc's -O2 vectorises just loops
# of known length): 2-4x less CPU time per word.
VERIFY_OBJ := $(addprefix $(BUILD)/probes/,verify_par.o launch.o \
	bandwidth/bandwidth.o coalesce/coalesce.o reduce/reduce.o texture/texture.o)
$(VERIFY_OBJ): CFLAGS += -O3

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c -o $@ $<

$(BUILD)/tests/gpu/%: tests/gpu/%.c $(GPU_UTIL) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests/gpu -o $@ $< $(GPU_UTIL) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(CLI_UTIL) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -o $@ $< $(CLI_UTIL) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

$(BUILD)/tests/%: probes/%.c $(CLI_UTIL) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -o $@ $< $(CLI_UTIL) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

# The profiler's test program (tests/profile/app.cu, for make test-gpu;
# it builds without a GPU too): a CUDA program of its own, with -lineinfo
# so that memprobe profile names its source lines. Its expectations
# (tests/profile/expect.c, from the models) link into the tests of it.
# Without --threads: nvlink's device-link step of this program lost its
# temporary file to a parallel architecture's clean-up on the H200
# machine (twice, "Could not read file /tmp/tmpxft_..._app_dlink.reg.c").
PROFILE_APP := $(BUILD)/tests/profile/app
EXPECT_OBJ := $(BUILD)/tests/profile/expect.o
all: $(PROFILE_APP)
$(PROFILE_APP): tests/profile/app.cu tests/profile/app_shape.h
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Itests/profile \
		-Xcompiler -Wall,-Wextra -o $@ $< -ldl

# The C++ program of the real-program tests (tests/gpu/test_gpu_profile_real.c):
# C++ linkage, templates, an anonymous namespace, a lambda and cuBLAS.
CPP_APP := $(BUILD)/tests/profile/cpp_app
all: $(CPP_APP)
$(CPP_APP): tests/profile/real/cpp_app.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -lineinfo -std=c++17 $(GENCODE) --extended-lambda \
		-o $@ $< -lcublas

# More C++ programs of the real-program checks (scripts/gpu-check.sh
# profilereal, opcodes): Thrust's sort with CUB's kernels compiled in, a
# kernel template instantiated twice and NVTX ranges named by registered
# strings; histograms with shared and global atomics; ldmatrix and
# stmatrix on a tile with and without the XOR swizzle; cp.async copying a
# tile transposed, with and without padded rows.
# Built on demand (Thrust for every architecture is slow): make real-cpp.
REAL_CPP := $(BUILD)/tests/profile/thrust_sort $(BUILD)/tests/profile/histogram \
	$(BUILD)/tests/profile/matrix_tile $(BUILD)/tests/profile/copy_tile
.PHONY: real-cpp
real-cpp: $(REAL_CPP)
$(REAL_CPP): $(BUILD)/tests/profile/%: tests/profile/real/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -lineinfo -std=c++17 $(GENCODE) --threads 0 -o $@ $<

# The cost of a profiler per launch of a short kernel (scripts/gpu-check.sh
# profilecost): 10,000 launches alternating three kernels, timed inside.
MANY_LAUNCHES := $(BUILD)/tests/profile/many_launches
all: $(MANY_LAUNCHES)
$(MANY_LAUNCHES): tests/profile/many_launches.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -lineinfo -std=c++17 $(GENCODE) \
		-Xcompiler -Wall,-Wextra,-ffp-contract=off -o $@ $<

$(EXPECT_OBJ): CFLAGS += -Itests/profile
$(BUILD)/tests/test_profile_expect: tests/test_profile_expect.c $(EXPECT_OBJ) $(CLI_UTIL) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -Itests/profile -o $@ $< $(EXPECT_OBJ) $(CLI_UTIL) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

$(BUILD)/tests/gpu/test_gpu_profile $(BUILD)/tests/gpu/test_gpu_explain: $(BUILD)/tests/gpu/%: tests/gpu/%.c $(GPU_UTIL) $(EXPECT_OBJ) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests/gpu -Itests/profile -o $@ $< $(GPU_UTIL) $(EXPECT_OBJ) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

# ---- The injection library (docs/profile-design.md) --------------------
# $(BUILD)/lib/libmemprobe_inject.so, loaded into a profiled program by
# CUDA_INJECTION64_PATH: inject/*.c, libc, libcuda and CUPTI only (nothing
# of libmemprobe.a). Its objects are position-independent and never
# sanitized (an ASan library cannot load into a plain program), also under
# SANITIZE=1; tests/test_inject_core links the same inject_core.o and
# inject_core_write.o.
#
# CUPTI: the toolkit's 13.0 patches only a program's first kernel, so the
# library builds against CUPTI 13.5 from PyPI's nvidia-cuda-cupti wheel,
# kept in $(DEPS_DIR)/cupti/ (copied with the tree to a GPU machine that reaches no registry) and
# unpacked into $(BUILD)/cupti/. When the wheel is missing, a plain `make`
# or `make install` fetches it once (scripts/fetch-cupti.sh; not under -n,
# not for other goals); a failed fetch leaves $(DEPS_DIR)/cupti/fetch-failed so later
# makes do not try again, and the library builds against the toolkit's
# CUPTI, saying so in one line. `make cupti` fetches again.
INJECT_SO := $(BUILD)/lib/libmemprobe_inject.so
INJECT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out inject/client.c,$(wildcard inject/*.c)))
# $(BUILD)/lib/libmemprobe_client.so (inject/client.c), first in the
# program's LD_PRELOAD: the program's own CUPTI client beside memprobe's
CLIENT_SO := $(BUILD)/lib/libmemprobe_client.so
CUPTI_VERSION := 13.5.25
CUPTI_DEPS := $(DEPS_DIR)/cupti
CUPTI_FETCH_FAILED := $(CUPTI_DEPS)/fetch-failed
ifneq ($(filter all install $(INJECT_SO),$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(CUPTI_DEPS)/*.whl)$(wildcard $(CUPTI_FETCH_FAILED)),)
ifeq ($(findstring n,$(filter-out -%,$(firstword $(MAKEFLAGS)))),)
CUPTI_FETCH := $(shell scripts/fetch-cupti.sh '$(CUPTI_DEPS)' $(CUPTI_VERSION))
endif
endif
endif
CUPTI_WHEEL := $(or $(CUPTI_FETCH),$(firstword $(wildcard $(CUPTI_DEPS)/*.whl)))
CUPTI_LIBS := libcupti.so.13 libnvperf_host.so libnvperf_target.so
ifneq ($(CUPTI_WHEEL),)
CUPTI_ROOT := $(BUILD)/cupti/nvidia/cu13
CUPTI_INC := -I$(CUPTI_ROOT)/include
CUPTI_STAMP := $(BUILD)/cupti/unpacked
CUPTI_NOTE :=
$(CUPTI_STAMP): $(CUPTI_WHEEL)
	rm -rf $(BUILD)/cupti && mkdir -p $(BUILD)/cupti
	python3 -m zipfile -e $< $(BUILD)/cupti/
	touch $@
$(BUILD)/lib/cupti-libs: $(CUPTI_STAMP)
	@mkdir -p $(dir $@)
	cp $(addprefix $(CUPTI_ROOT)/lib/,$(CUPTI_LIBS)) $(dir $@)
	touch $@
else
# The toolkit's CUPTI, copied beside the library too: memprobe names the
# libcupti.so.13 beside it in NVTX_INJECTION64_PATH.
CUPTI_INC :=
CUPTI_STAMP := $(BUILD)/lib/cupti-toolkit
CUPTI_NOTE = @echo "make: no CUPTI $(CUPTI_VERSION) wheel in $(CUPTI_DEPS)/ ($$(cat $(CUPTI_FETCH_FAILED) 2>/dev/null || echo not fetched)): $@ built against the toolkit's CUPTI, which profiles only a program's first kernel; \`make cupti\` fetches it" >&2
$(BUILD)/lib/cupti-libs: $(CUPTI_STAMP)
	touch $@
$(CUPTI_STAMP):
	@mkdir -p $(dir $@)
	cp -L $(addprefix $(CUDA_HOME)/lib64/,$(CUPTI_LIBS)) $(dir $@)
	touch $@
endif
INJECT_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) \
	-fPIC -fvisibility=hidden -Iinject

all: $(INJECT_SO) $(CLIENT_SO)

$(BUILD)/inject/%.o: inject/%.c $(CUPTI_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CUPTI_INC) $(INJECT_CFLAGS) -c -o $@ $<

$(INJECT_SO): $(INJECT_OBJ) $(BUILD)/lib/cupti-libs
	$(CUPTI_NOTE)
	$(CC) -shared -fPIC -Wl,--no-undefined -o $@ $(INJECT_OBJ) \
	    -Wl,--disable-new-dtags,-rpath,'$$ORIGIN' -L$(BUILD)/lib -l:libcupti.so.13 \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread -ldl

$(CLIENT_SO): $(BUILD)/inject/client.o
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -o $@ $< -ldl

# The capture library of `memprobe explain` (explain/capture/): compute-sanitizer's
# patching API, in the toolkit only where compute-sanitizer is installed
# (the GPU machine; not the CPU machines' toolkit). `make` builds it there
# and skips it elsewhere; `make capture` fails with one line where it
# cannot be built.
SANITIZER_HOME ?= $(CUDA_HOME)/compute-sanitizer
CAPTURE_SO := $(BUILD)/lib/libmemprobe_capture.so
CAPTURE_FATBIN := $(BUILD)/lib/memprobe_capture_patches.fatbin
HAVE_SANITIZER := $(wildcard $(SANITIZER_HOME)/include/sanitizer_patching.h)
ifneq ($(HAVE_SANITIZER),)
all: $(CAPTURE_SO) $(CAPTURE_FATBIN)
capture: $(CAPTURE_SO) $(CAPTURE_FATBIN)
test-gpu: $(CAPTURE_SO) $(CAPTURE_FATBIN)
else
capture:
	@echo "make capture: no compute-sanitizer in $(SANITIZER_HOME) (its include/sanitizer_patching.h): the capture library of memprobe explain is built where the CUDA toolkit has it (SANITIZER_HOME=DIR names another)" >&2; exit 1
endif
.PHONY: capture
$(BUILD)/capture/capture.o: explain/capture/capture.c explain/capture/capture.h explain/capture/capture_row.h
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) -fPIC \
	    -fvisibility=hidden -Iexplain/capture -I$(SANITIZER_HOME)/include -c -o $@ $<
# The library's sources lay in capture/ before; a build folder from then
# names them in its dependency files: they count as changed, so that the
# objects are built again from explain/capture/ (and their .d rewritten).
capture/capture.c capture/capture_row.c capture/capture.h capture/capture_row.h:
# the rows' writer: also in the CPU tests' stand-in library, built anywhere
$(BUILD)/capture/capture_row.o: explain/capture/capture_row.c explain/capture/capture_row.h explain/capture/capture.h
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) -fPIC \
	    -fvisibility=hidden -Iexplain/capture -c -o $@ $<
$(CAPTURE_SO): $(BUILD)/capture/capture.o $(BUILD)/capture/capture_row.o
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -Wl,--no-undefined -o $@ $^ -L$(SANITIZER_HOME) \
	    -lsanitizer-public -Wl,--disable-new-dtags,-rpath,$(SANITIZER_HOME) -ldl \
	    -lpthread
$(CAPTURE_FATBIN): explain/capture/capture_patches.cu explain/capture/capture.h
	@mkdir -p $(dir $@)
	$(NVCC) --fatbin --compile-as-tools-patch -I$(SANITIZER_HOME)/include \
	    -Iexplain/capture $(GENCODE) -o $@ -c $<

# make cupti: fetch the CUPTI wheel again (after a failure), then build.
.PHONY: cupti
cupti:
	rm -f $(CUPTI_FETCH_FAILED)
	scripts/fetch-cupti.sh '$(CUPTI_DEPS)' $(CUPTI_VERSION) >/dev/null || { echo "make cupti: the download failed: $$(cat $(CUPTI_FETCH_FAILED))" >&2; exit 1; }
	$(MAKE) $(INJECT_SO) $(CLIENT_SO)

INJECT_CORE_OBJ := $(BUILD)/inject/inject_core.o $(BUILD)/inject/inject_core_write.o
$(BUILD)/tests/test_inject_core: tests/test_inject_core.c $(INJECT_CORE_OBJ) $(CLI_UTIL) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -Iinject -o $@ $< $(INJECT_CORE_OBJ) $(CLI_UTIL) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

# tests/test_profile.c runs `memprobe profile` on a stand-in program that
# writes the injection library's raw files (tests/profile/fake_app.c); plain
# flags, no sanitizer: it ends itself by SIGSEGV on purpose.
$(BUILD)/tests/profile/fake_app: tests/profile/fake_app.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -D_GNU_SOURCE -o $@ $< -ldl
$(BUILD)/tests/profile/fake_cupti.so: tests/profile/fake_cupti.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -shared -fPIC -o $@ $<
$(BUILD)/tests/test_profile: $(BUILD)/tests/profile/fake_app \
	$(BUILD)/tests/profile/fake_cupti.so $(CLIENT_SO)

# tests/test_explain_cli.c runs `memprobe explain -- fake_app` with a
# stand-in capture library preloaded (tests/explain/fake_capture.c), which
# writes a capture as the real one would.
$(BUILD)/tests/test_capture_row: tests/test_capture_row.c $(BUILD)/capture/capture_row.o $(CLI_UTIL) $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -Iexplain/capture -o $@ $< $(BUILD)/capture/capture_row.o $(CLI_UTIL) $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

$(BUILD)/tests/explain/fake_capture.so: tests/explain/fake_capture.c explain/capture/capture_row.c explain/capture/capture_row.h explain/capture/capture.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -shared -fPIC -Iexplain/capture -o $@ $< explain/capture/capture_row.c
$(BUILD)/tests/test_explain_cli: $(BUILD)/tests/profile/fake_app \
	$(BUILD)/tests/explain/fake_capture.so

# The fuzz targets' bodies (tests/fuzz/), linked into the corpus replay
# test without their libFuzzer entry points.
FUZZ_SRC := $(filter-out tests/fuzz/fuzz_util.c,$(wildcard tests/fuzz/fuzz_*.c))
$(BUILD)/tests/test_fuzz_corpus: tests/test_fuzz_corpus.c $(FUZZ_SRC) tests/fuzz/fuzz_util.c $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -DMP_FUZZ_NO_ENTRY -Itests/fuzz -o $@ $< $(FUZZ_SRC) tests/fuzz/fuzz_util.c $(BUILD)/libmemprobe.a -lcmocka $(LDLIBS)

# bench-verify: the host side of verification (compares, references,
# input generation) timed on one CPU thread and on all, on host buffers
# (no GPU): scripts/bench_verify.c; MIB=n sets the buffer size.
.PHONY: bench-verify
bench-verify: $(BUILD)/bench_verify
	$(BUILD)/bench_verify $(call cmdline,MIB)

$(BUILD)/bench_verify: scripts/bench_verify.c $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libmemprobe.a $(LDLIBS)

# Every test program is a cmocka program printing TAP, run through
# scripts/tap-run.sh: a test skipped with MP_SKIP("why") (tests/mp_skip.h)
# becomes the passing skip "ok N - NAME # SKIP why" (cmocka's own skip line
# is a failure to prove), and the TAP is appended to a log, TAP_LOG=FILE
# (default $(BUILD)/test.tap, $(BUILD)/test-gpu.tap). prove runs the programs
# where it is installed (the GPU machine may lack it: then each runs in
# turn). At the end scripts/tap-summary.sh prints from the log
# "tests: N ok, N not ok, N skipped", one "skip: TEST WHY" per skip and one
# "fail: ..." per failure. The exit status is non-zero when any test failed
# or any program exited non-zero.
# $(call run_tap,LOG,PROGRAMS)
run_tap = mkdir -p '$(dir $(1))' && : > '$(1)' || exit 1; \
	if command -v prove >/dev/null 2>&1; then \
	    MP_TAP_LOG='$(1)' MEMPROBE=./$(BIN) prove -v --exec scripts/tap-run.sh $(2); rc=$$?; \
	else \
	    echo "prove not found: running the test programs one by one"; \
	    rc=0; for t in $(2); do \
	        echo "$$t .."; MP_TAP_LOG='$(1)' MEMPROBE=./$(BIN) scripts/tap-run.sh $$t || rc=1; \
	    done; \
	fi; \
	echo "summary of $(1):"; scripts/tap-summary.sh '$(1)' || rc=1; exit $$rc

# CPU tests: tests/test_*.c.
test: $(BIN) $(TESTS)
	@$(call run_tap,$(or $(call cmdline,TAP_LOG),$(BUILD)/test.tap),$(TESTS))

# GPU tests: tests/gpu/test_*.c, run on the GPU machine.
test-gpu: $(BIN) $(GPU_TESTS) $(PROFILE_APP) $(CPP_APP) $(REAL_CPP) $(MANY_LAUNCHES) $(INJECT_SO) $(CLIENT_SO)
	@$(call run_tap,$(or $(call cmdline,TAP_LOG),$(BUILD)/test-gpu.tap),$(GPU_TESTS))

# The fleet scripts (scripts/slurm/) under a real Slurm: a one-node cluster
# started in a temporary directory, the sweeps on the fake device
# (tests/slurm/test_slurm.sh, 180 s at most); one passing skip without root
# or without slurm-wlm and munge. TAP_LOG=file (default build/test-slurm.tap).
.PHONY: test-slurm
test-slurm: $(BIN)
	@$(call run_tap,$(or $(call cmdline,TAP_LOG),$(BUILD)/test-slurm.tap),tests/slurm/test_slurm.sh)

# make probe-NAME VAR=value ...: measure probe NAME (memprobe list shows the
# probes); every parameter is a variable named like its option in capitals
# (make probe-bank STRIDE=4 WIDTH=8, make probe-const SPREAD=8). Values may
# be lists and ranges. OUT=file sets the CSV (from the environment too).
# make predict-NAME prints the model's prediction without a GPU
# (BLOCK_X=16 is --block-x 16; values are quoted, so OFFSETS='0;16;...'
# stays one value). The parameters count only from the command line, so
# the environment cannot change a measurement.
# The variables come from the families' parameter tables and the run
# options: probes/make-vars.mk, generated by `make make-vars` (memprobe list
# --make-vars; tests/test_make.c fails when it is stale).
include probes/make-vars.mk
PARAM_VARS := $(MP_PARAM_VARS) $(MP_RUN_VARS)
SHAPE_VARS := THREADS BLOCKS ITERATIONS $(MP_RUN_VARS)
lc = $(shell echo $(1) | tr A-Z_ a-z-)
given = $(foreach v,$(1),$(if $(filter command line,$(origin $(v))),--$(call lc,$(v)) '$($(v))'))
# predict takes no launch shape but the block (THREADS).
PREDICT_VARS := $(filter-out $(filter-out THREADS,$(SHAPE_VARS)),$(PARAM_VARS))

# Any other variable on the command line of probe-NAME or predict-NAME is
# refused before anything is built or run: a typo (STRDIE=4) would
# otherwise measure the default. Allowed besides the parameters: OUT
# (probe-NAME) and the build's own variables.
BUILD_VARS := ARCH SANITIZE FUZZ DEPS DEPS_DIR CUDA_HOME CC NVCC CFLAGS \
	NVCCFLAGS LDFLAGS
# `make test TAP_LOG=...` hands its variables to the makes its tests run
# (MAKEFLAGS): they reach probe-NAME from there, not from a typo.
BUILD_VARS += TAP_LOG
cmdline_vars = $(sort $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))
# $(call refuse_unknown,GOAL PATTERN,KNOWN VARIABLES)
refuse_unknown = $(foreach g,$(firstword $(filter $(1),$(MAKECMDGOALS))),$(if $(filter-out $(2),$(cmdline_vars)),$(error make $(g): unknown variable $(foreach v,$(filter-out $(2),$(cmdline_vars)),$(v)=$($(v))); known: $(2) (memprobe $(patsubst predict-%,%,$(patsubst probe-%,%,$(g))) --help lists the probe's parameters))))
$(call refuse_unknown,probe-%,$(PARAM_VARS) OUT $(BUILD_VARS))
$(call refuse_unknown,predict-%,$(PREDICT_VARS) $(BUILD_VARS))

# $(call memprobe,ARGS): the recipe that runs ./memprobe ARGS, shown as
# make shows a command (not under -s or -n). make exits 2 whenever a recipe
# fails, so a failing memprobe's own status (README: 2 bad input, 3 no GPU,
# ...) is said in one more line: "make: memprobe exited N".
make_quiet = $(findstring s,$(firstword -$(MAKEFLAGS)))$(findstring n,$(firstword -$(MAKEFLAGS)))
memprobe = $(if $(make_quiet),,$(info ./$(BIN) $(strip $(1))))@./$(BIN) $(1) || { s=$$?; echo "make: memprobe exited $$s" >&2; exit $$s; }

probe-%: $(BIN)
	$(call memprobe,$* $(call given,$(PARAM_VARS)) $(if $(OUT_FILE),-o $(OUT_FILE)))

predict-%: $(BIN)
	$(call memprobe,predict $* $(call given,$(PREDICT_VARS)))

# make fuzz [FUZZ_SECONDS=n]: each libFuzzer target (tests/fuzz/) for n
# seconds (default 20), starting from its committed seed corpus; new inputs
# go to build/fuzz/corpus, crashes to build/fuzz/crash-*. A crash fails the
# target: copy its input to tests/fuzz/regress/NAME/ (replayed by make test)
# and fix the parser.
FUZZ_SECONDS := $(or $(call cmdline,FUZZ_SECONDS),20)
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.c build/fuzz/libmemprobe.a
	$(CC) $(CFLAGS) -fsanitize=fuzzer,address,undefined -Itests/fuzz -o $@ $< tests/fuzz/fuzz_util.c build/fuzz/libmemprobe.a $(LDLIBS)

# The host paths that need no GPU under valgrind (scripts/valgrind-host.sh).
.PHONY: valgrind
valgrind: $(BIN)
	scripts/valgrind-host.sh ./$(BIN)

.PHONY: fuzz fuzzers
fuzzers: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
fuzz:
	$(MAKE) -j4 FUZZ=1 fuzzers
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p build/fuzz/corpus/$$t; \
	    ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	        -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	        -artifact_prefix=build/fuzz/crash-$$t- \
	        build/fuzz/corpus/$$t tests/fuzz/corpus/$$t > build/fuzz/$$t.log 2>&1 \
	        || { tail -40 build/fuzz/$$t.log; echo "fuzz $$t: FAILED (input in build/fuzz/crash-$$t-*)" >&2; exit 1; }; \
	    printf 'fuzz %-12s %s s, %s runs, corpus %s inputs\n' $$t $(FUZZ_SECONDS) \
	        "$$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/$$t.log)" \
	        "$$(ls build/fuzz/corpus/$$t tests/fuzz/corpus/$$t | grep -vc ':$$\|^$$')"; \
	done

clean:
	rm -rf $(BUILD) $(BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Counters from memprobe's collector against Nsight Compute's (GPU + ncu).
ncu-check: $(BIN)
	$(call memprobe,ncu-check $(if $(call cmdline,PROBE),--probe $(call cmdline,PROBE)))

# make hazards [OUT=file] [TIMEOUT=s]: the hazard catalogue (GPU and
# compute-sanitizer): the seeds' reduction bugs, each run with a result check
# and under memcheck, racecheck, synccheck and initcheck, each run in a child
# process killed after TIMEOUT seconds (default 20; from the command line
# only); prints hazard x tool -> caught / not caught with the tools'
# findings (docs/hazards.md).
hazards: $(BIN)
	$(call memprobe,hazards $(if $(OUT_FILE),-o $(OUT_FILE)) $(call given,TIMEOUT))

# make sanitize [SUMMARY=file]: every probe family's standard
# configurations under compute-sanitizer memcheck, racecheck, synccheck and
# initcheck (GPU machine; scripts/sanitize.sh); any finding fails.
.PHONY: sanitize
sanitize: $(BIN)
	scripts/sanitize.sh ./$(BIN) $(or $(call cmdline,SUMMARY),/dev/null)

# make sweep CONFIG=configs/bank.conf [OUT=file] [RESUME=1]: every
# configuration of a sweep file (docs/sweep-files.md), one CSV row each;
# RESUME=1 skips those OUT already holds. `./memprobe sweep FILE --list`
# shows them without a GPU.
sweep: $(BIN)
	@test -n "$(call cmdline,CONFIG)" || { echo "make sweep: give CONFIG=configs/NAME.conf" >&2; exit 2; }
	$(call memprobe,sweep $(call cmdline,CONFIG) $(if $(OUT_FILE),-o $(OUT_FILE)) $(if $(call cmdline,RESUME),--resume))

# make study: configs/study.conf into results/DEVICE/study.csv (DEVICE from
# the GPU's name: h200 for an NVIDIA H200) or OUT=file. It always resumes:
# an interrupted study continues where it stopped; remove the CSV to start
# over. Without a GPU it prints the predictions and exits with status 3.
study: $(BIN)
	@out="$(OUT_FILE)"; \
	if [ -z "$$out" ]; then \
	    dev=$$(./$(BIN) device 2>/dev/null | sed -n '1{s/^device [0-9]*: //;s/^NVIDIA //;p;}' \
	           | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9\n' '-' | sed 's/^-//;s/-$$//'); \
	    if [ -z "$$dev" ]; then \
	        echo "make study: no GPU visible, nothing measured; the model predicts:" >&2; \
	        ./$(BIN) sweep configs/study.conf --predict; exit 3; \
	    fi; \
	    mkdir -p results/$$dev && out=results/$$dev/study.csv; \
	fi; \
	echo "./$(BIN) sweep configs/study.conf -o $$out --resume"; \
	./$(BIN) sweep configs/study.conf -o "$$out" --resume

# Tables, plots and the study from result CSVs (no GPU needed).
#   make report [FILES="a.csv ..."] [FORMAT=txt|md|csv] [TABLE=bank]
#   make plots [FILES=...] [PLOTS=dir]   SVG and PNG by gnuplot (gnuplot-nox)
#   make study-report    docs/study.md and docs/plots from results/h200
# FILES defaults to every CSV in results/h200's folders (results/h200/*/*.csv,
# one folder per probe family; the cross-checks, repeats and other runs one
# level deeper are left out, results/h200/README.md; Nsight Compute's own
# CSVs are skipped with a note). The plot step alone needs gnuplot: without
# it, it says what to install and fails; the tables are written before it.
FILES := $(or $(call cmdline,FILES),$(wildcard results/h200/*.csv results/h200/*/*.csv))
FORMAT := $(or $(call cmdline,FORMAT),txt)
PLOTS := $(or $(call cmdline,PLOTS),$(BUILD)/plots)
GNUPLOT ?= gnuplot
PLOT_SCRIPTS := $(wildcard probes/*/*.gp)
# $(call run_gnuplot,DATADIR,OUTDIR): every family's gnuplot script.
run_gnuplot = if ! command -v $(GNUPLOT) >/dev/null 2>&1; then \
	    echo "make: gnuplot not found: install it to draw the plots (Debian/Ubuntu: apt-get install gnuplot-nox); the tables do not need it" >&2; \
	    exit 1; \
	fi; \
	mkdir -p $(2) && for s in $(PLOT_SCRIPTS); do \
	    $(GNUPLOT) -e "datadir='$(1)'; outdir='$(2)'" $$s || exit 1; \
	done; \
	echo "plots in $(2)"

# make counters-doc: docs/counters-by-chip.md, every metric set on every
# chip the CUPTI host API knows (no GPU; tests/test_chips.c, which make
# test runs to check the committed file).
.PHONY: counters-doc
counters-doc: $(BUILD)/tests/test_chips
	MP_UPDATE_DOCS=1 $(BUILD)/tests/test_chips

# make make-vars: probes/make-vars.mk from the families' parameter tables
# (after a new family or parameter; no GPU).
.PHONY: make-vars
make-vars: $(BIN)
	./$(BIN) list --make-vars > probes/make-vars.mk

.PHONY: report plots study-report
report: $(BIN)
	$(call memprobe,report --format $(FORMAT) $(if $(call cmdline,TABLE),--table $(call cmdline,TABLE)) $(FILES))

plots: $(BIN)
	./$(BIN) report --plot-data $(PLOTS)/data $(FILES)
	@$(call run_gnuplot,$(PLOTS)/data,$(PLOTS))

study-report: $(BIN)
	./$(BIN) report --study docs/study.md --plot-data $(BUILD)/study-plots
	@$(call run_gnuplot,$(BUILD)/study-plots,docs/plots)

# ---- make install, make uninstall (GNU conventions) ---------------------
#   make install [PREFIX=/usr/local] [DESTDIR=stage]   (prefix=... too)
#   make uninstall [PREFIX=...] [DESTDIR=...]
# PREFIX and DESTDIR count from the environment too (see cmdline above).
# The layout below the prefix is fixed, because memprobe finds its files by
# their places relative to its own executable (runtime/own_files.h): an
# installed memprobe works from any directory, also after the whole prefix
# is moved.
#   PREFIX/bin/memprobe
#   PREFIX/lib/memprobe/     the injection and client libraries, the capture
#                            library and its patches (where built), the
#                            CUPTI beside them, and libcsv and inih when
#                            the build took them from DEPS (.deps/)
#   PREFIX/share/memprobe/   the gnuplot scripts (plots/*.gp) and the
#                            committed data memprobe reads at run time:
#                            results/h200/FAMILY/*.csv (explain's H200
#                            figures; the study's CSVs) and the study's
#                            other inputs (STUDY_INPUTS)
# The installed binary is linked again, with RPATH the toolkit's lib64 then
# $ORIGIN/../lib/memprobe (for DEPS' libraries) instead of the checkout's
# .deps/; the injection library's RPATH is $ORIGIN already. Nothing of it
# needs a GPU. tests/test_install.c installs, moves the prefix and runs the
# README's examples that need no GPU from another directory
# (make test-install runs it alone).
PREFIX := $(or $(call fromuser,prefix),$(call fromuser,PREFIX),/usr/local)
DESTDIR := $(call fromuser,DESTDIR)
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
ifneq ($(patsubst /%,,$(PREFIX)),)
$(error make $(firstword $(filter install uninstall,$(MAKECMDGOALS))): PREFIX=$(PREFIX): give an absolute path)
endif
endif
bindir := $(PREFIX)/bin
pkglibdir := $(PREFIX)/lib/memprobe
pkgdatadir := $(PREFIX)/share/memprobe
STUDY_INPUTS := results/h200/device/device.txt \
	results/h200/hazards/catalogue/hazards.csv \
	results/h200/latency/partitions/l2map.csv \
	results/h200/suite/gpu-test-probes-summary.txt \
	results/h200x2/transfer-p2p.csv
INSTALL_DATA := $(wildcard $(patsubst probes/%,results/h200/%/*.csv,$(FAMILY_DIRS)) \
	results/h200/study/*.csv) $(STUDY_INPUTS)
INSTALL_LIBS := $(INJECT_SO) $(CLIENT_SO) $(addprefix $(BUILD)/lib/,$(CUPTI_LIBS)) \
	$(if $(HAVE_SANITIZER),$(CAPTURE_SO))
INSTALL_BIN := $(BUILD)/install/memprobe
comma := ,
# built by make too, so that `sudo make install` only copies
all: $(INSTALL_BIN)

$(INSTALL_BIN): $(BUILD)/cli/main.o $(BUILD)/libmemprobe.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(filter-out -Wl$(comma)-rpath$(comma)%,$(LDLIBS)) \
	    -Wl,-rpath,'$$ORIGIN/../lib/memprobe'

.PHONY: install uninstall test-install
install: $(INSTALL_BIN) $(INJECT_SO) $(CLIENT_SO) $(BUILD)/lib/cupti-libs \
	$(if $(HAVE_SANITIZER),$(CAPTURE_SO) $(CAPTURE_FATBIN))
	install -d '$(DESTDIR)$(bindir)' '$(DESTDIR)$(pkglibdir)' '$(DESTDIR)$(pkgdatadir)/plots'
	install -m 755 $(INSTALL_BIN) '$(DESTDIR)$(bindir)/memprobe'
	install -m 755 $(INSTALL_LIBS) '$(DESTDIR)$(pkglibdir)'
	$(if $(HAVE_SANITIZER),install -m 644 $(CAPTURE_FATBIN) '$(DESTDIR)$(pkglibdir)')
	$(if $(DEPS),for l in $$(readelf -d $(INSTALL_BIN) | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do \
	    if [ -e $(DEPS_LIB)/$$l ]; then install -m 644 $(DEPS_LIB)/$$l '$(DESTDIR)$(pkglibdir)' || exit 1; fi; \
	done)
	install -m 644 $(PLOT_SCRIPTS) '$(DESTDIR)$(pkgdatadir)/plots'
	@echo "install -m 644 results/... $(DESTDIR)$(pkgdatadir)/results/ ($(words $(INSTALL_DATA)) files)"
	@for f in $(INSTALL_DATA); do \
	    install -D -m 644 $$f '$(DESTDIR)$(pkgdatadir)'/$$f || exit 1; \
	done

uninstall:
	rm -f '$(DESTDIR)$(bindir)/memprobe'
	rm -rf '$(DESTDIR)$(pkglibdir)' '$(DESTDIR)$(pkgdatadir)'

test-install: $(BIN) $(BUILD)/tests/test_install
	@$(call run_tap,$(or $(call cmdline,TAP_LOG),$(BUILD)/test-install.tap),$(BUILD)/tests/test_install)
