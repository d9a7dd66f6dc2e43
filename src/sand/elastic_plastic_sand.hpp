// Elastic-plastic sand (`rheology = "elastic_plastic"`): each sand cell carries a
// deviatoric stress s that it builds up from its own deformation, like an elastic solid of
// shear modulus G, and that never exceeds the Coulomb yield stress:
//   s <- s - 2 G dt dev(D)                          (compression positive, as
//   sand_plasticity.hpp) s <- s min(1, (tan(phi) p + c) / sigma_bar(s))  (return to the yield
//   surface) u <- u - dt / rho div(s)
// after the pressure projection, whose p stays the mean stress. There are no rigid clusters:
// the elastic stress holds a body together.
//
// Why: Zhu & Bridson's rigid test compares the yield stress with sigma_rigid, the stress that
// stops one step's leftover deformation. A body at rest has almost none, so any cohesion holds
// a cut of any height (docs/findings/elastic_plastic_sand.md). Here the stress that carries a
// body's weight builds up in it, so a cut stands while that stress stays below the yield stress
// and slumps once it does not (Rankine's critical height; test_sand_physics).
//
// Discretisation: the diagonal of s at cell centres, each shear component on the cell edges
// along the third axis (a staggered grid, as in seismic codes), so that the force is the exact
// negative transpose of the strain rate and the elastic update conserves energy. An edge
// carries shear only when its four cells are sand: beside air it is a free surface, beside a
// wall the wall's Coulomb friction acts instead. The yield test runs at the cells (shear
// from the mean of their edges); an edge takes the smallest scale of its four cells.
//
// Time step: the update is explicit, so a shear wave, speed sqrt(G / rho), may cross at most
// kElasticCourant cells per step (Simulation::stable_dt). Gravity, the projection and the
// elastic stress then act in the same step; splitting the stress into substeps after one
// projection was tried and let the stress ratchet up (docs/findings/elastic_plastic_sand.md).
//
// The stress lives on the sand particles between steps (Particles::stress), so it moves with
// the sand, migrates and is checkpointed. Each step starts from the cells' mean of their
// particles (edges: the mean of their four cells) and hands each particle its cell's change
// (shear: the mean change of the cell's four edges), as FLIP does for velocity.
#pragma once
#include <cstdint>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/sand_plasticity.hpp"

namespace dunesim {

// Cells a shear wave may cross in one step; the explicit 3D update is stable below
// 1/sqrt(3).
constexpr double kElasticCourant = 0.4;

// The longest stable step, s: kElasticCourant dx / sqrt(G / rho).
double elastic_time_step_limit(double shear_modulus, double density, double dx);

// Sets grid.sand_region from grid.sand, and grid.stress and grid.stress_at_step_start to the
// particles' stress as above, halo-filled. Call after P2G (grid.sand, grid.sand_count).
void gather_particle_stress(const Topology& topo, Halo& halo, const Particles& particles,
                            const std::vector<MaterialSpec>& materials, MacGrid& grid);

// The stage (see above) on the cells of `sand_cells`, after the projection. On return
// grid.yielding marks the cells whose stress reached the yield surface, grid.rigid is zero,
// and the velocities are halo-filled. Rigid cells in the stats are those that stayed elastic.
SandPlasticityStats apply_elastic_plastic_sand(const Topology& topo, Halo& halo, MacGrid& grid,
                                               const Array3<uint8_t>& sand_cells,
                                               const MaterialSpec& sand, double dt);

// Adds to each sand particle its cell's stress change since gather_particle_stress.
void scatter_stress_to_particles(const MacGrid& grid, const std::vector<MaterialSpec>& materials,
                                 Particles& particles);

// Mud's viscous stress -2 mu D (mu of each cell's saturation, capped as flowing_stress caps
// it) on the sand cells, after scatter_stress_to_particles (it reuses grid.stress). Does
// nothing when the sand holds no water.
void apply_mud_viscosity(const Topology& topo, Halo& halo, MacGrid& grid,
                         const Array3<uint8_t>& sand_cells, const MaterialSpec& sand, double dt);

}  // namespace dunesim
