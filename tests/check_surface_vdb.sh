#!/usr/bin/env bash
# Usage: check_surface_vdb.sh DUNESIM_EXE DUNESIM_SURFACE_EXE CHECKER CASE
#
# dunesim_surface --vdb on a frame of two materials from the real simulator (CASE,
# tests/cases/wet_soak.toml, on 2 ranks: a water layer above a sand bed), read back with
# OpenVDB's API by CHECKER (tests/check_vdb_level_sets.cpp) and, when /usr/bin/python3 has
# pyopenvdb (python3-openvdb), by OpenVDB's Python module as well:
# - on 1, 2 and 4 ranks: one level set per material, named after it (water, sand), with
#   voxels of the sample spacing, OpenVDB's level-set checks passed, and the same active
#   voxels and values, bit for bit, in all three files, which are the same bytes but for the
#   UUID in their headers;
# - --material water: that grid alone, the same as the water grid of the files above;
# - the zero crossing of each grid is that material's triangle surface (--material, --merge):
#   phi interpolated at every vertex within 1e-4 voxel of 0 (the checker says why), and
#   that surface encloses its own material's particles, not the other's;
# - a .vdb path where a directory stands: exit status 3 on every rank, naming the path; and
#   --vdb with --blobby refused (status 2).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 4 ]; then
  echo "usage: $0 DUNESIM_EXE DUNESIM_SURFACE_EXE CHECKER CASE" >&2
  exit 2
fi
dunesim=$1
surface=$2
checker=$3
case_file=$4
cell=0.01        # the case's cell size (its frames have no grid fields)
spacing=0.005    # the samples: cell size / --resolution 2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=$(scaled 120)  # s, for each run
cd "$work"

timeout "$limit" mpiexec -n 2 --oversubscribe "$dunesim" run "$case_file" --output run \
  --max-steps 4 --quiet
frame=$(ls run/*.h5 | sort | tail -n 1)
stem=$(basename "$frame" .h5)
for ranks in 1 2 4; do
  timeout "$limit" mpiexec -n "$ranks" --oversubscribe "$surface" "$frame" --cell-size "$cell" \
    --out "out$ranks" --vdb
done
for material in water sand; do
  timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" "$frame" --cell-size "$cell" \
    --out "$material" --vdb --merge --material "$material"
done
ls -l out1/"$stem".vdb out2/"$stem".vdb out4/"$stem".vdb water/"$stem".vdb

fail=0
"$checker" same "$spacing" water,sand out1/"$stem".vdb out2/"$stem".vdb out4/"$stem".vdb || fail=1
"$checker" same "$spacing" water out1/"$stem".vdb water/"$stem".vdb || fail=1
"$checker" zero out2/"$stem".vdb water water/"$stem".vtp || fail=1
"$checker" zero out4/"$stem".vdb sand sand/"$stem".vtp || fail=1

# --material keeps the other material out: each material's surface encloses at most its own
# particles' volume (N (cell / 2)^3) and 5% (check_surface_meshes.py's bound), where water
# and sand together would enclose 4 times the water's; and at least half of it (measured:
# water 0.88, a layer two cells thin; sand 0.96).
/usr/bin/python3 - "$frame" "$stem" "$cell" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' || fail=1
import sys
import h5py
import numpy as np
frame, stem, cell, tests = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
sys.path.insert(0, tests)
import check_surface_meshes as c
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
with h5py.File(frame) as f:
    material = f["particles/material"][:]
    names = [n.decode() if isinstance(n, bytes) else str(n)
             for n in f["particles/material"].attrs["names"]]
for index, name in enumerate(names):
    mesh = c.read(vtkXMLPolyDataReader, f"{name}/{stem}.vtp")
    points = vtk_to_numpy(mesh.GetPoints().GetData()).astype(np.float64)
    ratio = c.enclosed_volume(points, c.triangles(mesh)) / (
        np.count_nonzero(material == index) * (cell / 2) ** 3)
    c.check(0.5 <= ratio <= 1.05, f"--material {name}: encloses {ratio:.3f} of its particles' volume")
sys.exit(1 if c.failures else 0)
PY

# The files themselves: the same bytes but for the 36-character UUID OpenVDB writes into every
# file's header (after the magic number, three version numbers and a flag: bytes 21-56).
/usr/bin/python3 - out1/"$stem".vdb out2/"$stem".vdb out4/"$stem".vdb <<'PY' || fail=1
import sys

def without_uuid(path):
    data = open(path, "rb").read()
    return data[:21] + data[57:]

reference = without_uuid(sys.argv[1])
for path in sys.argv[2:]:
    if without_uuid(path) != reference:
        sys.exit(f"FAIL: {path} differs from {sys.argv[1]} beyond the header's UUID")
print(f"{len(sys.argv) - 1} files: the same {len(reference) + 36} bytes but for the UUID")
PY

if /usr/bin/python3 -c "import pyopenvdb, numpy" 2> /dev/null; then
  /usr/bin/python3 - "$stem" <<'PY' || fail=1
import sys
import numpy as np
import pyopenvdb as vdb

stem = sys.argv[1]
failures = []

def dense(grid):
    """The grid's values over its active voxels' bounding box, as an array."""
    low, high = grid.evalActiveVoxelBoundingBox()
    values = np.zeros([b - a + 1 for a, b in zip(low, high)], dtype=np.float32)
    grid.copyToArray(values, ijk=low)
    return low, values

files = {name: f"{name}/{stem}.vdb" for name in ("out1", "out2", "out4", "water")}
grids = {name: {g.name: g for g in vdb.readAll(path)[0]} for name, path in files.items()}
for name, found in grids.items():
    expected = ["water"] if name == "water" else ["water", "sand"]
    if sorted(found) != sorted(expected):
        failures.append(f"{files[name]}: grids {sorted(found)}, expected {sorted(expected)}")
    for grid in found.values():
        print(f"pyopenvdb {files[name]} {grid.name}: class {grid.gridClass}, "
              f"{grid.activeVoxelCount()} active voxels, voxel {grid.transform.voxelSize()}")
        if grid.gridClass != vdb.GridClass.LEVEL_SET:
            failures.append(f"{files[name]} {grid.name}: class {grid.gridClass}")
for material in ("water", "sand"):
    low, reference = dense(grids["out1"][material])
    for name in ("out2", "out4", "water"):
        if material not in grids[name]:
            continue
        other_low, other = dense(grids[name][material])
        if other_low != low or not np.array_equal(other, reference):
            failures.append(f"{files[name]} {material}: values differ from {files['out1']}")
for failure in failures:
    print("FAIL: pyopenvdb:", failure, file=sys.stderr)
sys.exit(1 if failures else 0)
PY
else
  echo "pyopenvdb not importable by /usr/bin/python3 (python3-openvdb): its check skipped"
fi

# A .vdb path where a directory stands: the frame fails on every rank, naming the path.
mkdir -p blocked/"$stem".vdb
timeout "$limit" mpiexec -n 2 --oversubscribe bash -c '"$@"; echo "$?" >> statuses' _ \
  "$surface" "$frame" --cell-size "$cell" --out blocked --vdb 2> blocked.err || true
cat blocked.err
grep -qF -- "blocked/$stem.vdb:" blocked.err ||
  { echo "FAIL: stderr does not name blocked/$stem.vdb" >&2; fail=1; }
[ "$(sort statuses | tr '\n' ' ')" = "3 3 " ] ||
  { echo "FAIL: blocked .vdb: exit statuses $(tr '\n' ' ' < statuses), expected 3 3" >&2; fail=1; }
status=0
timeout "$limit" "$surface" "$frame" --cell-size "$cell" --out blobby --vdb --blobby 2> blobby.err ||
  status=$?
[ "$status" = 2 ] || { echo "FAIL: --vdb --blobby: exit status $status, expected 2" >&2; fail=1; }
[ "$fail" = 0 ] && echo PASS
exit "$fail"
