#!/usr/bin/env bash
# The surface benchmark (not a test: it prints): seconds per frame of dunesim_surface on the
# 1M-particle dam break at resolution 2, on 1 and 2 ranks alternating, next to ParaView's own
# pipeline (SPH interpolation onto the same sample grid, then the contour filter) on the
# same frame.
#
#   tests/benchmarks/surface_frame.sh [BUILD_DIR] [WORK_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
repeats=${3:-2}
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
cell=0.0083333333333  # 1/120 m: about 1M particles

# One frame of the dam break at that cell size.
sed "s/^cell_size = .*/cell_size = $cell/" cases/dam_break.toml > "$work/dam_break_1m.toml"
mpiexec -n 2 --oversubscribe "$build/dunesim" run "$work/dam_break_1m.toml" --max-steps 1 \
  --output "$work/frames" --quiet
frame="$work/frames/dam_break_000000.h5"

for repeat in $(seq "$repeats"); do
  for ranks in 1 2; do
    rm -rf "$work/surface_$ranks" && mkdir -p "$work/surface_$ranks"
    echo "repeat $repeat, $ranks rank(s):"
    /usr/bin/time -f "  wall %e s, peak RSS %M KB per rank" \
      mpiexec -n "$ranks" --oversubscribe "$build/dunesim_surface" "$frame" \
      --out "$work/surface_$ranks" --resolution 2 --cell-size "$cell"
  done
  echo "repeat $repeat, ParaView (SPH interpolation + contour, one process):"
  pvpython tests/benchmarks/paraview_sph_surface.py "$frame" "$(echo "$cell / 2" | bc -l)" "$cell"
done
