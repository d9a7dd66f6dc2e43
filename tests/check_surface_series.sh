#!/usr/bin/env bash
# Usage: check_surface_series.sh DUNESIM_EXE CONF_FILE WORK_DIR DUNESIM_SURFACE_EXE
#
# slurm/surface_series.sbatch on the local cluster: three frames from the real simulator
# (tests/cases/surface_sand_column.toml on 2 ranks), then a 2-task job array (sbatch
# --array=0-1, one rank each) must give every frame its surface, task 1 taking frames 1 and
# 3 and task 2 frame 2. Then one frame's .pvtp is removed and another frame is touched (now
# newer than its surface), and the re-submitted array must redo exactly those two: the third
# frame's files keep their inode and mtime, and its task says "up to date, skipped".
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/slurm_common.sh"
if [ "$#" -ne 4 ]; then
  echo "usage: $0 DUNESIM_EXE CONF_FILE WORK_DIR DUNESIM_SURFACE_EXE" >&2
  exit 2
fi
surface=$4
slurm_test_begin "$1" "$2" "$3"

# The array's tasks are jobs of their own; wait until none is left in the queue (at most
# `scaled SECONDS`), then require each to have completed with status 0.
wait_for_array() {  # ID SECONDS
  local id=$1 limit deadline task
  limit=$(scaled "$2")
  deadline=$((SECONDS + limit))
  while [ -n "$(squeue -h -r -j "$id" 2> /dev/null)" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "FAIL: array $id still queued or running after $limit s" >&2
      squeue -r -j "$id" >&2
      exit 1
    fi
    sleep 0.5
  done
  for task in 0 1; do
    show_logs "logs/slurm-${id}_$task.out"
    job_state=$(job_field "${id}_$task" JobState)
    job_exit=$(job_field "${id}_$task" ExitCode)
    if [ "$job_state" != COMPLETED ] || [ "$job_exit" != 0:0 ]; then
      echo "FAIL: array task ${id}_$task ended $job_state with exit code $job_exit" >&2
      exit 1
    fi
  done
}

submit_array() {
  DUNESIM_SURFACE_EXE=$surface sbatch --parsable --array=0-1 --ntasks=1 --time=15 \
    --output=logs/slurm-%A_%a.out "$repo/slurm/surface_series.sbatch" surfaces run
}

# inode and mtime (ns) of every file of a frame's surface
fingerprint() {
  stat -c '%n %i %.9Y' "surfaces/$1".pvtp "surfaces/$1"_*.vtp
}

require_line() {  # require_line FILE TEXT
  grep -qF -- "$2" "$1" || { echo "FAIL: $1 lacks '$2'" >&2; exit 1; }
}

mpiexec -n 2 --oversubscribe "$exe" run "$repo/tests/cases/surface_sand_column.toml" --output run \
  --quiet
stems=()
for frame in run/*.h5; do stems+=("$(basename "$frame" .h5)"); done
if [ "${#stems[@]}" -ne 3 ]; then
  echo "FAIL: expected 3 frames from the case, got ${#stems[@]}" >&2
  exit 1
fi
mkdir logs

# ---- every frame, shared by two tasks ----
first=$(submit_array)
echo "submitted array $first"
wait_for_array "$first" 120
for stem in "${stems[@]}"; do
  [ -s "surfaces/$stem.pvtp" ] || { echo "FAIL: surfaces/$stem.pvtp missing" >&2; exit 1; }
  [ -s "surfaces/${stem}_0.vtp" ] || { echo "FAIL: surfaces/${stem}_0.vtp missing" >&2; exit 1; }
done
leftovers=$(find surfaces -name '*.partial')
[ -z "$leftovers" ] || { echo "FAIL: unfinished surfaces left: $leftovers" >&2; exit 1; }
log0=logs/slurm-${first}_0.out
log1=logs/slurm-${first}_1.out
require_line "$log0" "task 1 of 2: frame 1 of 2: run/${stems[0]}.h5: made"
require_line "$log0" "task 1 of 2: frame 2 of 2: run/${stems[2]}.h5: made"
require_line "$log1" "task 2 of 2: frame 1 of 1: run/${stems[1]}.h5: made"
require_line "$log0" "task 1 of 2: 2 made, 0 up to date, 0 failed"

# ---- re-submitted: only the removed surface and the touched frame are redone ----
kept=$(fingerprint "${stems[0]}")
touched=$(fingerprint "${stems[2]}")
rm "surfaces/${stems[1]}.pvtp"
touch "run/${stems[2]}.h5"
second=$(submit_array)
echo "submitted array $second"
wait_for_array "$second" 120
if [ "$(fingerprint "${stems[0]}")" != "$kept" ]; then
  echo "FAIL: the up-to-date surface of ${stems[0]} was rewritten:" >&2
  echo "before: $kept" >&2
  echo "after:  $(fingerprint "${stems[0]}")" >&2
  exit 1
fi
[ -s "surfaces/${stems[1]}.pvtp" ] || {
  echo "FAIL: surfaces/${stems[1]}.pvtp not redone" >&2; exit 1; }
if [ "$(fingerprint "${stems[2]}")" = "$touched" ]; then
  echo "FAIL: the surface of ${stems[2]}, older than its frame, was not redone" >&2
  exit 1
fi
[ "surfaces/${stems[2]}.pvtp" -nt "run/${stems[2]}.h5" ] || {
  echo "FAIL: surfaces/${stems[2]}.pvtp is still older than its frame" >&2; exit 1; }
log0=logs/slurm-${second}_0.out
log1=logs/slurm-${second}_1.out
require_line "$log0" "task 1 of 2: frame 1 of 2: run/${stems[0]}.h5: up to date, skipped"
require_line "$log0" "task 1 of 2: frame 2 of 2: run/${stems[2]}.h5: made"
require_line "$log1" "task 2 of 2: frame 1 of 1: run/${stems[1]}.h5: made"
echo PASS
