#!/usr/bin/env bash
# Usage: check_shipped_cases.sh DUNESIM_EXE CASES_DIR
#
# `dunesim check` for every case file in CASES_DIR: each must be accepted. One rank: the
# ranks' agreement on an error is the bad_case_* tests' to check. Lists the cases refused,
# with dunesim's message, and fails if there is one.
set -uo pipefail
dunesim=$1
cases_dir=$2
refused=0
checked=0
for case_file in "$cases_dir"/*.toml; do
  checked=$((checked + 1))
  if ! output=$("$dunesim" check "$case_file" 2>&1); then
    echo "FAIL: $case_file is refused: $output"
    refused=$((refused + 1))
  fi
done
if [ "$checked" -eq 0 ]; then
  echo "FAIL: no case files in $cases_dir"
  exit 1
fi
echo "$checked shipped cases checked, $refused refused"
[ "$refused" -eq 0 ]
