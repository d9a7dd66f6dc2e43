#!/usr/bin/env bash
# Usage: check_bad_cases.sh DUNESIM_EXE BAD_CASES_DIR EXPECTATIONS
#
# EXPECTATIONS holds one NAME=EXPECTED_SUBSTRING line per broken case BAD_CASES_DIR/NAME.toml.
# One `dunesim check` of every broken case on 2 MPI ranks: passes
# only if the run finished in time, printed each file's error with its EXPECTED_SUBSTRING,
# said no file was ok, and every rank exited with a non-zero status. A rank that hangs, or
# exits 0 while another reports the error, is exactly the bug this guards against; one launch
# checks them all, each file in turn on every rank.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 3 ]; then
  echo "usage: $0 DUNESIM_EXE BAD_CASES_DIR EXPECTATIONS" >&2
  exit 2
fi
exe=$1
dir=$2
mapfile -t pairs < "$3"
ranks=2
files=()
for pair in "${pairs[@]}"; do files+=("$dir/${pair%%=*}.toml"); done

# Each rank reports its own exit status, which mpiexec alone would not show.
limit=$(scaled 120)
output=$(timeout "$limit" mpiexec -n "$ranks" --oversubscribe \
  sh -c 'exe=$1; shift; "$exe" check "$@"; echo "rank-exit $?"' sh "$exe" "${files[@]}" 2>&1)
status=$?
printf '%s\n' "$output"

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "FAIL: timed out after $limit s" >&2
  exit 1
fi
failures=0
for pair in "${pairs[@]}"; do
  name=${pair%%=*}
  expected=${pair#*=}
  # The file's own error line: "error: DIR/NAME.toml..." holding the expected text.
  if ! printf '%s\n' "$output" | grep -F -- "$dir/$name.toml" | grep -qF -- "$expected"; then
    echo "FAIL: $name: the output lacks the expected text: $expected" >&2
    failures=$((failures + 1))
  fi
  if printf '%s\n' "$output" | grep -qxF -- "$dir/$name.toml: ok"; then
    echo "FAIL: $name: accepted" >&2
    failures=$((failures + 1))
  fi
done
exits=$(printf '%s\n' "$output" | grep -oE 'rank-exit [0-9]+' || true)
reported=$(printf '%s\n' "$exits" | grep -c 'rank-exit' || true)
failed=$(printf '%s\n' "$exits" | grep -cv '^rank-exit 0$' || true)
if [ "$reported" -ne "$ranks" ] || [ "$failed" -ne "$ranks" ]; then
  echo "FAIL: expected $ranks ranks to exit non-zero; got:" >&2
  printf '%s\n' "$exits" >&2
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || exit 1
echo "PASS: ${#pairs[@]} broken cases refused on $ranks ranks"
