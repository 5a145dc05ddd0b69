#!/usr/bin/env bash
# fetch-cupti.sh - downloads the CUPTI wheel the injection library builds
# against (PyPI's nvidia-cuda-cupti; docs/profile-design.md), without root.
#
#   scripts/fetch-cupti.sh DIR [VERSION]     (default .deps/cupti 13.5.25)
#
# Exit 0 when DIR holds a wheel (there already, or downloaded now),
# printing its path on stdout (the Makefile takes it from there: make's
# $(wildcard) would not see a file made during the same make). Else exit
# 1, printing nothing and leaving DIR/fetch-failed with one line saying why
# (the Makefile then builds against the toolkit's CUPTI and does not try
# again until `make cupti`). pip's output goes to DIR/fetch.log.
set -u
dir=${1:-.deps/cupti}
version=${2:-13.5.25}
mkdir -p "$dir" || exit 1
have_wheel() { compgen -G "$dir/*.whl" >/dev/null; }
found() {
    rm -f "$dir/fetch-failed"
    compgen -G "$dir/*.whl" | head -1
    exit 0
}
have_wheel && found
log="$dir/fetch.log"
pkg="nvidia-cuda-cupti==$version"
pip_download() {
    python3 -m pip download --no-deps --timeout 10 --retries 0 \
        --disable-pip-version-check -d "$dir" "$@" "$pkg" >>"$log" 2>&1
}
: >"$log"
if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 not found" >"$dir/fetch-failed"
    exit 1
fi
# The wheel is tagged manylinux_2_25_x86_64: name the platform when this
# pip does not pick it by itself.
if pip_download || pip_download --platform manylinux_2_25_x86_64 --only-binary=:all:; then
    have_wheel && found
fi
why=$(grep -E 'ERROR|Error|error' "$log" | tail -1 | cut -c1-200)
echo "pip download $pkg failed: ${why:-see $log}" >"$dir/fetch-failed"
exit 1
