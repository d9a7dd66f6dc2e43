#!/usr/bin/env bash
# Usage: slurm_scaling_sweep.sh DUNESIM_EXE CONF_FILE WORK_DIR
#
# Strong and weak scaling sweeps at 1 and 2 ranks on the local cluster: every run must
# write its timing.json, and the analysis job (postproc/scaling.py) the CSV, the plots and
# the communication model. The weak sweep also checks that its refined case was used.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/slurm_common.sh"
slurm_test_begin "$@"
case_file=$repo/tests/cases/slurm_tiny.toml

for mode in strong weak; do
  # Frames are left out: the sweep measures the simulation, and the test stays short.
  mapfile -t ids < <("$repo/slurm/${mode}_scaling.sh" --ranks="1 2" --time=0:15:00 \
    --exe="$exe" "$case_file" "$mode" -- --end-time 0.1 --no-frames --quiet)
  echo "$mode sweep: jobs ${ids[*]}"
  if [ "${#ids[@]}" -ne 3 ]; then
    echo "FAIL: expected 2 run jobs and 1 analysis job" >&2
    exit 1
  fi
  analysis=${ids[2]}
  wait_for_job "$analysis" 150
  show_logs "$mode"/np1/slurm-"${ids[0]}".out "$mode"/np2/slurm-"${ids[1]}".out \
    "$mode"/slurm-"$analysis".out
  if [ "$job_state" != COMPLETED ] || [ "$job_exit" != 0:0 ]; then
    echo "FAIL: $mode analysis job $analysis ended $job_state with exit code $job_exit" >&2
    exit 1
  fi
  for file in np1/timing.json np2/timing.json scaling.csv speedup.png efficiency.png \
              stage_times.png; do
    [ -s "$mode/$file" ] || { echo "FAIL: $mode/$file missing" >&2; exit 1; }
  done
  ranks=$(cut -d, -f1 "$mode/scaling.csv" | tr '\n' ' ')
  if [ "$ranks" != "ranks 1 2 " ]; then
    echo "FAIL: $mode/scaling.csv has rank rows '$ranks', expected 1 and 2" >&2
    exit 1
  fi
  head -n 1 "$mode/scaling.csv" | grep -q 'seconds_particles_to_grid,.*seconds_project_pressure' ||
    { echo "FAIL: $mode/scaling.csv lacks the stage columns" >&2; exit 1; }
  grep -q "Communication per rank and step ($mode scaling" "$mode/slurm-$analysis.out" ||
    { echo "FAIL: the $mode analysis printed no communication model" >&2; exit 1; }
done

# 2 ranks on (6/5)^3 = 1.73 times the cells of 1 rank: the 20 x 10 x 15 cells have a
# greatest common divisor of 5, so the closest refinement to 2^(1/3) per axis is 6/5.
grep -q '^cell_size = 0.016666666666666666' weak/np2/slurm_tiny.toml ||
  { echo "FAIL: the weak sweep did not refine the 2-rank case" >&2; exit 1; }
ratio=$(awk -F, 'NR == 2 { p1 = $3 } NR == 3 { printf "%.2f", $3 / p1 }' weak/scaling.csv)
if ! awk -v r="$ratio" 'BEGIN { exit !(r > 1.5 && r < 2.0) }'; then
  echo "FAIL: the weak sweep's 2-rank run has $ratio times the particles of the 1-rank run" >&2
  exit 1
fi
echo PASS
