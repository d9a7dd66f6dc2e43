#!/usr/bin/env bash
# Usage: check_collapse_study.sh DUNESIM_EXE STUDY_SCRIPT CASE ASPECT_RATIOS [GEOMETRY]
#
# The column collapse study (postproc/column_collapse_study.py, STUDY_SCRIPT) in a coarse
# form: the columns of ASPECT_RATIOS (e.g. "2,4") at 1 cm cells on 2 ranks, each run until
# its deposit is at rest, against Lube et al.'s laws: 2004's for GEOMETRY axisymmetric (the
# default), 2005's for slab (plane collapses). The full study (5 mm, a = 0.5 to 8,
# postproc/gallery/) is the README's plot. It checks that:
# - every deposit comes to rest within 8 s (the rest criterion of the study: R_inf and H_inf
#   within a quarter cell over 1.5 s) and no sand reaches the domain's far walls;
# - each runout and final height is within 15% of the law: the requirement the default
#   model was validated to in the axisymmetric study (docs/findings/laboratory_collapses.md),
#   which the plane columns checked here meet with 8 points or more to spare.
# Axisymmetric: the 5 mm study is within 11.8%; the coarse columns' errors move by up to 1.1
# (runout) and 4.8 (height) points with the seed of the particles' jitter (a = 2, seeds 1 to
# 3) and by up to 4.7 points from the 5 mm study's, which the 15% holds. The validation tier
# runs a = 2 and 4; the default tier a = 1 alone, its fast sibling.
# Plane: a = 0.5 and 4, at 1 cm +4.2 and -0.3 to -1.8% (runout), +2.3 to +2.5 and +6.9 to
# +7.0% (height) at seeds 1 to 3. The plane a = 1 runs 12.5-14.6% far at 1 cm (8.3-18.8% at
# 5 mm: the plane's known excess, docs/findings/sand.md), a seed's ring from the 15%, so it is
# not among them. Without the wedges' yield a = 0.5 stops 37.5% short and a = 4 stands; with
# half the floor's friction a = 0.5 runs 16.7% far.
set -euo pipefail

if [ "$#" -ne 4 ] && [ "$#" -ne 5 ]; then
  echo "usage: $0 DUNESIM_EXE STUDY_SCRIPT CASE ASPECT_RATIOS [axisymmetric|slab]" >&2
  exit 2
fi
dunesim=$1
study=$2
case_file=$3
aspect_ratios=$4
geometry=${5:-axisymmetric}
case "$geometry" in
  axisymmetric) law="Lube et al. 2004" ;;
  slab) law="Lube et al. 2005" ;;
  *) echo "$0: GEOMETRY must be axisymmetric or slab, got '$geometry'" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 "$study" --dunesim "$dunesim" --ranks 2 --cell-size 0.01 \
  --aspect-ratios "$aspect_ratios" --case "$case_file" --max-time 8 --work "$work" \
  --geometry "$geometry"

/usr/bin/python3 - "$work/column_collapse.csv" "$law" <<'PYTHON'
import csv
import sys

LAW = sys.argv[2]
LAW_PERCENT = 15.0
failures = []
for row in csv.DictReader(open(sys.argv[1])):
    a = float(row["a"])
    if row["at_rest"] != "1":
        time = float(row["measured_time"])
        failures.append(f"a = {a:g}: the deposit is not at rest by t = {time:.2f} s")
    if row["reached_wall"] == "1":
        failures.append(f"a = {a:g}: sand reached the domain's far walls")
    for key in ("runout_error", "height_error"):
        error = 100 * float(row[key])
        print(f"a = {a:g}: {key} {error:+.1f}% against {LAW} at 1 cm")
        if abs(error) > LAW_PERCENT:
            failures.append(f"a = {a:g}: {key} {error:+.1f}% is more than {LAW_PERCENT:g}% "
                            f"from {LAW}'s law")
for failure in failures:
    print("FAIL:", failure)
sys.exit(1 if failures else 0)
PYTHON
echo "PASS: the coarse collapses meet $law's laws within 15%"
