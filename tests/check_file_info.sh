#!/usr/bin/env bash
# Usage: check_file_info.sh DUNESIM_EXE
#
# Writes a frame and a checkpoint with a 2-rank run of a tiny case, then requires
# `dunesim info` to describe each (kind, time, step, particle count, datasets, for the
# checkpoint its ranks and case, and for both every field of /run: version, source revision,
# ranks, case file, grid, domain, gravity, materials and the case text), and to fail naming
# the file for one that is neither.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 1 ]; then
  echo "usage: $0 DUNESIM_EXE" >&2
  exit 2
fi
exe=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/dunesim_info_XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Requires every line of the expected text in OUTPUT.
expect_lines() {  # WHAT OUTPUT LINE...
  local what=$1 output=$2
  shift 2
  for line in "$@"; do
    printf '%s\n' "$output" | grep -qxF -- "$line" || { printf '%s\n' "$output"; fail "$what lacks: $line"; }
  done
}

cat > info.toml <<'EOF_CASE'
[case]
name = "info"
[domain]
size = [0.2, 0.2, 0.2]
cell_size = 0.02
[time]
end = 1.0
[output]
directory = "out"
interval = 0
[checkpoint]
interval_steps = 2
[[material]]
name = "water"
kind = "water"
[[material]]
name = "dune sand"
kind = "sand"
[[source]]
material = "water"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.1]
EOF_CASE
# 5 x 5 x 5 cells of water, 8 particles each.
timeout "$(scaled 120)" mpiexec -n 2 --oversubscribe "$exe" run info.toml --quiet --max-steps 2 ||
  fail "the run failed"

# What /run says of this run, the same in a frame and a checkpoint. The case file has more
# lines than the summary shows (20).
lines=$(wc -l < info.toml)
[ "$lines" -gt 20 ] || fail "the case file should have more than 20 lines, has $lines"
run_lines=("run:" "  ranks: 2" "  case file: info.toml" "  cell size: 0.02 m" "  cells: 10 x 10 x 10"
  "  domain lower: 0 0 0 m" "  domain upper: 0.2 0.2 0.2 m" "  gravity: 0 0 -9.81 m/s^2"
  "  materials: 0=water (water) 1=dune sand (sand)"
  "  case text: $lines lines, $(wc -c < info.toml) bytes; the first 20:"
  "    | [case]" "    | name = \"info\"" "    | kind = \"sand\"" "    ... $((lines - 20)) more lines")
expect_run() {  # WHAT OUTPUT
  expect_lines "$1" "$2" "${run_lines[@]}"
  printf '%s\n' "$2" | grep -qE '^  dunesim version: [0-9]+\.[0-9]+\.[0-9]+$' ||
    { printf '%s\n' "$2"; fail "$1 lacks the dunesim version"; }
  printf '%s\n' "$2" | grep -qE '^  source revision: [0-9a-z.-]+$' ||
    { printf '%s\n' "$2"; fail "$1 lacks the source revision"; }
  printf '%s\n' "$2" | grep -qF '    | shape = "block"' && { printf '%s\n' "$2"; fail "$1 shows line 21"; }
}

frame=$("$exe" info out/info_000002.h5) || fail "info on a frame failed"
expect_lines "frame summary" "$frame" "out/info_000002.h5" "kind: frame 2" "case: info" \
  "step: 2" "particles: 1000" "datasets:" "  /particles/position float64 [1000 x 3]" \
  "  /particles/id int64 [1000]" "  /particles/material uint8 [1000]"
expect_run "frame summary" "$frame"

checkpoint=$("$exe" info out/checkpoints/checkpoint_000000002.h5) || fail "info on a checkpoint failed"
expect_lines "checkpoint summary" "$checkpoint" "kind: checkpoint (format version 4)" \
  "case: info (read from info.toml)" "step: 2" "frames written: 3" "particles: 1000" \
  "  /particles/x float64 [1000]" "  /particles/material uint8 [1000]" \
  "  /grid/pressure float64 [10 x 10 x 10]" "  /ranks/particle_count int64 [2]"
expect_run "checkpoint summary" "$checkpoint"
printf '%s\n' "$checkpoint" | grep -qE '^ranks: 2 \(layout [0-9] x [0-9] x [0-9]\), grid 10 x 10 x 10 cells$' ||
  { printf '%s\n' "$checkpoint"; fail "checkpoint summary lacks the ranks and grid"; }

# Under mpiexec too: only rank 0 prints.
both=$(timeout "$(scaled 60)" mpiexec -n 2 --oversubscribe "$exe" info out/info_000002.h5) ||
  fail "info under mpiexec failed"
[ "$(printf '%s\n' "$both" | grep -c '^kind: frame 2$')" -eq 1 ] || fail "info printed more than once"

error=$("$exe" info info.toml 2>&1) && fail "info on a case file succeeded"
printf '%s\n' "$error" | grep -qF "info.toml" || fail "the error does not name the file: $error"
echo "PASS"
