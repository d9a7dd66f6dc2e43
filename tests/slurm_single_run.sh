#!/usr/bin/env bash
# Usage: slurm_single_run.sh DUNESIM_EXE CONF_FILE WORK_DIR
#
# Submits slurm/dunesim.sbatch with plain sbatch (the default srun launcher) on the local
# cluster, waits for the job, and requires exit status 0, every output frame and
# timing.json. Also checks that submit.py --dry-run prints the sbatch command it would run.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/slurm_common.sh"
slurm_test_begin "$@"

dry=$("$repo/slurm/submit.py" "$repo/tests/cases/slurm_tiny.toml" --ranks 2 --time 0:10:00 \
  --launcher mpirun --dry-run -- --end-time 0.1)
echo "dry run: $dry"
for expected in "DUNESIM_LAUNCHER=mpirun sbatch" --ntasks=2 --time=0:10:00 \
                "$repo/slurm/dunesim.sbatch" "output/slurm_tiny-np2 --end-time 0.1"; do
  if [[ $dry != *"$expected"* ]]; then
    echo "FAIL: the dry run lacks '$expected'" >&2
    exit 1
  fi
done
if [ -e output ]; then
  echo "FAIL: the dry run created output/" >&2
  exit 1
fi

# The time limit stays well above the template's SIGUSR1 lead (300 s), which Slurm would
# otherwise send at once.
mkdir -p out
id=$(DUNESIM_EXE=$exe sbatch --parsable --ntasks=2 --time=15 --output=out/slurm-%j.out \
  "$repo/slurm/dunesim.sbatch" "$repo/tests/cases/slurm_tiny.toml" out)
echo "submitted job $id"
wait_for_job "$id" 120
show_logs out/slurm-"$id".out

if [ "$job_state" != COMPLETED ] || [ "$job_exit" != 0:0 ]; then
  echo "FAIL: job $id ended $job_state with exit code $job_exit" >&2
  exit 1
fi
for frame in 0 1 2 3 4 5 6; do
  file=out/slurm_tiny_00000$frame.h5
  [ -s "$file" ] || { echo "FAIL: $file missing" >&2; exit 1; }
done
[ -s out/timing.json ] || { echo "FAIL: out/timing.json missing" >&2; exit 1; }
grep -q '"ranks": 2,' out/timing.json || { echo "FAIL: timing.json is not from 2 ranks" >&2; exit 1; }
grep -q "job $id (link 1): finished" out/slurm_chain.log || {
  echo "FAIL: slurm_chain.log does not record the finished run" >&2; exit 1; }
echo PASS
