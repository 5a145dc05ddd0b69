# memprobe - GPU memory-behaviour microbenchmarks.
#
#   make                      build ./memprobe
#   make probe-bank STRIDE=4  measure one bank configuration (needs a GPU)
#   make predict-bank ...     the model's prediction only (no GPU)
#   make test                 CPU tests (no GPU needed)
#   make test-gpu             GPU tests (on the GPU machine)
#   make sweep CONFIG=f.conf  run a sweep file (docs/sweep-files.md)
#   make study                the study sweep, configs/study.conf (GPU)
#   make clean
#
# Host code is C11 compiled by gcc; kernels are CUDA C compiled by nvcc for
# sm_$(ARCH) with PTX for later GPUs. Objects go to build/.

CUDA_HOME ?= /usr/local/cuda
ARCH ?= 90
CC ?= gcc
NVCC ?= $(CUDA_HOME)/bin/nvcc

BUILD := build
# shim/ holds an empty <string> so that cupti_profiler_host.h compiles as C;
# it must not reach nvcc, whose C++ headers need the real one.
INCLUDES := -Iruntime -Imodel -Iprobes -Ireport -I$(CUDA_HOME)/include
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -D_GNU_SOURCE -Ishim $(INCLUDES) -MMD -MP
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 -gencode arch=compute_$(ARCH),code=[sm_$(ARCH),compute_$(ARCH)] \
	$(INCLUDES) -Xcompiler -Wall,-Wextra -MMD -MP
LDLIBS := -L$(CUDA_HOME)/lib64 -Wl,--disable-new-dtags,-rpath,$(CUDA_HOME)/lib64 \
	-lcupti -lcudart_static -lcsv -linih -lstdc++ -ldl -lpthread -lrt -lm

# DEPS=dir: libraries unpacked from Debian packages (libcsv, inih, cmocka) for a
# machine that cannot install them, such as the GPU machine: see
# scripts/fetch-gpu-deps.sh.
ifneq ($(DEPS),)
CFLAGS += -I$(DEPS)/usr/include
LDLIBS := -L$(DEPS)/usr/lib/x86_64-linux-gnu \
	-Wl,-rpath,$(abspath $(DEPS))/usr/lib/x86_64-linux-gnu $(LDLIBS)
endif

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

LIB_C := $(filter-out runtime/main.c,$(wildcard runtime/*.c model/*.c probes/*.c report/*.c))
LIB_CU := $(wildcard probes/*.cu)
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o) $(LIB_CU:%.cu=$(BUILD)/%.cu.o)
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
GPU_TESTS := $(patsubst tests/gpu/%.c,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/test_*.c))
GPU_UTIL := tests/gpu/gpu_util.c
# The harness of the CPU tests that run ./memprobe (tests/cli_util.c, not a
# test itself), compiled once by the %.o rule and linked into every test.
CLI_UTIL := $(BUILD)/tests/cli_util.o
.SECONDARY: $(CLI_UTIL)

.PHONY: all clean test test-gpu ncu-check sweep study hazards
all: memprobe

memprobe: $(BUILD)/runtime/main.o $(BUILD)/libmemprobe.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libmemprobe.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

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

# CPU tests: every tests/test_*.c is a cmocka program printing TAP; prove
# runs them and prints the totals.
test: memprobe $(TESTS)
	CMOCKA_MESSAGE_OUTPUT=TAP MEMPROBE=./memprobe prove -v --exec '' $(TESTS)

# GPU tests: tests/gpu/test_*.c, run on the GPU machine (where prove may be
# missing: then cmocka's own summary says how many passed).
test-gpu: memprobe $(GPU_TESTS)
	if command -v prove >/dev/null; then \
	    CMOCKA_MESSAGE_OUTPUT=TAP MEMPROBE=./memprobe prove -v --exec '' $(GPU_TESTS); \
	else \
	    rc=0; for t in $(GPU_TESTS); do MEMPROBE=./memprobe $$t || rc=1; done; exit $$rc; \
	fi

# make probe-NAME VAR=value ...: measure probe NAME (memprobe list shows the
# probes); every parameter is a variable named like its option in capitals
# (make probe-bank STRIDE=4 WIDTH=8, make probe-const SPREAD=8). Values may
# be lists and ranges. OUT=file sets the CSV. make predict-NAME prints the
# model's prediction without a GPU. Only variables given on the command line
# count, so the environment cannot change a measurement.
PARAM_VARS := OP WIDTH STRIDE BASE GROUP PERIOD PAD OFFSET LAYOUT CACHE \
	KERNEL BYTES INFLIGHT SPREAD SPACING SOURCE ACCESS SIZE VARIANT WORKLOAD \
	THREADS BLOCKS ITERATIONS WARMUP RUNS COUNTERS
SHAPE_VARS := THREADS BLOCKS ITERATIONS WARMUP RUNS COUNTERS
lc = $(shell echo $(1) | tr A-Z a-z)
given = $(foreach v,$(1),$(if $(filter command line,$(origin $(v))),--$(call lc,$(v)) $($(v))))

probe-%: memprobe
	./memprobe $* $(call given,$(PARAM_VARS)) $(if $(OUT),-o $(OUT))

predict-%: memprobe
	./memprobe predict $* $(call given,$(filter-out $(filter-out THREADS,$(SHAPE_VARS)),$(PARAM_VARS)))

clean:
	rm -rf $(BUILD) memprobe

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Counters from memprobe's collector against Nsight Compute's (GPU + ncu).
ncu-check: memprobe
	./memprobe ncu-check $(if $(PROBE),--probe $(PROBE))

# make hazards [OUT=file] [TIMEOUT=s]: the hazard catalogue (GPU and
# compute-sanitizer): the seeds' reduction bugs, each run with a result check
# and under memcheck, racecheck, synccheck and initcheck, each run in a child
# process killed after TIMEOUT seconds (default 20; from the command line
# only); prints hazard x tool -> caught / not caught with the tools'
# findings (docs/hazards.md).
hazards: memprobe
	./memprobe hazards $(if $(OUT),-o $(OUT)) $(call given,TIMEOUT)

# make sweep CONFIG=configs/bank.conf [OUT=file] [RESUME=1]: every
# configuration of a sweep file (docs/sweep-files.md), one CSV row each;
# RESUME=1 skips those OUT already holds. `./memprobe sweep FILE --list`
# shows them without a GPU.
sweep: memprobe
	@test -n "$(CONFIG)" || { echo "make sweep: give CONFIG=configs/NAME.conf" >&2; exit 2; }
	./memprobe sweep $(CONFIG) $(if $(OUT),-o $(OUT)) $(if $(RESUME),--resume)

# make study: configs/study.conf into results/DEVICE/study.csv (DEVICE from
# the GPU's name: h200 for an NVIDIA H200) or OUT=file. It always resumes:
# an interrupted study continues where it stopped; remove the CSV to start
# over. Without a GPU it prints the predictions and exits with status 3.
study: memprobe
	@out="$(OUT)"; \
	if [ -z "$$out" ]; then \
	    dev=$$(./memprobe device 2>/dev/null | sed -n '1{s/^device [0-9]*: //;s/^NVIDIA //;p;}' \
	           | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9\n' '-' | sed 's/^-//;s/-$$//'); \
	    if [ -z "$$dev" ]; then \
	        echo "make study: no GPU visible, nothing measured; the model predicts:" >&2; \
	        ./memprobe sweep configs/study.conf --predict; exit 3; \
	    fi; \
	    mkdir -p results/$$dev && out=results/$$dev/study.csv; \
	fi; \
	echo "./memprobe sweep configs/study.conf -o $$out --resume"; \
	./memprobe sweep configs/study.conf -o "$$out" --resume

# Tables, plots and the study from result CSVs (issue 7; no GPU needed).
#   make report [FILES="a.csv ..."] [FORMAT=txt|md|csv] [TABLE=bank]
#   make plots [FILES=...] [PLOTS=dir]   SVG and PNG by gnuplot (gnuplot-nox)
#   make study-report    docs/study.md and docs/plots from results/h200
# FILES defaults to every CSV in results/h200 (Nsight Compute's own CSVs
# there are skipped with a note). The plot step alone needs gnuplot: without
# it, it says what to install and fails; the tables are written before it.
FILES ?= $(wildcard results/h200/*.csv)
FORMAT ?= txt
PLOTS ?= $(BUILD)/plots
GNUPLOT ?= gnuplot
PLOT_SCRIPTS := $(wildcard scripts/plots/*.gp)
# $(call run_gnuplot,DATADIR,OUTDIR): every script in scripts/plots.
run_gnuplot = if ! command -v $(GNUPLOT) >/dev/null 2>&1; then \
	    echo "make: gnuplot not found: install it to draw the plots (Debian/Ubuntu: apt-get install gnuplot-nox); the tables do not need it" >&2; \
	    exit 1; \
	fi; \
	mkdir -p $(2) && for s in $(PLOT_SCRIPTS); do \
	    $(GNUPLOT) -e "datadir='$(1)'; outdir='$(2)'" $$s || exit 1; \
	done; \
	echo "plots in $(2)"

.PHONY: report plots study-report
report: memprobe
	./memprobe report --format $(FORMAT) $(if $(TABLE),--table $(TABLE)) $(FILES)

plots: memprobe
	./memprobe report --plot-data $(PLOTS)/data $(FILES)
	@$(call run_gnuplot,$(PLOTS)/data,$(PLOTS))

study-report: memprobe
	./memprobe report --study docs/study.md --plot-data $(BUILD)/study-plots
	@$(call run_gnuplot,$(BUILD)/study-plots,docs/plots)
