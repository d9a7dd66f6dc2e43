#!/usr/bin/env bash
# Usage: check_postproc_scripts.sh DUNESIM_EXE GREEN_AMPT_EXE PVBATCH POSTPROC_DIR POUR_ANGLE_EXE
#
# What a user does with a run's frames, through the real commands:
# - `dunesim run` of a small wet case (sand at S = 0.3 beside a block of water, 2 ranks) with
#   [output] precision = "single" and particle_stride = 3, against the same run in double
#   precision with every particle: the reduced frames hold exactly the particles whose id is a
#   multiple of 3, position, velocity and water_content as float32, each within float32's
#   rounding of the full frame's value, and say their stride;
# - postproc/check_frame.py on the reduced frame (exit 0), render_saturation.py under pvbatch
#   (a PNG that is not blank), plot_green_ampt.py on a short green_ampt run's CSV (a PNG), and
#   cone_slump.py on a tiny cone (its table of summits), heap_study.py on two coarse heaps (its
#   mean and a CSV of both; with a missing pour_angle an error naming it and a non-zero exit),
#   cone_heap_study.py on one coarse conical heap (its flank and mean), silo_study.py on a
#   coarse silo's two slots (the exponent of the slot's width; with a missing dunesim or a slot
#   wider than the silo an error naming it and a non-zero exit), and sand_scorecard.py's bad
#   input (an unknown part to skip, a build without bench_step: an error naming it, non-zero).
# Without pvbatch or xvfb-run the render is skipped, except when CI=true.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"
if [ "$#" -ne 5 ]; then
  echo "usage: $0 DUNESIM_EXE GREEN_AMPT_EXE PVBATCH POSTPROC_DIR POUR_ANGLE_EXE" >&2
  exit 2
fi
dunesim=$1
green_ampt=$2
pvbatch=$3
postproc=$4
pour_angle=$5
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=$(scaled 120)  # s, for each run
cd "$work" || exit 1

write_case() {  # FILE DIRECTORY OUTPUT_LINES
  cat > "$1" <<EOF_CASE
[case]
name = "wet"
[domain]
size = [0.16, 0.08, 0.12]
cell_size = 0.02
[time]
end = 0.1
[output]
directory = "$2"
interval = 0.05
$3
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
}
write_case full.toml full ''
write_case reduced.toml reduced $'precision = "single"\nparticle_stride = 3'
for run in full reduced; do
  timeout "$limit" mpiexec -n 2 --oversubscribe "$dunesim" run "$run.toml" --quiet > "$run.log" 2>&1 ||
    { cat "$run.log"; fail "dunesim run $run.toml"; }
done

/usr/bin/python3 - "$postproc" <<'PY' || fail "the reduced frames"
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import dunesim_frames
def read(path):
    frame = dunesim_frames.Frame(path)
    order = np.argsort(frame.ids())
    return frame, {"id": frame.ids()[order], "position": frame.positions()[order],
                   "velocity": frame.velocities()[order],
                   "water_content": frame.water_content()[order]}
_, full = read("full/wet_000002.h5")
frame, reduced = read("reduced/wet_000002.h5")
assert frame.particle_stride == 3, frame.particle_stride
expected = full["id"][full["id"] % 3 == 0]
assert np.array_equal(reduced["id"], expected), (len(reduced["id"]), len(expected))
keep = np.isin(full["id"], expected)
for name in ("position", "velocity", "water_content"):
    assert reduced[name].dtype == np.float32, (name, reduced[name].dtype)
    want = full[name][keep]
    assert full[name].dtype == np.float64, (name, full[name].dtype)
    # float32 keeps 24 bits: the rounding of each value, no more.
    assert np.allclose(reduced[name], want, rtol=2 ** -23, atol=1e-30), name
print(f"reduced frame: {len(expected)} of {len(full['id'])} particles, float32, stride 3")
PY

/usr/bin/python3 "$postproc/check_frame.py" reduced/wet_000002.h5 > check_frame.log 2>&1 ||
  { cat check_frame.log; fail "check_frame.py on the reduced frame"; }

"$green_ampt" --cell 0.01 --depth 0.1 --end 600 --sample-every 60 --csv ga.csv > ga.log 2>&1 ||
  { cat ga.log; fail "green_ampt"; }
/usr/bin/python3 "$postproc/plot_green_ampt.py" ga.csv -o ga.png > plot.log 2>&1 ||
  { cat plot.log; fail "plot_green_ampt.py"; }
[ -s ga.png ] || fail "plot_green_ampt.py wrote no picture"

/usr/bin/python3 "$postproc/cone_slump.py" --radius 0.06 --cell-size 0.01 --end 0.1 --ranks 2 \
  --dunesim "$dunesim" --work cone > cone.log 2>&1 || { cat cone.log; fail "cone_slump.py"; }
grep -qi "summit" cone.log || { cat cone.log; fail "cone_slump.py printed no summits"; }

# Two slots of a coarse silo (seconds); then a dunesim that does not exist and a slot wider
# than the silo.
/usr/bin/python3 "$postproc/silo_study.py" --cell-size 0.02 --widths 0.08,0.12 --heads 0.2 \
  --fill 0.4 --silo-width 0.4 --end 1 --ranks 2 --dunesim "$dunesim" --work silo \
  > silo.log 2>&1 || { cat silo.log; fail "silo_study.py"; }
grep -q "at h = 0.2 m: W ~ D^[0-9]" silo.log || { cat silo.log; fail "silo_study.py printed no exponent"; }
if /usr/bin/python3 "$postproc/silo_study.py" --dunesim "$work/no_such_program" --widths 0.08 \
  --cell-size 0.02 --work silo_missing > silo_missing.log 2>&1; then
  fail "silo_study.py with a missing dunesim exited 0"
fi
grep -q "no_such_program" silo_missing.log || { cat silo_missing.log; fail "silo_study.py's error names no command"; }
if /usr/bin/python3 "$postproc/silo_study.py" --widths 0.5 > silo_wide.log 2>&1; then
  fail "silo_study.py with a slot wider than the silo exited 0"
fi
grep -q -- "--widths: a slot of 0.5 m" silo_wide.log || { cat silo_wide.log; fail "silo_study.py's error names no option"; }

# One conical heap at 1 cm cells (under a minute).
/usr/bin/python3 "$postproc/cone_heap_study.py" --phi 30 --seeds 1 --cell-size 0.01 \
  --pour-time 4 --settle-time 1 --ranks 2 --dunesim "$dunesim" --work cone_heap \
  > cone_heap.log 2>&1 || { cat cone_heap.log; fail "cone_heap_study.py"; }
grep -q "phi 30: flank mean [0-9.]* degrees" cone_heap.log ||
  { cat cone_heap.log; fail "cone_heap_study.py printed no mean flank"; }

# Two heaps at 2 cm cells (seconds); then a pour_angle that does not exist.
/usr/bin/python3 "$postproc/heap_study.py" --pour-angle "$pour_angle" --phi 30 --seeds 1-2 \
  --cell 0.02 --csv heaps.csv > heaps.log 2>&1 || { cat heaps.log; fail "heap_study.py"; }
grep -q "phi 30: heaps .* over 2 seeds" heaps.log || { cat heaps.log; fail "heap_study.py printed no mean"; }
grep -q "phi 30: heaps .* of 2 still settling 1 s after the pour" heaps.log ||
  { cat heaps.log; fail "heap_study.py printed no count of heaps still settling"; }
[ "$(wc -l < heaps.csv)" -eq 3 ] || fail "heap_study.py's CSV is not a header and 2 heaps"
if /usr/bin/python3 "$postproc/heap_study.py" --pour-angle "$work/no_such_program" --phi 30 \
  --seeds 1 >missing.log 2>&1; then
  fail "heap_study.py with a missing pour_angle exited 0"
fi
grep -q "no_such_program" missing.log || { cat missing.log; fail "heap_study.py's error names no command"; }

# The sand scorecard's bad input: an unknown part to skip, and a build without bench_step.
if /usr/bin/python3 "$postproc/sand_scorecard.py" --skip collapses,heapz --work scorecard \
  >scorecard_skip.log 2>&1; then
  fail "sand_scorecard.py with --skip heapz exited 0"
fi
grep -q -- "--skip: unknown part(s) heapz" scorecard_skip.log ||
  { cat scorecard_skip.log; fail "sand_scorecard.py's error names no part"; }
if /usr/bin/python3 "$postproc/sand_scorecard.py" --build "$work/no_build" --pairs 1 \
  --skip collapses,heaps,cohesion --work scorecard >scorecard_build.log 2>&1; then
  fail "sand_scorecard.py without a bench_step exited 0"
fi
grep -q "no_build/bench_step .* failed" scorecard_build.log ||
  { cat scorecard_build.log; fail "sand_scorecard.py's error names no command"; }

if command -v "$pvbatch" > /dev/null && command -v xvfb-run > /dev/null; then
  timeout "$limit" xvfb-run -a -s "-noreset -screen 0 1280x1024x24" "$pvbatch" \
    "$postproc/render_saturation.py" full/wet.xmf wet.png > render.log 2>&1 ||
    { cat render.log; fail "render_saturation.py"; }
  /usr/bin/python3 - <<'PY' || fail "render_saturation.py's picture"
import zlib, struct
data = open("wet.png", "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
# Enough distinct compressed bytes to hold sand and water, not a blank image.
assert len(data) > 20000, len(data)
PY
elif [ "${CI:-}" = true ]; then
  fail "pvbatch or xvfb-run not found; CI=true requires the render: install paraview and xvfb"
else
  echo "render_saturation.py skipped: no pvbatch or xvfb-run"
fi
echo "PASS"
