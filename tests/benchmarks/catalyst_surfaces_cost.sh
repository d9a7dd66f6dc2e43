#!/usr/bin/env bash
# Usage: catalyst_surfaces_cost.sh DUNESIM_EXE CELL_SIZE STEPS [PAIRS] [RANKS]
#
# What the in situ surfaces (postproc/catalyst/surfaces.py) cost: cases/
# dam_break_on_sand_surfaces.toml (a water column released against a sand bank) refined
# to CELL_SIZE m cells (a divisor of 0.1 m; 105,600 particles at 0.01, 0.1/21 gives
# 978,000, 0.1/45 gives 9.6e6), frames off, on RANKS ranks (default 2). Each of PAIRS
# (default 3) rounds runs, one after the other:
#
#   short   the script after every step, for STEPS / 5 steps (at least 1)
#   with    the script after every step, for STEPS steps
#   without no [catalyst] table, for STEPS steps
#
# and prints for each: catalyst = the "catalyst" stage of timing.json (slowest rank), and
# step = the seconds of a step outside Catalyst, (wall - catalyst) / steps. From them:
#
#   per call = (catalyst(with) - catalyst(short)) / (STEPS - short steps)
#              (what a call costs once the script is imported: the first call adds that)
#   share    = per call / (step(without) + per call), the share of a step that draws
#   interval = the smallest interval_steps for which the surfaces take under 10% of the run
#
# Alternating with and without spreads the load of a shared machine over both.
set -euo pipefail

if [ "$#" -lt 3 ]; then
  echo "usage: $0 DUNESIM_EXE CELL_SIZE STEPS [PAIRS] [RANKS]" >&2
  exit 2
fi
exe=$1
cell_size=$2
steps=$3
pairs=${4:-3}
ranks=${5:-2}
short=$(( steps / 5 > 0 ? steps / 5 : 1 ))
root=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e "s#^cell_size = .*#cell_size = $cell_size#" \
    -e "s#^scripts = .*#scripts = [\"$root/postproc/catalyst/surfaces.py\"]#" \
    -e 's#^interval_steps = .*#interval_steps = 1#' \
    "$root/cases/dam_break_on_sand_surfaces.toml" > "$work/with.toml"
grep -v -E '^\[catalyst\]|^scripts|^interval_steps' "$work/with.toml" > "$work/without.toml"

# Runs CASE for STEPS steps; prints "catalyst_seconds step_seconds particles peak_rss_GiB".
run() {
  rm -rf "$work/out"
  mpiexec -n "$ranks" --oversubscribe "$exe" run "$1" --output "$work/out" --max-steps "$2" \
    --no-frames --quiet > "$work/run.log" 2>&1 || { cat "$work/run.log" >&2; exit 1; }
  /usr/bin/python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
catalyst = next((s["max"] for s in report["stages"] if s["name"] == "catalyst"), 0.0)
rss = sum(r["peak_rss_bytes"] for r in report["per_rank"]) / 2**30
particles = sum(r["particles"] for r in report["per_rank"])
print(catalyst, (report["wall_seconds"] - catalyst) / report["steps"], particles, rss)' \
    "$work/out/timing.json"
}

results=()
for pair in $(seq "$pairs"); do
  short_run=$(run "$work/with.toml" "$short")
  with_run=$(run "$work/with.toml" "$steps")
  without_run=$(run "$work/without.toml" "$steps")
  line="$short_run $with_run $without_run"
  echo "pair $pair: $line" >&2
  results+=("$line")
done
/usr/bin/python3 - "$steps" "$short" "$ranks" "${results[@]}" <<'PY'
import math
import sys

steps, short, ranks = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(f"{ranks} ranks, {steps} steps (short runs {short}); seconds")
print("pair  particles  catalyst(short)  catalyst(with)  step(with)  step(without)  "
      "per call  share  interval  peak RSS with/without (GiB, all ranks)")
for n, line in enumerate(sys.argv[4:], 1):
    v = list(map(float, line.split()))
    cat_short, cat_with, step_with, step_without = v[0], v[4], v[5], v[9]
    call = (cat_with - cat_short) / (steps - short)
    share = call / (step_without + call)
    # interval k: call / (k step + call) < 0.1  <=>  k > 9 call / step
    interval = max(1, math.floor(9 * call / step_without) + 1)
    print(f"{n:4d}  {int(v[6]):9d}  {cat_short:15.3f}  {cat_with:14.3f}  {step_with:10.3f}  "
          f"{step_without:13.3f}  {call:8.3f}  {100 * share:4.1f}%  {interval:8d}  "
          f"{v[7]:.2f}/{v[11]:.2f}")
PY
