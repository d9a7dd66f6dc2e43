// Particle ids over all ranks: for tests that require every particle to exist exactly once.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"

namespace dunesim::test {

// The ids of every rank's particles, gathered onto every rank of `topo` with the counts the
// ranks really hold, and sorted (collective).
inline std::vector<int64_t> all_ids_sorted(const Topology& topo, const Particles& p) {
  const int size = topo.size();
  int local = int(p.size());
  std::vector<int> counts(size_t(size), 0), offsets(size_t(size), 0);
  MPI_Allgather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, topo.comm());
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<int64_t> all(size_t(offsets.back() + counts.back()));
  MPI_Allgatherv(p.id.data(), local, MPI_INT64_T, all.data(), counts.data(), offsets.data(),
                 MPI_INT64_T, topo.comm());
  std::sort(all.begin(), all.end());
  return all;
}

// How many entries of a sorted id list repeat the entry before them (0: all unique).
inline int64_t repeated_ids(const std::vector<int64_t>& sorted) {
  int64_t repeats = 0;
  for (size_t n = 1; n < sorted.size(); ++n) repeats += sorted[n] == sorted[n - 1];
  return repeats;
}

}  // namespace dunesim::test
