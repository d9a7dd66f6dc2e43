// Rigid-plastic sand (`rheology = "rigid_plastic"`): a Drucker-Prager solid that does not
// deform below its yield stress and flows with a stress on the yield surface above it, solved
// implicitly each step by the augmented Lagrangian method (ALG2: Fortin & Glowinski 1983;
// used for granular collapses by Ionescu, Mangeney, Bouchut & Roche 2015, J. Non-Newtonian
// Fluid Mech. 219).
//
// The step after the projection minimises, over the face velocities u,
//   sum over faces rho/(2 dt) |u - u*|^2 dx^3 + sum over cells k |D(u)|_eq dx^3,
// where u* is the projected velocity, |D|_eq = sqrt(2 dev(D) : dev(D)) the equivalent shear
// rate and k = tan(phi) p + c the yield stress (in simple shear the shear stress is then
// tan(phi) p + c, so a heap's flanks stand at phi). Its minimiser has a stress s with
// sqrt(J2(s)) <= k everywhere: cells where it is below k do not deform, the rest flow with s
// along their strain rate. ALG2 splits D(u) = d and iterates, with r a numerical stiffness:
//   1. (rho/dt) u - r div dev D(u) = (rho/dt) u* - div(s + r d)      (linear, SPD; CG)
//   2. s_trial = s - r dev D(u); s = s_trial min(1, k / sqrt(J2(s_trial)))  (return map)
//   3. d = (s - s_trial) / r                                          (the plastic rate)
// (s compression positive, as sand_plasticity.hpp). At convergence d = D(u), and s is the
// stress that holds the rigid parts and brakes the flowing ones; it carries the weight of a
// heap, which Zhu & Bridson's per-step yield test cannot (docs/findings/sand.md).
//
// Why: Zhu & Bridson's explicit frictional stress overshoots and reverses the strain it
// opposes (it is a viscosity beyond the explicit limit), and an implicit friction with a
// lagged viscosity under-brakes; the viscoplastic minimisation is the exact Coulomb
// friction of the step, without a rest threshold.
//
// The walls' Coulomb friction is a second multiplier inside the solve: each wall face's
// force is returned to |F| <= rho/dt times the budget of wall_friction.hpp, with the wall's
// normal stress p + s_nn re-read every round.
//
// The stress lives on the sand particles between steps (Particles::stress, as for
// elastic-plastic sand) and the walls' friction force on the grid (MacGrid::wall_force, which
// checkpoints store), so each step's iteration starts from the last step's: a heap at rest
// converges in one round, and a restart continues bit for bit. s is staggered as
// staggered_stress.hpp lays it out; the return map judges a cell with the mean of its edges'
// shear, and an edge takes the smallest scale of its four cells.
#pragma once
#include <cstdint>

#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "decomposition/vec3.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/sand_plasticity.hpp"

namespace dunesim {

// ALG2 stops after this many rounds if its tolerance is not met first.
constexpr int kRigidPlasticMaxRounds = 40;

struct RigidPlasticStats {
  SandPlasticityStats cells;  // rigid: below the yield stress; yielding: on it
  int rounds = 0;             // ALG2 rounds taken
  bool converged = false;     // false: stopped at kRigidPlasticMaxRounds above the tolerance
  int solver_iterations = 0;  // CG iterations, all rounds
  // The last round's rms change of s over the rms yield stress, or of the walls' friction
  // force over its rms limit, whichever is larger.
  double stress_change = 0;
};

// The stage above on the cells of `sand_cells`, after the projection, with grid.stress
// gathered from the particles (gather_particle_stress). On return grid.stress holds the new
// stress, grid.yielding marks the cells on the yield surface, grid.rigid is zero (no rigid
// clusters: the stress holds the sand) and the velocities are halo-filled. Collective.
RigidPlasticStats apply_rigid_plastic_sand(const Topology& topo, Halo& halo, MacGrid& grid,
                                           const Array3<uint8_t>& sand_cells,
                                           const MaterialSpec& sand, double dt,
                                           const Vec3& gravity);

}  // namespace dunesim
