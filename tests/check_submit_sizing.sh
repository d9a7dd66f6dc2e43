#!/usr/bin/env bash
# Usage: check_submit_sizing.sh [SOURCE_DIR]   (default: the checkout this script is in)
#
# slurm/submit.py --plan sizes a run without Slurm. Checks its particle estimate for the dune
# against counts dunesim seeded (within 10%), with tomllib and with the small TOML reader
# that older Pythons use; that a bad --cell-size is refused with a message and a non-zero
# status; that a mesh source asks for --particles; that --project prints an efficiency per
# rank count; and that none of it calls sbatch or writes a file. Needs python3 only.
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
submit=$root/slurm/submit.py
dune=$root/cases/dune.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# An sbatch that leaves a mark: sizing must never submit.
mkdir bin
printf '#!/bin/sh\ntouch "%s/sbatch-called"\nexit 1\n' "$work" > bin/sbatch
chmod +x bin/sbatch
export PATH=$work/bin:$PATH

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The particle count a --plan printed.
planned_particles() {
  awk '$1 == "particles" { print $2; exit }'
}

# check_count LABEL COUNT EXPECTED: COUNT within 10% of EXPECTED.
check_count() {
  if [ -z "$2" ]; then
    fail "$1: no particle count printed"
  elif awk -v n="$2" -v e="$3" 'BEGIN { d = n / e - 1; exit !(d > 0.1 || d < -0.1) }'; then
    fail "$1: $2 particles estimated, dunesim seeds $3 (more than 10% off)"
  else
    echo "ok: $1: $2 particles (dunesim: $3)"
  fi
}

# Seeded counts: the case's header (0.02 m) and runs of dunesim (0.01 m, 0.5/106 m).
for size_and_count in "case 130000" "0.01 1054474" "0.004716981 10047275"; do
  read -r size count <<< "$size_and_count"
  options=(--plan)
  [ "$size" = case ] || options+=(--cell-size "$size")
  check_count "${options[*]}" "$("$submit" "$dune" "${options[@]}" | planned_particles)" "$count"
  # The same without tomllib (Python < 3.11): the case files' subset of TOML read by hand.
  without=$(python3 -c 'import os, runpy, sys
sys.modules["tomllib"] = None
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # as running the script itself does
runpy.run_path(sys.argv[0], run_name="__main__")' "$submit" "$dune" "${options[@]}" |
            planned_particles)
  check_count "without tomllib, ${options[*]}" "$without" "$count"
done

# A negative cell size: refused, naming the option, with status 2.
status=0
message=$("$submit" "$dune" --plan --cell-size -0.01 2>&1) || status=$?
if [ "$status" -eq 0 ] || [[ $message != *"--cell-size must be a positive"* ]]; then
  fail "--cell-size -0.01: status $status, said: $message"
else
  echo "ok: --cell-size -0.01 refused (status $status)"
fi

# A mesh source: no estimate, so the count must be given.
status=0
message=$("$submit" "$root/cases/sand_bunny.toml" --plan 2>&1) || status=$?
if [ "$status" -eq 0 ] || [[ $message != *"--particles"* ]]; then
  fail "mesh source without --particles: status $status, said: $message"
fi
count=$("$submit" "$root/cases/sand_bunny.toml" --plan --particles 2e6 | planned_particles)
[ "$count" = 2e+06 ] || fail "--particles 2e6 printed '$count' particles"

# The projection: one row per rank count, the node's own efficiency 1, the others in (0, 1].
rows=$("$submit" "$dune" --cell-size 0.001 --project 64,256,1024 |
       awk '$1 ~ /^[0-9]+$/ && NF == 10 { print $1, $9 }')
if ! awk 'NR == 1 && !($1 == 64 && $2 == 1) { bad = 1 }
          $2 <= 0 || $2 > 1 { bad = 1 }
          END { exit bad || NR != 3 }' <<< "$rows"; then
  fail "--project 64,256,1024 printed ranks and efficiencies: $rows"
else
  echo "ok: --project: $(tr '\n' ' ' <<< "$rows")"
fi

[ ! -e sbatch-called ] || fail "sizing called sbatch"
leftovers=$(ls -A | grep -v -x -e bin || true)
[ -z "$leftovers" ] || fail "sizing wrote files: $leftovers"

if [ "$failures" -gt 0 ]; then
  echo "check_submit_sizing: $failures failure(s)" >&2
  exit 1
fi
echo "check_submit_sizing: all passed"
