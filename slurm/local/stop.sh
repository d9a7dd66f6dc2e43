#!/usr/bin/env bash
# Stops a cluster started by start.sh: cancels its jobs, ends its daemons by their pid files
# and removes its directory.
#
#   slurm/local/stop.sh DIR     (DIR as printed by start.sh: the folder of SLURM_CONF)
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir=$1
# Only ever remove a directory that start.sh made.
if [[ ! -f $dir/slurm.conf || $(basename "$dir") != dunesim-slurm.* ]]; then
  echo "stop.sh: $dir is not a cluster directory made by start.sh" >&2
  exit 1
fi
export SLURM_CONF=$dir/slurm.conf
PATH=$PATH:/usr/sbin

# Jobs first (SIGKILL: no grace period to checkpoint), so no simulation outlives the
# daemons that track it.
if [ -f "$dir/slurmctld.pid" ] && squeue -h >/dev/null 2>&1; then
  scancel --signal=KILL --partition=debug 2>/dev/null || true
  for _ in $(seq 1 50); do
    [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break
    sleep 0.2
  done
fi

# All daemons at once (each takes about 2 s to exit); SIGKILL for any still there after 10 s.
pids=()
for name in slurmd slurmctld munged; do
  if [ -f "$dir/$name.pid" ]; then pids+=("$(cat "$dir/$name.pid")"); fi
done
if [ "${#pids[@]}" -gt 0 ]; then
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 50); do
    running=()
    for pid in "${pids[@]}"; do
      if kill -0 "$pid" 2>/dev/null; then running+=("$pid"); fi
    done
    [ "${#running[@]}" -eq 0 ] && break
    sleep 0.2
  done
  if [ "${#running[@]}" -gt 0 ]; then kill -KILL "${running[@]}" 2>/dev/null || true; fi
fi
rm -rf "$dir"
echo "stop.sh: cluster in $dir stopped"
