#include "src/wet/darcy_drag.hpp"

#include <algorithm>
#include <cmath>

#include "src/particles/pore_water.hpp"

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
  // A rank without free water has nothing to drag: skip the sand sums (one byte a particle
  // to look at, against the 36 the sums read).
  const bool any_water = std::any_of(p.material.begin(), p.material.end(), [&](uint8_t m) {
    return materials[m].kind == MaterialKind::Water;
  });
  if (!any_water) return;
  // The scratch arrays hold, per cell, the porous sand particles, their pores (where
  // porosities differ) and their summed velocity.
  const PoreTally tally = pore_tally(g);
  Array3<double>& count = tally.count;
  std::array<Array3<double>*, 3> sand_velocity{&g.pore_water, &g.pore_exchange, &g.pore_uptake};
  count.fill(0.0);
  tally.pores.fill(0.0);
  for (Array3<double>* v : sand_velocity) v->fill(0.0);
  const std::vector<double> shares = pore_shares(materials);
  const double inv_dx = 1.0 / g.dx;
  auto cell_of = [&](size_t n) {
    const auto [i, j, k] = particle_cell(p, n, inv_dx);
    return count.offset(i, j, k);
  };
  for (size_t n = 0; n < p.size(); ++n) {
    const double share = shares[p.material[n]];
    if (share == 0.0) continue;
    const int64_t c = cell_of(n);
    count.data()[c] += 1.0;
    if (!tally.one_porosity()) tally.pores.data()[c] += share;
    sand_velocity[0]->data()[c] += p.vx[n];
    sand_velocity[1]->data()[c] += p.vy[n];
    sand_velocity[2]->data()[c] += p.vz[n];
  }
  WetSandSpec cell_sand = sand.wet;  // with the cell's mean porosity, where they differ
  for (size_t n = 0; n < p.size(); ++n) {
    if (materials[p.material[n]].kind != MaterialKind::Water) continue;
    const int64_t c = cell_of(n);
    const double sand_particles = count.data()[c];
    if (sand_particles == 0.0) continue;
    double keep_here = keep;
    if (!tally.one_porosity()) {
      cell_sand.porosity = sand.wet.porosity * tally.pores.data()[c] / sand_particles;
      keep_here = darcy_relaxation(cell_sand, g_magnitude, dt);
    }
    float* v[3] = {&p.vx[n], &p.vy[n], &p.vz[n]};
    for (int a = 0; a < 3; ++a) {
      const double sand_mean = sand_velocity[a]->data()[c] / sand_particles;
      *v[a] = float(sand_mean + (*v[a] - sand_mean) * keep_here);
    }
  }
}

}  // namespace dunesim
