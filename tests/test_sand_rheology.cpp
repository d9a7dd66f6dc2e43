// The rheologies of one sand cell (src/sand/sand_rheology.hpp), worked by hand: mu(I)'s law,
// its yield test and its flowing stress in simple shear, where the shear stress must be
// mu(I) p; the cap that keeps friction from reversing a cell; and the Zhu & Bridson
// rheology's factor of 2.1 between its yield and its flowing stress.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "src/sand/sand_model.hpp"
#include "src/sand/sand_rheology.hpp"
#include "src/sand/sand_strength.hpp"

using namespace dunesim;

namespace {

MaterialSpec mu_of_i_sand() {
  MaterialSpec sand;
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.friction_angle_deg = 30;  // mu_s = 0.57735
  sand.rheology.kind = SandRheology::Kind::MuOfI;
  sand.rheology.dynamic_friction_angle_deg = 45;  // mu_2 = 1
  sand.rheology.inertial_number_i0 = 0.3;
  sand.rheology.grain_diameter = 1e-3;
  sand.rheology.grain_density = 2500;
  return sand;
}

// Simple shear u_x = gamma_dot z: D_xz = gamma_dot / 2, |D|_F = gamma_dot / sqrt(2), in sand
// of friction angle 30 degrees.
SandCellState simple_shear(double gamma_dot, double pressure, double dt) {
  SandCellState cell;
  cell.strength = material_strength(mu_of_i_sand());
  cell.strain_rate.c[4] = gamma_dot / 2;
  cell.pressure = pressure;
  cell.density = 1600;
  cell.dx = 0.01;
  cell.dt = dt;
  return cell;
}

}  // namespace

TEST(SandRheology, MuOfInertialNumberByHand) {
  const MuOfIFriction f(mu_of_i_sand());
  const double mu_s = std::tan(M_PI / 6);
  EXPECT_NEAR(f.mu_of_inertial_number(1e-12, mu_s), mu_s, 1e-9);
  // I = I0: half way from mu_s to mu_2 = 1.
  EXPECT_NEAR(f.mu_of_inertial_number(0.3, mu_s), 0.5 * (mu_s + 1.0), 1e-12);
  EXPECT_NEAR(f.mu_of_inertial_number(INFINITY, mu_s), 1.0, 1e-12);
}

// p = 1000 Pa, gamma_dot = 10/s: I = 10 * 1e-3 / sqrt(1000 / 2500) = 0.0158114, so
// mu = 0.5773503 + 0.4226497 / (0.3 / 0.0158114 + 1) = 0.5985106. With dt = 1 s the stress that
// stops the shear, rho dx^2 gamma_dot / (2 dt) = 0.8 Pa, is below mu_s p: the cell holds.
// With dt = 1e-5 s it is 80 kPa, far above mu p, and the cell slides at mu p.
TEST(SandRheology, SimpleShearCarriesMuOfIPressure) {
  const MaterialSpec sand = mu_of_i_sand();
  const SandCellStress held = sand_cell_stress(MuOfIFriction(sand), simple_shear(10, 1000, 1.0));
  EXPECT_TRUE(held.rigid);
  const SandCellStress sliding =
      sand_cell_stress(MuOfIFriction(sand), simple_shear(10, 1000, 1e-5));
  ASSERT_FALSE(sliding.rigid);
  EXPECT_NEAR(sliding.sigma(0, 2), -0.5985106 * 1000, 1e-3);  // resists the shear
  EXPECT_NEAR(sliding.sigma(0, 0), 0.0, 1e-12);
}

// The yield test is the static end of the same law: a cell whose stopping stress is just
// above mu_s p slides, just below it holds. Stopping stress in simple shear:
// rho dx^2 gamma_dot / (2 dt) = 1600 * 1e-4 * gamma_dot / (2 * 1e-3) = 80 gamma_dot Pa.
TEST(SandRheology, YieldsAtStaticFriction) {
  const MaterialSpec sand = mu_of_i_sand();
  const double p = 1000, mu_s_p = std::tan(M_PI / 6) * p;  // 577.35 Pa
  EXPECT_TRUE(
      sand_cell_stress(MuOfIFriction(sand), simple_shear(0.99 * mu_s_p / 80, p, 1e-3)).rigid);
  EXPECT_FALSE(
      sand_cell_stress(MuOfIFriction(sand), simple_shear(1.01 * mu_s_p / 80, p, 1e-3)).rigid);
}

// Just past yield, mu(I) p exceeds the stress that stops the cell within one step: the
// friction is capped there, so it stops the cell and never drives it backwards.
TEST(SandRheology, FrictionNeverExceedsTheStoppingStress) {
  const MaterialSpec sand = mu_of_i_sand();
  const double p = 1000, gamma_dot = 1.01 * std::tan(M_PI / 6) * p / 80;
  const SandCellStress s =
      sand_cell_stress(MuOfIFriction(sand), simple_shear(gamma_dot, p, 1e-3));
  ASSERT_FALSE(s.rigid);
  EXPECT_NEAR(s.sigma(0, 2), -80 * gamma_dot, 1e-9);
}

// Zhu & Bridson (eqs. 1-2), phi = 30: the cell yields once the stopping shear stress exceeds
// sin(phi) p / sqrt(3) = 288.7 Pa, and then carries sqrt(3/2) sin(phi) p = 612.4 Pa.
TEST(SandRheology, ZhuBridsonFlowsAtTwiceItsYieldStress) {
  MaterialSpec sand = mu_of_i_sand();
  sand.rheology.kind = SandRheology::Kind::ZhuBridson;
  const double p = 1000;
  EXPECT_TRUE(
      sand_cell_stress(ZhuBridsonFriction(sand), simple_shear(0.99 * 288.675 / 80, p, 1e-3))
          .rigid);
  const SandCellStress s =
      sand_cell_stress(ZhuBridsonFriction(sand), simple_shear(1.01 * 288.675 / 80, p, 1e-3));
  ASSERT_FALSE(s.rigid);
  EXPECT_NEAR(s.sigma(0, 2), -std::sqrt(1.5) * 0.5 * p, 1e-6);
}

// Culmann's planes (src/sand/culmann_wedges.hpp) fail a block of sand at rest when it would
// slide on them. Resting sand is never weaker than the same sand flowing, so the planes'
// friction is the larger of tan(phi) and what the flowing stress resists a block sliding in
// simple shear with (shear over normal stress on the plane): for phi = 30 the flow's sqrt(3/2)
// sin(30) = 0.612 (a 31.5-degree plane) over tan(30) = 0.577; for phi = 40 tan(40) = 0.839
// over the flow's 0.787. The plane's normal stress is p (simple shear leaves it unstrained).
TEST(SandRheology, ZhuBridsonRestingBlocksAreNoWeakerThanSlidingOnes) {
  for (const double phi : {30.0, 40.0}) {
    MaterialSpec sand = mu_of_i_sand();
    sand.friction_angle_deg = phi;
    sand.rheology.kind = SandRheology::Kind::ZhuBridson;
    const ZhuBridsonFriction law(sand);
    const double p = 1000;
    SandCellState shear = simple_shear(10, p, 1e-3);
    shear.strength = material_strength(sand);
    const SandCellStress flowing = sand_cell_stress(law, shear);
    ASSERT_FALSE(flowing.rigid);
    const double sliding = std::abs(flowing.sigma(0, 2)) / p;
    const double tan_phi = std::tan(phi * M_PI / 180);
    EXPECT_NEAR(law.static_friction(), std::max(sliding, tan_phi), 1e-9) << "phi = " << phi;
  }
  EXPECT_GT(ZhuBridsonFriction(mu_of_i_sand()).static_friction(), std::tan(M_PI / 6) + 0.03);
}

namespace {

SymTensor diagonal(double xx, double yy, double zz) {
  SymTensor d;
  d(0, 0) = xx;
  d(1, 1) = yy;
  d(2, 2) = zz;
  return d;
}

// sin of the largest obliquity of the cell's total stress p I + sigma (compression
// positive), for a diagonal sigma: (s_max - s_min) / (s_max + s_min).
double obliquity(const SymTensor& sigma, double p) {
  const double a = p + sigma(0, 0), b = p + sigma(1, 1), c = p + sigma(2, 2);
  const double hi = std::max({a, b, c}), lo = std::min({a, b, c});
  return (hi - lo) / (hi + lo);
}

}  // namespace

// The Lode angle's polynomial against the library's acos and cos, across [-1, 1] and at its
// ends, where two principal values meet.
TEST(SandRheology, CosThirdOfArccosMatchesTheTrigonometricSolution) {
  double worst = 0;
  for (int n = 0; n <= 20000; ++n) {
    const double x = -1 + n * 1e-4;
    worst = std::max(worst, std::abs(cos_third_of_arccos(x) - std::cos(std::acos(x) / 3)));
  }
  EXPECT_LT(worst, 2.5e-10);
  EXPECT_NEAR(cos_third_of_arccos(-1.0), 0.5, 2.5e-10);
  EXPECT_NEAR(cos_third_of_arccos(1.0), 1.0, 2.5e-10);
}

// Mohr-Coulomb's strength over plane strain's, by hand: 1 in plane strain and simple shear,
// 2 sqrt(3) / (3 - sin(phi_mc)) in axisymmetric compression (two equal extensions), whatever
// the axis, and 2 sqrt(3) / (3 + sin(phi_mc)) in axisymmetric extension.
TEST(SandRheology, MohrCoulombScaleByHand) {
  const double sin_phi = 0.5, sin_mc = std::sqrt(1.5) * 0.5;
  EXPECT_NEAR(mohr_coulomb_scale(diagonal(1, -1, 0), sin_phi), 1.0, 1e-9);
  EXPECT_NEAR(mohr_coulomb_scale(simple_shear(3.0, 1000, 1e-3).strain_rate, sin_phi), 1.0, 1e-9);
  const double compression = 2 * std::sqrt(3.0) / (3 - sin_mc);
  EXPECT_NEAR(compression, 1.451, 1e-3);
  EXPECT_NEAR(mohr_coulomb_scale(diagonal(1, 1, -2), sin_phi), compression, 1e-9);
  EXPECT_NEAR(mohr_coulomb_scale(diagonal(-2, 1, 1), sin_phi), compression, 1e-9);
  // The same compression along (1, 1, 0) / sqrt(2): D = I - 3 e e^T.
  SymTensor tilted = diagonal(-0.5, -0.5, 1);
  tilted(0, 1) = -1.5;
  EXPECT_NEAR(mohr_coulomb_scale(tilted, sin_phi), compression, 1e-9);
  EXPECT_NEAR(mohr_coulomb_scale(diagonal(-1, -1, 2), sin_phi), 2 * std::sqrt(3.0) / (3 + sin_mc),
              1e-9);
  EXPECT_DOUBLE_EQ(mohr_coulomb_scale(SymTensor{}, sin_phi), 1.0);
}

// With yield_surface = "mohr_coulomb" a sliding cell's stress has the same largest obliquity
// whatever its direction of strain, sqrt(3/2) sin(phi) (that of eq. 2 in plane strain), where
// Drucker-Prager's cone, |s| = sqrt(3) sin(phi) p along (1, 1, -2) / sqrt(6), gives
// axisymmetric compression 3 k / (2 + k) with k = sin(phi) / sqrt(2): 26% less.
TEST(SandRheology, MohrCoulombFlowsAtOneObliquity) {
  MaterialSpec sand = mu_of_i_sand();
  sand.rheology.kind = SandRheology::Kind::ZhuBridson;
  sand.rheology.yield_surface = SandRheology::YieldSurface::MohrCoulomb;
  const double p = 1000, expected = std::sqrt(1.5) * 0.5;
  SandCellState cell = simple_shear(1.0, p, 1e-3);
  for (const SymTensor& d :
       {diagonal(1, -1, 0), diagonal(1, 1, -2), diagonal(-1, -1, 2), diagonal(2, -0.5, -1.5)}) {
    for (int n = 0; n < 6; ++n) cell.strain_rate.c[n] = 100 * d.c[n];
    const SandCellStress s = sand_cell_stress(ZhuBridsonFriction(sand), cell);
    ASSERT_FALSE(s.rigid);
    EXPECT_NEAR(obliquity(s.sigma, p), expected, 1e-7);
  }
  sand.rheology.yield_surface = SandRheology::YieldSurface::DruckerPrager;
  cell.strain_rate = diagonal(100, 100, -200);
  const double drucker_prager =
      obliquity(sand_cell_stress(ZhuBridsonFriction(sand), cell).sigma, p);
  const double k = 0.5 / std::sqrt(2.0);
  EXPECT_NEAR(drucker_prager, 3 * k / (2 + k), 1e-7);
}

// The factory gives each rheology its own model, named by the case's key, and each model
// says what the time step must do for it: only elastic-plastic and rigid-plastic sand carry
// a stress on the particles, only the elastic wave limits the step (0.4 dx / sqrt(G / rho):
// G = 2e5 Pa, rho = 1600 kg/m^3, dx = 1 cm give 0.4 * 0.01 / 11.1803 = 3.5777e-4 s), and only
// rigid-plastic sand keeps the walls' friction force (three doubles a cell) between steps.
// The classification of dry sand takes its yield test a row at a time
// (dry_row_yield_test): over strain rates from round-off to fast shear, at pressures on both
// sides of the yield, with cohesion, its sigma_rigid, its decision and its flowing stress must
// be sand_cell_stress()'s and yielding_stress()'s to the last bit, or the rows would classify
// sand differently from the cell-by-cell test that wet and mixed sand still takes.
TEST(SandRheology, DryRowYieldTestIsTheCellTestToTheLastBit) {
  MaterialSpec sand;
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.friction_angle_deg = 37;
  sand.cohesion = 25;
  const ZhuBridsonFriction law(sand);
  ASSERT_TRUE(law.has_dry_row_yielding_stress());
  const double dx = 0.005, dt = 1.7e-3;
  const int n = 40;
  double d[6][kMaxRowLength], pressure[kMaxRowLength];
  float density[kMaxRowLength];
  for (int m = 0; m < n; ++m) {
    // Sizes from 1e-14 to 1e3 /s, so that some cells are round-off and some far past yield.
    const double size = std::pow(10.0, -14 + 17.0 * m / (n - 1));
    for (int c = 0; c < 6; ++c) d[c][m] = size * std::sin(1.3 * m + 0.7 * c + 0.2);
    pressure[m] = m % 5 == 0 ? -3.0 : 40.0 * (1 + std::cos(0.9 * m));
    density[m] = float(1500 + 7 * m);
  }
  const double* strain_rate[6] = {d[0], d[1], d[2], d[3], d[4], d[5]};
  DryRowYieldTest row;
  dry_row_yield_test(law, dx, dt, {n, strain_rate, pressure, density, nullptr}, row);
  const SandStrength strength = material_strength(sand);
  int rigid = 0, yielding = 0;
  for (int m = 0; m < n; ++m) {
    SandCellState cell;
    for (int c = 0; c < 6; ++c) cell.strain_rate.c[c] = d[c][m];
    cell.pressure = pressure[m];
    cell.density = density[m];
    cell.dx = dx;
    cell.dt = dt;
    cell.strength = strength;
    cell.wet = WetSandProperties{strength.cohesion};
    const SandCellStress tested = sand_cell_stress(law, cell);
    const SymTensor sigma_rigid = rigid_stress(cell.strain_rate, cell.density, dx, dt);
    ASSERT_EQ(row.needed_strength[m], std::sqrt(3.0) * von_mises_equivalent(sigma_rigid)) << m;
    const bool row_rigid =
        row.negligible[m] ||
        row.needed_strength[m] < strength.sin_phi * pressure[m] + strength.cohesion;
    ASSERT_EQ(row_rigid, tested.rigid) << m;
    const SymTensor flowing = yielding_stress(law, cell);
    for (int c = 0; c < 6; ++c) {
      ASSERT_EQ(row.rigid[c][m], sigma_rigid.c[c]) << m;
      ASSERT_EQ(row.flowing[c][m], flowing.c[c]) << m;
      ASSERT_EQ(tested.rigid ? row.rigid[c][m] : row.flowing[c][m], tested.sigma.c[c]) << m;
    }
    (tested.rigid ? rigid : yielding) += 1;
  }
  // Both outcomes are tested.
  EXPECT_GT(rigid, 5);
  EXPECT_GT(yielding, 5);
}

TEST(SandModel, FactoryBuildsEachRheologysModel) {
  struct Expected {
    SandRheology::Kind kind;
    const char* name;
    bool carries_stress;
    bool limits_step;
    size_t block_bytes;
  };
  const Expected models[] = {{SandRheology::Kind::ZhuBridson, "zhu_bridson", false, false, 0},
                             {SandRheology::Kind::MuOfI, "mu_i", false, false, 0},
                             {SandRheology::Kind::ElasticPlastic, "elastic_plastic", true, true,
                              0},
                             {SandRheology::Kind::RigidPlastic, "rigid_plastic", true, false,
                              24}};
  for (const Expected& e : models) {
    MaterialSpec sand = mu_of_i_sand();
    sand.rheology.kind = e.kind;
    const std::unique_ptr<SandModel> model = make_sand_model(sand);
    EXPECT_STREQ(model->name(), e.name);
    EXPECT_EQ(model->carries_particle_stress(), e.carries_stress) << e.name;
    EXPECT_EQ(std::isfinite(model->time_step_limit(0.01)), e.limits_step) << e.name;
    EXPECT_EQ(model->block_bytes_per_cell(), e.block_bytes) << e.name;
  }
  MaterialSpec elastic = mu_of_i_sand();
  elastic.rheology.kind = SandRheology::Kind::ElasticPlastic;
  EXPECT_NEAR(make_sand_model(elastic)->time_step_limit(0.01), 3.5777e-4, 1e-8);
}
