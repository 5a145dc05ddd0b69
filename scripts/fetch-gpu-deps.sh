#!/usr/bin/env bash
# fetch-gpu-deps.sh - unpack the Debian packages memprobe links (libcsv,
# inih, cmocka) into .deps/, for the GPU machine, which reaches no package
# registry. Copy .deps/ to the GPU machine with the tree and build there
# with `make DEPS=.deps` (scripts/gpu-check.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
(cd "$tmp" && apt-get download libcsv3 libcsv-dev libcmocka0 libcmocka-dev libinih1 libinih-dev)
rm -rf .deps
for f in "$tmp"/*.deb; do dpkg -x "$f" .deps; done
rm -rf "$tmp"
echo "unpacked into .deps/"
