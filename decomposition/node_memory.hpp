// How much memory each rank of a job can count on, for checks made before allocating, and
// how the ranks share their nodes.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace dunesim {

// Collective. The memory of each rank's node (or of its control group, a batch job's share
// of the node), divided among the ranks on that node; the least over all ranks of `comm`.
uint64_t memory_per_rank(MPI_Comm comm);

// Collective. How many ranks of `comm` run on this rank's node (share its memory).
int ranks_on_this_node(MPI_Comm comm);

// How the ranks of a job sat on their nodes: the most on one node, the fewest cores a node
// has online, and whether any node ran more ranks than it has cores (a scaling run there
// measures time-sharing, not parallel work).
struct NodeUse {
  int most_ranks_on_a_node = 1;
  int fewest_cores = 1;
  bool oversubscribed = false;
};

// Collective: the same on every rank of `comm`.
NodeUse node_use(MPI_Comm comm);

}  // namespace dunesim
