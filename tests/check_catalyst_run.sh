#!/usr/bin/env bash
# Usage: check_catalyst_run.sh DUNESIM_EXE CASE WET_CASE
#
# Runs CASE (a case whose [catalyst] table names postproc/catalyst/render_speed.py and
# extract_reduced.py with interval_steps = 10, and which neither adds nor removes particles)
# for 20 steps on 2 MPI ranks under a virtual X server, then requires in <output>/catalyst:
# a non-empty PNG for steps 10 and 20 whose decoded pixels differ (the water moved), a
# statistics line for both steps counting the run's particles, and the reduced particle
# extract of both steps holding exactly what extract_reduced.py asks for: every particle
# whose id is a multiple of 10, each once (the ids of the run's first frame).
# Then runs WET_CASE (water soaking into porous sand, no [catalyst] table) for 20 steps on
# 2 ranks with extract_reduced.py, [catalyst] particle_stride = 3 and channels = ["input"]
# (the particles only, all the script reads), and requires the
# extract of step 20 to hold only ids divisible by 30 and to carry each particle's
# water_content and saturation: S = water_content / porosity for the sand, some
# of it wet, and 1 for water.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 3 ]; then
  echo "usage: $0 DUNESIM_EXE CASE WET_CASE" >&2
  exit 2
fi
exe=$1
case_file=$2
wet_case=$3
postproc=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/postproc
extract_script=$postproc/catalyst/extract_reduced.py

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=$(scaled 90)  # s, for each run

# -noreset: by default Xvfb resets whenever its last client disconnects, and a rank that
# connects during the reset is refused ("bad X server connection"), failing the run.
timeout "$limit" xvfb-run -a -s "-noreset -screen 0 1280x1024x24" \
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

# The extracts against the run's particles. VTK's own XML reader reads the .pvtu and the
# per-rank pieces it names (no display needed).
first_frame=$(ls "$work"/out/*_000000.h5)
PYTHONPATH=$postproc${PYTHONPATH:+:$PYTHONPATH} /usr/bin/python3 - "$first_frame" "$extracts" <<'PY'
import csv
import sys

import dunesim_frames
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader

SAMPLE_EVERY = 10  # extract_reduced.py: every 10th particle by id
frame, extracts = sys.argv[1:3]
ids = dunesim_frames.Frame(frame).ids()
with open(f"{extracts}/statistics.csv") as table:
    counted = {int(row["step"]): int(row["particles"]) for row in csv.DictReader(table)}
for step, count in counted.items():
    if count != ids.size:  # else the first frame's ids are not those of this step
        sys.exit(f"FAIL: statistics.csv counts {count} particles at step {step}, "
                 f"the first frame {ids.size}")
expected = np.sort(ids[ids % SAMPLE_EVERY == 0])
for step in (10, 20):
    reader = vtkXMLPUnstructuredGridReader()
    reader.SetFileName(f"{extracts}/reduced_{step:06d}.pvtu")
    reader.Update()
    extract = reader.GetOutput()
    points = extract.GetNumberOfPoints()
    print(f"step {step}: {points} points in the reduced extract, {expected.size} particles "
          f"of {ids.size} have an id divisible by {SAMPLE_EVERY}")
    if points != expected.size:
        sys.exit(f"FAIL: the step {step} extract has {points} points, expected {expected.size}")
    held = np.sort(vtk_to_numpy(extract.GetPointData().GetArray("id")))
    if not np.array_equal(held, expected):
        sys.exit(f"FAIL: the step {step} extract holds other particles than every 10th by id")
PY
# The wet case with a [catalyst] table added (a table of its own, so appending is valid TOML),
# handing Catalyst every third particle by id.
{
  cat "$wet_case"
  printf '\n[catalyst]\nscripts = ["%s"]\ninterval_steps = 10\nparticle_stride = 3\nchannels = ["input"]\n' \
    "$extract_script"
} > "$work/wet.toml"
timeout "$limit" mpiexec -n 2 --oversubscribe "$exe" run "$work/wet.toml" --output "$work/wet" \
  --max-steps 20 --no-frames --quiet

/usr/bin/python3 - "$work/wet.toml" "$work/wet/catalyst/reduced_000020.pvtu" <<'PY'
import sys
import tomllib

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader

with open(sys.argv[1], "rb") as f:
    materials = tomllib.load(f)["material"]
porosity = np.array([m.get("porosity", 0.0) for m in materials])
reader = vtkXMLPUnstructuredGridReader()
reader.SetFileName(sys.argv[2])
reader.Update()
points = reader.GetOutput().GetPointData()
arrays = {}
for name in ("material", "water_content", "saturation"):
    if points.GetArray(name) is None:
        sys.exit(f"FAIL: the extract has no point array '{name}'")
    arrays[name] = vtk_to_numpy(points.GetArray(name))
material, water, saturation = arrays["material"], arrays["water_content"], arrays["saturation"]
# particle_stride = 3, then extract_reduced.py's every 10th: ids divisible by 30 only.
ids = vtk_to_numpy(points.GetArray("id"))
if ids.size == 0 or np.any(ids % 30 != 0):
    sys.exit(f"FAIL: with particle_stride = 3 the extract should hold ids divisible by 30 only; "
             f"it holds {ids.size} points, ids {np.unique(ids % 30)[:5]}... mod 30")
print(f"{ids.size} points in the strided extract, every id divisible by 30")
sand = porosity[material] > 0
print(f"{sand.sum()} sand particles, mean S {saturation[sand].mean():.3f}, "
      f"{(~sand).sum()} water particles")
if sand.sum() == 0 or (~sand).sum() == 0:
    sys.exit("FAIL: the extract lacks sand or water particles")
# saturation is single precision: within 1e-6 relative of water_content / porosity.
expected = water[sand] / porosity[material[sand]]
if not np.allclose(saturation[sand], expected, rtol=1e-6, atol=0):
    sys.exit("FAIL: the sand's saturation is not water_content / porosity")
if not (saturation[sand] > 0).any():
    sys.exit("FAIL: no sand was wet at step 20")
if not (np.all(saturation[~sand] == 1) and np.all((water[~sand] > 0) & (water[~sand] <= 1))):
    sys.exit("FAIL: water particles should have S = 1 and a water content in (0, 1]")
PY
echo "PASS"
