#!/usr/bin/env bash
# What the pore water costs while the storm surge soaks its dune (not a test: it prints).
#
#   tests/benchmarks/surge_soaking_cost.sh CELL_SIZE END_TIME [RANKS] [BUILD_DIR]
#
# cases/dune_storm_surge.toml at CELL_SIZE (m; it must divide the 0.1 m slab, e.g. 0.02 for
# 33k particles, 0.0027777777777777779 for 12M), with the sea already standing 0.15 m deep
# against the dune at t = 0 instead of pouring in over its first 2 s: at large sizes those
# 2 s are hours of flow steps during which the Richards solves see a dry dune and cost
# almost nothing, so the shipped case's first steps do not say what soaking costs. Runs
# END_TIME simulated seconds on RANKS ranks (default 2) without frames, then prints from
# timing.json every stage's seconds (slowest rank) and share of the step, the pore-water
# stages' share, and the Richards solves' Picard and Krylov iterations.
set -euo pipefail
if [ "$#" -lt 2 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
cell_size=$1
end_time=$2
ranks=${3:-2}
build=$(cd "${4:-$root/build}" && pwd)
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
work=$(mktemp -d /tmp/surge_soaking.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The standing sea goes before the dune's source: a seed position belongs to the last
# source that holds it, so the dune keeps its own sand where the block overlaps it.
/usr/bin/python3 - "$root/cases/dune_storm_surge.toml" "$work/surge.toml" "$cell_size" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"(?m)^cell_size = .*$", "cell_size = " + sys.argv[3], text)
sea = '''[[source]]              # the sea, already 0.15 m deep against the dune
material = "water"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.9, 0.1, 0.15]

'''
first = text.index("[[source]]")
open(sys.argv[2], "w").write(text[:first] + sea + text[first:])
EOF

echo "surge_soaking_cost: cell_size $cell_size m, $end_time s, $ranks ranks"
mpiexec -n "$ranks" "$build/dunesim" run "$work/surge.toml" --end-time "$end_time" \
  --no-frames --output "$work/out"
/usr/bin/python3 - "$work/out/timing.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
print("steps %d, simulated %.4f s, wall %.1f s, particle_steps_per_second %.3e" %
      (t["steps"], t["simulated_time"], t["wall_seconds"], t["particle_steps_per_second"]))
pore = ("absorb_water", "percolate_water", "seep_water")
share = 0.0
for stage in t["stages"]:
    if stage["max"] > 0:
        print("stage %-28s %9.3f s  %5.1f%% of the step" %
              (stage["name"], stage["max"], 100 * stage["share_of_step"]))
    if stage["name"] in pore:
        share += stage["share_of_step"]
print("pore_water_share %.1f%% (%s)" % (100 * share, " + ".join(pore)))
picard, krylov = t["pore_water_picard_iterations"], t["pore_water_krylov_iterations"]
print("richards_solves %d, Picard iterations per solve %.1f (max %d), Krylov %.1f (max %d)" %
      (picard["solves"], picard["mean"], picard["max"], krylov["mean"], krylov["max"]))
EOF
