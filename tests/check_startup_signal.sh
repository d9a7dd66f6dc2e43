#!/usr/bin/env bash
# Usage: check_startup_signal.sh DUNESIM_EXE
#
# SIGTERM (1 rank) and SIGUSR1 (2 ranks) sent to the ranks while they seed 4 million
# particles must stop the run cleanly: every rank exits with 75, rank 0 says that it stopped
# during start-up with nothing to save, and nothing is written. Without handlers during
# start-up the signal kills the ranks (143, 138).
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
enter_temporary_directory

# 100 x 100 x 100 cells, half of them water: seeding takes a second or more.
write_water_case big.toml 0.002

# Whether signal number $2 has a handler in process $1 (SigCgt in /proc/PID/status).
catches() {
  local mask
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$mask" ] && (( (0x$mask >> ($2 - 1)) & 1 ))
}

# The dunesim processes under the launcher (mpiexec -> sh -> dunesim), once there are $2.
rank_pids() {
  local launcher=$1 ranks=$2 pids
  for _ in $(seq 600); do
    pids=$(for shell in $(pgrep -P "$launcher"); do pgrep -P "$shell"; done)
    [ "$(printf '%s\n' $pids | grep -c .)" -eq "$ranks" ] && { echo $pids; return 0; }
    sleep 0.05
  done
  return 1
}

for ranks in 1 2; do
  signal=$([ "$ranks" -eq 1 ] && echo TERM || echo USR1)
  rm -rf out
  mpiexec -n "$ranks" --oversubscribe sh -c '"$@"; echo "rank-exit $?"' sh \
    "$exe" run big.toml --quiet > run.log 2>&1 &
  launcher=$!
  pids=$(rank_pids "$launcher" "$ranks") || fail "$ranks rank(s): the ranks did not start"
  # PETSc is up once it catches SIGSYS (31); the stop handlers follow at once (15 is
  # SIGTERM). They get 0.3 s by the clock, then the signal goes anyway: seeding takes longer.
  for pid in $pids; do
    for _ in $(seq 1200); do catches "$pid" 31 && break; sleep 0.01; done
    catches "$pid" 31 || fail "$ranks rank(s): PETSc did not start"
  done
  deadline=$(($(date +%s%N) + 300000000))
  for pid in $pids; do
    until catches "$pid" 15 || [ "$(date +%s%N)" -gt "$deadline" ]; do sleep 0.01; done
  done
  kill -"$signal" $pids
  wait "$launcher"
  cat run.log
  grep -qF "dunesim: stopped by a signal during start-up, before step 1: nothing to save" run.log ||
    fail "$ranks rank(s): no start-up stop message after SIG$signal"
  [ "$(grep -cx 'rank-exit 75' run.log)" -eq "$ranks" ] ||
    fail "$ranks rank(s): expected every rank to exit with 75 after SIG$signal"
  [ ! -e out ] || fail "$ranks rank(s): a run stopped during start-up wrote output"
done
echo "PASS"
