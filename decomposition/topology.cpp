#include "decomposition/topology.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace dunesim {

namespace {

// Even cuts of n cells into p blocks.
std::vector<int> even_starts(int n, int p) {
  std::vector<int> s(p + 1);
  for (int b = 0; b <= p; ++b) s[b] = int(int64_t(n) * b / p);
  return s;
}

}  // namespace

void Topology::init(MPI_Comm comm, Index3 global_cells, int ghost) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  cells_ = global_cells;
  ghost_ = ghost;
}

Topology::Topology(MPI_Comm comm, Index3 global_cells, int ghost) {
  init(comm, global_cells, ghost);
  // Try every factorisation px*py*pz = size; keep the one with the least internal surface
  // among those whose blocks are at least `ghost` cells thick (halo exchange reaches only
  // the adjacent block then).
  double best = std::numeric_limits<double>::max();
  Index3 best_dims{0, 0, 0};
  for (int px = 1; px <= size_; ++px) {
    if (size_ % px) continue;
    for (int py = 1; py <= size_ / px; ++py) {
      if ((size_ / px) % py) continue;
      int pz = size_ / px / py;
      Index3 d{px, py, pz};
      bool thick = true;
      for (int a = 0; a < 3; ++a) thick = thick && cells_[a] / d[a] >= ghost;
      if (!thick) continue;
      double nx = cells_[0], ny = cells_[1], nz = cells_[2];
      double surface = (px - 1) * ny * nz + (py - 1) * nx * nz + (pz - 1) * nx * ny;
      if (surface < best) {
        best = surface;
        best_dims = d;
      }
    }
  }
  if (best_dims[0] == 0)
    throw std::runtime_error("cannot split a grid of " + std::to_string(cells_[0]) + "x" +
                             std::to_string(cells_[1]) + "x" + std::to_string(cells_[2]) +
                             " cells over " + std::to_string(size_) +
                             " ranks with blocks at least " + std::to_string(ghost) +
                             " cells thick; use fewer ranks or a finer grid");
  dims_ = best_dims;
  for (int a = 0; a < 3; ++a) starts_[a] = even_starts(cells_[a], dims_[a]);
  finish_setup();
}

Topology::Topology(MPI_Comm comm, Index3 global_cells, int ghost,
                   std::array<std::vector<int>, 3> starts) {
  init(comm, global_cells, ghost);
  recut(std::move(starts));
}

void Topology::recut(std::array<std::vector<int>, 3> starts) {
  starts_ = std::move(starts);
  ++layout_version_;  // before the checks: starts_ has changed even if they throw
  int product = 1;
  for (int a = 0; a < 3; ++a) {
    dims_[a] = int(starts_[a].size()) - 1;
    product *= dims_[a];
    if (dims_[a] < 1 || starts_[a].front() != 0 || starts_[a].back() != cells_[a])
      throw std::runtime_error("block cuts must run from 0 to the number of cells on each axis");
    for (int b = 0; b < dims_[a]; ++b)
      if (starts_[a][b + 1] - starts_[a][b] < ghost_)
        throw std::runtime_error("every block must be at least the ghost width thick");
  }
  if (product != size_) throw std::runtime_error("block layout does not match the rank count");
  finish_setup();
}

std::unique_ptr<Topology> Topology::on_this_rank_alone(Index3 global_cells, int ghost) {
  return std::make_unique<Topology>(MPI_COMM_SELF, global_cells, ghost);
}

Topology::~Topology() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Topology::finish_setup() {
  neighbours_.clear();
  Box mine = owned_cells(rank_).grown(ghost_ + 1);
  for (int r = 0; r < size_; ++r)
    if (r != rank_ && !mine.intersect(owned_cells(r)).empty()) neighbours_.push_back(r);
}

Index3 Topology::coords_of(int rank) const {
  return {rank % dims_[0], (rank / dims_[0]) % dims_[1], rank / (dims_[0] * dims_[1])};
}

int Topology::rank_at(const Index3& c) const {
  return c[0] + dims_[0] * (c[1] + dims_[1] * c[2]);
}

Box Topology::owned_cells(int rank) const {
  Index3 c = coords_of(rank);
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = starts_[a][c[a]];
    b.hi[a] = starts_[a][c[a] + 1];
  }
  return b;
}

Box Topology::cells_needing_no_ghosts(int reach) const {
  Box b = owned_cells(rank_);
  const Box domain = global(Stagger::Cell);
  for (int a = 0; a < 3; ++a) {
    if (b.lo[a] > domain.lo[a]) b.lo[a] += reach;
    if (b.hi[a] < domain.hi[a]) b.hi[a] -= reach;
  }
  return b;
}

Box Topology::owned(Stagger s, int rank) const {
  const Box cells = owned_cells(rank);
  const Box local_box = local(s, rank);
  Box b = cells;
  for (int a = 0; a < 3; ++a) {
    if (cells.lo[a] == 0) b.lo[a] = local_box.lo[a];
    if (cells.hi[a] == cells_[a]) b.hi[a] = local_box.hi[a];
  }
  return b;
}

Box Topology::local(Stagger s, int rank) const {
  Box b = owned_cells(rank).grown(ghost_);
  int a = face_axis(s);
  if (a >= 0) b.hi[a] += 1;
  return b;
}

Box Topology::global(Stagger s) const {
  Box b{{0, 0, 0}, cells_};
  int a = face_axis(s);
  if (a >= 0) b.hi[a] += 1;
  return b;
}

int Topology::block_of(int axis, int index) const {
  const std::vector<int>& s = starts_[axis];
  if (index < 0) return 0;
  if (index >= cells_[axis]) return dims_[axis] - 1;
  int lo = 0, hi = dims_[axis];  // find b with s[b] <= index < s[b+1]
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (s[mid] <= index)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

int Topology::owner_of_cell(int i, int j, int k) const {
  return rank_at({block_of(0, i), block_of(1, j), block_of(2, k)});
}

}  // namespace dunesim
