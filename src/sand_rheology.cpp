#include "src/sand_rheology.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dunesim {

namespace {

// Strain per step below which D is round-off and its direction meaningless.
constexpr double kNegligibleStrain = 1e-12;

double degrees_to_tangent(double degrees) { return std::tan(degrees * M_PI / 180.0); }

SandCellStress zhu_bridson_stress(const MaterialSpec& sand, const SandCellState& c,
                                  const SymTensor& sigma_rigid) {
  const double sin_phi = std::sin(sand.friction_angle_deg * M_PI / 180.0) * c.wet.friction_scale;
  if (stays_rigid(sigma_rigid, c.pressure, sin_phi, c.wet.cohesion)) return {sigma_rigid, true};
  return {flowing_stress(c.strain_rate, c.pressure, sin_phi, c.wet.viscosity, c.density, c.dx,
                         c.dt),
          false};
}

// The mu(I) stress of a sliding cell: sigma = -sqrt(2) tau D / |D|_F has sigma_bar = tau for a
// traceless D, with tau = mu(I) p capped at sigma_bar(sigma_rigid).
SandCellStress mu_of_i_stress(const MaterialSpec& sand, const SandCellState& c,
                              const SymTensor& sigma_rigid) {
  const SandRheology& r = sand.rheology;
  const double scale = c.wet.friction_scale;
  const double mu_static = degrees_to_tangent(sand.friction_angle_deg);
  const double stopping = von_mises_equivalent(sigma_rigid);
  if (stopping < mu_static * scale * c.pressure + c.wet.cohesion) return {sigma_rigid, true};

  const double p = std::max(c.pressure, 0.0);
  const double norm = c.strain_rate.frobenius_norm();
  const double shear_rate = std::sqrt(2.0) * norm;
  const double inertial = p > 0 ? shear_rate * r.grain_diameter / std::sqrt(p / r.grain_density)
                                : std::numeric_limits<double>::infinity();
  const double tau =
      std::min(mu_of_inertial_number(mu_static, r, inertial) * scale * p, stopping);
  SandCellStress out;
  for (int n = 0; n < 6; ++n) out.sigma.c[n] = -std::sqrt(2.0) * tau * c.strain_rate.c[n] / norm;
  const double mu = std::min(c.wet.viscosity, c.density * c.dx * c.dx / (2 * c.dt));
  for (int n = 0; n < 6; ++n) out.sigma.c[n] -= 2 * mu * c.strain_rate.c[n];
  return out;
}

}  // namespace

double mu_of_inertial_number(double mu_static, const SandRheology& r, double inertial_number) {
  const double mu_limit = degrees_to_tangent(r.dynamic_friction_angle_deg);
  if (std::isinf(inertial_number)) return mu_limit;
  return mu_static + (mu_limit - mu_static) / (r.inertial_number_i0 / inertial_number + 1.0);
}

SandCellStress sand_cell_stress(const MaterialSpec& sand, const SandCellState& c) {
  const SymTensor sigma_rigid = rigid_stress(c.strain_rate, c.density, c.dx, c.dt);
  if (c.strain_rate.frobenius_norm() * c.dt < kNegligibleStrain) return {sigma_rigid, true};
  return sand.rheology.kind == SandRheology::Kind::MuOfI
             ? mu_of_i_stress(sand, c, sigma_rigid)
             : zhu_bridson_stress(sand, c, sigma_rigid);
}

}  // namespace dunesim
