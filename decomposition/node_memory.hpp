// How much memory each rank of a job can count on, for checks made before allocating.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace dunesim {

// Collective. The memory of each rank's node (or of its control group, a batch job's share
// of the node), divided among the ranks on that node; the least over all ranks of `comm`.
uint64_t memory_per_rank(MPI_Comm comm);

}  // namespace dunesim
