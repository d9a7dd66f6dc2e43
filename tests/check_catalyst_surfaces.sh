#!/usr/bin/env bash
# Usage: check_catalyst_surfaces.sh DUNESIM_EXE CASE
#
# Runs CASE (tests/cases/surfaces_catalyst.toml: a sand bed and a water layer at rest on it,
# seeded without jitter, the [catalyst] table naming postproc/catalyst/surfaces.py every 5
# steps) for 10 steps with frames off, on 1 rank and on 2, and requires of each run: no
# particle frame; for steps 5 and 10 a surface of each material whose pieces, welded where
# their points coincide, form a closed surface (no boundary edge, no edge of more than two
# triangles: a crack or an overlap where the ranks' pieces meet shows as either); whose
# bounding box is the seeded block's and whose enclosed volume is what the block's particles
# give (below); and a line of surfaces.csv per step and material that matches the files.
# Then the 2-rank surfaces must agree with the 1-rank ones, and on 2 ranks each rank's piece
# must hold triangles (the cut crosses both surfaces, so the seam is tested). Last, the case
# with [catalyst] channels = ["input"] (the particles only) must fail on 2 ranks at its first
# Catalyst step, saying that the case offers only that channel: surfaces.py reads another.
#
# Expected surfaces. Particles on the 2 x 2 x 2 sub-grid spread with trilinear weights
# give, along each axis, 1 at the cell centres inside the block, 7/8 at those next to a face
# and 1/8 at those just outside (walls included: particles next to a wall spread into the
# wall layer alike), and the fraction is the product of the three. Its level 1/2 lies on
# the block's faces (so the bounding box is the block's, to the points' float32: 1e-6 m)
# but rounds the edges, where the product drops below 1/2 inside: the expected volume is
# that of {product of the interpolated profiles >= 1/2}, integrated here at 40 samples a
# cell. The contour is piecewise linear within each cell, not that trilinear level set;
# they differ by 0.4% at these 3-cell-thick blocks, hence 1%. A wrong contour level moves
# every face by a third of a cell or more (at 0.25: 6.7 mm, 35% in volume). Nothing moves
# here, so 1 and 2 ranks agree to 1e-6 (the ranks' sums differ in the last bits only); a
# crack at the cut opens edges, a missing plane of cells changes area and volume by %.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 2 ]; then
  echo "usage: $0 DUNESIM_EXE CASE" >&2
  exit 2
fi
exe=$1
case_file=$2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=$(scaled 90)  # s, for each run

for ranks in 1 2; do
  timeout "$limit" mpiexec -n "$ranks" --oversubscribe "$exe" run "$case_file" \
    --output "$work/np$ranks" --max-steps 10 --no-frames --quiet
  ls "$work/np$ranks" "$work/np$ranks/catalyst"
  if compgen -G "$work/np$ranks/*.h5" > /dev/null; then
    echo "FAIL: the run on $ranks ranks wrote particle frames" >&2
    exit 1
  fi
done

/usr/bin/python3 - "$case_file" "$work" <<'PY'
import csv
import glob
import os
import sys
import tomllib

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkFiltersCore import vtkCleanPolyData, vtkFeatureEdges
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPPolyDataReader

case_file, work = sys.argv[1:3]
with open(case_file, "rb") as f:
    case = tomllib.load(f)
h = case["domain"]["cell_size"]
kinds = {m["name"]: m["kind"] for m in case["material"]}
blocks = {kinds[s["material"]]: (np.array(s["min"]), np.array(s["max"])) for s in case["source"]}


def profile(lo, hi, samples=40):
    """Fraction along one axis of a block of cells [lo, hi) seeded 2 per cell (at least 3
    cells thick), interpolated between cell centres; and the sample spacing (cells)."""
    centres = np.arange(lo - 2, hi + 2) + 0.5
    values = np.where((centres > lo) & (centres < hi), 1.0, 0.0)
    values[(centres == lo + 0.5) | (centres == hi - 0.5)] = 0.875
    values[(centres == lo - 0.5) | (centres == hi + 0.5)] = 0.125
    at = np.arange(lo - 1.5, hi + 1.5, 1.0 / samples) + 0.5 / samples
    return np.interp(at, centres, values), 1.0 / samples


def expected_volume(low, high):
    (gx, d), (gy, _), (gz, _) = (profile(round(low[a] / h), round(high[a] / h)) for a in range(3))
    inside = gx[:, None, None] * gy[None, :, None] * gz[None, None, :] >= 0.5
    return inside.sum() * (d * h) ** 3


def surface(path):
    """The surface's pieces welded where their points coincide exactly."""
    reader = vtkXMLPPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    weld = vtkCleanPolyData()
    weld.SetInputData(reader.GetOutput())
    weld.SetToleranceIsAbsolute(True)
    weld.SetAbsoluteTolerance(0.0)
    weld.Update()
    return weld.GetOutput()


def piece_triangles(path):
    """Triangles in each rank's piece (the .vtp files beside the .pvtp)."""
    counts = []
    for piece in sorted(glob.glob(os.path.splitext(path)[0] + "/*.vtp")):
        reader = vtkXMLPolyDataReader()
        reader.SetFileName(piece)
        reader.Update()
        counts.append(reader.GetOutput().GetNumberOfCells())
    return counts


def open_edges(mesh):
    """Edges of one triangle (boundary) or of more than two (non-manifold)."""
    edges = vtkFeatureEdges()
    edges.SetInputData(mesh)
    edges.FeatureEdgesOff()
    edges.ManifoldEdgesOff()
    edges.BoundaryEdgesOn()
    edges.NonManifoldEdgesOn()
    edges.Update()
    return edges.GetOutput().GetNumberOfCells()


def area_and_volume(mesh):
    points = vtk_to_numpy(mesh.GetPoints().GetData()).astype(float)
    triangles = vtk_to_numpy(mesh.GetPolys().GetConnectivityArray()).reshape(-1, 3)
    a, b, c = (points[triangles[:, n]] for n in range(3))
    normals = np.cross(b - a, c - a)
    return (0.5 * np.linalg.norm(normals, axis=1).sum(),
            abs(np.einsum("ij,ij->i", a, normals).sum()) / 6)


failures = []
measured = {}
for ranks in (1, 2):
    with open(f"{work}/np{ranks}/catalyst/surfaces.csv") as table:
        rows = {(int(r["step"]), r["material"]): r for r in csv.DictReader(table)}
    for step in (5, 10):
        for material, (low, high) in blocks.items():
            where = f"{ranks} rank(s), step {step}, {material}"
            path = f"{work}/np{ranks}/catalyst/surface_{material}_{step:06d}.pvtp"
            mesh = surface(path)
            pieces = piece_triangles(path)
            if mesh.GetNumberOfCells() == 0:
                failures.append(f"{where}: {path} holds no triangles")
                continue
            bounds = np.array(mesh.GetBounds())
            offset = max(np.abs(bounds[0::2] - low).max(), np.abs(bounds[1::2] - high).max())
            area, volume = area_and_volume(mesh)
            expected = expected_volume(low, high)
            holes = open_edges(mesh)
            print(f"{where}: pieces of {pieces} triangles, {holes} open edges, box within "
                  f"{offset:.1e} m of the block's, area {area:.6g} m^2, volume {volume:.6g} "
                  f"m^3 = {volume / expected:.4f} of the expected {expected:.6g}")
            if len(pieces) != ranks or 0 in pieces:
                failures.append(f"{where}: expected {ranks} non-empty pieces, got {pieces}")
            if holes:
                failures.append(f"{where}: the surface is not closed ({holes} open edges)")
            if offset > 1e-6:
                failures.append(f"{where}: the bounding box is {offset:.3g} m from the block's")
            if abs(volume / expected - 1) > 0.01:
                failures.append(f"{where}: encloses {volume:.6g} m^3, expected {expected:.6g}")
            row = rows.get((step, material))
            if row is None:
                failures.append(f"{where}: no line in surfaces.csv")
            elif abs(float(row["volume"]) / volume - 1) > 1e-6 or \
                    abs(float(row["area"]) / area - 1) > 1e-6:
                failures.append(f"{where}: surfaces.csv says area {row['area']} volume "
                                f"{row['volume']}, the files {area:.9g} and {volume:.9g}")
            measured[ranks, step, material] = (area, volume)
for (ranks, step, material), (area, volume) in measured.items():
    if ranks != 2 or (1, step, material) not in measured:
        continue
    area1, volume1 = measured[1, step, material]
    print(f"step {step}, {material}: 2 ranks against 1: area {area / area1 - 1:+.2e}, "
          f"volume {volume / volume1 - 1:+.2e}")
    if abs(area / area1 - 1) > 1e-6 or abs(volume / volume1 - 1) > 1e-6:
        failures.append(f"step {step}, {material}: the 2-rank surface differs from the "
                        f"1-rank one by more than 1e-6 in area or volume")
if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
PY
# The surfaces script without its channel: a clear error, not a hang or a silent empty file.
# (Written next to the case: its script path is relative to the case file.)
no_fractions=$(dirname "$case_file")/.surfaces_without_fractions.$$.toml
trap 'rm -rf "$work" "$no_fractions"' EXIT
sed 's/^\[catalyst\]$/[catalyst]\nchannels = ["input"]/' "$case_file" > "$no_fractions"
if timeout "$limit" mpiexec -n 2 --oversubscribe "$exe" run "$no_fractions" \
  --output "$work/no_fractions" --max-steps 5 --no-frames --quiet > "$work/no_fractions.log" 2>&1; then
  echo "FAIL: a run whose surfaces script lacks its channel succeeded" >&2
  exit 1
fi
if ! grep -q "offers only the channels 'input'" "$work/no_fractions.log"; then
  cat "$work/no_fractions.log" >&2
  echo "FAIL: the error does not name the channels the case offers" >&2
  exit 1
fi
echo "PASS"
