// Frictional plasticity of sand (Zhu & Bridson 2005, section 3; thesis 2.3): after the
// pressure projection every sand cell either stays rigid or slides under the Mohr-Coulomb
// frictional stress.
//
// Sign conventions (the paper's, kept so its equations read the same here):
//  - D = (grad u + grad u^T) / 2 is the strain rate, 1/s.
//  - Stresses are COMPRESSION POSITIVE: the mean stress sigma_m = tr(sigma)/3 of a sand cell
//    is the projection pressure p (Pa, > 0 in compression). Hence the minus signs in
//    sigma_rigid = -rho D dx^2 / dt (eq. 3) and sigma_f = -sin(phi) p D / (sqrt(1/3) |D|_F)
//    (eq. 2): both point against the deformation.
//  - A compression-positive stress pushes with -div(sigma), so the velocity update is
//    u <- u - dt/rho div(sigma). Reading the paper's "u += dt/rho div(sigma_f)" with the
//    minus sign inside sigma_f would feed shear instead of resisting it (for a shear flow
//    u_x(z) it is backward diffusion); the tests check that the update dissipates.
#pragma once
#include <array>
#include <cstdint>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/cohesive_wedges.hpp"

namespace dunesim {

// The substeps of a sand's frictional stress: the case's friction_substeps, else 8 under
// APIC, which keeps the chatter, and 1 under PIC/FLIP and RPIC, which drop the strain rate
// and damp it (Zhu & Bridson's single application; docs/findings/friction_substeps.md).
inline int friction_substeps(const MaterialSpec& sand) {
  // 16 substeps give the same deposits as 8; 4 let tall plane columns and slopes near phi
  // creep (postproc/column_collapse_findings.md, "Four friction substeps instead of eight").
  constexpr int kApicFrictionSubsteps = 8;
  if (sand.rheology.friction_substeps > 0) return sand.rheology.friction_substeps;
  return sand.transfer == Transfer::Apic ? kApicFrictionSubsteps : 1;
}

// A symmetric 3x3 tensor, stored as xx, yy, zz, xy, xz, yz.
struct SymTensor {
  std::array<double, 6> c{};

  static int index(int a, int b) {
    if (a == b) return a;
    return a + b + 2;  // (0,1) -> 3, (0,2) -> 4, (1,2) -> 5
  }
  double operator()(int a, int b) const { return c[index(a, b)]; }
  double& operator()(int a, int b) { return c[index(a, b)]; }
  double trace() const { return c[0] + c[1] + c[2]; }
  // Off-diagonal entries count twice: they appear at (a,b) and (b,a).
  double frobenius_norm() const;
};

// One Array3 per SymTensor component (same order), at cell centres.
using StressField = std::array<Array3<float>, 6>;

// Strain rate D at the centre of cell (i,j,k) from the MAC velocities; stencil in the .cpp.
// Reads faces up to one cell beyond the cell and cell_type around them.
SymTensor strain_rate(const MacGrid& grid, int i, int j, int k);

// The paper's Von Mises equivalent shear stress: sigma_bar = |sigma - sigma_m I|_F / sqrt(2),
// i.e. sqrt(J2) of the deviatoric part. sqrt(3) sigma_bar equals s for uniaxial stress s.
double von_mises_equivalent(const SymTensor& sigma);

// t minus its mean normal part: the deviator, traceless.
SymTensor deviatoric_part(const SymTensor& t);

// eq. 3: the stress that stops the cell's deformation within one step.
SymTensor rigid_stress(const SymTensor& strain_rate, double density, double dx, double dt);

// Mohr-Coulomb with cohesion (eq. 5): true (rigid) when
// sqrt(3) sigma_bar(sigma_rigid) < sin(phi) p + c. p is used as it is, so a cell in tension
// (p < 0) needs cohesion to stay rigid.
bool stays_rigid(const SymTensor& sigma_rigid, double pressure, double sin_phi, double cohesion);

// eq. 2 for a strain rate with |D|_F > 0. Sand carries no frictional stress in tension, so
// p < 0 counts as 0 (a negative p would turn the stress into one that drives the shear).
SymTensor frictional_stress(const SymTensor& strain_rate, double pressure, double sin_phi);

// The stress of a yielding cell: eq. 2, plus the viscous stress -2 mu D of mud (wet sand
// above its ideal saturation). mu is capped at rho dx^2 / (2 dt): the viscous stress then
// equals sigma_rigid (eq. 3), which stops the cell's strain within one step; more would
// reverse it (the explicit update's stability limit).
SymTensor flowing_stress(const SymTensor& strain_rate, double pressure, double sin_phi,
                         double viscosity, double density, double dx, double dt);

// Adds mud's viscous stress -2 mu D to `sigma`, mu capped at rho dx^2 / (2 dt) as above.
void add_viscous_stress(SymTensor& sigma, const SymTensor& strain_rate, double viscosity,
                        double density, double dx, double dt);

// Counts over this rank's owned cells (sum them over ranks for totals).
struct SandPlasticityStats {
  int64_t sand_cells = 0;
  int64_t rigid_cells = 0;
  int64_t yielding_cells = 0;
};

// Zhu & Bridson's sand stage (and mu(I)'s, by `friction`), after project_pressure (grid.vel,
// grid.pressure, grid.density and grid.cell_type halo-consistent). `sand_cells` marks fluid cells
// whose particles are sand (owned cells are read); `sand` gives the friction angle and cohesion
// of the case's single sand material; when it holds water, grid.saturation (owned cells) turns
// them into each cell's own through wet_sand_properties (src/sand/wet_sand.hpp). Rigid cells
// store sigma_rigid, yielding cells sigma_f, others no stress; the divergence of that field
// updates the faces next to yielding cells, in friction_substeps(sand) substeps of dt / n, the
// yielding cells' sigma_f re-evaluated from the velocities before each (the classification holds
// for the step). Cells with |D|_F dt below round-off are rigid (D/|D| is undefined there). On
// return grid.rigid and grid.yielding cover the local cell box with 1 for the sand cells that did
// not yield and for those that did; they, grid.stress and the velocities are halo-filled, and
// grid.sand_region is the bounding box of the local sand cells, outside which the sand arrays are
// zero. A yielding surface cell that the surface's static friction holds
// (src/sand/surface_rest.hpp, when the material's surface_static_friction is on) is rigid
// instead; it reads grid.vel_saved and `gravity` (zero gravity holds none). With
// steep_surface_yields, a rigid surface cell on a slope its friction and cohesion cannot hold
// yields instead; with culmann_wedges_yield, so does a rigid cell of dry cohesionless sand above
// a plane that daylights, dipping at the law's resting block friction
// (src/sand/culmann_wedges.hpp; one more reduction over the domain's columns), and the yield test
// weighs a cell resting on a solid or packed sand with at least its own sand's weight as its
// pressure (own_weight_pressure; grid.sand_count halo-filled). `symmetry`: the box walls that
// are symmetry planes, which the cohesive wedges' planes pass through into the mirror image.
// `wedge_memo` (may be null): the cohesive wedges' last search, kept from step to step
// (WedgeSearchMemo, cohesive_wedges.hpp).
class FrictionLaw;    // src/sand/sand_rheology.hpp: the yield test and the flowing stress
class SandStrengths;  // src/sand/sand_strength.hpp: each cell's friction and cohesion
SandPlasticityStats apply_sand_plasticity(const Topology& topo, Halo& halo, MacGrid& grid,
                                          const Array3<uint8_t>& sand_cells,
                                          const MaterialSpec& sand, const FrictionLaw& friction,
                                          const SandStrengths& strengths, double dt,
                                          const Vec3& gravity, const SymmetryWalls& symmetry,
                                          WedgeSearchMemo* wedge_memo = nullptr);

}  // namespace dunesim
