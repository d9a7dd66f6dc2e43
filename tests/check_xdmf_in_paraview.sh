#!/usr/bin/env bash
# Usage: check_xdmf_in_paraview.sh DUNESIM_EXE PVPYTHON CHECK_SCRIPT
#
# Runs a tiny dam break with the real `dunesim run` on 2 MPI ranks, then opens its XDMF
# series with ParaView's own reader (CHECK_SCRIPT = postproc/check_xdmf_in_paraview.py under
# PVPYTHON) and requires, in every frame, all 1000 particles as points with a vertex cell
# each, the point arrays velocity, id, material and rank, and the frame times 0, 0.01, 0.02, 0.03 s;
# and, in every frame, the material names as field data ("material: water" = 0,
# "material: dune sand" = 1: the values the material array takes). Then, the series without
# its connectivity DataItems: ParaView's reader must still load every point with its arrays,
# and makes no cells (why frames keep /particles/connectivity, io/README.md); should a later
# ParaView make them, it says so.
# Without PVPYTHON it exits 77 (skipped), or fails when CI=true: CI must run it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 3 ]; then
  echo "usage: $0 DUNESIM_EXE PVPYTHON CHECK_SCRIPT" >&2
  exit 2
fi
exe=$1
pvpython=$2
check_script=$3

if [ ! -x "$pvpython" ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: pvpython not found ('$pvpython'); CI=true requires this test: install paraview" >&2
    exit 1
  fi
  echo "SKIP: pvpython not found ('$pvpython'): install paraview to run this test"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 5 x 5 x 5 water cells at 8 particles per cell: 1000 particles, none of which can leave.
cat > "$work/tiny.toml" <<'CASE'
[case]
name = "tiny"

[domain]
size = [0.2, 0.1, 0.2]
cell_size = 0.02

[time]
end = 0.03

[output]
interval = 0.01

[[material]]
name = "water"
kind = "water"

[[material]]                # none of it: its name is shown all the same
name = "dune sand"
kind = "sand"

[[source]]
material = "water"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.1]
CASE

timeout "$(scaled 60)" mpiexec -n 2 --oversubscribe "$exe" run "$work/tiny.toml" \
  --output "$work/out" --quiet
"$pvpython" "$check_script" "$work/out/tiny.xmf" --points 1000 --arrays velocity,id,material,rank \
  --times 0,0.01,0.02,0.03

# The material names as ParaView shows them: field data of every time step.
cat > "$work/material_names.py" <<'PY'
import sys
from paraview import servermanager
from paraview.simple import OpenDataFile

reader = OpenDataFile(sys.argv[1])
expected = {"material: water": 0, "material: dune sand": 1}
failures = []
for t in reader.TimestepValues:
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    fields = data.GetFieldData()
    found = {fields.GetAbstractArray(n).GetName(): fields.GetAbstractArray(n).GetVariantValue(0).ToInt()
             for n in range(fields.GetNumberOfArrays())}
    print(f"  t = {t:.9g}: field data {sorted(found.items())}")
    for name, value in expected.items():
        if found.get(name) != value:
            failures.append(f"t = {t:.9g}: field data '{name}' is {found.get(name)}, expected {value}")
for failure in failures:
    print(f"FAIL: {failure}")
if not failures:
    print("PASS: material names")
sys.exit(1 if failures else 0)
PY
"$pvpython" "$work/material_names.py" "$work/out/tiny.xmf"

# Without connectivity: the points and arrays load, but no vertex cells are made to draw them.
sed -e '/particles\/connectivity/d' "$work/out/tiny.xmf" > "$work/out/no_connectivity.xmf"
if "$pvpython" "$check_script" "$work/out/no_connectivity.xmf" --points 1000 \
  --arrays velocity,id,material,rank > "$work/no_connectivity.log"; then
  cat "$work/no_connectivity.log"
  echo "NOTE: ParaView now draws the points without /particles/connectivity: frames can drop it"
else
  cat "$work/no_connectivity.log"
  [ "$(grep -c '^FAIL' "$work/no_connectivity.log")" -eq 4 ] &&
    [ "$(grep -c '^FAIL: t = [0-9.]*: 0 cells for 1000 points$' "$work/no_connectivity.log")" -eq 4 ] || {
    echo "FAIL: without connectivity the points or their arrays did not load" >&2
    exit 1
  }
  echo "PASS: without connectivity every point and array loads, with no cells (as expected)"
fi
