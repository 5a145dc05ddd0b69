#!/usr/bin/env bash
# profile-clients.sh - on the GPU machine after `make`: programs that run
# their own CUPTI client (torch.profiler, jax.profiler) under memprobe
# profile, alone and profiled, with the client library's messages; the C++
# program's raw launch rows and memory instructions (launch_ops, no
# cubins) to see how profile.csv's load/store split is made; and the time
# of a small PyTorch program under memprobe and under ncu's SASS metrics.
# Writes under $1.
set -u
D=${1:?usage: profile-clients.sh OUTDIR}
mkdir -p "$D"
R=tests/profile/real
M="smsp__sass_inst_executed.sum,smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_sectors_mem_global.sum"
t() {  # t NAME COMMAND...: its output and wall time
    local n=$1; shift
    local t0 t1
    t0=$(date +%s.%N)
    timeout 200 "$@" > "$D/$n.txt" 2>&1
    echo "rc=$?" >> "$D/$n.txt"
    t1=$(date +%s.%N)
    echo "$n $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s $(tail -1 "$D/$n.txt")" >> "$D/times.txt"
}
nvcc -O2 -lineinfo -arch=sm_90 --extended-lambda -o "$D/cpp_app" $R/cpp_app.cu -lcublas > "$D/cpp-build.txt" 2>&1
t cpp-profile ./memprobe profile --keep-raw "$D/cpp-raw" -o "$D/cpp.csv" -- "$D/cpp_app"
rm -f "$D"/cpp-raw/cubin* "$D/cpp_app"
for p in torch_profiler jax_profiler; do
    t $p-alone python3 $R/$p.py
    t $p-memprobe ./memprobe profile -o "$D/$p.csv" -- python3 $R/$p.py
    MEMPROBE_DEBUG=1 timeout 200 ./memprobe profile -o "$D/$p-dbg.csv" -- python3 $R/$p.py 2>&1 \
        | grep -i -E "cupti|subscri|memprobe: the|refused|profiler" | head -40 > "$D/$p-debug.txt"
    t $p-ncu ncu --csv --page raw --print-units base --clock-control none --metrics "$M" \
        --print-kernel-base mangled python3 $R/$p.py
done
t torch_eager-alone python3 $R/torch_eager.py
t torch_eager-memprobe ./memprobe profile -o "$D/torch_eager.csv" -- python3 $R/torch_eager.py
MEMPROBE_DEBUG=1 ./memprobe profile -o "$D/torch_eager-dbg.csv" -- python3 $R/torch_eager.py > "$D/torch_eager-debug-full.txt" 2>&1
t torch_eager-ncu ncu --csv --page raw --print-units base --clock-control none --metrics "$M" \
    --print-kernel-base mangled python3 $R/torch_eager.py
cat "$D/times.txt"
