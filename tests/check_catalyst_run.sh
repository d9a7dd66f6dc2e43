#!/usr/bin/env bash
# Usage: check_catalyst_run.sh DUNESIM_EXE CASE
#
# Runs CASE (a case whose [catalyst] table names postproc/catalyst/render_speed.py and
# extract_reduced.py with interval_steps = 10) for 20 steps on 2 MPI ranks under a virtual X
# server, then requires in <output>/catalyst: a non-empty PNG for steps 10 and 20 whose
# decoded pixels differ (the water moved), the reduced particle extract of both steps, and
# a statistics line for both steps.
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 DUNESIM_EXE CASE" >&2
  exit 2
fi
exe=$1
case_file=$2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# -noreset: by default Xvfb resets whenever its last client disconnects, and a rank that
# connects during the reset is refused ("bad X server connection"), failing the run.
timeout 90 xvfb-run -a -s "-noreset -screen 0 1280x1024x24" \
  mpiexec -n 2 --oversubscribe -x DISPLAY \
  "$exe" run "$case_file" --output "$work/out" --max-steps 20 --quiet

extracts=$work/out/catalyst
ls -l "$extracts"
for step in 000010 000020; do
  for file in "speed_$step.png" "reduced_$step.pvtu"; do
    if [ ! -s "$extracts/$file" ]; then
      echo "FAIL: $extracts/$file is missing or empty" >&2
      exit 1
    fi
  done
done

/usr/bin/python3 - "$extracts/speed_000010.png" "$extracts/speed_000020.png" <<'PY'
import sys

import matplotlib.image
import numpy as np

first, second = (matplotlib.image.imread(path) for path in sys.argv[1:3])
if first.shape != second.shape:
    sys.exit(f"FAIL: image sizes differ: {first.shape} and {second.shape}")
for path, image in zip(sys.argv[1:3], (first, second)):
    if np.all(image == image[0, 0]):
        sys.exit(f"FAIL: {path} is a single colour")
changed = np.any(first != second, axis=-1).mean()
print(f"{100 * changed:.1f}% of the pixels differ between steps 10 and 20")
if changed == 0:
    sys.exit("FAIL: the images of steps 10 and 20 are identical")
PY

steps=$(tail -n +2 "$extracts/statistics.csv" | cut -d, -f1 | tr '\n' ' ')
if [ "$steps" != "10 20 " ]; then
  echo "FAIL: statistics.csv lists steps '$steps', expected '10 20 '" >&2
  exit 1
fi
echo "PASS"
