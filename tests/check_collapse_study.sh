#!/usr/bin/env bash
# Usage: check_collapse_study.sh DUNESIM_EXE STUDY_SCRIPT CASE FULL_STUDY_CSV
#
# The column collapse study (postproc/column_collapse_study.py, STUDY_SCRIPT) in its coarse
# form: a = 1 and 4 at 1 cm cells on 2 ranks, each run until its deposit is at rest, against
# the full study (5 mm, a = 0.5 to 8, FULL_STUDY_CSV, postproc/gallery/), whose plot is in
# the README. It checks that:
# - both deposits come to rest within 8 s (the rest criterion of the study: R_inf and H_inf
#   within a quarter cell over 1.5 s) and no sand reaches the domain's far walls;
# - each runout and final height, as an error against Lube et al. 2004's law, lies within
#   9 points of the full study's error for the same a. That is the largest difference
#   between the study at 1 cm (seeds 1, 2, 3 of the particles' jitter) and the full study
#   for a = 1 and 4, rounded up to whole points: runout 0.0-8.1 at a = 1 and 0.0-1.6 at
#   a = 4, height 7.6-8.7 at a = 1 and 0.3-0.9 at a = 4. Both studies put 10 cells across
#   R0, so the 1 cm columns are twice as large; R_inf moves in rings of half a cell, 4% of
#   a = 1's law. The seed alone moves the 1 cm errors by up to 8.1 (runout) and 1.5
#   (height) points.
# The laws themselves are not met yet (runouts 15-38% short, heights up to 26% low: README,
# "Known limits"); the comparison with them is printed.
set -euo pipefail

if [ "$#" -ne 4 ]; then
  echo "usage: $0 DUNESIM_EXE STUDY_SCRIPT CASE FULL_STUDY_CSV" >&2
  exit 2
fi
dunesim=$1
study=$2
case_file=$3
full_csv=$4

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 "$study" --dunesim "$dunesim" --ranks 2 --cell-size 0.01 --aspect-ratios 1,4 \
  --case "$case_file" --max-time 8 --work "$work"

/usr/bin/python3 - "$work/column_collapse.csv" "$full_csv" <<'EOF'
import csv
import sys

RUNOUT_POINTS, HEIGHT_POINTS = 9.0, 9.0
coarse = list(csv.DictReader(open(sys.argv[1])))
full = {float(row["a"]): row for row in csv.DictReader(open(sys.argv[2]))}
failures = []
for row in coarse:
    a = float(row["a"])
    if row["at_rest"] != "1":
        time = float(row["measured_time"])
        failures.append(f"a = {a:g}: the deposit is not at rest by t = {time:.2f} s")
    if row["reached_wall"] == "1":
        failures.append(f"a = {a:g}: sand reached the domain's far walls")
    for key, points in (("runout_error", RUNOUT_POINTS), ("height_error", HEIGHT_POINTS)):
        here, there = 100 * float(row[key]), 100 * float(full[a][key])
        print(f"a = {a:g}: {key} {here:+.1f}% at 1 cm, {there:+.1f}% in the full study")
        if abs(here - there) > points:
            failures.append(f"a = {a:g}: {key} {here:+.1f}% is more than {points:g} points "
                            f"from the full study's {there:+.1f}%")
for failure in failures:
    print("FAIL:", failure)
sys.exit(1 if failures else 0)
EOF
echo "PASS: the coarse collapse study agrees with the full one"
