#!/bin/bash
# submit.sh - a memprobe sweep over a fleet with Slurm: an array of SHARDS
# tasks (one GPU each, one shard of the sweep each), then the merge once
# every task has succeeded.
#
#   scripts/slurm/submit.sh [--wait] CONFIG SHARDS OUTDIR [sbatch options] [-- sweep options]
#   scripts/slurm/submit.sh configs/study.conf 16 results/fleet -p gpu
#   scripts/slurm/submit.sh --wait configs/bank.conf 4 results/fleet -p gpu -- --counters off
#
# The sbatch options go to both jobs (the merge with --gres=none after
# them: it needs no GPU), the sweep options to each task's `memprobe sweep`. Logs: OUTDIR/memprobe-shard-JOB_K.log per task,
# OUTDIR/memprobe-merge-JOB.log. If a task fails, the merge never runs
# (Slurm cancels it); submitting the same command again runs the shards
# again, and each skips what its CSV already holds (--resume).
#
# --wait: stay until the array and the merge are over (polling squeue every
# MEMPROBE_POLL_S seconds, default 10); name every shard that did not
# complete (its state, exit code, log and the log's last lines) and exit 1
# when one did not or the merge failed.
# MEMPROBE: the memprobe binary (default ./memprobe), here and in the jobs.
set -eu
usage="usage: submit.sh [--wait] CONFIG SHARDS OUTDIR [sbatch options] [-- sweep options]"
wait=0
if [ "${1:-}" = --wait ]; then
    wait=1
    shift
fi
CONFIG=${1:?$usage}
SHARDS=${2:?$usage}
OUTDIR=${3:?$usage}
shift 3
case $SHARDS in
    '' | *[!0-9]* | 0) echo "submit.sh: SHARDS: '$SHARDS' is not a count of 1 or more" >&2; exit 2 ;;
esac
sbatch_opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    sbatch_opts+=("$1")
    shift
done
[ $# -gt 0 ] && shift
sweep_opts=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
MEMPROBE=${MEMPROBE:-./memprobe}
export MEMPROBE
POLL_S=${MEMPROBE_POLL_S:-10}

# Bad sweep files and options fail here, before anything is queued.
"$MEMPROBE" sweep "$CONFIG" --list "${sweep_opts[@]}" > /dev/null
mkdir -p "$OUTDIR"
job=$(sbatch --parsable --output="$OUTDIR/memprobe-shard-%A_%a.log" \
      "${sbatch_opts[@]}" --array=0-$((SHARDS - 1)) \
      "$HERE/sweep-array.sbatch" "$CONFIG" "$OUTDIR" "${sweep_opts[@]}")
job=${job%%;*}
merge=$(sbatch --parsable --output="$OUTDIR/memprobe-merge-%j.log" \
        "${sbatch_opts[@]}" --gres=none --dependency=afterok:"$job" --kill-on-invalid-dep=yes \
        "$HERE/merge.sbatch" "$OUTDIR")
merge=${merge%%;*}
echo "array job $job ($SHARDS shards of $CONFIG), merge job $merge -> $OUTDIR/merged.csv"
[ "$wait" = 1 ] || exit 0

# Waits until job $1 (every task of an array) has left the queue.
wait_for() {
    while [ -n "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; do
        sleep "$POLL_S"
    done
}

# "STATE EXITCODE" of job $1 (array task $2 if given) from the controller,
# which keeps a finished job for MinJobAge (300 s by default); "unknown -"
# once it has forgotten it.
state_of() {
    scontrol -o show job "$1" 2>/dev/null | awk -v task="${2:-}" '
        task != "" && !index($0, " ArrayTaskId=" task " ") { next }
        { for (i = 1; i <= NF; i++) {
              if ($i ~ /^JobState=/) st = substr($i, 10)
              if ($i ~ /^ExitCode=/) ec = substr($i, 10)
          }
          found = 1; exit }
        END { print (found ? st " " ec : "unknown -") }'
}

wait_for "$job"
failed=0
for ((k = 0; k < SHARDS; k++)); do
    read -r state code <<< "$(state_of "$job" "$k")"
    [ "$state" = COMPLETED ] && continue
    failed=$((failed + 1))
    log="$OUTDIR/memprobe-shard-${job}_$k.log"
    echo "submit.sh: shard $k of $SHARDS (task ${job}_$k) $state, exit code $code; log $log" >&2
    [ -r "$log" ] && tail -n 3 "$log" | sed 's/^/    /' >&2
done
if [ "$failed" -gt 0 ]; then
    scancel "$merge" 2>/dev/null || true
    echo "submit.sh: $failed of $SHARDS shards did not complete, so no merge;" \
         "submit the same command again to finish them (each resumes its CSV)" >&2
    exit 1
fi
wait_for "$merge"
read -r state code <<< "$(state_of "$merge")"
if [ "$state" != COMPLETED ]; then
    echo "submit.sh: the merge (job $merge) $state, exit code $code; log" \
         "$OUTDIR/memprobe-merge-$merge.log" >&2
    exit 1
fi
echo "merged: $OUTDIR/merged.csv (all $SHARDS shards completed)"
