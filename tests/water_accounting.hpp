// Where a run's water is, counted over all ranks: the totals held by free water particles
// and by the sand's pores, and each particle's water content by id.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"

namespace dunesim::test {

struct WaterTotals {
  double free = 0, pores = 0;  // in particle volumes
  double total() const { return free + pores; }
};

// Collective over the simulation's ranks.
inline WaterTotals water_totals(const Simulation& sim) {
  const Particles& p = sim.particles();
  double sums[2] = {0, 0};
  for (size_t n = 0; n < p.size(); ++n)
    sums[sim.config().materials[p.material[n]].kind == MaterialKind::Sand] += p.water_of(n);
  global_sum_in_place(sim.topology(), sums, 2);
  return {sums[0], sums[1]};
}

// Collective over the simulation's ranks: (id, water content) of every particle, on every
// rank, sorted by id (a lost or duplicated particle changes the list too).
inline std::vector<std::pair<int64_t, double>> water_by_id(const Simulation& sim) {
  const Particles& p = sim.particles();
  const MPI_Comm comm = sim.topology().comm();
  const int ranks = sim.topology().size(), local = int(p.size());
  std::vector<int> counts(static_cast<size_t>(ranks)), offsets(counts.size(), 0);
  MPI_Allgather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  const size_t total = size_t(offsets.back()) + size_t(counts.back());
  std::vector<int64_t> ids(total);
  std::vector<double> water(total);
  MPI_Allgatherv(p.id.data(), local, MPI_INT64_T, ids.data(), counts.data(), offsets.data(),
                 MPI_INT64_T, comm);
  MPI_Allgatherv(p.water_content.data(), local, MPI_DOUBLE, water.data(), counts.data(),
                 offsets.data(), MPI_DOUBLE, comm);
  std::vector<std::pair<int64_t, double>> by_id(total);
  for (size_t n = 0; n < total; ++n) by_id[n] = {ids[n], water[n]};
  std::sort(by_id.begin(), by_id.end());
  return by_id;
}

}  // namespace dunesim::test
