// The incompressibility projection: u <- u - dt/rho grad p with div u = 0 in fluid cells.
#pragma once
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/pressure/pressure_solver.hpp"

namespace dunesim {

// Divergence (1/s) of the face velocities in each owned fluid cell; 0 elsewhere.
void compute_divergence(const MacGrid& grid, const Box& owned_cells, Array3<double>& div);

// Solves for the pressure (Pa, stored in grid.pressure) that makes the velocity
// divergence-free in fluid cells, to the relative tolerance `rtol`, and subtracts its
// gradient from faces between non-solid cells next to fluid. Velocities are left
// halo-consistent.
PressureSolveStats project_pressure(MacGrid& grid, double dt, const Topology& topo,
                                    PressureSolver& solver, Halo& halo, double rtol);

// The reprojection below removes 99.9% of the divergence left to it: plenty for a small
// correction, in fewer iterations than the first solve (4 against 6 on the 1M sand column).
inline constexpr double kReprojectionTolerance = 1e-3;

// The first solve's tolerance in a step that reprojects (sand): the reprojection, over every
// fluid cell, removes the divergence this solve leaves, so only the pressure the friction
// reads asks for more. The residual misses smooth errors of the pressure: stopped at the
// reprojection's 1e-3, the step a stream first landed on a slope left cells along it at up to
// 26 times the pressure a 1e-6 solve gives them, and at 1e-4 three times; 1e-5 made the same
// yield as 1e-6, in 5-6 iterations instead of 6-7 (docs/findings/pressure_solve.md).
inline constexpr double kToleranceBeforeReprojection = 1e-5;
inline double tolerance_before_reprojection(double case_rtol) {
  return case_rtol > kToleranceBeforeReprojection ? case_rtol : kToleranceBeforeReprojection;
}

// Projects again with the system of the last project_pressure (same cells, same matrix and
// preconditioner), to remove the divergence that later stages put back: the sand stages
// replace face velocities by rigid motions and frictional updates that do not respect
// the walls and the neighbouring cells, and the particles would otherwise pack together.
// The correction pressure replaces the right-hand side in grid.cell_scratch (a second
// block-wide array would cost 8 bytes a cell); grid.pressure keeps the physical pressure.
PressureSolveStats reproject_pressure(MacGrid& grid, double dt, const Topology& topo,
                                      PressureSolver& solver, Halo& halo);

}  // namespace dunesim
