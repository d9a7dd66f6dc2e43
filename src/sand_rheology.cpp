#include "src/sand_rheology.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dunesim {

namespace {

// Strain per step below which D is round-off and its direction meaningless.
constexpr double kNegligibleStrain = 1e-12;

SandCellStress zhu_bridson_stress(const SandFriction& f, const SandCellState& c,
                                  const SymTensor& sigma_rigid) {
  const double sin_phi = f.sin_phi * c.wet.friction_scale;
  if (stays_rigid(sigma_rigid, c.pressure, sin_phi, c.wet.cohesion)) return {sigma_rigid, true};
  return {flowing_stress(c.strain_rate, c.pressure, sin_phi, c.wet.viscosity, c.density, c.dx,
                         c.dt),
          false};
}

// The mu(I) stress of a sliding cell: sigma = -sqrt(2) tau D / |D|_F has sigma_bar = tau for a
// traceless D, with tau = mu(I) p capped at sigma_bar(sigma_rigid).
SandCellStress mu_of_i_stress(const SandFriction& f, const SandCellState& c,
                              const SymTensor& sigma_rigid) {
  const double scale = c.wet.friction_scale;
  const double stopping = von_mises_equivalent(sigma_rigid);
  if (stopping < f.mu_static * scale * c.pressure + c.wet.cohesion) return {sigma_rigid, true};

  const double p = std::max(c.pressure, 0.0);
  const double norm = c.strain_rate.frobenius_norm();
  const double shear_rate = std::sqrt(2.0) * norm;
  const double inertial = p > 0 ? shear_rate * f.grain_diameter / std::sqrt(p / f.grain_density)
                                : std::numeric_limits<double>::infinity();
  const double tau = std::min(mu_of_inertial_number(f, inertial) * scale * p, stopping);
  SandCellStress out;
  for (int n = 0; n < 6; ++n) out.sigma.c[n] = -std::sqrt(2.0) * tau * c.strain_rate.c[n] / norm;
  add_viscous_stress(out.sigma, c.strain_rate, c.wet.viscosity, c.density, c.dx, c.dt);
  return out;
}

double degrees_to_radians(double degrees) { return degrees * M_PI / 180.0; }

}  // namespace

SandFriction sand_friction(const MaterialSpec& sand) {
  const SandRheology& r = sand.rheology;
  SandFriction f;
  f.kind = r.kind;
  f.sin_phi = std::sin(degrees_to_radians(sand.friction_angle_deg));
  f.mu_static = std::tan(degrees_to_radians(sand.friction_angle_deg));
  f.mu_limit = std::tan(degrees_to_radians(r.dynamic_friction_angle_deg));
  f.i0 = r.inertial_number_i0;
  f.grain_diameter = r.grain_diameter;
  f.grain_density = r.grain_density;
  return f;
}

double mu_of_inertial_number(const SandFriction& f, double inertial_number) {
  if (std::isinf(inertial_number)) return f.mu_limit;
  return f.mu_static + (f.mu_limit - f.mu_static) / (f.i0 / inertial_number + 1.0);
}

SandCellStress sand_cell_stress(const SandFriction& f, const SandCellState& c) {
  const SymTensor sigma_rigid = rigid_stress(c.strain_rate, c.density, c.dx, c.dt);
  if (c.strain_rate.frobenius_norm() * c.dt < kNegligibleStrain) return {sigma_rigid, true};
  return f.kind == SandRheology::Kind::MuOfI ? mu_of_i_stress(f, c, sigma_rigid)
                                             : zhu_bridson_stress(f, c, sigma_rigid);
}

}  // namespace dunesim
