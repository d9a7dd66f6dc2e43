#!/usr/bin/env bash
# Usage: check_bad_case.sh DUNESIM_EXE CASE EXPECTED_SUBSTRING
#
# Runs `dunesim check CASE` on 2 MPI ranks and passes only if the run finished in time,
# printed EXPECTED_SUBSTRING, and every rank exited with a non-zero status. A rank that
# hangs or exits 0 while another reports the error is exactly the bug this guards against.
set -u

if [ "$#" -ne 3 ]; then
  echo "usage: $0 DUNESIM_EXE CASE EXPECTED_SUBSTRING" >&2
  exit 2
fi
exe=$1
case_file=$2
expected=$3
ranks=2

# Each rank reports its own exit status, which mpiexec alone would not show.
output=$(timeout 60 mpiexec -n "$ranks" --oversubscribe \
  sh -c '"$1" check "$2"; echo "rank-exit $?"' sh "$exe" "$case_file" 2>&1)
status=$?
printf '%s\n' "$output"

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "FAIL: timed out after 60 s" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -qF -- "$expected"; then
  echo "FAIL: output lacks the expected text: $expected" >&2
  exit 1
fi
exits=$(printf '%s\n' "$output" | grep -oE 'rank-exit [0-9]+' || true)
reported=$(printf '%s\n' "$exits" | grep -c 'rank-exit' || true)
failed=$(printf '%s\n' "$exits" | grep -cv '^rank-exit 0$' || true)
if [ "$reported" -ne "$ranks" ] || [ "$failed" -ne "$ranks" ]; then
  echo "FAIL: expected $ranks ranks to exit non-zero; got:" >&2
  printf '%s\n' "$exits" >&2
  exit 1
fi
echo "PASS"
