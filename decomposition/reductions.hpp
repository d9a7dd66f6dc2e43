// Global reductions over all ranks of a topology: the only collectives physics code needs.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

#include "decomposition/topology.hpp"

namespace dunesim {

double global_max(const Topology& topo, double local);
double global_min(const Topology& topo, double local);
double global_sum(const Topology& topo, double local);
int64_t global_sum(const Topology& topo, int64_t local);
// Sums of many values at once (one message): values are replaced by their global sums.
void global_sum_in_place(const Topology& topo, double* values, int count);
// Element-wise minima of many values at once: values are replaced by their global minima.
void global_min_in_place(const Topology& topo, float* values, int64_t count);
// Sum of `local` over the ranks before this one (0 on rank 0).
int64_t exclusive_prefix_sum(const Topology& topo, int64_t local);
// The smallest box holding every rank's `local` box (Box{} if all are empty).
Box global_bounding_box(const Topology& topo, const Box& local);
// True on every rank if it is true on any rank.
bool any_rank(const Topology& topo, bool local);
// Returns when every rank has called it (a barrier): for measuring load imbalance.
void wait_for_all_ranks(const Topology& topo);

// The lowest rank whose `local_error` was not empty, and that error, on every rank (rank -1
// when none failed). Collective: it lets every rank raise the same exception, so that no
// rank goes on into a collective call that the others have abandoned.
struct RankError {
  int rank = -1;
  std::string message;
  bool failed() const { return rank >= 0; }
};
RankError first_error_on_any_rank(MPI_Comm comm, std::string local_error);

}  // namespace dunesim
