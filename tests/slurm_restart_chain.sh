#!/usr/bin/env bash
# Usage: slurm_restart_chain.sh DUNESIM_EXE CONF_FILE WORK_DIR
#
# The restart chain on the local cluster: a run submitted with slurm/submit.py (mpirun
# launcher) gets SIGUSR1 part-way, as it would shortly before its time limit; it must
# write a checkpoint and exit 75, its job must submit the next one, and that job must
# resume and finish the case. The final frame must equal, bit for bit (particles sorted by
# id), that of an uninterrupted run on the same number of ranks.
# Part-way is an event, not a moment: the first job runs with the checkpoint writer's test
# hook (DUNESIM_TEST_PAUSE_IN_CHECKPOINT, io/README.md), which holds it in its second
# checkpoint until the signal has arrived, so it cannot finish first on any machine.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/slurm_common.sh"
slurm_test_begin "$@"
# tests/cases/slurm_tiny.toml with a checkpoint every 5 steps, for the hook to pause in.
case_file=$work/slurm_tiny.toml
{
  cat "$repo/tests/cases/slurm_tiny.toml"
  printf '\n[checkpoint]\ninterval_steps = 5\n'
} > "$case_file"
run_options=(--end-time 1.0 --quiet)
ranks=2

mpiexec -n "$ranks" --oversubscribe "$exe" run "$case_file" --output reference "${run_options[@]}"
frames=(reference/slurm_tiny_*.h5)
final=$(basename "${frames[-1]}")

# The lead of --signal is coarse (Slurm checks time limits about once a minute), so the test
# sends the signal itself, to the batch shell exactly as --signal=B:USR1 does. The job's
# environment, and the next job's, carries the hook; the next job's run does not pause, as
# `paused` then exists.
paused=$work/paused
first=$(DUNESIM_TEST_PAUSE_IN_CHECKPOINT=$paused "$repo/slurm/submit.py" "$case_file" \
  --ranks "$ranks" --time 0:15:00 --launcher mpirun --exe "$exe" --output chain -- \
  "${run_options[@]}")
echo "submitted job $first"
limit=$(scaled 120)
deadline=$((SECONDS + limit))
until [ -e "$paused" ]; do
  state=$(job_field "$first" JobState)
  if [ "$SECONDS" -ge "$deadline" ] || { [ "$state" != PENDING ] && [ "$state" != RUNNING ]; }; then
    show_logs chain/slurm-"$first".out
    echo "FAIL: job $first is $state and its run has not paused in a checkpoint (waited at" \
      "most $limit s for $paused)" >&2
    scancel "$first" 2> /dev/null || true
    exit 1
  fi
  sleep 0.1
done
scancel --signal=USR1 --batch "$first"
wait_for_job "$first" 120
show_logs chain/slurm-"$first".out chain/slurm_chain.log

if grep -q "job $first (link 1): finished" chain/slurm_chain.log; then
  echo "FAIL: the first run finished although it was stopped by SIGUSR1 in a checkpoint" >&2
  exit 1
fi
if [ ! -e chain/checkpoints/checkpoint_latest ]; then
  echo "FAIL: no chain/checkpoints/checkpoint_latest after SIGUSR1" >&2
  exit 1
fi
second=$(sed -n "s/.*job $first (link 1): checkpointed; submitted job \([0-9]*\).*/\1/p" \
  chain/slurm_chain.log)
if [ -z "$second" ]; then
  echo "FAIL: job $first (exit code $job_exit) did not submit a next job" >&2
  exit 1
fi
wait_for_job "$second" 120
show_logs chain/slurm-"$second".out
if [ "$job_state" != COMPLETED ] || [ "$job_exit" != 0:0 ]; then
  echo "FAIL: job $second ended $job_state with exit code $job_exit" >&2
  exit 1
fi
grep -q "job $second (link 2): starting: .*--restart latest" chain/slurm_chain.log || {
  echo "FAIL: job $second did not resume from the checkpoint" >&2; exit 1; }
grep -q "job $second (link 2): finished" chain/slurm_chain.log || {
  echo "FAIL: job $second did not finish the case" >&2; exit 1; }

/usr/bin/python3 - "reference/$final" "chain/$final" <<'PYTHON'
import sys

import h5py
import numpy as np

reference, resumed = (h5py.File(path, "r") for path in sys.argv[1:])
if reference.attrs["time"] != resumed.attrs["time"]:
    sys.exit("FAIL: final frames at t = {} and {}".format(reference.attrs["time"],
                                                          resumed.attrs["time"]))
order = [np.argsort(f["particles/id"][...], kind="stable") for f in (reference, resumed)]
for name in ("id", "position", "velocity", "material"):
    a = reference["particles/" + name][...][order[0]]
    b = resumed["particles/" + name][...][order[1]]
    # Same rank count, same arithmetic: the restarted run must match to the last bit.
    if a.shape != b.shape or a.tobytes() != b.tobytes():
        differing = np.count_nonzero(np.any((a != b).reshape(len(a), -1), axis=1)) \
            if a.shape == b.shape else "all"
        sys.exit("FAIL: particles/{} differs ({} particles)".format(name, differing))
print("final frames equal bit for bit: {} particles at t = {}".format(
    len(order[0]), reference.attrs["time"]))
PYTHON
echo PASS
