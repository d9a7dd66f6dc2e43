#include "decomposition/redistribute.hpp"

#include <mpi.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace dunesim {

void redistribute_particles(const Topology& topo, double dx, Particles& p) {
  const int ranks = topo.size();
  const int me = topo.rank();
  const size_t n = p.size();

  // Owner of every particle; particles that stay are compacted in place afterwards.
  std::vector<int> owner(n);
  std::vector<int> send_count(ranks, 0);
  for (size_t i = 0; i < n; ++i) {
    owner[i] = topo.owner_of_cell(int(std::floor(p.x[i] / dx)), int(std::floor(p.y[i] / dx)),
                                  int(std::floor(p.z[i] / dx)));
    if (owner[i] != me) ++send_count[owner[i]];
  }
  std::vector<int> send_offset(ranks, 0);
  for (int r = 1; r < ranks; ++r) send_offset[r] = send_offset[r - 1] + send_count[r - 1];
  const size_t leaving = size_t(send_offset[ranks - 1]) + size_t(send_count[ranks - 1]);

  // Pack leavers grouped by destination, keeping their relative order.
  const size_t bytes_per = p.packed_bytes();
  std::vector<char> send(leaving * bytes_per);
  std::vector<int> cursor = send_offset;
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (owner[i] == me) {
      if (kept != i) p.copy_particle(i, kept);
      ++kept;
      continue;
    }
    p.pack(i, send.data() + size_t(cursor[owner[i]]++) * bytes_per);
  }
  p.resize(kept);

  std::vector<int> recv_count(ranks, 0);
  MPI_Alltoall(send_count.data(), 1, MPI_INT, recv_count.data(), 1, MPI_INT, topo.comm());
  std::vector<int> recv_offset(ranks, 0);
  int64_t arriving = recv_count[0];
  for (int r = 1; r < ranks; ++r) {
    recv_offset[r] = recv_offset[r - 1] + recv_count[r - 1];
    arriving += recv_count[r];
  }
  // Counts and displacements are in particles (one derived type per particle), so the
  // int arguments of MPI_Alltoallv limit particles, not bytes. Decided on every rank alike.
  const int64_t limit = std::numeric_limits<int>::max();
  int too_many = (int64_t(leaving) > limit || arriving > limit) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, topo.comm());
  if (too_many)
    throw std::runtime_error(
        "redistribute_particles: more than 2^31 particles to send or "
        "receive on one rank");

  std::vector<char> recv(size_t(arriving) * bytes_per);
  MPI_Datatype particle;
  MPI_Type_contiguous(int(bytes_per), MPI_BYTE, &particle);
  MPI_Type_commit(&particle);
  MPI_Alltoallv(send.data(), send_count.data(), send_offset.data(), particle, recv.data(),
                recv_count.data(), recv_offset.data(), particle, topo.comm());
  MPI_Type_free(&particle);

  p.append_packed(recv.data(), size_t(arriving));
}

}  // namespace dunesim
