// How much memory each rank of a job can count on, for checks made before allocating, and
// how many ranks share a node.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace dunesim {

// Collective. The memory of each rank's node (or of its control group, a batch job's share
// of the node), divided among the ranks on that node; the least over all ranks of `comm`.
uint64_t memory_per_rank(MPI_Comm comm);

// Collective. How many ranks of `comm` run on this rank's node (share its memory).
int ranks_on_this_node(MPI_Comm comm);

}  // namespace dunesim
