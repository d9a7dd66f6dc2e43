#include "decomposition/reductions.hpp"

#include <mpi.h>

#include <climits>
#include <utility>

namespace dunesim {

Box global_bounding_box(const Topology& topo, const Box& local) {
  // One MPI_MIN over the low corner and the negated high corner.
  int corners[6] = {INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX};
  if (!local.empty())
    for (int a = 0; a < 3; ++a) {
      corners[a] = local.lo[a];
      corners[3 + a] = -local.hi[a];
    }
  all_reduce_in_place(topo, corners, 6, MPI_MIN);
  if (corners[0] == INT_MAX) return Box{};
  return Box{{corners[0], corners[1], corners[2]}, {-corners[3], -corners[4], -corners[5]}};
}

int64_t exclusive_prefix_sum(const Topology& topo, int64_t local) {
  int64_t r = 0;
  MPI_Exscan(&local, &r, 1, MPI_INT64_T, MPI_SUM, topo.comm());
  return topo.rank() == 0 ? 0 : r;
}

bool any_rank(const Topology& topo, bool local) {
  return all_reduce(topo, local ? 1 : 0, MPI_LOR) != 0;
}

void wait_for_all_ranks(const Topology& topo) { MPI_Barrier(topo.comm()); }

RankError first_error_on_any_rank(MPI_Comm comm, std::string local_error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = local_error.empty() ? size : rank;
  int first_failed = size;
  MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == size) return {};
  int length = int(local_error.size());
  MPI_Bcast(&length, 1, MPI_INT, first_failed, comm);
  local_error.resize(size_t(length));
  MPI_Bcast(local_error.data(), length, MPI_CHAR, first_failed, comm);
  return {first_failed, std::move(local_error)};
}

}  // namespace dunesim
