#include "src/darcy_drag.hpp"

#include <cmath>

#include "src/pore_water.hpp"

namespace dunesim {

double darcy_relaxation(const WetSandSpec& sand, double gravity, double dt) {
  if (sand.conductivity <= 0) return 0.0;
  return 1.0 / (1.0 + gravity * sand.porosity * dt / sand.conductivity);
}

void apply_darcy_drag(const std::vector<MaterialSpec>& materials, const MaterialSpec& sand,
                      const Vec3& gravity, double dt, MacGrid& g, Particles& p) {
  const double g_magnitude =
      std::sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  const double keep = darcy_relaxation(sand.wet, g_magnitude, dt);
  // The scratch arrays hold, per cell, the porous sand particles and their summed velocity.
  Array3<double>& count = g.pore_count;
  std::array<Array3<double>*, 3> sand_velocity{&g.pore_water, &g.pore_exchange, &g.pore_uptake};
  count.fill(0.0);
  for (Array3<double>* v : sand_velocity) v->fill(0.0);
  const double inv_dx = 1.0 / g.dx;
  auto cell_of = [&](size_t n) {
    return count.offset(int(std::floor(p.x[n] * inv_dx)), int(std::floor(p.y[n] * inv_dx)),
                        int(std::floor(p.z[n] * inv_dx)));
  };
  bool any_water = false;
  for (size_t n = 0; n < p.size(); ++n) {
    const MaterialSpec& m = materials[p.material[n]];
    any_water = any_water || m.kind == MaterialKind::Water;
    if (m.kind != MaterialKind::Sand || !m.wet.holds_water()) continue;
    const int64_t c = cell_of(n);
    count.data()[c] += 1.0;
    sand_velocity[0]->data()[c] += p.vx[n];
    sand_velocity[1]->data()[c] += p.vy[n];
    sand_velocity[2]->data()[c] += p.vz[n];
  }
  if (!any_water) return;
  for (size_t n = 0; n < p.size(); ++n) {
    if (materials[p.material[n]].kind != MaterialKind::Water) continue;
    const int64_t c = cell_of(n);
    const double sand_particles = count.data()[c];
    if (sand_particles == 0.0) continue;
    float* v[3] = {&p.vx[n], &p.vy[n], &p.vz[n]};
    for (int a = 0; a < 3; ++a) {
      const double sand_mean = sand_velocity[a]->data()[c] / sand_particles;
      *v[a] = float(sand_mean + (*v[a] - sand_mean) * keep);
    }
  }
}

}  // namespace dunesim
