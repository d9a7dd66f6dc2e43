// Gathering every rank's values end to end on rank 0 (merged surfaces, level-set bands).
#pragma once
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dunesim {

// Collective. Every rank's `values` end to end on rank 0 (empty elsewhere), and in `counts`
// how many each rank sent. Every rank learns every count first, so that a total too large for
// MPI's int counts throws on every rank alike, before the gather ("`what` is too large ...").
template <class T>
std::vector<T> gather_on_rank_0(MPI_Comm comm, const std::vector<T>& values, MPI_Datatype type,
                                const std::string& what, std::vector<int>& counts) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int64_t count = int64_t(values.size());
  std::vector<int64_t> all_counts(static_cast<size_t>(ranks));
  MPI_Allgather(&count, 1, MPI_INT64_T, all_counts.data(), 1, MPI_INT64_T, comm);
  std::vector<int> offsets(static_cast<size_t>(ranks));
  counts.assign(static_cast<size_t>(ranks), 0);
  int64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = int(std::min<int64_t>(total, INT_MAX));
    counts[r] = int(std::min<int64_t>(all_counts[r], INT_MAX));
    total += all_counts[r];
  }
  if (total > INT_MAX)
    throw std::runtime_error(what + " is too large to gather on rank 0 (MPI's int counts)");
  std::vector<T> gathered(rank == 0 ? size_t(total) : 0);
  MPI_Gatherv(values.data(), int(count), type, gathered.data(), counts.data(), offsets.data(),
              type, 0, comm);
  return gathered;
}

// The same, when the counts are not needed.
template <class T>
std::vector<T> gather_on_rank_0(MPI_Comm comm, const std::vector<T>& values, MPI_Datatype type,
                                const std::string& what) {
  std::vector<int> counts;
  return gather_on_rank_0(comm, values, type, what, counts);
}

}  // namespace dunesim
