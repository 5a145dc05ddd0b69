#!/usr/bin/env bash
# test_slurm.sh - the fleet scripts (scripts/slurm/) under a real Slurm:
# a one-node cluster on localhost (munged, slurmctld, slurmd; 4 GPUs as a
# generic resource, character devices standing in for them), everything
# in a temporary directory, nothing of the machine's own /etc used. The
# sweep runs on the fake device (MEMPROBE_FAKE_DEVICE, runtime/device.h),
# each configuration taking DELAY_US, so a task can be cancelled mid-run.
# TAP on stdout; `make test-slurm` runs it.
#
#   1 the cluster starts: the node is idle with gpu:4
#   2 a 4-shard sweep through submit.sh: merged.csv holds every
#     configuration of the unsharded sweep exactly once
#   3 one task cancelled after K rows: submit.sh names the shard, no merge
#   4 the same command again: the cancelled shard resumes; nothing lost,
#     nothing doubled, nothing measured before measured again
#   5 a shard whose output cannot be written fails: submit.sh names it and
#     the merge never runs
#   6 the daemons stop (by the pids in their pid files)
#
# Without root or without Slurm and munge installed: one passing skip
# saying why. A hard limit of LIMIT_S (180 s): past it the script is
# stopped, and the daemons and jobs with it (the EXIT trap, by pid). The
# temporary directory (configs, logs, CSVs) is removed unless a test failed
# or KEEP_SLURM_DIR is set.
set -u -o pipefail
LIMIT_S=180
if [ -z "${MP_SLURM_LIMITED:-}" ]; then
    # timeout signals this script's whole process group at the limit.
    MP_SLURM_LIMITED=1 exec timeout -k 15 "$LIMIT_S" "$0" "$@"
fi

REPO=$(cd "$(dirname "$0")/../.." && pwd)
MEMPROBE=$(realpath "${MEMPROBE:-$REPO/memprobe}")
SHARDS=4
DELAY_US=400000   # per configuration on the fake device
CANCEL_AT=3       # rows of shard 1 before its task is cancelled

skip_all() {
    printf '1..1\nok 1 - slurm cluster # SKIP %s\n' "$1"
    exit 0
}
[ "$(id -u)" = 0 ] || skip_all "not root (the daemons run as root)"
for c in munged munge slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
    command -v "$c" >/dev/null || skip_all "$c not installed (apt-get install slurm-wlm munge)"
done
[ -x "$MEMPROBE" ] || { echo "not ok 1 - no memprobe at $MEMPROBE (make first)"; exit 1; }

echo "1..6"
T=$(mktemp -d /tmp/memprobe-slurm.XXXXXX)
export SLURM_CONF=$T/slurm.conf   # every process of this cluster carries it
n=0
failed=0
result() {   # result OK|"" NAME
    n=$((n + 1))
    if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
diag() { sed 's/^/# /'; }

# ---- stopping everything, by pid ----------------------------------------

pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
stop_pid() {   # TERM, up to 5 s, then KILL
    pid_alive "$1" || return 0
    kill "$1" 2>/dev/null
    for _ in $(seq 50); do pid_alive "$1" || return 0; sleep 0.1; done
    kill -9 "$1" 2>/dev/null
}
stopped=0
stop_cluster() {
    [ "$stopped" = 1 ] && return
    stopped=1
    if [ -r "$T/slurmctld.pid" ]; then
        scancel --full --quiet --user=root 2>/dev/null
        for _ in $(seq 15); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    for f in slurmd slurmctld munged; do
        [ -r "$T/$f.pid" ] && stop_pid "$(cat "$T/$f.pid")"
    done
    # Anything left of this cluster (a job step that outlived slurmd).
    for e in /proc/[0-9]*/environ; do
        p=${e#/proc/}; p=${p%/environ}
        [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
        grep -qzxF "SLURM_CONF=$SLURM_CONF" "$e" 2>/dev/null && stop_pid "$p"
    done
}
on_exit() {
    stop_cluster
    if [ "$failed" = 1 ] || [ -n "${KEEP_SLURM_DIR:-}" ]; then
        echo "# files kept in $T"
    else
        rm -rf "$T"
    fi
}
trap on_exit EXIT
trap 'echo "not ok - the time limit of $LIMIT_S s was reached"; failed=1; exit 1' TERM

# ---- the cluster ----------------------------------------------------------

# Two ports nothing listens on (/proc/net/tcp*: local address, state 0A).
free_port() {
    local p=$1 used="" _ addr st
    while read -r _ addr _ st _; do
        [ "$st" = 0A ] && used="$used $((16#${addr##*:})) "
    done < <(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
    while [[ $used == *" $p "* || $used == *" $((p + 1)) "* ]]; do
        p=$((p + 2))
    done
    echo "$p"
}

start_cluster() {
    local host port
    host=$(hostname -s)
    port=$(free_port $((20000 + $$ % 20000 / 2 * 2)))
    mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/dev"
    head -c 1024 /dev/urandom > "$T/munge/munge.key"
    chmod 600 "$T/munge/munge.key"
    chmod 755 "$T/munge"
    for g in 0 1 2 3; do mknod "$T/dev/gpu$g" c 1 3; done   # like /dev/null
    cat > "$T/slurm.conf" <<EOF
ClusterName=memprobetest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    echo "Name=gpu File=$T/dev/gpu[0-3]" > "$T/gres.conf"
    munged --force --socket="$T/munge/socket" --key-file="$T/munge/munge.key" \
        --pid-file="$T/munged.pid" --seed-file="$T/munge/seed" \
        --log-file="$T/log/munged.log" 2>>"$T/log/munged.log" || return 1
    slurmctld -f "$T/slurm.conf" || return 1
    slurmd -f "$T/slurm.conf" || return 1
    for _ in $(seq 100); do
        [ "$(sinfo -h -N -o '%T %G' 2>/dev/null)" = "idle gpu:4" ] && return 0
        sleep 0.2
    done
    return 1
}

if start_cluster; then
    result ok "the cluster starts: $(sinfo -h -N -o '%N %T %G, %c CPUs')"
else
    result fail "the cluster starts"
    tail -n 5 "$T"/log/*.log 2>/dev/null | diag
    exit 1
fi

# ---- the sweep --------------------------------------------------------------

# 2 ops x 2 widths x 10 strides: 40 configurations, 10 per shard.
cat > "$T/sweep.conf" <<'EOF'
[bank]
op = ld,st
width = 4,8
stride = 0..9
EOF
export MEMPROBE MEMPROBE_POLL_S=0.5 MEMPROBE_FAKE_DEVICE="h200:$DELAY_US"
cd "$REPO" || exit 1
submit() {   # submit OUTDIR: submit.sh --wait, its output in OUTDIR.out
    scripts/slurm/submit.sh --wait "$T/sweep.conf" "$SHARDS" "$1" -- --batch 1 \
        > "$1.out" 2>&1
}
# The config column of a CSV (memprobe's rows: no quoted commas), sorted.
configs() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "config") c = i; next }
             { print $c }' "$1" | sort
}
rows() { echo $(($(wc -l < "$1") - 1)); }

MEMPROBE_FAKE_DEVICE=h200:0 "$MEMPROBE" sweep "$T/sweep.conf" -o "$T/unsharded.csv" >/dev/null 2>&1
configs "$T/unsharded.csv" > "$T/expected"
total=$(wc -l < "$T/expected")
per_shard=$((total / SHARDS))
check_merged() {   # check_merged OUTDIR: "" or what is wrong
    [ -r "$1/merged.csv" ] || { echo "no merged.csv"; return; }
    configs "$1/merged.csv" > "$1.got"
    local twice
    twice=$(uniq -d "$1.got" | head -3 | tr '\n' ' ')
    [ -z "$twice" ] || { echo "twice: $twice"; return; }
    cmp -s "$T/expected" "$1.got" ||
        echo "$(comm -23 "$T/expected" "$1.got" | wc -l) missing, $(comm -13 "$T/expected" "$1.got" | wc -l) extra"
}

# 2: the whole sweep.
A=$T/sweep
t0=$SECONDS
submit "$A"
rc=$?
bad=$(check_merged "$A")
if [ "$rc" = 0 ] && [ "$total" = 40 ] && [ -z "$bad" ]; then
    result ok "4 shards: merged.csv holds the $total configurations once each ($((SECONDS - t0)) s)"
else
    result fail "4 shards: submit.sh exit $rc, $total configurations expected; $bad"
    diag < "$A.out"
fi

# 3: shard 1's task cancelled once its CSV holds CANCEL_AT rows.
B=$T/cancel
submit "$B" &
submitter=$!
cancelled=""
for _ in $(seq 300); do
    if [ -r "$B/shard-1.csv" ] && [ "$(rows "$B/shard-1.csv")" -ge "$CANCEL_AT" ]; then
        job=$(sed -n 's/^array job \([0-9]*\) .*/\1/p' "$B.out")
        scancel "${job}_1" && cancelled=$(rows "$B/shard-1.csv")
        break
    fi
    sleep 0.1
done
wait "$submitter"
rc=$?
kept=$(rows "$B/shard-1.csv" 2>/dev/null || echo 0)
cp "$B/shard-1.csv" "$T/shard-1.cancelled" 2>/dev/null
md5sum "$B"/shard-[023].csv > "$T/others.md5" 2>/dev/null
if [ -n "$cancelled" ] && [ "$rc" = 1 ] && [ "$kept" -lt "$per_shard" ] &&
   grep -q "shard 1 of 4 (task ${job}_1) CANCELLED" "$B.out" && [ ! -e "$B/merged.csv" ]; then
    result ok "cancelled at $cancelled rows: shard 1 stopped at $kept of $per_shard, submit.sh names it, no merge"
else
    result fail "cancel shard 1 at $CANCEL_AT rows (cancelled at '${cancelled}'): submit.sh exit $rc, shard 1 has $kept of $per_shard rows"
    diag < "$B.out"
fi

# 4: the same command again.
submit "$B"
rc=$?
bad=$(check_merged "$B")
resumed=$(grep -h "already in $B/shard-1.csv skipped" "$B"/memprobe-shard-*_1.log | tail -n 1)
if [ "$rc" = 0 ] && [ -z "$bad" ] && [ "$(rows "$B/shard-1.csv")" = "$per_shard" ] &&
   cmp -s -n "$(stat -c %s "$T/shard-1.cancelled")" "$T/shard-1.cancelled" "$B/shard-1.csv" &&
   md5sum -c --quiet "$T/others.md5" >/dev/null 2>&1 && grep -q ", $kept already in" <<<"$resumed"; then
    result ok "resubmitted: shard 1 resumed after its $kept rows, the others untouched, merged.csv holds the $total once each"
else
    result fail "resubmitted: submit.sh exit $rc; $bad; shard 1 log: $resumed"
    diag < "$B.out"
fi

# 5: shard 2 cannot write its CSV (a link into a missing folder).
C=$T/fail
mkdir -p "$C"
ln -s "$C/missing/shard-2.csv" "$C/shard-2.csv"
submit "$C"
rc=$?
if [ "$rc" = 1 ] && grep -q "shard 2 of 4 (task [0-9]*_2) FAILED, exit code 2" "$C.out" &&
   [ "$(grep -c '^submit.sh: shard' "$C.out")" = 1 ] && [ ! -e "$C/merged.csv" ] &&
   ! ls "$C"/memprobe-merge-*.log >/dev/null 2>&1; then
    result ok "a failing shard: submit.sh names shard 2, the merge never ran"
else
    result fail "a failing shard: submit.sh exit $rc"
    diag < "$C.out"
fi

# 6: the daemons stop.
pids=$(cat "$T/munged.pid" "$T/slurmctld.pid" "$T/slurmd.pid" | tr '\n' ' ')
pids=${pids% }
stop_cluster
alive=""
for p in $pids; do pid_alive "$p" && alive="$alive $p"; done
if [ -z "$alive" ]; then
    result ok "munged, slurmctld and slurmd stopped (pids $pids)"
else
    result fail "still running:$alive"
fi
exit "$failed"
