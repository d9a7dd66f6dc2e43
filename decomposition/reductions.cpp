#include "decomposition/reductions.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <utility>

namespace dunesim {

double global_max(const Topology& topo, double local) {
  double r;
  MPI_Allreduce(&local, &r, 1, MPI_DOUBLE, MPI_MAX, topo.comm());
  return r;
}

double global_min(const Topology& topo, double local) {
  double r;
  MPI_Allreduce(&local, &r, 1, MPI_DOUBLE, MPI_MIN, topo.comm());
  return r;
}

Box global_bounding_box(const Topology& topo, const Box& local) {
  // One MPI_MIN over the low corner and the negated high corner.
  int corners[6] = {INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX};
  if (!local.empty())
    for (int a = 0; a < 3; ++a) {
      corners[a] = local.lo[a];
      corners[3 + a] = -local.hi[a];
    }
  MPI_Allreduce(MPI_IN_PLACE, corners, 6, MPI_INT, MPI_MIN, topo.comm());
  if (corners[0] == INT_MAX) return Box{};
  return Box{{corners[0], corners[1], corners[2]}, {-corners[3], -corners[4], -corners[5]}};
}

double global_sum(const Topology& topo, double local) {
  double r;
  MPI_Allreduce(&local, &r, 1, MPI_DOUBLE, MPI_SUM, topo.comm());
  return r;
}

int64_t global_sum(const Topology& topo, int64_t local) {
  int64_t r;
  MPI_Allreduce(&local, &r, 1, MPI_INT64_T, MPI_SUM, topo.comm());
  return r;
}

void global_sum_in_place(const Topology& topo, double* values, int count) {
  MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, topo.comm());
}

void global_min_in_place(const Topology& topo, float* values, int64_t count) {
  // MPI counts are ints: large arrays go in chunks.
  constexpr int64_t kChunk = int64_t(1) << 30;
  for (int64_t first = 0; first < count; first += kChunk)
    MPI_Allreduce(MPI_IN_PLACE, values + first, int(std::min(kChunk, count - first)), MPI_FLOAT,
                  MPI_MIN, topo.comm());
}

int64_t exclusive_prefix_sum(const Topology& topo, int64_t local) {
  int64_t r = 0;
  MPI_Exscan(&local, &r, 1, MPI_INT64_T, MPI_SUM, topo.comm());
  return topo.rank() == 0 ? 0 : r;
}

bool any_rank(const Topology& topo, bool local) {
  int in = local ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, topo.comm());
  return out != 0;
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
