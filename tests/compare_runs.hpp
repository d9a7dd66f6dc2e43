// Comparing a distributed run with a one-rank reference run of the same case.
#pragma once
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "decomposition/reductions.hpp"
#include "src/simulation.hpp"

namespace dunesim::test {

// How far (in cells) a particle of a run on another number of ranks may end up from the same
// particle of a one-rank run. Ranks differ only in summation order and in the unknowns'
// numbering, which changes the preconditioner. With velocities in double, the dam break's
// positions after 200 steps agreed to 2e-11 m; particle velocities are single precision,
// so a last-digit difference can round a velocity to the neighbouring float (1e-7 m/s)
// and the splash amplifies it: measured 1.7e-7 m on 2 ranks and 3.4e-7 m on 4 (2e-5
// cells, test_dam_break). The bound leaves a fiftyfold margin for other compilers and MPI
// builds while still catching any halo or ownership error, which shows up as a sizeable
// fraction of a cell within a few steps.
constexpr double kRankCountToleranceCells = 1e-3;

// The largest difference in any coordinate (m) between a particle of `sim` and the particle
// with the same id in `reference`, over all ranks of `sim` (collective on sim's ranks; the
// reference is whole on every rank).
inline double max_position_difference(const Simulation& sim, const Simulation& reference) {
  std::unordered_map<int64_t, size_t> where;
  const Particles& r = reference.particles();
  for (size_t n = 0; n < r.size(); ++n) where[r.id[n]] = n;
  const Particles& p = sim.particles();
  double worst = 0;
  for (size_t n = 0; n < p.size(); ++n) {
    size_t q = where.at(p.id[n]);
    worst = std::max({worst, std::abs(p.x[n] - r.x[q]), std::abs(p.y[n] - r.y[q]),
                      std::abs(p.z[n] - r.z[q])});
  }
  return global_max(sim.topology(), worst);
}

}  // namespace dunesim::test
