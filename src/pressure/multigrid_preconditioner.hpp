// Geometric multigrid on the MAC grid's cells: CG's preconditioner for the pressure system.
//
// One V-cycle approximates the inverse of the pressure system's matrix (McAdams,
// Sifakis & Teran 2010, "A parallel multigrid Poisson solver for fluids simulation on large
// grids"). The fluid region changes every step, so an algebraic multigrid pays its whole
// set-up every step; here set-up is one pass over the cells per level:
//   - level 0 is the rank's block with one ghost layer; level l+1 halves it (cell I covers
//     cells 2I and 2I+1; block cuts at ceil(cut / 2), so any load-balanced layout coarsens);
//     every level's arrays cover only the block's part of a window around all ranks' fluid
//     cells, so a small body of fluid in a large domain does not pay for the empty rest;
//   - a coarse cell is air (p = 0) if any of its 8 children is, else fluid if any is, else
//     solid; its face coefficient is the mean of the 4 fine faces it covers (0 into solids);
//   - red-black Gauss-Seidel smoothing (red before black going down, black before red coming
//     up, so the cycle is symmetric, as CG needs; 2 sweeps each way on the finest level, 4
//     on the cheaper levels below it), trilinear prolongation and its transpose
//     as restriction, and many sweeps on the coarsest level; a level's sweeps before (or
//     after) the coarse correction go through its arrays together, each a plane behind the
//     one before, once instead of four times (the same result to the last bit);
//   - prolongation leaves solid coarse cells out of a fine cell's trilinear weights and
//     scales the others to sum to 1: a wall is a Neumann boundary, and reading the
//     correction as 0 beyond it treats it as air, which cost iterations that grew with the
//     grid (11, 13, 17 on the dam break at 16k, 123k, 977k unknowns; now 7-8 at each).
// Every level lives on its own ghost-1 topology with the same rank layout, so the cycle's
// communication is halo fills of one layer, except on the coarsest level: its few cells are
// gathered onto every rank once per cycle and swept there whole (the same red-black sweeps,
// so the same result), which replaces 41 latency-bound halo fills by one reduction.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

class MultigridPreconditioner {
 public:
  explicit MultigridPreconditioner(const Topology& fine);
  ~MultigridPreconditioner();
  MultigridPreconditioner(const MultigridPreconditioner&) = delete;
  MultigridPreconditioner& operator=(const MultigridPreconditioner&) = delete;

  // Builds every level for the grid's cell types and densities (the system PressureSolver
  // solves). Collective.
  void setup(const MacGrid& grid);

  // z = M^-1 r, where r and z hold one value per owned fluid cell in for_each_index order
  // (PressureSolver's unknown order). Collective.
  void apply(const double* r, double* z);

  // Ap = A p for the matrix PressureSolver would assemble, without assembling it: the face
  // coefficients are the finest level's, which setup() took from its grid through
  // face_coefficient(). p and Ap are in unknown order, as in apply(). Collective (one halo
  // fill). CG's product then needs no stored matrix, and the finest level's ghost layer
  // serves as the halo of p.
  void multiply(const double* p, double* Ap);

  // Frees every level's correction and right-hand side (a solve's scratch) until the next
  // setup() makes them again.
  void release_vectors();

  int levels() const { return int(levels_.size()); }
  // Bytes this rank's levels hold (the gathered coarsest level left out).
  size_t bytes() const;

 private:
  // Consecutive cells along x, from (i, j, k); offset is that of (i, j, k) in the level's
  // arrays, and the right-hand side of the cell at offset o is the level's rhs()[o +
  // rhs_shift] (0 but on level 0, which reads CG's residual in unknown order).
  struct Run {
    int i, j, k, length;
    int64_t offset;
    int64_t rhs_shift = 0;
  };
  struct Level;
  struct ParentWeights;
  // The cells of `run` inside `inner`, as [first, end) counted from the run's start.
  static std::pair<int, int> inside_span(const Run& run, const Box& inner);
  static double residual_at(const Level& level, const double* rhs, int64_t offset);
  void build_levels();
  // Each of level 0's runs' rhs_shift into the unknown order of unknown_runs_.
  void map_level0_rhs();
  void fit_windows(const MacGrid& grid);
  void coarsen(const Level& fine, Level& coarse);
  static void smooth_cells(Level& level, int colour, const Run& run, int from, int to);
  void smooth_outside(Level& level, int colour, const Box& inner);
  void sweep(Level& level, int first_colour, int count, const Level* prolong_from = nullptr);
  void restrict_residual(const Level& fine, Level& coarse);
  static void prolong_cells(const Level& coarse, Level& fine, const Run& run, int from, int to);
  void v_cycle(size_t l);
  void gather_coarsest_operator();
  void solve_coarsest();
  void multiply_rows(double* Ap, const Box& inner, bool inside,
                     const std::function<void()>& poll) const;

  const Topology& fine_topo_;
  std::array<std::vector<int>, 3> built_for_starts_;  // fine cuts the levels were built for
  std::vector<std::unique_ptr<Level>> levels_;
  // The coarsest level's whole grid on this rank alone (MPI_COMM_SELF), and a scratch array
  // over its cells for the gathers.
  std::unique_ptr<Level> gathered_;
  std::vector<double> gather_buffer_;
  // The unknowns (owned fluid cells) as runs on level 0, in PETSc's order.
  std::vector<Run> unknown_runs_;
};

}  // namespace dunesim
