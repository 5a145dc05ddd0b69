#!/bin/bash
# submit.sh - a memprobe sweep over a fleet with Slurm: an array of SHARDS
# tasks (one GPU each, one shard of the sweep each), then the merge once
# every task has succeeded.
#
#   scripts/slurm/submit.sh CONFIG SHARDS OUTDIR [sbatch options...]
#   scripts/slurm/submit.sh configs/study.conf 16 results/fleet -p gpu
set -eu
CONFIG=${1:?usage: submit.sh CONFIG SHARDS OUTDIR [sbatch options]}
SHARDS=${2:?usage: submit.sh CONFIG SHARDS OUTDIR [sbatch options]}
OUTDIR=${3:?usage: submit.sh CONFIG SHARDS OUTDIR [sbatch options]}
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
# Bad sweep files fail here, before anything is queued.
./memprobe sweep "$CONFIG" --list > /dev/null
job=$(sbatch --parsable "$@" --array=0-$((SHARDS - 1)) \
      "$HERE/sweep-array.sbatch" "$CONFIG" "$OUTDIR")
job=${job%%;*}
merge=$(sbatch --parsable "$@" --dependency=afterok:"$job" \
        "$HERE/merge.sbatch" "$OUTDIR")
echo "array job $job ($SHARDS shards of $CONFIG), merge job $merge -> $OUTDIR/merged.csv"
