#!/usr/bin/env bash
# gpu-gate.sh - the GPU gate: code lands only with a green full
# `make test-gpu` of its own final commit, recorded in
# results/h200/test-gpu.txt by scripts/gpu-check.sh (step gate):
#   commit: <40-hex>   result: PASS|FAIL   duration_s: N
#   tests: N ok, N not ok, N skipped       skip: <test> <why> (one a skip)
#
#   scripts/gpu-gate.sh commit   prints HEAD's hash for the gate run on
#                                the GPU machine (GPU_COMMIT=...),
#                                refusing a dirty tree
#   scripts/gpu-gate.sh check    exit 0 when the record says PASS for a
#                                commit of HEAD's history and nothing but
#                                docs/, results/ and *.md changed since;
#                                else exit 1 with one line saying why
# .ci/run runs `check`. RECORD=path reads another record.
set -euo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || dirname "$0")"
record=${RECORD:-results/h200/test-gpu.txt}
fail() { echo "gpu-gate: $*" >&2; exit 1; }
case ${1:-} in
commit)
    git rev-parse --verify -q HEAD >/dev/null || fail "not a git checkout"
    dirty=$(git status --porcelain --untracked-files=normal)
    [ -z "$dirty" ] || fail "the tree differs from HEAD; commit first: $(echo $dirty | head -c 200)"
    git rev-parse HEAD ;;
check)
    [ -f "$record" ] || fail "no $record: no green full test-gpu recorded"
    commit=$(sed -n 's/^commit: \([0-9a-f]\{40\}\)$/\1/p' "$record" | head -1)
    result=$(sed -n 's/^result: \([A-Z]*\)$/\1/p' "$record" | head -1)
    [ -n "$commit" ] || fail "$record has no 'commit: <40 hex digits>' line"
    [ "$result" = PASS ] || fail "$record says result: ${result:-nothing} at ${commit:0:12}"
    grep -q '^tests: [0-9]* ok, 0 not ok, [0-9]* skipped$' "$record" \
        || fail "$record has no 'tests: N ok, 0 not ok, N skipped' line"
    git cat-file -e "$commit^{commit}" 2>/dev/null \
        || fail "$record names ${commit:0:12}, which this clone does not have"
    git merge-base --is-ancestor "$commit" HEAD \
        || fail "$record names ${commit:0:12}, not a commit of HEAD's history"
    code=$(git diff --name-only "$commit" HEAD | grep -v -E '^(docs/|results/)|\.md$' || true)
    [ -z "$code" ] || fail "code changed after the GPU gate's commit ${commit:0:12}, without a full test-gpu: $(echo $code | head -c 300)"
    echo "gpu-gate: PASS at ${commit:0:12} ($(sed -n 's/^duration_s: //p' "$record" | head -1) s); HEAD changes only docs/results since" ;;
*)
    echo "usage: scripts/gpu-gate.sh commit|check" >&2
    exit 2 ;;
esac
