#!/usr/bin/env bash
# dunesim against mantaflow on the same 1M-particle dam break (not a test: it prints), in
# alternating runs, as this machine's speed drifts between minutes.
#
#   tests/benchmarks/against_mantaflow.sh MANTA [REPEATS] [BUILD_DIR]
#
# MANTA is mantaflow's `manta` executable. Build it from github.com/tum-pbs/mantaflow with
# the flags dunesim's build uses (OpenMP for its threads, the building machine's CPU):
#   cmake -S mantaflow -B manta-build -DGUI=OFF -DOPENMP=ON -DNUMPY=OFF \
#         -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-march=native
#   cmake --build manta-build -j2          # about 15 minutes on 2 cores
# Each repeat runs, on 2 cores and then on 1: dunesim's bench_step on cases/dam_break.toml
# at 1/120 m cells (30 steps after 10; 2 or 1 ranks), then mantaflow's FLIP on the same scene
# (mantaflow_dam_break.py, 2 or 1 OpenMP threads) with each of its two preconditioners.
# Prints each run's particle-steps per second and, per repeat and core count, dunesim's over
# mantaflow's faster one. Run it on an otherwise idle machine.
set -euo pipefail
if [ "$#" -lt 1 ]; then
  sed -n '2,16p' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
manta=$(readlink -f "$1")
repeats=${2:-3}
build=$(cd "${3:-$root/build}" && pwd)
scene=$root/tests/benchmarks/mantaflow_dam_break.py
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

rate_of() { sed -n 's/.*particle_steps_per_second \([0-9.e+-]*\).*/\1/p' | head -1; }
# Stops the comparison when a run printed no rate (a failed build, a wrong path).
require_rate() {
  if [ -z "$2" ]; then
    echo "against_mantaflow: $1 printed no particle_steps_per_second" >&2
    exit 1
  fi
}

for repeat in $(seq "$repeats"); do
  for cores in 2 1; do
    ours=$(cd "$root" && mpiexec -n "$cores" "$build/bench_step" cases/dam_break.toml \
             --cell-size 0.0083333333333 --steps 30 --warmup 10 2>&1 | rate_of)
    require_rate "bench_step on $cores ranks" "$ours"
    echo "repeat $repeat cores $cores dunesim particle_steps_per_second $ours"
    best=0
    for pc in mic mg; do
      theirs=$(OMP_NUM_THREADS=$cores "$manta" "$scene" 30 10 "$pc" 0.004 2>&1 | rate_of)
      require_rate "mantaflow ($pc, $cores threads)" "$theirs"
      echo "repeat $repeat cores $cores mantaflow_$pc particle_steps_per_second $theirs"
      best=$(python3 -c "print(max($best, float('$theirs')))")
    done
    python3 -c "print('repeat $repeat cores $cores dunesim / mantaflow\'s faster: %.2f' % ($ours / $best))"
  done
done
