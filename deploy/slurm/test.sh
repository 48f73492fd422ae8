#!/usr/bin/env bash
# The Slurm deployment, tested for real: a single-node Slurm cluster on this machine
# (munged, slurmctld and slurmd with a slurm.conf of our own), the array script running a
# 4-shard sweep of the bundled incast-pfc, the merge script after it, and the merged
# directory compared with the same sweep run here in one piece. It installs Debian's
# slurm-wlm and munge when they are missing, and fails (never skips) when anything is
# missing or goes wrong, printing squeue, sinfo and the daemons' logs.
#
#   deploy/slurm/test.sh          (as root, or with sudo; .ci/run runs it)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 ||
  ! command -v sbatch >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge
fi
for c in slurmctld slurmd sbatch squeue sinfo scontrol munged; do
  command -v "$c" >/dev/null 2>&1 || { echo "slurm test: $c is not installed" >&2; exit 1; }
done

work=$(mktemp -d /tmp/fabricsim-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  status=$?
  for pid in "${pids[@]}"; do
    $sudo kill "$pid" 2>/dev/null || true
  done
  # The daemons write their state as they stop: wait (10 s at most) before removing it.
  for _ in $(seq 50); do
    alive=""
    for pid in "${pids[@]}"; do
      case "$(ps -o stat= -p "$pid" 2>/dev/null)" in
      "" | Z*) ;; # gone, or a zombie its parent has not reaped
      *) alive=1 ;;
      esac
    done
    [ -n "$alive" ] || break
    sleep 0.2
  done
  if [ "$status" -eq 0 ]; then
    $sudo rm -rf "$work" || true
  else
    echo "slurm test: FAILED; files kept in $work" >&2
  fi
  exit "$status"
}
trap cleanup EXIT

diagnose() {
  echo "---- squeue" >&2; squeue -a 2>&1 | sed 's/^/  /' >&2 || true
  echo "---- sinfo" >&2; sinfo -N -l 2>&1 | sed 's/^/  /' >&2 || true
  for f in slurmctld.log slurmd.log munged.log; do
    echo "---- $f (last 40 lines)" >&2
    tail -n 40 "$work/$f" 2>/dev/null | sed 's/^/  /' >&2 || true
  done
  for f in "$work"/out/*.out; do
    [ -e "$f" ] || continue
    echo "---- $f" >&2; sed 's/^/  /' "$f" >&2
  done
}
fail() {
  echo "slurm test: $*" >&2
  diagnose
  exit 1
}

echo "slurm test: building fabricsim"
go build -o "$work/fabricsim" ./cmd/fabricsim

# munge: a key of our own, a daemon of our own on a socket of our own.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
$sudo munged --force --key-file="$work/munge/munge.key" --socket="$socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/seed" ||
  fail "munged did not start"
pids+=("$(cat "$work/munge/munged.pid")")

# slurm.conf for this one machine: the node line as slurmd sees the hardware.
host=$(hostname -s)
node=$(slurmd -C | sed -n 1p)
case "$node" in
NodeName=*) ;;
*) fail "slurmd -C printed no NodeName line: $node" ;;
esac
node=$(echo "$node" | sed -E 's/ (Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=[^ ]*//g')
mkdir -p "$work/state" "$work/spool" "$work/out"
cat >"$work/slurm.conf" <<EOF
ClusterName=fabricsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
SlurmctldDebug=info
SlurmdDebug=info
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
echo "slurm test: $node"

$sudo env SLURM_CONF="$SLURM_CONF" slurmctld -c || fail "slurmctld did not start"
for _ in $(seq 50); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.2; done
pids+=("$(cat "$work/slurmctld.pid")")
$sudo env SLURM_CONF="$SLURM_CONF" slurmd -N "$host" || fail "slurmd did not start"
for _ in $(seq 50); do [ -s "$work/slurmd.pid" ] && break; sleep 0.2; done
pids+=("$(cat "$work/slurmd.pid")")

# Wait for the node to be idle.
ready=""
for _ in $(seq 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | sed -n 1p || true)
  if [ "$state" = "idle" ]; then
    ready=1
    break
  fi
  sleep 0.5
done
[ -n "$ready" ] || fail "the node is not idle after 30 s (state: ${state:-none})"

# The sweep, 4 shards, then the merge once they have ended well.
scenario=incast-pfc
grid=(--grid 'switch.buffer=2MB,4MB' --grid 'seed=1..4')
export FABRICSIM="$work/fabricsim"
jid=$(sbatch --parsable --array=0-3 --chdir="$work/out" --output="$work/out/sweep-%a.out" \
  --export=ALL deploy/slurm/sweep.sbatch "$scenario" "$work/out/run" "${grid[@]}") ||
  fail "sbatch of the array failed"
mid=$(sbatch --parsable --dependency=afterok:"$jid" --chdir="$work/out" --output="$work/out/merge.out" \
  --export=ALL deploy/slurm/merge.sbatch "$work/out/run") || fail "sbatch of the merge failed"
echo "slurm test: array job $jid, merge job $mid"

deadline=$((SECONDS + 300))
while squeue -h -j "$jid,$mid" 2>/dev/null | grep -q .; do
  [ $SECONDS -lt $deadline ] || fail "the jobs did not end within 300 s"
  sleep 1
done
for f in "$work"/out/*.out; do echo "---- $(basename "$f")"; cat "$f"; done
[ -f "$work/out/run/all/sweep.json" ] || fail "the merge job wrote no $work/out/run/all/sweep.json"
for i in 0 1 2 3; do
  [ -f "$work/out/run/shard-$i/sweep.json" ] || fail "shard $i wrote no sweep.json"
done

# The same sweep, here in one piece: the merged directory must be the same, byte for byte
# (a point's document holds its wall-clock time, so points are compared without it, and
# with the shard's own copy exactly).
"$work/fabricsim" sweep "$scenario" "${grid[@]}" -q -o "$work/whole" >/dev/null
merged=$work/out/run/all
(cd "$work/whole" && find . -type f | sort) >"$work/whole.list"
(cd "$merged" && find . -type f | sort) >"$work/merged.list"
diff -u "$work/whole.list" "$work/merged.list" || fail "the merged directory holds other files than the whole sweep's"
count=0
while read -r f; do
  case "$f" in
  ./points/*)
    shard=""
    for i in 0 1 2 3; do
      if [ -f "$work/out/run/shard-$i/$f" ]; then shard=$i; fi
    done
    [ -n "$shard" ] || fail "$f is in no shard's directory"
    cmp -s "$merged/$f" "$work/out/run/shard-$shard/$f" || fail "$f differs from shard $shard's copy"
    cmp -s <(sed -E 's/"wall_seconds": [0-9.e+-]+/W/' "$merged/$f") <(sed -E 's/"wall_seconds": [0-9.e+-]+/W/' "$work/whole/$f") ||
      fail "$f differs from the whole sweep's (beyond wall_seconds)"
    ;;
  *)
    cmp "$merged/$f" "$work/whole/$f" || fail "$f differs between the merged shards and the whole sweep"
    ;;
  esac
  count=$((count + 1))
done <"$work/whole.list"
rows=$(($(wc -l <"$merged/sweep.csv") - 1))
[ "$rows" -eq 16 ] || fail "sweep.csv has $rows rows, not 8 points x 2 variants"
echo "slurm test: ok: 4 shards on Slurm merged = the whole sweep ($count files, sweep.csv $rows rows)"
