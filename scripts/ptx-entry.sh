#!/usr/bin/env bash
# ptx-entry.sh FILE.cu ENTRY-REGEX [NVCC-ARGS...] - the PTX body of one
# kernel, compiled for sm_90 at -O3, with what does not change the code
# taken out: comments, line info, and every mangled name (the kernel's,
# its parameters', its shared arrays'). Two kernels with the same output
# compile to the same machine code. probes/bitmap/test_as_written.c uses it to show
# that a probe's "as written" kernel is the seed's.
set -euo pipefail
src=$1 entry=$2
shift 2
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nvcc" -O3 -std=c++17 -arch=sm_90 -ptx "$@" -o "$tmp/k.ptx" "$src"
awk -v re="$entry" '/^\.(visible|weak) \.entry/ { f = ($0 ~ re) } f' "$tmp/k.ptx" |
    grep -v -E '^[[:space:]]*//|\.loc[[:space:]]|\.file[[:space:]]' |
    sed -E 's/_Z[0-9A-Za-z_]+//g; s/\$[A-Za-z_]+[0-9]*//g' | awk 'NF'
