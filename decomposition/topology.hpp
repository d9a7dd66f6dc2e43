// The Cartesian layout of MPI ranks over the global MAC grid: who owns which cells and faces.
//
// Rank r sits at block coordinates (cx, cy, cz) with r = cx + px*(cy + py*cz), the same
// x-fastest ordering PETSc's DMDA uses. Along each axis a the blocks are cut at
// starts[a][0] = 0 < starts[a][1] < ... < starts[a][dims[a]] = cells[a].
// A rank owns the cells of its block; for faces along axis a it owns the faces with the
// same index range, and the last block along a also owns the closing face cells[a].
// Every local array covers the owned range grown by `ghost` layers on each side. Layers
// outside the global domain stand for the solid walls; the rank whose block touches that
// side of the domain owns them too, so halo sum and fill treat wall entries like any other
// (P2G deposits there, G2P reads there) and no entry is left without an owner.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "decomposition/box.hpp"

namespace dunesim {

class Topology {
 public:
  // Chooses the block layout that minimises the halo surface; blocks have >= ghost cells.
  Topology(MPI_Comm comm, Index3 global_cells, int ghost);
  // Uses the given cut positions (starts[a] has dims[a]+1 entries), e.g. from load balancing.
  Topology(MPI_Comm comm, Index3 global_cells, int ghost, std::array<std::vector<int>, 3> starts);
  // The whole grid as this rank's one block (MPI_COMM_SELF): for small problems that every
  // rank solves alone, such as the pressure multigrid's coarsest level.
  static std::unique_ptr<Topology> on_this_rank_alone(Index3 global_cells, int ghost);
  ~Topology();
  // Moves the block cuts (load balancing). Every array laid out by this topology must be
  // reallocated and every particle redistributed afterwards.
  void recut(std::array<std::vector<int>, 3> starts);
  // Counts re-cuts, so that what was worked out for one layout (halo plans) can tell that it
  // is stale.
  uint64_t layout_version() const { return layout_version_; }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int ghost() const { return ghost_; }
  const Index3& global_cells() const { return cells_; }
  const Index3& dims() const { return dims_; }
  const std::array<std::vector<int>, 3>& starts() const { return starts_; }

  Index3 coords_of(int rank) const;
  int rank_at(const Index3& coords) const;

  // The rank's block of cells inside the domain (what it seeds, solves and writes).
  Box owned_cells(int rank) const;
  // This rank's cells whose neighbours within `reach` cells are not another rank's: its
  // block shrunk by `reach` on the sides that face another block (a wall side keeps its
  // cells, the wall layers being this rank's own). Work there needs no ghost of a cell array.
  Box cells_needing_no_ghosts(int reach) const;
  // Entries a rank is responsible for in halo exchanges: its block, plus the wall layers
  // outside the domain where the block touches the domain's edge.
  Box owned(Stagger s, int rank) const;
  Box owned(Stagger s) const { return owned(s, rank_); }
  // The box a rank's array of this staggering covers: owned cells grown by the ghost width.
  Box local(Stagger s, int rank) const;
  Box local(Stagger s) const { return local(s, rank_); }
  // The whole domain for this staggering (no ghosts).
  Box global(Stagger s) const;
  // The domain with its wall layers: the union of every rank's local box.
  Box extended(Stagger s) const { return global(s).grown(ghost_); }

  // Owner of a cell; indices outside the domain are clamped to the nearest block.
  int owner_of_cell(int i, int j, int k) const;
  // Ranks whose arrays overlap this rank's owned region or the other way round.
  const std::vector<int>& neighbours() const { return neighbours_; }

 private:
  void init(MPI_Comm comm, Index3 global_cells, int ghost);
  void finish_setup();
  int block_of(int axis, int index) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, ghost_ = 1;
  Index3 cells_{0, 0, 0};
  Index3 dims_{1, 1, 1};
  std::array<std::vector<int>, 3> starts_;
  std::vector<int> neighbours_;
  uint64_t layout_version_ = 0;
};

}  // namespace dunesim
