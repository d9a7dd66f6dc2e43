// Comparing a distributed run with a one-rank reference run of the same case.
#pragma once
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "decomposition/reductions.hpp"
#include "src/simulation.hpp"

namespace dunesim::test {

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
