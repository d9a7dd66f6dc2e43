#!/usr/bin/env bash
# Usage: check_frame_reader.sh DUNESIM_EXE POSTPROC_DIR
#
# postproc/dunesim_frames.py, the Python reader of a run's frames, on a real run: a small wet
# case (sand at S = 0.3 beside a block of water, grid fields on, 3 frames) on 2 ranks, then
# tests/check_frame_reader.py (/usr/bin/python3), which reads the run as a directory, as its
# series and as a list of files, and checks the reader against the raw datasets: counts,
# times in order, each material's particles by name, a time series, the /run group that
# newer frames carry (added to a copy with h5py) before the older frames' fallbacks (names
# from /particles/material, the cell size from the grid or none), and the error messages of
# the module and of its command line.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"
if [ "$#" -ne 2 ]; then
  echo "usage: $0 DUNESIM_EXE POSTPROC_DIR" >&2
  exit 2
fi
dunesim=$1
postproc=$(cd "$2" && pwd)
checks=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_frame_reader.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

cat > wet.toml <<'EOF_CASE'
[case]
name = "wet"
[domain]
size = [0.16, 0.08, 0.12]
cell_size = 0.02
[time]
end = 0.1
[output]
directory = "run"
interval = 0.05
grid_fields = true
[[material]]
name = "water"
kind = "water"
[[material]]
name = "sand"
kind = "sand"
friction_angle = 30.0
porosity = 0.4
ideal_saturation = 0.4
c_wet = 500.0
[[source]]
material = "sand"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.08, 0.08, 0.06]
saturation = 0.3
[[source]]
material = "water"
shape = "block"
min = [0.1, 0.0, 0.0]
max = [0.16, 0.08, 0.06]
EOF_CASE
limit=$(scaled 120)  # s, for the run
timeout "$limit" mpiexec -n 2 --oversubscribe "$dunesim" run wet.toml --quiet > run.log 2>&1 ||
  { cat run.log; echo "FAIL: dunesim run wet.toml" >&2; exit 1; }
/usr/bin/python3 "$checks" "$postproc" run
