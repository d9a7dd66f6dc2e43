#!/usr/bin/env bash
# Usage: catalyst_cost.sh DUNESIM_EXE [REPEATS]
#
# What in situ rendering costs: cases/dam_break_catalyst.toml refined to 1/60 m cells
# (120,960 particles) on 2 ranks, frames off, with postproc/catalyst/render_speed.py after
# every step, against the same case without Catalyst. Catalyst's time is the "catalyst" stage
# of timing.json. Runs of 10 and 50 steps separate
# the one-off cost of the first call (importing the script, building its pipeline) from the
# cost per call:
#
#   per call        = (output(50) - output(10)) / 40
#   simulation step = ((wall - output)(50) - (wall - output)(10)) / 40
#
# both the median over REPEATS pairs of runs (default 3). The early steps of the dam break
# are what is measured. Runs under its own virtual X server.
set -euo pipefail

if [ "$#" -lt 1 ]; then
  echo "usage: $0 DUNESIM_EXE [REPEATS]" >&2
  exit 2
fi
exe=$1
repeats=${2:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e 's#^cell_size = .*#cell_size = 0.016666666666666666#' \
    -e "s#^scripts = .*#scripts = [\"$root/postproc/catalyst/render_speed.py\"]#" \
    -e 's#^interval_steps = .*#interval_steps = 1#' \
    "$root/cases/dam_break_catalyst.toml" > "$work/render.toml"
grep -v -E '^\[catalyst\]|^scripts|^interval_steps' "$work/render.toml" > "$work/plain.toml"

# Runs CASE for STEPS steps; prints "wall_seconds catalyst_seconds" (slowest rank).
run() {
  rm -rf "$work/out"
  xvfb-run -a -s "-noreset -screen 0 1280x1024x24" mpiexec -n 2 --oversubscribe -x DISPLAY \
    "$exe" run "$1" --output "$work/out" --max-steps "$2" --no-frames --quiet \
    > "$work/run.log" 2>&1 || { cat "$work/run.log" >&2; exit 1; }
  /usr/bin/python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
output = next(s["max"] for s in report["stages"] if s["name"] == "catalyst")
print(report["wall_seconds"], output)' "$work/out/timing.json"
}

results=()
for _ in $(seq "$repeats"); do
  results+=("$(run "$work/render.toml" 10) $(run "$work/render.toml" 50) $(run "$work/plain.toml" 50)")
done
/usr/bin/python3 - "${results[@]}" <<'PY'
import statistics
import sys

per_call, step, plain_step, one_off = [], [], [], []
for line in sys.argv[1:]:
    wall_10, out_10, wall_50, out_50, plain_wall_50, _ = map(float, line.split())
    call = (out_50 - out_10) / 40
    per_call.append(call)
    step.append(((wall_50 - out_50) - (wall_10 - out_10)) / 40)
    plain_step.append(plain_wall_50 / 50)
    one_off.append(out_10 - 10 * call)
call, sim = statistics.median(per_call), statistics.median(step)
print(f"pairs of runs: {len(per_call)}; per call (s): {', '.join(f'{c:.3f}' for c in per_call)}")
print(f"simulation step (render runs, outside Catalyst): {1e3 * sim:.1f} ms; "
      f"step without Catalyst (plain runs, incl. start): {1e3 * statistics.median(plain_step):.1f} ms")
print(f"Catalyst call (render + PNG): {1e3 * call:.1f} ms = {100 * call / sim:.0f}% of a "
      f"simulation step; {100 * call / (sim + call):.0f}% of the time of a rendering step")
print(f"one-off set-up in the first call: {statistics.median(one_off):.2f} s")
PY
