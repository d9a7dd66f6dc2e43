#!/usr/bin/env bash
# Usage: check_submit_hostile.sh [SOURCE_DIR [DUNESIM_EXE]]
#
# slurm/submit.py validates before it sizes or submits. Hostile inputs (a case with a zero
# cell size, a zero or huge shear modulus or a nan porosity, a case file that does not exist
# or is a folder, cell sizes that underflow or overflow the sizing, rank counts beyond the
# grid, network figures that overflow it, an executable that does not exist) must each end
# with status 2, a message naming the key, option or file, and no Python traceback; valid
# cases must still be sized and dry-run with status 0. Every input is tried twice: with
# DUNESIM_EXE (submit.py runs `dunesim check` on the case, and on a refined copy for
# --cell-size and --weak-from) when given, and with no executable at all (submit.py's own
# rules). Last, a submission that sbatch refuses ends with sbatch's status (1). Needs
# python3; no Slurm (a stand-in sbatch records any call and fails).
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
exe=${2:-}
[ -z "$exe" ] || exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
. "$root/tests/timeouts.sh"
submit=$root/slurm/submit.py
dune=$root/cases/dune.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset DUNESIM_EXE

mkdir bin
printf '#!/bin/sh\ntouch "%s/sbatch-called"\necho "sbatch: error: refused" >&2\nexit 1\n' \
  "$work" > bin/sbatch
chmod +x bin/sbatch
export PATH=$work/bin:$PATH

# Broken copies of the dune, each refused by `dunesim check` naming the key.
mkdir cases
sed 's/^cell_size = 0.02 /cell_size = 0 /' "$dune" > cases/cell_size_zero.toml
sed '/^friction_angle/a rheology = "elastic_plastic"\nshear_modulus = 0.0' "$dune" \
  > cases/shear_modulus_zero.toml
sed '/^friction_angle/a porosity = nan' "$dune" > cases/porosity_nan.toml
sed '/^friction_angle/a rheology = "elastic_plastic"\nshear_modulus = 1e300' "$dune" \
  > cases/shear_modulus_huge.toml
# Wet sand that dunesim accepts at 2 cm cells (150 pore-water substeps a step) and refuses
# at 4 mm (3750, more than its 1000): only `dunesim check` of the refined case can tell.
sed '/^friction_angle/a porosity = 0.4\npropagation_rate = 1.0' "$dune" > cases/wet.toml
for broken in cell_size_zero shear_modulus_zero shear_modulus_huge porosity_nan wet; do
  if cmp -s "$dune" "cases/$broken.toml"; then
    echo "FAIL: cases/$broken.toml is the dune unchanged: the edit no longer applies" >&2
    exit 1
  fi
done

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_submit MODE ARGS...: submit.py's output (both streams) in $output, its status in $status.
run_submit() {
  local mode=$1
  shift
  local extra=()
  [ "$mode" = own-rules ] || extra=(--exe "$exe")
  status=0
  output=$(timeout "$(scaled 120)" python3 "$submit" "$@" "${extra[@]}" 2>&1) || status=$?
}

# refused MODE EXPECTED ARGS...: status 2, no traceback, the output names EXPECTED.
refused() {
  local mode=$1 expected=$2
  shift 2
  run_submit "$mode" "$@"
  local label="$mode: submit.py $*"
  if [ "$status" -ne 2 ] || [[ $output == *Traceback* ]] || [[ $output != *"$expected"* ]]; then
    fail "$label: status $status (expected 2, naming '$expected'); said:"
    printf '%s\n' "$output" | sed 's/^/    /' >&2
  elif [ "$mode" = own-rules ] && [[ $output == *"dunesim check"* ]]; then
    fail "$label: ran dunesim check with no executable: $output"
  else
    echo "ok: $label: status 2: $(printf '%s' "$output" | head -c 300 | tr '\n' ' ')"
  fi
}

# accepted MODE ARGS...: status 0.
accepted() {
  local mode=$1
  shift
  run_submit "$mode" "$@"
  if [ "$status" -ne 0 ] || [[ $output == *Traceback* ]]; then
    fail "$mode: submit.py $*: status $status (expected 0); said:"
    printf '%s\n' "$output" | sed 's/^/    /' >&2
  else
    echo "ok: $mode: submit.py $*: status 0"
  fi
}

big=100000000000
modes=(own-rules)
if [ -n "$exe" ]; then
  [ -x "$exe" ] || { echo "FAIL: $exe is not an executable" >&2; exit 1; }
  modes+=(dunesim)
fi
for mode in "${modes[@]}"; do
  # The case. With the executable, one broken case shows dunesim check's refusal passed on;
  # the rest, and the options' values, are submit.py's own code either way, so they run once,
  # without it (each dunesim check costs a start of MPI and PETSc, about a second).
  refused "$mode" porosity cases/porosity_nan.toml --dry-run
  if [ "$mode" = dunesim ] && [[ $output != *"dunesim check refuses"* ]]; then
    fail "dunesim: the nan porosity was not refused by dunesim check: $output"
  fi
  if [ "$mode" = own-rules ]; then
  refused "$mode" cell_size cases/cell_size_zero.toml --plan
  refused "$mode" shear_modulus cases/shear_modulus_zero.toml --plan
  refused "$mode" shear_modulus cases/shear_modulus_huge.toml --plan
  refused "$mode" porosity cases/porosity_nan.toml --plan
  refused "$mode" cases/missing.toml cases/missing.toml --plan
  refused "$mode" cases/missing.toml cases/missing.toml --dry-run
  refused "$mode" "cases" cases --plan
  # The cell size.
  refused "$mode" --cell-size "$dune" --plan --cell-size 1e-300
  refused "$mode" --cell-size "$dune" --plan --cell-size 1e300
  refused "$mode" --cell-size "$dune" --dry-run --cell-size 1e-300
  refused "$mode" --cell-size "$dune" --plan --cell-size nan
  refused "$mode" --cell-size "$dune" --plan --cell-size 0.3
  refused "$mode" --weak-from "$dune" --dry-run --weak-from "$big"
  # Rank and node counts beyond the grid.
  refused "$mode" --ranks "$dune" --plan --ranks "$big"
  refused "$mode" --ranks "$dune" --dry-run --ranks "$big"
  refused "$mode" --nodes "$dune" --plan --nodes "$big"
  refused "$mode" --ranks-per-node "$dune" --plan --ranks-per-node "$big"
  refused "$mode" --project "$dune" --project "1,$big"
  # The sizing's own figures.
  refused "$mode" --particles "$dune" --plan --particles 1e300
  refused "$mode" --flow-speed "$dune" --plan --flow-speed 1e300
  refused "$mode" --bandwidth "$dune" --plan --ranks 8 --bandwidth 1e-300
  refused "$mode" --latency "$dune" --plan --ranks 8 --latency 1e300
  refused "$mode" --cg-iterations "$dune" --plan --ranks 8 --cg-iterations 1e300
  refused "$mode" --memory-per-node "$dune" --plan --memory-per-node 1
  fi
  # Valid inputs still pass: the dune as written, refined (on a machine whose memory may not
  # hold the refined grid: a plan is for the cluster's nodes), and a dry run.
  accepted "$mode" "$dune" --plan
  accepted "$mode" "$dune" --plan --cell-size 0.001
  accepted "$mode" "$dune" --dry-run --ranks 4
  if [ "$mode" = dunesim ]; then
    # Only dunesim check of the refined case knows its pore water's substeps.
    refused "$mode" "propagation_rate" cases/wet.toml --plan --cell-size 0.004
    refused "$mode" "--weak-from 1" cases/wet.toml --dry-run --weak-from 1 --ranks 125
  fi
done
refused own-rules --exe "$dune" --plan --exe "$work/no-such-dunesim"

[ ! -e sbatch-called ] || fail "submit.py called sbatch"
leftovers=$(ls -A | grep -v -x -e bin -e cases || true)
[ -z "$leftovers" ] || fail "submit.py wrote files: $leftovers"

# A valid case that sbatch refuses: sbatch's status and message.
run_submit own-rules "$dune" --ranks 2 --output "$work/submitted"
if [ "$status" -ne 1 ] || [ ! -e sbatch-called ] || [[ $output != *"sbatch: error"* ]]; then
  fail "a submission sbatch refuses: status $status (expected sbatch's 1); said: $output"
else
  echo "ok: a submission sbatch refuses: status 1: $output"
fi

if [ "$failures" -gt 0 ]; then
  echo "check_submit_hostile: $failures failure(s)" >&2
  exit 1
fi
echo "check_submit_hostile: all passed"
