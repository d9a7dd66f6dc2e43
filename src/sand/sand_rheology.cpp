#include "src/sand/sand_rheology.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "src/sand/strain_rate_rows.hpp"

namespace dunesim {

namespace {

// Strain per step below which D is round-off and its direction meaningless.
constexpr double kNegligibleStrain = 1e-12;

// The principal values of a traceless symmetric tensor of Frobenius norm `norm` over that
// norm, largest first, from its invariants (the trigonometric solution of the characteristic
// cubic). With alpha in [0, pi/3] the three are r cos(alpha + 2 pi n / 3), n = 0, -1, 1,
// written with cos(alpha) and sin(alpha) >= 0 alone. The friction substeps call this for
// every yielding cell, so cos(alpha) comes from a polynomial, not an acos and a cos.
std::array<double, 3> unit_deviator_principal_values(const SymTensor& d, double norm) {
  const double j3 = d(0, 0) * (d(1, 1) * d(2, 2) - d(1, 2) * d(1, 2)) -
                    d(0, 1) * (d(0, 1) * d(2, 2) - d(1, 2) * d(0, 2)) +
                    d(0, 2) * (d(0, 1) * d(1, 2) - d(1, 1) * d(0, 2));
  // cos(3 alpha) = 3 sqrt(6) J3 / |d|^3, with J2 = |d|^2 / 2.
  const double cos_3alpha = std::clamp(3 * std::sqrt(6.0) * j3 / (norm * norm * norm), -1.0, 1.0);
  const double c = cos_third_of_arccos(cos_3alpha);
  // Near alpha = 0 (c -> 1) sqrt(1 - c^2) would magnify c's error; there sin(alpha) comes
  // from sin(3 alpha) = sin(alpha) (4 c^2 - 1) instead, whose divisor is near 3.
  const double s = c < 0.9 ? std::sqrt(1 - c * c)
                           : std::sqrt((1 - cos_3alpha) * (1 + cos_3alpha)) / (4 * c * c - 1);
  const double r = std::sqrt(2.0 / 3.0), half_root3 = 0.5 * std::sqrt(3.0);
  return {r * c, r * (-0.5 * c + half_root3 * s), r * (-0.5 * c - half_root3 * s)};
}

bool negligible_strain(const SandCellState& c) {
  return c.strain_rate.frobenius_norm() * c.dt < kNegligibleStrain;
}

double degrees_to_radians(double degrees) { return degrees * M_PI / 180.0; }

}  // namespace

// cos(acos(x) / 3) is smooth in s = sqrt((1 + x) / 2) on [0, 1] (x = -1 is where two
// principal values meet): a degree-10 polynomial in s, fitted at Chebyshev nodes, is within
// 2.1e-10 of it, under the single precision the stress is stored in.
double cos_third_of_arccos(double x) {
  static constexpr double kCoefficients[] = {0.50000000020853896,    0.57735024070429819,
                                             -0.11111014592497084,   0.053444116506745312,
                                             -0.032807469989791921,  0.022307115274665217,
                                             -0.015264638782504921,  0.0093720416397659531,
                                             -0.0044911433291843798, 0.001409717496846607,
                                             -0.00020983395665038866};
  const double s = std::sqrt(std::clamp(0.5 * (1 + x), 0.0, 1.0));
  double c = 0;
  for (int n = 10; n >= 0; --n) c = c * s + kCoefficients[n];
  return c;
}

FrictionLaw::FrictionLaw(const MaterialSpec& sand)
    : material_tan_phi_(std::tan(degrees_to_radians(sand.friction_angle_deg))) {}

ZhuBridsonFriction::ZhuBridsonFriction(const MaterialSpec& sand)
    : FrictionLaw(sand),
      sin_phi_(std::sin(degrees_to_radians(sand.friction_angle_deg))),
      mohr_coulomb_(sand.rheology.yield_surface == SandRheology::YieldSurface::MohrCoulomb) {}

double ZhuBridsonFriction::resting_block_friction(double tan_phi) const {
  const double sin_phi = tan_phi / std::sqrt(1 + tan_phi * tan_phi);
  return std::max(tan_phi, std::sqrt(1.5) * sin_phi);
}

// sin(phi) of the cell's friction, along its direction of strain when the surface is
// Mohr-Coulomb's.
double ZhuBridsonFriction::sin_phi(const SandCellState& c) const {
  const double sin_phi = c.strength.sin_phi * c.wet.friction_scale;
  return mohr_coulomb_ ? sin_phi * mohr_coulomb_scale(c.strain_rate, sin_phi) : sin_phi;
}

bool ZhuBridsonFriction::stays_rigid(const SandCellState& c, const SymTensor& sigma_rigid) const {
  return dunesim::stays_rigid(sigma_rigid, c.pressure, sin_phi(c), c.wet.cohesion);
}

SymTensor ZhuBridsonFriction::flowing_stress(const SandCellState& c) const {
  return dunesim::flowing_stress(c.strain_rate, c.pressure, sin_phi(c), c.wet.viscosity,
                                 c.density, c.dx, c.dt);
}

MuOfIFriction::MuOfIFriction(const MaterialSpec& sand)
    : FrictionLaw(sand),
      mu_limit_(std::tan(degrees_to_radians(sand.rheology.dynamic_friction_angle_deg))),
      i0_(sand.rheology.inertial_number_i0),
      grain_diameter_(sand.rheology.grain_diameter),
      grain_density_(sand.rheology.grain_density) {}

bool MuOfIFriction::stays_rigid(const SandCellState& c, const SymTensor& sigma_rigid) const {
  const double stopping = von_mises_equivalent(sigma_rigid);
  return stopping < c.strength.tan_phi * c.wet.friction_scale * c.pressure + c.wet.cohesion;
}

// The mu(I) stress of a sliding cell: sigma = -sqrt(2) tau D / |D|_F has sigma_bar = tau for a
// traceless D, with tau = mu(I) p capped at sigma_bar(sigma_rigid).
SymTensor MuOfIFriction::flowing_stress(const SandCellState& c) const {
  const double stopping =
      von_mises_equivalent(rigid_stress(c.strain_rate, c.density, c.dx, c.dt));
  const double p = std::max(c.pressure, 0.0);
  const double norm = c.strain_rate.frobenius_norm();
  const double shear_rate = std::sqrt(2.0) * norm;
  const double inertial = p > 0 ? shear_rate * grain_diameter_ / std::sqrt(p / grain_density_)
                                : std::numeric_limits<double>::infinity();
  const double tau =
      std::min(mu_of_inertial_number(inertial, c.strength.tan_phi) * c.wet.friction_scale * p,
               stopping);
  SymTensor sigma;
  for (int n = 0; n < 6; ++n) sigma.c[n] = -std::sqrt(2.0) * tau * c.strain_rate.c[n] / norm;
  add_viscous_stress(sigma, c.strain_rate, c.wet.viscosity, c.density, c.dx, c.dt);
  return sigma;
}

double mohr_coulomb_scale(const SymTensor& strain_rate, double sin_phi) {
  const SymTensor deviator = deviatoric_part(strain_rate);
  const double norm = deviator.frobenius_norm();
  if (!(norm > 0)) return 1.0;
  const auto [n1, n2, n3] = unit_deviator_principal_values(deviator, norm);
  const double sin_phi_mc = std::min(std::sqrt(1.5) * sin_phi, 1.0);
  return std::sqrt(0.5) / (0.5 * (n1 - n3) - 0.5 * n2 * sin_phi_mc);
}

double MuOfIFriction::mu_of_inertial_number(double inertial_number, double mu_static) const {
  if (std::isinf(inertial_number)) return mu_limit_;
  return mu_static + (mu_limit_ - mu_static) / (i0_ / inertial_number + 1.0);
}

SandCellStress sand_cell_stress(const FrictionLaw& law, const SandCellState& c) {
  const SymTensor sigma_rigid = rigid_stress(c.strain_rate, c.density, c.dx, c.dt);
  if (negligible_strain(c)) return {sigma_rigid, true};
  if (law.stays_rigid(c, sigma_rigid)) return {sigma_rigid, true};
  return {yielding_stress(law, c), false};
}

namespace {

// yielding_stress() -> zhu_bridson_yielding_stress() -> flowing_stress() for dry sand
// (friction scale 1, no viscosity), written out as sigma = friction_factor D -
// viscosity_factor D, with each cell's two factors and whether its strain is round-off
// (negligible_strain()). There the stress is 0: both factors are set to 0, and a zero minus
// itself is +0, as yielding_stress() gives.
void dry_row_stress_factors(const FrictionLaw& law, double dx, double dt, const DrySandRow& row,
                            double* friction_factor, double* viscosity_factor, bool* negligible) {
  const double* const* d = row.strain_rate;
  const double sin_phi = law.dry_row_sin_phi() * WetSandProperties{}.friction_scale;
  const double viscosity = WetSandProperties{}.viscosity;
  for (int m = 0; m < row.length; ++m) {
    const double norm =
        std::sqrt(d[0][m] * d[0][m] + d[1][m] * d[1][m] + d[2][m] * d[2][m] +
                  2 * (d[3][m] * d[3][m] + d[4][m] * d[4][m] + d[5][m] * d[5][m]));
    negligible[m] = norm * dt < kNegligibleStrain;
    const double scale =
        -sin_phi * std::max(row.pressure[m], 0.0) / (std::sqrt(1.0 / 3.0) * norm);
    const double mu = std::min(viscosity, double(row.density[m]) * dx * dx / (2 * dt));
    friction_factor[m] = negligible[m] ? 0.0 : scale;
    viscosity_factor[m] = negligible[m] ? 0.0 : 2 * mu;
  }
}

}  // namespace

void yielding_stress_of_dry_row(const FrictionLaw& law, double dx, double dt,
                                const DrySandRow& row) {
  const double* const* d = row.strain_rate;
  double friction_factor[kMaxRowLength], viscosity_factor[kMaxRowLength];
  bool negligible[kMaxRowLength];
  dry_row_stress_factors(law, dx, dt, row, friction_factor, viscosity_factor, negligible);
  for (int n = 0; n < 6; ++n) {
    const double* strain_rate = d[n];
    float* stress = row.stress[n];
    for (int m = 0; m < row.length; ++m) {
      double sigma = friction_factor[m] * strain_rate[m];
      sigma -= viscosity_factor[m] * strain_rate[m];
      stress[m] = float(sigma);
    }
  }
}

// sand_cell_stress()'s rigid_stress(), negligible_strain() and stays_rigid() measure, and
// yielding_stress_of_dry_row()'s stress, each with its operations in its order.
void dry_row_yield_test(const FrictionLaw& law, double dx, double dt, const DrySandRow& row,
                        DryRowYieldTest& out) {
  const double* const* d = row.strain_rate;
  const int n = row.length;
  double friction_factor[kMaxRowLength], viscosity_factor[kMaxRowLength];
  dry_row_stress_factors(law, dx, dt, row, friction_factor, viscosity_factor, out.negligible);
  for (int m = 0; m < n; ++m) {
    const double scale = -double(row.density[m]) * dx * dx / dt;
    for (int c = 0; c < 6; ++c) out.rigid[c][m] = scale * d[c][m];
  }
  const auto& r = out.rigid;
  for (int m = 0; m < n; ++m) {
    const double mean = (r[0][m] + r[1][m] + r[2][m]) / 3;
    const double d0 = r[0][m] - mean, d1 = r[1][m] - mean, d2 = r[2][m] - mean;
    const double deviator_norm =
        std::sqrt(d0 * d0 + d1 * d1 + d2 * d2 +
                  2 * (r[3][m] * r[3][m] + r[4][m] * r[4][m] + r[5][m] * r[5][m]));
    out.needed_strength[m] = std::sqrt(3.0) * (deviator_norm / std::sqrt(2.0));
  }
  for (int c = 0; c < 6; ++c)
    for (int m = 0; m < n; ++m) {
      double sigma = friction_factor[m] * d[c][m];
      sigma -= viscosity_factor[m] * d[c][m];
      out.flowing[c][m] = sigma;
    }
}

SymTensor yielding_stress(const FrictionLaw& law, const SandCellState& c) {
  if (negligible_strain(c)) return SymTensor{};
  return law.flowing_stress(c);
}

}  // namespace dunesim
