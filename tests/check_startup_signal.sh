#!/usr/bin/env bash
# Usage: check_startup_signal.sh DUNESIM_EXE
#
# SIGTERM (1 rank) and SIGUSR1 (2 ranks) sent to the ranks while they seed 4 million
# particles must stop the run cleanly: every rank exits with 75, rank 0 says that it stopped
# during start-up with nothing to save, and nothing is written. Without handlers during
# start-up the signal kills the ranks (143, 138). Then SIGUSR1 sent to mpiexec (which
# forwards it to the ranks) the moment every rank process runs dunesim and catches any signal
# at all (the first handler a rank installs: dunesim's own when main installs them first,
# else Open MPI's while MPI starts) must end the same way.
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
  local launcher=$1 ranks=$2 pids deadline=$((SECONDS + $(scaled 30)))
  while [ "$SECONDS" -lt "$deadline" ]; do
    pids=$(for shell in $(pgrep -P "$launcher"); do pgrep -P "$shell"; done)
    [ "$(printf '%s\n' $pids | grep -c .)" -eq "$ranks" ] && { echo $pids; return 0; }
    sleep 0.05
  done
  return 1
}

# wait_for_handlers PID SECONDS SIGNAL...: waits until process PID catches every SIGNAL
# (numbers). Returns 1 if the process ends first, 2 once SECONDS have passed (a generous
# bound on a wait for an event, not a schedule).
wait_for_handlers() {
  local pid=$1 deadline=$((SECONDS + $2)) signal
  shift 2
  for signal in "$@"; do
    until catches "$pid" "$signal"; do
      [ -e "/proc/$pid" ] || return 1
      [ "$SECONDS" -lt "$deadline" ] || return 2
      sleep 0.01
    done
  done
}

# Ends a run that the test gives up on, so that it does not outlive the script.
abandon_run() {
  kill -KILL $pids "$launcher" 2> /dev/null
  wait "$launcher" 2> /dev/null
  cat run.log
}

for ranks in 1 2; do
  signal=$([ "$ranks" -eq 1 ] && echo TERM || echo USR1)
  rm -rf out
  mpiexec -n "$ranks" --oversubscribe sh -c '"$@"; echo "rank-exit $?"' sh \
    "$exe" run big.toml --quiet > run.log 2>&1 &
  launcher=$!
  pids=$(rank_pids "$launcher" "$ranks") ||
    { abandon_run; fail "$ranks rank(s): the ranks did not start within $(scaled 30) s"; }
  # The signal goes once every rank catches SIGTERM (15) and SIGUSR1 (10), the signals of its
  # stop handlers (nothing catches SIGTERM before them: PETSc leaves it to Open MPI); reading
  # the case and seeding follow their installation. Handlers that never show fail the test.
  limit=$(scaled 60)
  for pid in $pids; do
    wait_for_handlers "$pid" "$limit" 15 10
    case $? in
      1) abandon_run
         fail "$ranks rank(s): rank process $pid ended before it caught SIGTERM and SIGUSR1" ;;
      2) abandon_run
         fail "$ranks rank(s): rank process $pid did not catch SIGTERM and SIGUSR1 within" \
           "$limit s (SigCgt in /proc/$pid/status): no stop handlers during start-up" ;;
    esac
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

# Every dunesim rank process under the launcher $1 ($2 of them) once each runs the dunesim
# executable (not the forked shell before its exec) and catches some signal (SigCgt not 0).
# Returns 1 if the launcher ends first, 2 after $(scaled 30) s.
first_handlers() {
  local launcher=$1 ranks=$2 deadline=$((SECONDS + $(scaled 30))) pids pid ready target
  target=$(readlink -f "$exe")
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ -e "/proc/$launcher" ] || return 1
    pids=$(for shell in $(pgrep -P "$launcher"); do pgrep -P "$shell"; done)
    ready=0
    for pid in $pids; do
      [ "$(readlink -f "/proc/$pid/exe" 2> /dev/null)" = "$target" ] || continue
      mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2> /dev/null)
      [ -n "$mask" ] && (( 0x$mask != 0 )) && ready=$((ready + 1))
    done
    [ "$ready" -eq "$ranks" ] && { echo $pids; return 0; }
    sleep 0.005
  done
  return 2
}

ranks=2
rm -rf out
# The ranks' shells ignore the forwarded SIGUSR1 (a trapped signal has its default action
# again in dunesim after exec), so each can still report its rank's status.
mpiexec -n "$ranks" --oversubscribe sh -c 'trap : USR1; "$@"; echo "rank-exit $?"' sh \
  "$exe" run big.toml --quiet > run.log 2>&1 &
launcher=$!
pids=$(first_handlers "$launcher" "$ranks")
case $? in
  1) wait "$launcher"; cat run.log
     fail "early SIGUSR1: the run ended before its ranks caught any signal (the test's" \
       "premise: the signal must come during start-up)" ;;
  2) pids=$(for shell in $(pgrep -P "$launcher"); do pgrep -P "$shell"; done)
     abandon_run
     fail "early SIGUSR1: the $ranks rank processes did not run dunesim and catch a signal" \
       "within $(scaled 30) s" ;;
esac
kill -USR1 "$launcher"
wait "$launcher"
cat run.log
grep -qx "rank-exit 0" run.log &&
  fail "early SIGUSR1: a rank finished the run: the signal came after start-up, so this" \
    "run does not test an early signal (the test's premise failed)"
[ "$(grep -cx 'rank-exit 75' run.log)" -eq "$ranks" ] ||
  fail "early SIGUSR1 to mpiexec: expected every rank to exit with 75 (rank statuses:" \
    "$(grep '^rank-exit' run.log | tr '\n' ' '))"
grep -qF "dunesim: stopped by a signal during start-up, before step 1: nothing to save" run.log ||
  fail "early SIGUSR1 to mpiexec: no start-up stop message"
[ ! -e out ] || fail "early SIGUSR1: a run stopped during start-up wrote output"
echo "PASS"
