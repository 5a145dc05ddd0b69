#!/usr/bin/env bash
# profile-real.sh - `memprobe profile` and ncu side by side on programs of
# the kinds users run (tests/profile/real/: PyTorch eager, PyTorch with its
# own profiler, Triton, JAX, CuPy, Numba, CUDA C++ with templates and
# cuBLAS), on the GPU machine after `scripts/gpu-check.sh build profile`'s
# build. For each: the program alone, under memprobe profile (debug trace;
# raw files with KEEP_RAW=1), its --check, and ncu's per-launch SASS counts with
# mangled names; then `memprobe ncu-check --profile` on the C++, PyTorch
# and Triton programs. Writes under $1.
set -u
D=${1:?usage: profile-real.sh OUTDIR}
mkdir -p "$D"
R=tests/profile/real
NCU=${NCU:-ncu}
M="smsp__sass_inst_executed.sum,smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_sectors_mem_global.sum"
nvcc -O2 -lineinfo -arch=sm_90 --extended-lambda -o "$D/cpp_app" $R/cpp_app.cu -lcublas \
    > "$D/cpp_app-build.txt" 2>&1
cuobjdump -sass "$D/cpp_app" | grep Function > "$D/cpp_app-functions.txt" 2>&1
python3 - > "$D/versions.txt" 2>&1 <<'PY'
import os, torch
torch.zeros(1, device="cuda")
maps = open("/proc/self/maps").read().split("\n")
print("torch", torch.__version__, "cuda", torch.version.cuda)
print("\n".join(sorted({l.split()[-1] for l in maps if "cupti" in l or "libcuda" in l})))
PY
run() {  # run NAME COMMAND...: alone, under memprobe profile, under ncu
    local n=$1; shift
    local t0 t1
    t0=$(date +%s.%N); timeout 120 "$@" > "$D/$n-alone.txt" 2>&1; echo "rc=$?" >> "$D/$n-alone.txt"
    t1=$(date +%s.%N); echo "$n alone $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" >> "$D/times.txt"
    t0=$(date +%s.%N)
    # raw files (cubins included) only with KEEP_RAW=1: they can be larger
    # than the results tarball should be
    local keep=()
    [ "${KEEP_RAW:-0}" = 1 ] && keep=(--keep-raw "$D/$n-raw")
    MEMPROBE_DEBUG=1 timeout 180 ./memprobe profile "${keep[@]}" -o "$D/$n.csv" \
        -- "$@" > "$D/$n-memprobe.txt" 2>&1
    echo "rc=$?" >> "$D/$n-memprobe.txt"
    t1=$(date +%s.%N); echo "$n memprobe $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" >> "$D/times.txt"
    timeout 120 ./memprobe profile --check 'shared<=1.0,global<=1.0' -o "$D/$n-check.csv" \
        -- "$@" > "$D/$n-check.txt" 2>&1
    echo "rc=$?" >> "$D/$n-check.txt"
    t0=$(date +%s.%N)
    timeout 240 $NCU --csv --page raw --print-units base --clock-control none --metrics "$M" \
        --print-kernel-base mangled "$@" > "$D/$n-ncu.csv" 2> "$D/$n-ncu.err"
    t1=$(date +%s.%N); echo "$n ncu-metrics $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" >> "$D/times.txt"
    echo "$n rc: alone $(tail -1 "$D/$n-alone.txt") memprobe $(tail -1 "$D/$n-memprobe.txt") check $(tail -1 "$D/$n-check.txt") ncu-lines $(wc -l < "$D/$n-ncu.csv")" >> "$D/summary.txt"
}
run cpp "$D/cpp_app"
for p in torch_eager torch_profiler triton_add jax_jit; do
    run $p python3 $R/$p.py
done
for n in cpp torch_eager; do
    case $n in cpp) cmd="$D/cpp_app" ;; *) cmd="python3 $R/$n.py" ;; esac
    t0=$(date +%s.%N)
    timeout 300 ./memprobe ncu-check --dir "$D/$n-ncucheck" --profile -- $cmd > "$D/$n-ncu-check.txt" 2>&1
    echo "$n ncu-check rc=$?" >> "$D/summary.txt"
    t1=$(date +%s.%N); echo "$n ncu-check $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" >> "$D/times.txt"
    rm -f "$D/$n-ncucheck"/*.ncu-rep
done
cat "$D/times.txt" "$D/summary.txt"
