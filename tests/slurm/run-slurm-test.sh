#!/usr/bin/env bash
# The Slurm job scripts against a real Slurm: a one-node cluster (Debian's slurmctld, slurmd and
# munge) started here, in a temporary folder, on unprivileged ports, and stopped again by pid on
# every exit. It submits the warpcost array (scripts/slurm/submit.sh, two tasks) and its collector,
# waits for them (at most WARPCOST_SLURM_WAIT seconds, default 180), and checks: every task recorded
# that its node had no GPU, every task's Slurm output is there, the collector ran after them and
# wrote its task table and summary, and the merged CSV and report hold the run in the shared folder.
#
#   tests/slurm/run-slurm-test.sh BUILD_DIR     (a build folder with bench/warpcost-bench and
#                                                analysis/warpcost-analyze: the tasks never build)
#
# This machine has no GPU and the node declares no gpu gres, so the array is submitted with
# submit.sh --gres none (the job script's --gres=gpu:1 directive is left out for this test only).
# Since no task can file a run here, one fixture run is placed in the shared folder beforehand,
# standing for a run a GPU node filed, so the collector's merge has something to merge.
# Exit 0: passed; 1: failed; 77: skipped, with the reason (WARPCOST_SLURM_TEST unset; not root;
# Slurm or munge missing and not installable).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run-slurm-test.sh BUILD_DIR}" && pwd)
wait_limit=${WARPCOST_SLURM_WAIT:-180}
tasks=2
# Opt-in: it starts daemons and may install packages, so a plain `ctest` reports it skipped.
# WARPCOST_SLURM_TEST=1 runs it; =required (CI) also turns every reason to skip into a failure.
skip() {
  if [ "${WARPCOST_SLURM_TEST:-}" = required ]; then
    echo "run-slurm-test: FAIL: required but cannot run: $*" >&2
    exit 1
  fi
  echo "run-slurm-test: SKIPPED: $*"
  exit 77
}
case "${WARPCOST_SLURM_TEST:-}" in
  1|required) ;;
  *) skip "opt-in (it starts slurmctld, slurmd and munged, and installs them when missing): set WARPCOST_SLURM_TEST=1, as .ci/run's slurm step does" ;;
esac

for f in bench/warpcost-bench analysis/warpcost-analyze; do
  [ -x "$build/$f" ] || { echo "run-slurm-test: $build has no $f: build it first" >&2; exit 1; }
done
missing=()
for tool in slurmctld slurmd munged sbatch sinfo scontrol scancel; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || skip "${missing[*]} not installed, and installing needs root (apt-get install slurmctld slurmd slurm-client munge)"
  command -v apt-get >/dev/null || skip "${missing[*]} not installed and no apt-get here"
  echo "run-slurm-test: installing slurmctld slurmd slurm-client munge (missing: ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  timeout 300 apt-get install -y -q slurmctld slurmd slurm-client munge >/dev/null 2>&1 ||
    { timeout 120 apt-get update -q >/dev/null 2>&1 &&
      timeout 300 apt-get install -y -q slurmctld slurmd slurm-client munge >/dev/null 2>&1; } ||
    skip "apt-get could not install slurmctld slurmd slurm-client munge"
fi
export PATH=$PATH:/usr/sbin
[ "$(id -u)" = 0 ] || skip "the one-node cluster runs its daemons as root (SlurmUser=root) and munged as munge: run as root"
id munge >/dev/null 2>&1 || skip "no munge user (the munge package creates it)"

tmp=$(mktemp -d /tmp/warpcost-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()  # every daemon started here, stopped on exit
cleanup() {
  local rc=$?
  set +e
  if [ -n "${SLURM_CONF:-}" ] && [ -n "${ctld_pid:-}" ]; then
    scancel --quiet --full "${array_id:-0}" "${collector_id:-0}" 2>/dev/null
  fi
  [ -f "$tmp/munge/munged.pid" ] && pids+=("$(cat "$tmp/munge/munged.pid")")
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[$i]}" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
  done
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    for log in "$tmp"/log/*.log "$tmp"/shared/logs/*.out; do
      [ -f "$log" ] && { echo "--- $log (last 20 lines)"; tail -n 20 "$log"; }
    done
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A port pair nobody listens on, above 1024.
free_port() {
  local p
  for p in $(shuf -i 20000-40000 -n 50); do
    if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && ! ss -Hltn "sport = :$((p + 1))" 2>/dev/null | grep -q .; then
      echo "$p"
      return
    fi
  done
  echo "run-slurm-test: no free port pair found" >&2
  return 1
}

# munge, as the munge user, with its own key, socket, pid and log.
mkdir -p "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key" --bits=1024 2>/dev/null ||
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$tmp/munge"
chmod 700 "$tmp/munge"
chmod 400 "$tmp/munge/munge.key"
runuser -u munge -- munged --force --key-file="$tmp/munge/munge.key" \
  --socket="$tmp/munge/munge.socket" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed"
for _ in $(seq 50); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.socket" ] || { echo "run-slurm-test: munged did not start: $(cat "$tmp/munge/munged.log" 2>/dev/null)" >&2; exit 1; }
chmod 711 "$tmp/munge"  # clients (root here) reach the socket; the key stays the munge user's

# slurm.conf: one node, this machine, everything under $tmp.
port=$(free_port)
node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/etc" "$tmp/state" "$tmp/spool" "$tmp/run" "$tmp/log" "$tmp/shared"
cat >"$tmp/etc/slurm.conf" <<CONF
ClusterName=warpcosttest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=60
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=warpcosttest Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
# An empty cgroup.conf keeps slurmd 22.05 from looking for the system's.
: >"$tmp/etc/cgroup.conf"
export SLURM_CONF=$tmp/etc/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
ctld_pid=$!
pids+=("$ctld_pid")
slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/log/slurmd.out" 2>&1 &
pids+=("$!")
up=
for _ in $(seq 60); do
  if sinfo -h -N -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; then up=1; break; fi
  kill -0 "$ctld_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$up" ] || { echo "run-slurm-test: the node did not come up: $(sinfo -N 2>&1 | tail -n 3)" >&2; exit 1; }
echo "run-slurm-test: one-node Slurm up on $node (ports $port, $((port + 1))), $(sbatch --version)"

# A run a GPU node filed earlier: the fixture, as a run of the shared folder.
fixture_run=$tmp/shared/runs/fixture-gpu/20260101T000000Z-00000000
mkdir -p "$fixture_run"
cp "$repo/tests/fixtures/runs/fixture-gpu/20260101T000000Z/bench.json" "$fixture_run/"

ids=$("$repo/scripts/slurm/submit.sh" --shared "$tmp/shared" --build "$build" --tasks "$tasks" \
        --partition warpcosttest --time 00:05:00 --gres none --sbatch-opt=--hold)
array_id=$(sed -n 's/.*array=\([0-9]*\).*/\1/p' <<<"$ids")
collector_id=$(sed -n 's/.*collector=\([0-9]*\).*/\1/p' <<<"$ids")
{ [ -n "$array_id" ] && [ -n "$collector_id" ]; } || { echo "run-slurm-test: submit.sh printed '$ids'" >&2; exit 1; }
echo "run-slurm-test: array $array_id ($tasks tasks, held), collector $collector_id"
# While the array is held, the collector must wait for it (afterany), though a CPU is free.
sleep 3
held=$(scontrol -o show job "$collector_id")
[[ "$held" == *"JobState=PENDING"* && "$held" == *"Reason=Dependency"* ]] || {
  echo "run-slurm-test: FAIL: the collector did not wait for the held array: $held" >&2
  exit 1
}
scontrol release "$array_id"

state() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | paste -sd, -; }
deadline=$((SECONDS + wait_limit))
while :; do
  collector_state=$(state "$collector_id")
  case "$collector_state" in
    COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;;
  esac
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "run-slurm-test: FAIL: the collector is still '$collector_state' after ${wait_limit}s;" \
         "array: $(state "$array_id")" >&2
    exit 1
  fi
  sleep 1
done
echo "run-slurm-test: array ended $(state "$array_id"); collector $collector_state"

failures=0
fail() { echo "run-slurm-test: FAIL: $*" >&2; failures=$((failures + 1)); }
shared=$tmp/shared
[ "$collector_state" = COMPLETED ] || fail "the collector ended $collector_state"
# The collector may start only once every task has ended.
collector_start=$(scontrol -o show job "$collector_id" | sed -n 's/.* StartTime=\([^ ]*\).*/\1/p')
for ((i = 0; i < tasks; i++)); do
  r=$shared/tasks/${array_id}_$i.txt
  if [ ! -f "$r" ]; then fail "task $i left no record"; continue; fi
  grep -qx 'gpu=none' "$r" || fail "task $i did not record 'gpu=none': $(cat "$r")"
  grep -qx 'status=no-gpu' "$r" || fail "task $i status: $(grep status= "$r")"
  grep -qx "node=$node" "$r" || fail "task $i did not record its node"
  [ -s "$shared/logs/warpcost-${array_id}_$i.out" ] || fail "task $i's Slurm output is missing"
  grep -q "has no GPU that CUDA can use" "$shared/logs/warpcost-${array_id}_$i.out" 2>/dev/null ||
    fail "task $i's output does not say its node had no GPU"
  end=$(scontrol -o show job "${array_id}_$i" | sed -n 's/.* EndTime=\([^ ]*\).*/\1/p')
  [[ "$end" < "$collector_start" || "$end" == "$collector_start" ]] ||
    fail "the collector started ($collector_start) before task $i ended ($end)"
done
[ -s "$shared/logs/warpcost-collect-$collector_id.out" ] || fail "the collector's Slurm output is missing"
tasks_csv=$shared/tasks-$array_id.csv
[ -f "$tasks_csv" ] || fail "no $tasks_csv"
[ "$(tail -n +2 "$tasks_csv" 2>/dev/null | grep -c ',no-gpu,77,')" = "$tasks" ] ||
  fail "the task table does not show $tasks no-gpu tasks: $(cat "$tasks_csv" 2>/dev/null)"
grep -q ',lost,' "$tasks_csv" 2>/dev/null && fail "the collector lost a task"
grep -q "^$tasks task(s): $tasks no-gpu" "$shared/summary-$array_id.md" 2>/dev/null ||
  fail "the summary does not count the tasks: $(head -n 3 "$shared/summary-$array_id.md" 2>/dev/null)"
grep -q "1 run(s) analysed" "$shared/summary-$array_id.md" 2>/dev/null || fail "the summary does not report the analysis"
grep -q "fixture-gpu/20260101T000000Z" "$shared/warpcost.csv" 2>/dev/null || fail "the merged CSV lacks the shared folder's run"
[ -s "$shared/report.md" ] || fail "no merged report"
[ -s "$fixture_run/report.md" ] || fail "the run has no report of its own"

if [ "$failures" -gt 0 ]; then
  echo "run-slurm-test: $failures failure(s)" >&2
  exit 1
fi
echo "run-slurm-test: passed: $tasks tasks recorded no GPU, the collector ran after them and merged the shared folder"
