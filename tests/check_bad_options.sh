#!/usr/bin/env bash
# Usage: check_bad_options.sh DUNESIM_EXE
#
# Command-line values that make no sense must stop `dunesim run` at once with status 2 on
# every rank (2 ranks; the first also on 1) and a message naming the option, never be ignored.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
enter_temporary_directory

write_water_case tiny.toml

run_with() {  # EXPECTED_TEXT OPTION...
  local text=$1
  shift
  expect_failure 2 "$text" "$exe" run tiny.toml --quiet "$@"
}
run_with "--max-steps: expected a whole number of steps >= 0, got -5" --max-steps -5
run_with "--max-steps: expected a whole number of steps up to 9223372036854775807" \
  --max-steps 99999999999999999999
run_with "--max-steps: expected a whole number of steps >= 0, got 1.5" --max-steps 1.5
for value in -1 0 nan inf 1e999 abc; do
  run_with "--end-time: expected a finite number of seconds > 0, got $value" --end-time "$value"
done
# Finite but absurd: 2.5e301 frames at the case's interval of 0.04 s.
run_with "with --end-time = 1e+300 s, output.interval = 0.04 s gives 2.5e+301 frames" \
  --end-time 1e300
[ ! -e out ] || fail "a rejected run wrote output"
echo "PASS"
