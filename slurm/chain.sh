#!/usr/bin/env bash
# Submits the next job of a restart chain: slurm/dunesim.sbatch on CASE and OUTPUT, which
# resumes from the run's latest checkpoint when there is one. Prints the new job id.
#
#   slurm/chain.sh [--after JOBID] [--dry-run] [SBATCH_OPTION...] CASE OUTPUT [dunesim run options]
#
#   --after JOBID   start only when JOBID has ended (--dependency=afterany:JOBID), with the
#                   same job name, partition, nodes, tasks, time limit, account and QOS.
#                   dunesim.sbatch calls this inside a job that checkpointed.
#   --dry-run       print the sbatch command instead of running it.
#   SBATCH_OPTION   sbatch options in their one-word form (--ntasks=8, --time=2:00:00),
#                   for this job only. Options for every job of the chain (e.g. --mem=...)
#                   go in DUNESIM_SBATCH_OPTIONS, space-separated.
#
# By hand: start a chain, or resume one that was cancelled, e.g.
#   slurm/chain.sh --ntasks=8 --time=4:00:00 cases/dam_break.toml out/dam
# Every job writes its log to OUTPUT/slurm-<jobid>.out.
set -euo pipefail

slurm_dir=$(cd "$(dirname "$0")" && pwd)
after=""
dry_run=false
sbatch_options=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --after) after=$2; shift 2 ;;
    --dry-run) dry_run=true; shift ;;
    -*) sbatch_options+=("$1"); shift ;;
    *) break ;;
  esac
done
if [ "$#" -lt 2 ]; then
  echo "usage: $0 [--after JOBID] [--dry-run] [SBATCH_OPTION...] CASE OUTPUT [dunesim run options]" >&2
  exit 2
fi
case_file=$1
output=$2
shift 2

if [ -n "$after" ]; then
  # What the ended job asked for, so every link of the chain gets the same resources.
  if ! IFS='|' read -r time_limit account qos nodes tasks partition name < <(
      squeue -h -j "$after" -O "TimeLimit:|,Account:|,QOS:|,NumNodes:|,NumTasks:|,Partition:|,Name:|"); then
    echo "chain.sh: job $after is not known to squeue" >&2
    exit 1
  fi
  sbatch_options=(--dependency="afterany:$after" --job-name="$name" --partition="$partition"
                  --nodes="$nodes" --ntasks="$tasks" --time="$time_limit" "${sbatch_options[@]}")
  if [ "$account" != "(null)" ]; then sbatch_options+=(--account="$account"); fi
  if [ "$qos" != "(null)" ]; then sbatch_options+=(--qos="$qos"); fi
fi
read -ra chain_options <<< "${DUNESIM_SBATCH_OPTIONS:-}"

command=(sbatch --parsable --output="$output/slurm-%j.out" "${chain_options[@]}"
         "${sbatch_options[@]}" "$slurm_dir/dunesim.sbatch" "$case_file" "$output" "$@")
if [ "$dry_run" = true ]; then
  printf '%q ' "${command[@]}"
  echo
  exit 0
fi
mkdir -p "$output"
export DUNESIM_SLURM_DIR=$slurm_dir
if [ -n "$after" ]; then
  export DUNESIM_CHAIN_LINK=$(( ${DUNESIM_CHAIN_LINK:-1} + 1 ))
else
  export DUNESIM_CHAIN_LINK=1
fi
"${command[@]}" | cut -d';' -f1
