#!/usr/bin/env bash
# A scaling study: one Slurm job per rank count (slurm/submit.py), each in its own output
# folder SWEEP_DIR/np<ranks> with its timing.json, then a job that runs after all of them
# and writes SWEEP_DIR/scaling.csv and the plots (postproc/scaling.py).
#
#   slurm/scaling_sweep.sh strong|weak [--ranks="1 2 4 8"] [--dry-run] [SUBMIT_OPTION...] \
#       CASE SWEEP_DIR [-- dunesim run options]
#
#   strong          the case as written on every rank count
#   weak            the case's cells refined with the rank count so that the particles per
#                   rank stay as on the first rank count (submit.py --weak-from)
#   SUBMIT_OPTION   submit.py options in one-word form: --time=0:30:00 --partition=batch
#                   --launcher=mpirun --sbatch=--account=proj ...
#
# Prints the job ids, one a line; the last is the analysis job. Each run must finish within
# one job (give --time room): the analysis starts when the first job of every run has ended.
# The analysis runs postproc/scaling.py with DUNESIM_PYTHON (default /usr/bin/python3),
# which needs matplotlib.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
usage="usage: $0 strong|weak [--ranks=LIST] [--dry-run] [SUBMIT_OPTION...] CASE SWEEP_DIR [-- run options]"
mode=${1:-}
if [ "$mode" != strong ] && [ "$mode" != weak ]; then
  echo "$usage" >&2
  exit 2
fi
shift
ranks_list="1 2 4 8"
dry_run=false
submit_options=()
analysis_options=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --ranks=*) ranks_list=${1#--ranks=} ;;
    --dry-run) dry_run=true; submit_options+=("$1") ;;
    --partition=*) submit_options+=("$1"); analysis_options+=("$1") ;;
    --sbatch=*) submit_options+=("$1"); analysis_options+=("${1#--sbatch=}") ;;
    -*) submit_options+=("$1") ;;
    *) break ;;
  esac
  shift
done
if [ "$#" -lt 2 ]; then
  echo "$usage" >&2
  exit 2
fi
case_file=$1
sweep_dir=$2
shift 2
if [ "$#" -gt 0 ] && [ "$1" = -- ]; then shift; fi
read -ra ranks <<< "$ranks_list"

job_ids=()
run_dirs=()
for p in "${ranks[@]}"; do
  options=("${submit_options[@]}" --ranks="$p" --output="$sweep_dir/np$p" --job-name="$mode-np$p")
  if [ "$mode" = weak ]; then options+=(--weak-from="${ranks[0]}"); fi
  printed=$("$here/submit.py" "${options[@]}" "$case_file" -- "$@")
  echo "$printed"
  # A dry run prints a command, not a job id: name the job it stands for instead.
  if [ "$dry_run" = true ]; then job_ids+=("<np$p>"); else job_ids+=("$printed"); fi
  run_dirs+=("$sweep_dir/np$p")
done

analysis=$(printf '%q ' "${DUNESIM_PYTHON:-/usr/bin/python3}" "$repo/postproc/scaling.py" \
  --mode "$mode" --output-dir "$sweep_dir" "${run_dirs[@]}")
dependency=afterany:$(IFS=:; echo "${job_ids[*]}")
command=(sbatch --parsable --dependency="$dependency" --job-name="$mode-scaling" --ntasks=1
         --time=00:10:00 --output="$sweep_dir/slurm-%j.out" "${analysis_options[@]}"
         --wrap="$analysis")
if [ "$dry_run" = true ]; then
  printf '%q ' "${command[@]}"
  echo
else
  mkdir -p "$sweep_dir"
  "${command[@]}" | cut -d';' -f1
fi
