#!/usr/bin/env bash
# The benchmark set behind the figures quoted for each feature (not a test: it prints).
#
#   tests/benchmarks/run_all.sh [BUILD_DIR] [WORK_DIR]
#
# Runs, one after another on an otherwise idle machine:
#   - the dam break at 1/120 m cells (~1M particles) on 1 and 2 ranks, and at 1/60 m on 2
#     ranks (pressure iterations under 2x refinement);
#   - the sand column benchmark at 0.5 cm cells (~1M particles) on 1 rank, and the sand step
#     against a water step on the same particles, 2 ranks, three alternating pairs each for
#     the collapsing column (nearly all its sand flows) and the dune at 1 cm (~1M particles,
#     mostly at rest): what the sand stages cost;
#   - the cohesive bank at 0.5 cm cells (~2M particles) on 1 and 2 ranks: the cohesive
#     wedges' search, shared by the ranks;
#   - the same column at 1 cm (128k particles) for 1 simulated second on 2 ranks;
#   - the dune at 1 cm cells (~1M particles) on 1 and 2 ranks (strong scaling of a sand run);
#   - slowly poured 2D heaps for phi = 30 and 40 over seeds 1 to 6 (the angle of repose;
#     postproc/heap_study.py, the pour of test_sand_pile, about 4 minutes);
#   - checkpoint write bandwidth for ~1M particles on 2 ranks, next to dd on the same disk;
#   - the wet-sand mixture (water beside a porous bed, ~1M particles) on 1 and 2 ranks, and
#     the same particles with sand that holds no water (--dry), alternating, and once with
#     the stages synchronised (--stage-barriers); the sand column as sand and as water on
#     one rank (what a sand particle costs, for the load balancer);
#   - ponded infiltration into sand against Green-Ampt on 1 and 2 ranks, at 0.5 cm cells
#     and with other S', and the plot postproc/gallery/green_ampt.png (seconds in all).
#
# This machine's speed drifts by 10-15% from minute to minute: compare rank counts over
# several alternating repetitions (the fastest of each) rather than single runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=${2:-$(mktemp -d)}
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
run() { echo; echo "\$ $*"; "$@"; }

run mpiexec -n 1 "$build/bench_step" cases/dam_break.toml --cell-size 0.0083333333333 --steps 20 --warmup 10
run mpiexec -n 2 "$build/bench_step" cases/dam_break.toml --cell-size 0.0083333333333 --steps 20 --warmup 10
run mpiexec -n 2 "$build/bench_step" cases/dam_break.toml --cell-size 0.0166666666667 --steps 20 --warmup 10

run mpiexec -n 1 "$build/bench_step" cases/sand_column_benchmark.toml --cell-size 0.005 --steps 15 --warmup 10
# The sand step against a water step on the same particles: sand, water, sand, water...
for scene in "sand_column_benchmark.toml --cell-size 0.005" "dune.toml --cell-size 0.01"; do
  for _ in 1 2 3; do
    for mode in "" --as-water; do
      # shellcheck disable=SC2086  # the scene is a case and its option
      run mpiexec -n 2 "$build/bench_step" cases/$scene --steps 15 --warmup 10 $mode
    done
  done
done

# Cohesive sand: the wedges' search for sliding planes, shared by the ranks.
for ranks in 1 2; do
  run mpiexec -n $ranks "$build/bench_step" cases/cohesive_bank_benchmark.toml --cell-size 0.005 \
    --steps 10 --warmup 5
done

echo; echo "\$ time mpiexec -n 2 dunesim run cases/sand_column_benchmark.toml --no-frames  (1 simulated second)"
/usr/bin/time -f "wall %e s for 1 simulated second" \
  mpiexec -n 2 "$build/dunesim" run cases/sand_column_benchmark.toml --no-frames --quiet \
  --output "$work/column"

run mpiexec -n 1 "$build/bench_step" cases/dune.toml --cell-size 0.01 --steps 25 --warmup 5
run mpiexec -n 2 "$build/bench_step" cases/dune.toml --cell-size 0.01 --steps 25 --warmup 5

run /usr/bin/python3 postproc/heap_study.py --pour-angle "$build/pour_angle" --phi 30,40 \
  --seeds 1-6

run mpiexec -n 2 "$build/bench_checkpoint" cases/dam_break.toml --cell-size 0.0083333333333 \
  --directory "$work/checkpoints" --repeats 3
run dd if=/dev/zero of="$work/dd.bin" bs=1M count=512 conv=fdatasync
rm -f "$work/dd.bin"

# The mixture against the same particles dry, 1 and 2 ranks alternating (the machine drifts),
# then once with every stage synchronised to show where 2 ranks wait for each other.
for _ in 1 2 3; do
  for mode in "" --dry; do
    for ranks in 1 2; do
      run mpiexec -n $ranks --oversubscribe "$build/bench_step" cases/mixture_benchmark.toml \
        --cell-size 0.008 --steps 24 --warmup 4 $mode
    done
  done
done
run mpiexec -n 2 --oversubscribe "$build/bench_step" cases/mixture_benchmark.toml \
  --cell-size 0.008 --steps 16 --warmup 4 --stage-barriers
# What a sand particle costs against a water particle ([load_balance] sand_particle_work):
# the 1M sand column as sand and as water on one rank, alternating.
for _ in 1 2; do
  for mode in "" --as-water; do
    run mpiexec -n 1 "$build/bench_step" cases/sand_column_benchmark.toml --cell-size 0.005 \
      --steps 15 --warmup 10 $mode
  done
done

run mpiexec -n 1 "$build/green_ampt" --csv "$work/green_ampt.csv"
run mpiexec -n 2 "$build/green_ampt" --csv "$work/green_ampt_np2.csv"
run mpiexec -n 2 "$build/green_ampt" --cell 0.005 --csv "$work/green_ampt_cell0.005.csv"
for ideal in 0.3 0.4 0.5 0.7; do
  run mpiexec -n 2 "$build/green_ampt" --ideal-saturation "$ideal" --csv "$work/green_ampt_s$ideal.csv"
done
run /usr/bin/python3 postproc/plot_green_ampt.py "$work/green_ampt_np2.csv" \
  "$work/green_ampt_cell0.005.csv" "$work"/green_ampt_s0.{4,5,7}.csv -o "$work/green_ampt.png"
