// A sand material's rheology parameters and the defaults its `model` key picks: the sand's
// own, read and validated by the case reader (io/case_config.cpp) and used by the models in
// src/sand/models/. The material's friction angle, cohesion and density sit with every
// material's keys (MaterialSpec, io/case_config.hpp).
#pragma once
#include "decomposition/vec3.hpp"

namespace dunesim {

// How sand resists shear: Zhu & Bridson 2005's yield test and frictional stress, the
// mu(I) rheology of Jop, Forterre & Pouliquen 2006 (src/sand/sand_rheology.hpp), an
// elastic-plastic stress (src/sand/elastic_plastic_sand.hpp) or a rigid-plastic one solved
// implicitly (src/sand/rigid_plastic_sand.hpp).
struct SandRheology {
  enum class Kind { ZhuBridson, MuOfI, ElasticPlastic, RigidPlastic } kind = Kind::ZhuBridson;
  // mu(I) only: mu_s = tan(friction_angle) is the material's own; these set the rest.
  double dynamic_friction_angle_deg = 33.0;  // atan(mu_2), the friction at large I
  double inertial_number_i0 = 0.3;           // I0: I at which mu is half way to mu_2
  double grain_diameter = 5e-4;              // d, m
  double grain_density = 2650.0;             // rho_grain, kg/m^3 (quartz)
  // elastic_plastic only: the shear modulus G of the sand's elastic stress, Pa. A numerical
  // stiffness far below a real sand's (10-100 MPa): the elastic strain is the stress over G,
  // and the substeps grow as sqrt(G) (src/sand/elastic_plastic_sand.hpp).
  double shear_modulus = 2e5;
  // zhu_bridson only: the shape of the yield surface in the deviatoric plane. Drucker-Prager
  // (the paper's) is one strength for every direction of strain; Mohr-Coulomb's is the same
  // in plane strain and up to 45% stronger in axisymmetric compression
  // (src/sand/sand_rheology.hpp).
  enum class YieldSurface {
    DruckerPrager,
    MohrCoulomb
  } yield_surface = YieldSurface::DruckerPrager;
  // zhu_bridson and mu_i: a slow surface cell on a slope flatter than the friction angle
  // stays rigid (src/sand/surface_rest.hpp); false gives the paper's yield test alone.
  bool surface_static_friction = true;
  // zhu_bridson and mu_i: a particle in a rigid cell takes its velocity from that cell's own
  // faces at G2P (rigid_cell_velocity = "own_cell"), so it moves with its rigid cluster,
  // instead of the trilinear interpolation every other particle uses, which reaches into the
  // faces of a yielding neighbour and drags the top of a resting core along with the flow
  // over it (src/transfer/transfer.hpp).
  bool rigid_cells_own_velocity = false;
  // zhu_bridson and mu_i: a surface cell on a slope too steep for its friction and cohesion
  // to hold it yields, even at rest (steep_surface_yields; src/sand/surface_rest.hpp). The
  // paper's test keeps sand at rest rigid whatever its slope (sigma_rigid vanishes), so an
  // over-steep flank stands until the projection's push on its staircase erodes it.
  bool steep_surface_yields = false;
  // zhu_bridson and mu_i: a rigid cell of cohesionless sand yields, even at rest, when the
  // plane through it dipping at the friction angle daylights at a free surface: the sand
  // above a plane steeper than phi slides (Culmann's wedge; src/sand/culmann_wedges.hpp), or
  // under zhu_bridson steeper than atan(sqrt(3/2) sin(phi)) where that is steeper (the
  // friction its flow resists a sliding block with). The paper's test keeps a released face
  // rigid until it peels.
  bool culmann_wedges_yield = false;
  // zhu_bridson and mu_i: a loose cell (fewer than kPackedSandParticles) whose sand has
  // rested as long as a grain takes to fall one cell holds by its own weight: the yield
  // test weighs the stress that stops it by its sand, and no Culmann wedge fails it
  // (src/sand/resting_grains.hpp). Without it loose grains creep down slopes under phi.
  bool resting_grains_hold = false;
  // zhu_bridson and mu_i: the step's frictional stress is applied in this many substeps, each
  // from the strain rate the one before left (src/sand/sand_plasticity.hpp). A rate-independent
  // stress applied once per step overshoots on grid-scale modes and chatters; FLIP's PIC
  // share damps that, APIC keeps it. 0: chosen by the transfer, friction_substeps() below.
  int friction_substeps = 0;
};

// The defaults a sand material's `model` picks for the keys it leaves out: the model checked
// against laboratory collapses (docs/findings/laboratory_collapses.md: APIC,
// rigid cells' own velocity, Culmann's wedges, resting grains holding), or Zhu & Bridson's own
// (95% PIC, rigid cells interpolated, released faces held until they peel). Only Zhu & Bridson's
// rheology has the validated model; the others keep the paper's transfer. Culmann's test reads
// the columns' tops along z, so it is part of the default only where gravity points down z.
struct SandModelDefaults {
  bool apic = false;
  bool rigid_cells_own_velocity = false;
  bool culmann_wedges_yield = false;
  bool resting_grains_hold = false;
};
inline SandModelDefaults sand_model_defaults(bool zhu_bridson_rheology, bool zhu_bridson_2005,
                                             const Vec3& gravity) {
  if (!zhu_bridson_rheology || zhu_bridson_2005) return {};
  const bool gravity_down_z = gravity[2] < 0 && gravity[0] == 0 && gravity[1] == 0;
  return {true, true, gravity_down_z, true};
}

}  // namespace dunesim
