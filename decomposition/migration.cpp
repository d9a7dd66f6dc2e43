#include "decomposition/migration.hpp"

#include <mpi.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace dunesim {

namespace {

// Removes the particles at `holes` (ascending) by moving the last staying particles into
// them. A step's leavers are few, those that crossed a face of the block; closing the gaps
// by shifting every particle after the first one moved nearly all of a rank's particles,
// 6% of a 1e8-particle step. The particles moved change places until the next sort by cell.
void fill_holes_from_the_end(const std::vector<size_t>& holes, Particles& p) {
  size_t last = p.size();          // positions from `last` on have been taken or skipped
  size_t unpassed = holes.size();  // holes[unpassed..] lie at or after `last`
  for (size_t h = 0; h < holes.size(); ++h) {
    const size_t hole = holes[h];
    bool filled = false;
    while (!filled && last > hole + 1) {
      --last;
      if (unpassed > h && holes[unpassed - 1] == last) {
        --unpassed;  // a leaver itself
        continue;
      }
      p.copy_particle(last, hole);
      filled = true;
    }
    if (!filled) break;  // every particle after this hole leaves or has been moved
  }
  p.resize(p.size() - holes.size());
}

}  // namespace

MigrationStats migrate_particles(const Topology& topo, double dx, Particles& p) {
  const std::vector<int>& nbrs = topo.neighbours();
  const int me = topo.rank();
  const size_t bytes_per = p.packed_bytes();
  std::vector<std::vector<char>> send(nbrs.size());
  std::vector<int> slot_of_rank(topo.size(), -1);
  for (size_t q = 0; q < nbrs.size(); ++q) slot_of_rank[nbrs[q]] = int(q);

  // Find the leavers: most particles stay in the block, and only the others need their
  // owner looked up.
  MigrationStats stats;
  const size_t n = p.size();
  const Box mine = topo.owned_cells(me);
  std::vector<size_t> leavers;
  bool lost = false;
  for (size_t i = 0; i < n; ++i) {
    const int ci = int(std::floor(p.x[i] / dx)), cj = int(std::floor(p.y[i] / dx)),
              ck = int(std::floor(p.z[i] / dx));
    if (mine.contains(ci, cj, ck)) continue;
    leavers.push_back(i);
    const int q = slot_of_rank[topo.owner_of_cell(ci, cj, ck)];
    if (q < 0) {
      lost = true;
      continue;
    }
    std::vector<char>& buf = send[q];
    const size_t at = buf.size();
    buf.resize(at + bytes_per);
    p.pack(i, buf.data() + at);
    ++stats.sent;
  }
  fill_holes_from_the_end(leavers, p);
  // Decided collectively so that no rank is left waiting in the exchange below.
  int lost_any = 0, lost_here = lost ? 1 : 0;
  MPI_Allreduce(&lost_here, &lost_any, 1, MPI_INT, MPI_LOR, topo.comm());
  if (lost_any)
    throw std::runtime_error(
        "a particle moved beyond the neighbouring rank's block in one "
        "step; lower the CFL number");

  // Counts first, then payloads.
  std::vector<int64_t> send_count(nbrs.size()), recv_count(nbrs.size());
  std::vector<MPI_Request> req;
  for (size_t q = 0; q < nbrs.size(); ++q) {
    send_count[q] = int64_t(send[q].size() / bytes_per);
    req.emplace_back();
    MPI_Irecv(&recv_count[q], 1, MPI_INT64_T, nbrs[q], 7401, topo.comm(), &req.back());
    req.emplace_back();
    MPI_Isend(&send_count[q], 1, MPI_INT64_T, nbrs[q], 7401, topo.comm(), &req.back());
  }
  MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE);
  req.clear();

  std::vector<std::vector<char>> recv(nbrs.size());
  for (size_t q = 0; q < nbrs.size(); ++q) {
    if (recv_count[q] > 0) {
      recv[q].resize(recv_count[q] * bytes_per);
      req.emplace_back();
      MPI_Irecv(recv[q].data(), int(recv[q].size()), MPI_BYTE, nbrs[q], 7402, topo.comm(),
                &req.back());
    }
    if (!send[q].empty()) {
      stats.bytes_sent += int64_t(send[q].size());
      req.emplace_back();
      MPI_Isend(send[q].data(), int(send[q].size()), MPI_BYTE, nbrs[q], 7402, topo.comm(),
                &req.back());
    }
  }
  MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE);

  for (size_t q = 0; q < nbrs.size(); ++q) {
    p.append_packed(recv[q].data(), size_t(recv_count[q]));
    stats.received += recv_count[q];
  }
  return stats;
}

}  // namespace dunesim
