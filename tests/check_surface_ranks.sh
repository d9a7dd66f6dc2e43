#!/usr/bin/env bash
# Usage: check_surface_ranks.sh ranks|bad_input|flags DUNESIM_EXE DUNESIM_SURFACE_EXE CASE CHECK_SCRIPT
#
# Makes a frame with the real simulator (CASE, tests/cases/surface_sand_column.toml, on 2
# ranks). `ranks`: runs dunesim_surface --merge on it on 1, 2 and 4 ranks, and CHECK_SCRIPT
# (tests/check_surface_meshes.py, /usr/bin/python3 with VTK from python3-paraview) requires:
# a closed merged surface enclosing the particles' volume within 5%, the same vertices and
# vertex saturations on every rank count, and a .pvtp that loads. `bad_input`, on 2 ranks: a missing frame, a
# truncated copy, a frame without /particles/position and one without a cell size, next to a
# good frame: exit status 3 on every rank, each named on stderr with what is wrong, and the
# good frame's surfaces written all the same; given --cell-size, the frame without one gives
# the same surface as the original; a frame whose cell size and material names are only in
# /run (no /grid, no /particles/material @names) and one written before /run (only those)
# give the original's surface (with --material sand, which needs the names); --cell-size overrides the frame's own
# (0.012 gives another surface); and a piece file that rank 1 cannot write (its path is
# a directory), then the merged .vtp likewise: exit 3 on every rank naming the path, and no
# .pvtp index. `flags`, on 2 ranks: --resolution 1 gives a closed
# surface with fewer than half the triangles of the default 2 (each sample spacing doubled:
# about a quarter), --material sand (the frame's only material) the default's surface,
# --material water exit 3 on every rank naming the materials the frame has, and --blobby the
# classic blobby surface, closed and enclosing at least 8% more than Zhu & Bridson's (it
# bulges around every particle; 20% more here, where the default is within 3% of the particles'
# volume). Without VTK's Python modules it exits 77
# (skipped), except under CI (CI=true).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 5 ] || [[ "$1" != ranks && "$1" != bad_input && "$1" != flags ]]; then
  echo "usage: $0 ranks|bad_input|flags DUNESIM_EXE DUNESIM_SURFACE_EXE CASE CHECK_SCRIPT" >&2
  exit 2
fi
mode=$1
dunesim=$2
surface=$3
case_file=$4
check_script=$5
python=/usr/bin/python3  # Debian's VTK and h5py are installed for the system interpreter
postproc=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/postproc  # dunesim_frames.py

if ! "$python" -c "import vtkmodules.vtkIOXML, h5py, numpy" 2> /dev/null; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $python lacks vtkmodules (python3-paraview), h5py or numpy; CI=true needs them" >&2
    exit 1
  fi
  echo "SKIP: $python lacks vtkmodules (python3-paraview), h5py or numpy"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=$(scaled 120)  # s, for each run
cd "$work"

timeout "$limit" mpiexec -n 2 --oversubscribe "$dunesim" run "$case_file" --output run --max-steps 6 \
  --quiet
frame=$(ls run/*.h5 | sort | tail -n 1)
stem=$(basename "$frame" .h5)
particles=$(PYTHONPATH=$postproc${PYTHONPATH:+:$PYTHONPATH} "$python" -c \
  "import sys, dunesim_frames; print(dunesim_frames.Frame(sys.argv[1]).particle_count)" "$frame")
echo "frame $frame: $particles particles"

if [ "$mode" = ranks ]; then
  for ranks in 1 2 4; do
    timeout "$limit" mpiexec -n "$ranks" --oversubscribe "$surface" "$frame" --out "out$ranks" --merge
  done
  # The case's two moist layers: S = 0.1 below, 0.35 above (nothing moves the water).
  "$python" "$check_script" "$stem" "$particles" 0.01 0.1 0.35 out1 out2 out4
  exit
fi

if [ "$mode" = flags ]; then
  for flags in "" "--resolution 1" "--material sand" "--blobby"; do
    dir=out_$(echo "$flags" | tr -d ' -')
    # shellcheck disable=SC2086  # the flags are words
    timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" "$frame" --out "$dir" --merge $flags
  done
  status=0
  timeout "$limit" mpiexec -n 2 --oversubscribe bash -c '"$@"; echo "$?" >> statuses' _ \
    "$surface" "$frame" --out out_water --merge --material water 2> water.err || true
  cat water.err
  grep -qF "no material named 'water' (it has: sand)" water.err ||
    { echo "FAIL: --material water: stderr lacks the materials the frame has" >&2; status=1; }
  [ "$(sort statuses | tr '\n' ' ')" = "3 3 " ] ||
    { echo "FAIL: --material water: exit statuses $(tr '\n' ' ' < statuses), expected 3 3" >&2
      status=1; }
  "$python" - "$stem" "$(dirname "$check_script")" <<'PY' || status=1
import sys
stem, tests = sys.argv[1], sys.argv[2]
sys.path.insert(0, tests)
import check_surface_meshes as c
import vtkmodules.vtkIOXML as xml
from vtkmodules.util.numpy_support import vtk_to_numpy

def surface(directory):
    mesh = c.read(xml.vtkXMLPolyDataReader, f"{directory}/{stem}.vtp")
    points, tris = vtk_to_numpy(mesh.GetPoints().GetData()), c.triangles(mesh)
    c.check(tris is not None and c.open_edges(tris) == 0, f"{directory}: closed triangles")
    return (len(tris), c.enclosed_volume(points, tris)) if tris is not None else (0, 0.0)

default, coarse, sand, blobby = (surface(d) for d in
                                 ("out_", "out_resolution1", "out_materialsand", "out_blobby"))
print(f"triangles, volume: default {default}, --resolution 1 {coarse}, "
      f"--material sand {sand}, --blobby {blobby}")
c.check(coarse[0] < 0.5 * default[0], "--resolution 1: fewer than half the triangles")
c.check(sand == default, "--material sand: the default's surface")
c.check(blobby[1] > 1.08 * default[1], "--blobby: at least 8% more volume than the default")
sys.exit(1 if c.failures else 0)
PY
  exit $status
fi

# ---- bad input, on 2 ranks ----
timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" "$frame" --out out2 --merge
cp "$frame" good.h5
head -c 100000 "$frame" > truncated.h5
"$python" - <<'PY'
import shutil
import h5py

shutil.copy("good.h5", "no_position.h5")
with h5py.File("no_position.h5", "a") as f:
    del f["particles/position"]
shutil.copy("good.h5", "no_cell_size.h5")
with h5py.File("no_cell_size.h5", "a") as f:
    del f["grid"]
    del f["run"]
shutil.copy("good.h5", "run_only.h5")  # cell size and material names from /run alone
with h5py.File("run_only.h5", "a") as f:
    del f["grid"]
    del f["particles/material"].attrs["names"]
shutil.copy("good.h5", "before_run.h5")  # as frames were written before /run
with h5py.File("before_run.h5", "a") as f:
    del f["run"]
PY
# Each rank appends its exit status, so that every rank's is seen (mpiexec reports one).
timeout "$limit" mpiexec -n 2 --oversubscribe bash -c '"$@"; echo "$?" >> statuses' _ \
  "$surface" missing.h5 truncated.h5 no_position.h5 no_cell_size.h5 good.h5 --out bad --merge \
  2> bad.err || true
cat bad.err
fail=0
expect() {  # expect TEXT: bad.err must contain TEXT
  if ! grep -qF -- "$1" bad.err; then
    echo "FAIL: stderr lacks: $1" >&2
    fail=1
  fi
}
expect "missing.h5: no such file"
expect "truncated.h5: cannot open it as HDF5 (truncated or damaged?)"
expect "no_position.h5: no dataset /particles/position"
expect "no_cell_size.h5: no cell size"
if [ "$(sort statuses | tr '\n' ' ')" != "3 3 " ]; then
  echo "FAIL: exit statuses of the 2 ranks: $(tr '\n' ' ' < statuses), expected 3 and 3" >&2
  fail=1
fi
for output in good.pvtp good_0.vtp good_1.vtp good.vtp good.ply; do
  [ -s "bad/$output" ] || { echo "FAIL: the good frame's bad/$output is missing" >&2; fail=1; }
done
# Given --cell-size, the frame without one gives the same surface as the original.
timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" no_cell_size.h5 --cell-size 0.01 --out given \
  --merge
cmp given/no_cell_size.vtp "out2/$stem.vtp" || { echo "FAIL: --cell-size 0.01 differs" >&2; fail=1; }
# The frame's own cell size and names, from /run or from where frames kept them before it.
timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" good.h5 run_only.h5 before_run.h5 \
  --material sand --out own --merge
for copy in run_only before_run; do
  cmp "own/$copy.vtp" own/good.vtp || { echo "FAIL: $copy.h5's surface differs" >&2; fail=1; }
done
# --cell-size overrides the frame's own: another size is no error, and gives another surface.
timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" good.h5 --cell-size 0.012 --out other \
  --merge || { echo "FAIL: --cell-size 0.012 on a frame of 0.01 m cells failed" >&2; fail=1; }
if [ -f other/good.vtp ] && cmp -s other/good.vtp "out2/$stem.vtp"; then
  echo "FAIL: --cell-size 0.012 gave the frame's own surface" >&2
  fail=1
fi
for output in missing truncated no_position no_cell_size; do
  if ls bad/"$output"* > /dev/null 2>&1; then
    echo "FAIL: output written for the failed frame $output.h5" >&2
    fail=1
  fi
done
# A file that cannot be written, on one rank only (rank 1's piece) and on rank 0 alone (the
# merged surface): its path is a directory. The frame fails on every rank with status 3,
# naming the path, and no index names a piece that is not there.
mkdir -p blocked_piece/good_1.vtp blocked_merged/good.vtp
for blocked in blocked_piece/good_1.vtp blocked_merged/good.vtp; do
  out=$(dirname "$blocked")
  rm -f statuses
  timeout "$limit" mpiexec -n 2 --oversubscribe bash -c '"$@"; echo "$?" >> statuses' _ \
    "$surface" good.h5 --out "$out" --merge 2> "$out.err" || true
  cat "$out.err"
  grep -qF -- "$blocked:" "$out.err" ||
    { echo "FAIL: $blocked is a directory: stderr does not name it" >&2; fail=1; }
  if [ "$(sort statuses | tr '\n' ' ')" != "3 3 " ]; then
    echo "FAIL: $blocked is a directory: exit statuses $(tr '\n' ' ' < statuses), expected 3 3" >&2
    fail=1
  fi
done
[ ! -e blocked_piece/good.pvtp ] ||
  { echo "FAIL: blocked_piece/good.pvtp written, naming a piece that is not there" >&2; fail=1; }
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
