// Global reductions over all ranks of a topology: the only collectives physics code needs.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "decomposition/topology.hpp"

namespace dunesim {

// The MPI datatype of a C++ number type.
template <typename T>
MPI_Datatype mpi_datatype();
template <>
inline MPI_Datatype mpi_datatype<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_datatype<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_datatype<int>() {
  return MPI_INT;
}
template <>
inline MPI_Datatype mpi_datatype<int64_t>() {
  return MPI_INT64_T;
}

// `op` (MPI_SUM, MPI_MAX, MPI_MIN, ...) over every rank's `local`, on every rank.
template <typename T>
T all_reduce(const Topology& topo, T local, MPI_Op op) {
  T result;
  MPI_Allreduce(&local, &result, 1, mpi_datatype<T>(), op, topo.comm());
  return result;
}

// The same element by element over `count` values, which are replaced by the results. MPI
// counts are ints: large arrays go in chunks.
template <typename T>
void all_reduce_in_place(const Topology& topo, T* values, int64_t count, MPI_Op op) {
  constexpr int64_t kChunk = int64_t(1) << 30;
  for (int64_t first = 0; first < count; first += kChunk)
    MPI_Allreduce(MPI_IN_PLACE, values + first, int(std::min(kChunk, count - first)),
                  mpi_datatype<T>(), op, topo.comm());
}

inline double global_max(const Topology& topo, double local) {
  return all_reduce(topo, local, MPI_MAX);
}
inline double global_min(const Topology& topo, double local) {
  return all_reduce(topo, local, MPI_MIN);
}
inline double global_sum(const Topology& topo, double local) {
  return all_reduce(topo, local, MPI_SUM);
}
inline int64_t global_sum(const Topology& topo, int64_t local) {
  return all_reduce(topo, local, MPI_SUM);
}
// Sums of many values at once (one message): values are replaced by their global sums.
inline void global_sum_in_place(const Topology& topo, double* values, int count) {
  all_reduce_in_place(topo, values, count, MPI_SUM);
}
// Element-wise minima of many values at once: values are replaced by their global minima.
inline void global_min_in_place(const Topology& topo, float* values, int64_t count) {
  all_reduce_in_place(topo, values, count, MPI_MIN);
}
// Sum of `local` over the ranks before this one (0 on rank 0).
int64_t exclusive_prefix_sum(const Topology& topo, int64_t local);
// The smallest box holding every rank's `local` box (Box{} if all are empty).
Box global_bounding_box(const Topology& topo, const Box& local);
// True on every rank if it is true on any rank.
bool any_rank(const Topology& topo, bool local);
// Returns when every rank has called it (a barrier): for measuring load imbalance.
void wait_for_all_ranks(const Topology& topo);

// Every rank's `local` items, rank after rank, on every rank. T is copied as bytes. Throws
// std::length_error on every rank if the items together pass what MPI counts in an int.
// Collective.
template <class T>
std::vector<T> all_gathered(const Topology& topo, const std::vector<T>& local) {
  static_assert(std::is_trivially_copyable_v<T>, "items travel as bytes");
  const int size = topo.size();
  std::vector<int64_t> counts(size);
  const int64_t mine = int64_t(local.size());
  MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, topo.comm());
  int64_t total = 0;
  for (int64_t count : counts) total += count;
  if (total > INT_MAX) throw std::length_error("all_gathered: more items than MPI counts");
  std::vector<int> items(size), offsets(size);
  for (int r = 0; r < size; ++r) {
    items[r] = int(counts[r]);
    offsets[r] = r == 0 ? 0 : offsets[r - 1] + items[r - 1];
  }
  MPI_Datatype item;
  MPI_Type_contiguous(int(sizeof(T)), MPI_BYTE, &item);
  MPI_Type_commit(&item);
  std::vector<T> all(static_cast<size_t>(total));
  MPI_Allgatherv(local.data(), int(mine), item, all.data(), items.data(), offsets.data(), item,
                 topo.comm());
  MPI_Type_free(&item);
  return all;
}

// The lowest rank whose `local_error` was not empty, and that error, on every rank (rank -1
// when none failed). Collective: it lets every rank raise the same exception, so that no
// rank goes on into a collective call that the others have abandoned.
struct RankError {
  int rank = -1;
  std::string message;
  bool failed() const { return rank >= 0; }
};
RankError first_error_on_any_rank(MPI_Comm comm, std::string local_error);

// item(n) for every n in [0, count), on every rank of `comm`: each rank computes a
// contiguous share (rank r: count r / size up to count (r + 1) / size) and the shares are
// gathered everywhere. T is copied as bytes; past what an int counts in bytes every rank
// computes every item instead. Collective: every rank calls it with the same count.
template <class T, class Item>
std::vector<T> computed_in_shares(MPI_Comm comm, size_t count, Item&& item) {
  std::vector<T> all(count);
  if (count * sizeof(T) > size_t(INT_MAX)) {
    for (size_t n = 0; n < count; ++n) all[n] = item(n);
    return all;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto first = [&](int r) { return count * size_t(r) / size_t(size); };
  for (size_t n = first(rank); n < first(rank + 1); ++n) all[n] = item(n);
  std::vector<int> bytes(size), offsets(size);
  for (int r = 0; r < size; ++r) {
    bytes[r] = int((first(r + 1) - first(r)) * sizeof(T));
    offsets[r] = int(first(r) * sizeof(T));
  }
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), bytes.data(), offsets.data(),
                 MPI_BYTE, comm);
  return all;
}

}  // namespace dunesim
