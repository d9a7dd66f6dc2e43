#!/usr/bin/env bash
# Usage: check_shipped_cases.sh DUNESIM_EXE CASES_DIR
#
# `dunesim check` for every case file in CASES_DIR: each must be accepted. One rank: the
# ranks' agreement on an error is the bad_cases test's to check. Prints dunesim's message for
# each case refused, and fails if there is one.
set -uo pipefail
dunesim=$1
cases_dir=$2
cases=("$cases_dir"/*.toml)
if [ ! -e "${cases[0]}" ]; then
  echo "FAIL: no case files in $cases_dir"
  exit 1
fi
# One call checks them all, each in turn: every refused file prints its own error.
output=$("$dunesim" check "${cases[@]}" 2>&1)
status=$?
printf '%s\n' "$output"
accepted=$(printf '%s\n' "$output" | grep -c ': ok$' || true)
echo "${#cases[@]} shipped cases checked, $accepted accepted"
if [ "$status" -ne 0 ] || [ "$accepted" -ne "${#cases[@]}" ]; then
  echo "FAIL: a shipped case is refused (status $status)"
  exit 1
fi
