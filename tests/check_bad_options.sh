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
# An end time the case would be refused with: an elastic sand of shear modulus 1e13 Pa steps
# at 1.3e-7 s on 2.5 cm cells, 7.9e5 steps to the case's end of 0.1 s but 7.9e9 (beyond the
# physics budget's 1e8) to 1000 s. The command line's end time is the one the budget counts.
cat > stiff.toml <<'EOF_CASE'
[domain]
size = [0.2, 0.2, 0.2]
cell_size = 0.025
[time]
end = 0.1
[output]
directory = "out"
[[material]]
name = "sand"
kind = "sand"
rheology = "elastic_plastic"
shear_modulus = 1e13
[[source]]
material = "sand"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.2, 0.2, 0.1]
EOF_CASE
"$exe" check stiff.toml > /dev/null || fail "stiff.toml (to 0.1 s) should pass dunesim check"
expect_failure 2 "--end-time 1000: stiff.toml: key 'material[0].shear_modulus': 1e+13 Pa limits \
the step to 1.265e-07 s, 7.906e+09 steps to --end-time 1000 s (at most 1e+08)" \
  "$exe" run stiff.toml --quiet --end-time 1000
[ ! -e out ] || fail "a rejected run wrote output"
echo "PASS"
