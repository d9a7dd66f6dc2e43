// The global pressure Poisson system over fluid cells, solved with PETSc.
//
// Unknowns are the physical pressures (Pa) of fluid cells only, numbered rank by rank, so
// the matrix never carries rows for air or solid. For a fluid cell c with neighbours n
// across faces f, the system is the discrete div((dt/rho) grad p) = div u*:
//     sum_{f: n not solid} (p_c - p_n) / rho_f  =  rhs_c,   p_n = 0 for air,
// and solid faces drop out (their velocity is prescribed: Neumann).
#pragma once
#include <petscksp.h>

#include <stdexcept>

#include <string>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/pressure/free_surface.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/pressure/multigrid_preconditioner.hpp"

namespace dunesim {

// The Krylov solve ended without converging (KSP's reason < 0). The reason is collective, so
// every rank throws it at the same solve; the driver adds the case's likely causes.
class PressureSolveDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PressureSolveStats {
  int iterations = 0;
  int64_t unknowns = 0;      // fluid cells, all ranks
  double residual_norm = 0;  // final preconditioned residual norm as PETSc reports it
};

// Whether PETSc accepts `options` (e.g. "-pc_type hypre") for this solver: they are read, on
// this rank alone, into a KSP and PC set up like the solver's but with an options database of
// their own, so that unknown types ("-ksp_type nonsense") and malformed values
// ("-ksp_max_it many") show before any work, as do words PETSc would skip ("ksp_type cg").
// Returns the problem ("PETSc: Unable to find requested KSP type nonsense ..."), or "".
std::string petsc_options_problem(const std::string& options);

// The option names in `options` ("-ksp_typo gmres" gives "-ksp_typo") that are in PETSc's
// options database but that nothing has read from it so far: misspelt, or not options of
// the solver as it is configured, so they would change nothing. Only a solver that has been
// set up and has solved has read all of its options. On this rank alone; every rank holds
// the same options and reads them alike.
std::vector<std::string> petsc_options_never_read(const std::string& options);

class PressureSolver {
 public:
  // Sets the default method (CG preconditioned by one geometric multigrid V-cycle, see
  // multigrid_preconditioner.hpp) and then lets the case's petsc_options and the command
  // line override it (e.g. "-pc_type hypre", with BoomerAMG defaults tuned for this system).
  PressureSolver(const Topology& topo, const PressureSolverSpec& spec);
  ~PressureSolver();
  PressureSolver(const PressureSolver&) = delete;
  PressureSolver& operator=(const PressureSolver&) = delete;

  // Solves the system above for grid.cell_type / grid.density with right-hand side
  // `rhs` (per fluid cell), starting from the pressure already in `pressure` (the last
  // step's), and leaves the result in `pressure` (0 in air and solid), halo-filled, to the
  // relative tolerance `rtol` (the case's `[pressure] rtol` unless given; PETSc's options
  // may override either). A starting pressure so far off that PETSc's divergence test stops
  // the solve at once is dropped for a zero guess. Throws std::runtime_error on every rank if
  // PETSc reports divergence.
  PressureSolveStats solve(const MacGrid& grid, const Array3<double>& rhs,
                           Array3<double>& pressure, Halo& halo);
  PressureSolveStats solve(const MacGrid& grid, const Array3<double>& rhs,
                           Array3<double>& pressure, Halo& halo, double rtol);

  // Solves the system of the last solve() again for the right-hand side in
  // `rhs_then_solution`, reusing its matrix and preconditioner (only the Krylov iterations
  // are paid), from a zero guess, to the relative tolerance `rtol`; the solution replaces
  // the right-hand side (0 in air and solid), halo-filled.
  PressureSolveStats solve_again(Array3<double>& rhs_then_solution, Halo& halo, double rtol);

  // Frees the Krylov solver and its vectors (five per unknown), keeping the matrix and the
  // built-in multigrid, so that stages between solve() and solve_again() do not hold them;
  // solve_again() makes them again. With a preconditioner of PETSc's own it keeps them, as
  // that preconditioner's set-up lives in the solver.
  void release_krylov_vectors();

  // Frees the built-in multigrid's corrections and right-hand sides until the next solve
  // makes them again (MultigridPreconditioner::release_vectors). Making them costs their
  // pages' first touch (0.4 s a step at 1e8 particles on 2 ranks), so only the step's
  // largest transient, the particle sort, asks for it.
  void release_multigrid_vectors();

  // Frees the last system (matrix, preconditioner, vectors). The step calls it once its
  // projections are done, so that the preconditioner's memory, the largest single block a
  // step allocates, is not held while the particle stages allocate theirs.
  void release_system();

  // Bytes the multigrid's levels hold (they stay allocated between solves).
  size_t multigrid_bytes() const { return multigrid_.bytes(); }

 private:
  // Collective. Throws the same std::runtime_error on every rank, with PETSc's message, when
  // `ierr` is an error on any rank: PETSc returns its errors (main pushes
  // PetscReturnErrorHandler) and the ranks agree on them before the next collective call.
  void check(PetscErrorCode ierr, const char* what) const;
  // True unless the options choose a preconditioner of PETSc's own: those need the
  // assembled matrix, the built-in multigrid does not.
  bool uses_builtin_multigrid() const;
  void create_matrix_free_operator();
  void create_krylov_solver(double rtol);
  void assemble_matrix(const MacGrid& grid, int64_t first_unknown, Halo& halo);
  void attach_null_space_if_sealed(const MacGrid& grid);
  static PetscErrorCode multiply_matrix_free(Mat matrix, Vec p, Vec Ap);
  int64_t find_unknown_runs(const Array3<uint8_t>& type, const Box& owned);
  PetscErrorCode load_vector(const Array3<double>& from, Vec to) const;
  PetscErrorCode store_solution(Array3<double>& pressure) const;
  PressureSolveStats run_krylov(Array3<double>& pressure, Halo& halo, bool warm_start);
  static PetscErrorCode apply_multigrid(PC pc, Vec r, Vec z);

  const Topology& topo_;
  PressureSolverSpec spec_;
  // The last solve's unknowns, the owned fluid cells in for_each_index order, as runs of
  // consecutive cells along x: the vectors are loaded and stored a run at a time, without
  // visiting the block's other cells.
  struct CellRun {
    int i, j, k, length;
  };
  std::vector<CellRun> unknown_runs_;
  // The last system, kept for solve_again(). With the built-in multigrid the matrix is a
  // shell whose product multigrid_.multiply() computes; otherwise it is assembled.
  Mat matrix_ = nullptr;
  KSP ksp_ = nullptr;
  Vec rhs_ = nullptr, solution_ = nullptr;
  int64_t local_unknowns_ = 0, global_unknowns_ = 0;
  // The default preconditioner's levels; kept between steps (rebuilt when the cuts move).
  MultigridPreconditioner multigrid_;
};

// Face density between two cells: the mean where both are fluid, else the fluid one's.
// Written as selects without branches, so that loops over rows of faces vectorise.
inline double face_density(uint8_t type_lo, double rho_lo, uint8_t type_hi, double rho_hi) {
  const bool fluid_lo = type_lo == kFluid, fluid_hi = type_hi == kFluid;
  const double mean = 0.5 * (rho_lo + rho_hi), one = fluid_lo ? rho_lo : rho_hi;
  return fluid_lo & fluid_hi ? mean : one;
}

// The density the pressure gradient divides by at the face between the cells at offsets lo
// and hi of the grid's cell arrays: face_density, and under the ghost-fluid condition
// (grid.surface_phi allocated) at a fluid-air face that times theta (surface_fraction), as
// if the air cell's pressure were the ghost value -p_fluid (1 - theta) / theta that reaches
// 0 at the surface. 0 where the face has no fluid side.
inline double face_density(const MacGrid& g, int64_t lo, int64_t hi) {
  const uint8_t t_lo = g.cell_type.data()[lo], t_hi = g.cell_type.data()[hi];
  if (t_lo != kFluid && t_hi != kFluid) return 0.0;
  const double rho = face_density(t_lo, g.density.data()[lo], t_hi, g.density.data()[hi]);
  if (!g.has_surface_phi() || t_lo == t_hi || t_lo == kSolid || t_hi == kSolid) return rho;
  const float* phi = g.surface_phi.data();
  const bool fluid_lo = t_lo == kFluid;
  return rho * surface_fraction(phi[fluid_lo ? lo : hi], phi[fluid_lo ? hi : lo]);
}

// The system's coefficient of the face between the cells at offsets lo and hi of the grid's
// cell arrays: 1 / face density (with the ghost-fluid condition's theta where the grid has
// one, see above) where the face is open and touches fluid, 0 where either side is solid
// (Neumann) or both are air. The assembly, the matrix-free product, the multigrid's finest
// level and the gradient the projection subtracts all take it from here, so they are one
// operator and a solve to rtol leaves a divergence below rtol. Rounded to single precision,
// as the product and the levels store it (8 digits are far finer than the densities are
// known; they save 24 bytes an unknown).
inline double face_coefficient(const MacGrid& g, int64_t lo, int64_t hi) {
  const uint8_t t_lo = g.cell_type.data()[lo], t_hi = g.cell_type.data()[hi];
  if (t_lo == kSolid || t_hi == kSolid || (t_lo != kFluid && t_hi != kFluid)) return 0.0;
  return double(float(1.0 / face_density(g, lo, hi)));
}

}  // namespace dunesim
