#include "decomposition/redistribute.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
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

namespace {

// Copies the cells of `box` between an array and a buffer, x fastest: both sides of an
// exchange walk a box the same way.
template <class Copy>
void walk_box(const Box& box, Copy&& copy) {
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) copy(i, j, k);
}

// Counts and offsets, in doubles, of the boxes one rank exchanges with each rank.
struct ExchangePlan {
  std::vector<Box> boxes;
  std::vector<int> count, offset;
  bool fits = true;  // the total fits MPI's int counts
  explicit ExchangePlan(std::vector<Box> b) : boxes(std::move(b)) {
    const int64_t limit = std::numeric_limits<int>::max();
    int64_t total = 0;
    for (const Box& box : boxes) {
      count.push_back(int(std::min(box.volume(), limit)));
      offset.push_back(int(std::min(total, limit)));
      total += box.volume();
    }
    fits = total <= limit;
  }
  size_t total() const { return boxes.empty() ? 0 : size_t(offset.back()) + count.back(); }
};

}  // namespace

template <class T>
void redistribute_cells(const Topology& topo, const std::vector<Box>& old_blocks,
                        const std::vector<const Array3<T>*>& from,
                        const std::vector<Array3<T>*>& to) {
  const int ranks = topo.size(), me = topo.rank();
  std::vector<Box> outgoing, incoming;
  for (int r = 0; r < ranks; ++r) {
    outgoing.push_back(overlap(old_blocks[size_t(me)], topo.owned_cells(r)));
    incoming.push_back(overlap(old_blocks[size_t(r)], topo.owned_cells(me)));
  }
  const ExchangePlan send(outgoing), recv(incoming);
  // One array at a time, so that the int counts of MPI_Alltoallv limit a block, not the sum
  // of the arrays. Decided on every rank alike.
  int too_many = send.fits && recv.fits ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, topo.comm());
  if (too_many)
    throw std::runtime_error("redistribute_cells: more than 2^31 cells to send or receive");
  // A cell's value as one MPI element, so that the counts stay counts of cells.
  MPI_Datatype cell;
  MPI_Type_contiguous(int(sizeof(T)), MPI_BYTE, &cell);
  MPI_Type_commit(&cell);
  std::vector<T> send_buffer(send.total()), recv_buffer(recv.total());
  for (size_t f = 0; f < from.size(); ++f) {
    T* out = send_buffer.data();
    for (const Box& box : send.boxes)
      walk_box(box, [&](int i, int j, int k) { *out++ = (*from[f])(i, j, k); });
    MPI_Alltoallv(send_buffer.data(), send.count.data(), send.offset.data(), cell,
                  recv_buffer.data(), recv.count.data(), recv.offset.data(), cell, topo.comm());
    const T* in = recv_buffer.data();
    for (const Box& box : recv.boxes)
      walk_box(box, [&](int i, int j, int k) { (*to[f])(i, j, k) = *in++; });
  }
  MPI_Type_free(&cell);
}

template void redistribute_cells<double>(const Topology&, const std::vector<Box>&,
                                         const std::vector<const Array3<double>*>&,
                                         const std::vector<Array3<double>*>&);
template void redistribute_cells<uint8_t>(const Topology&, const std::vector<Box>&,
                                          const std::vector<const Array3<uint8_t>*>&,
                                          const std::vector<Array3<uint8_t>*>&);

}  // namespace dunesim
