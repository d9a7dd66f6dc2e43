# shellcheck shell=bash
# Sourced by the Slurm tests (bash): the local cluster of the slurm_start fixture, and
# waiting for jobs. It sources tests/timeouts.sh, so they have `scaled` as well.
#
#   slurm_test_begin EXE CONF_FILE WORK_DIR
#                                the arguments every Slurm test takes: sets exe and work,
#                                connects to the cluster, and enters a fresh WORK_DIR
#   slurm_connect CONF_FILE      export SLURM_CONF from the fixture's file
#   wait_for_job ID SECONDS      wait until job ID has ended, at most `scaled SECONDS`; sets
#                                job_state and job_exit
#   job_field ID FIELD           a field of `scontrol show job`, e.g. JobState

. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

slurm_connect() {
  if [ ! -s "$1" ]; then
    echo "FAIL: no local Slurm cluster ($1 missing: did slurm_start fail?)" >&2
    exit 1
  fi
  SLURM_CONF=$(cat "$1")
  export SLURM_CONF
}

# exe and work are for the caller.
# shellcheck disable=SC2034
slurm_test_begin() {
  exe=$1
  slurm_connect "$2"
  work=$3
  rm -rf "$work"
  mkdir -p "$work"
  cd "$work" || exit 1
}

job_field() {
  scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# sacct needs a database the local cluster lacks; scontrol keeps ended jobs for MinJobAge
# (300 s), long enough for these tests. job_state and job_exit are for the caller.
# shellcheck disable=SC2034
wait_for_job() {
  local id=$1 limit deadline
  limit=$(scaled "$2")
  deadline=$((SECONDS + limit))
  while [ "$SECONDS" -lt "$deadline" ]; do
    job_state=$(job_field "$id" JobState)
    case "$job_state" in
      PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | REQUEUED | RESIZING) ;;
      *)
        job_exit=$(job_field "$id" ExitCode)
        return 0
        ;;
    esac
    sleep 0.5
  done
  echo "FAIL: job $id still $job_state after $limit s" >&2
  scontrol show job "$id" >&2
  return 1
}

# Prints a job's log (and the run's chain log) to help read a failure.
show_logs() {
  local file
  for file in "$@"; do
    [ -f "$file" ] && { echo "---- $file"; cat "$file"; }
  done
  return 0
}
