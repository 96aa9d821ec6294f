#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A real single-node Slurm cluster on localhost for the planner's scale-out test
# (docs/planner.md, "Slurm"): munged, slurmctld and slurmd started in a temporary folder with
# their own key, sockets, ports, state and logs, then a 4-task job array of
# `handsim-cli plan --shard i/4`, `handsim-cli merge`, and a one-process run to compare.
#
#   slurm_cluster.sh HANDSIM_CLI WORKDIR
#
# Exit 0: the merged file equals the one-process file byte for byte. Exit 77: Slurm cannot
# start here (not root, a command missing, a daemon that does not come up); the reason is the
# last line on stderr. Anything else: a failure. Every daemon it started is stopped on exit.
set -u
cli="$1"
work="$2"
skip() { echo "slurm: skipped: $*" >&2; exit 77; }
fail() { echo "slurm: FAILED: $*" >&2; for f in "$work"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs jobs as any user)"
for c in munged slurmctld slurmd sbatch sinfo; do
  command -v "$c" >/dev/null 2>&1 || skip "$c not installed (Debian: slurm-wlm munge)"
done
mkdir -p "$work" && cd "$work" || fail "cannot use $work"
mkdir -p state spool munge
chmod 711 munge

pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
}
trap cleanup EXIT

# munge: a fresh key and a private socket.
head -c 1024 /dev/urandom > munge/munge.key
chmod 400 munge/munge.key
munged -F -f --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" \
  --seed-file="$work/munge/seed" > munged.out 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/socket" ] && break; sleep 0.1; done
[ -S "$work/munge/socket" ] || skip "munged did not start (see $work/munged.log)"

# Free ports: two in a range chosen from the process id.
base=$((20000 + ($$ % 20000)))
node="$(hostname -s)"
cpus="$(nproc)"
cat > slurm.conf <<CONF
ClusterName=handsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=handsim Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" > slurmctld.out 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > slurmd.out 2>&1 &
pids+=($!)
up=0
for _ in $(seq 100); do
  if sinfo -h -N -o "%t" 2>/dev/null | grep -Eq "^(idle|mix|alloc)"; then up=1; break; fi
  sleep 0.2
done
[ "$up" -eq 1 ] || skip "the node did not come up (see $work/slurmctld.log, slurmd.log)"

# The job array: shard i of 4 in task i.
plan="plan cube --hand barrett --grasps 3 --candidates 8 --seed 5 --quiet"
sbatch --wait --array=0-3 --output="$work/task_%a.log" --chdir="$work" \
  --wrap="'$cli' $plan --shard \$SLURM_ARRAY_TASK_ID/4 --out '$work'/s\$SLURM_ARRAY_TASK_ID.jsonl" \
  > sbatch.log 2>&1 || fail "sbatch --wait failed: $(cat sbatch.log)"
for i in 0 1 2 3; do [ -f "s$i.jsonl" ] || fail "task $i wrote no s$i.jsonl"; done
"$cli" merge s0.jsonl s1.jsonl s2.jsonl s3.jsonl --out merged.jsonl > merge.log 2>&1 ||
  fail "merge failed: $(cat merge.log)"
"$cli" $plan --out one.jsonl > one.log 2>&1 || fail "the one-process run failed"
[ -s one.jsonl ] || fail "the one-process run found no grasp"
cmp -s merged.jsonl one.jsonl || fail "merged.jsonl differs from one.jsonl"
echo "slurm: 4 tasks merged into $(wc -l < merged.jsonl) grasps, identical to one process"
