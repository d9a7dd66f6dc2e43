// Water held in the pores of sand, counted per grid cell: the shared first step of the
// absorption and percolation stages.
#pragma once
#include <cmath>
#include <utility>
#include <vector>

#include "decomposition/particles.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// The axis gravity mostly points along, and -1 or +1 for its direction on that axis: where
// "below" is for absorption and drainage.
inline std::pair<int, int> gravity_axis(const Vec3& gravity) {
  int down = 2;
  for (int a = 0; a < 3; ++a)
    if (std::abs(gravity[a]) > std::abs(gravity[down])) down = a;
  return {down, gravity[down] > 0 ? 1 : -1};
}

// The cell particle n lies in.
inline Index3 particle_cell(const Particles& p, size_t n, double inv_dx) {
  return {int(std::floor(p.x[n] * inv_dx)), int(std::floor(p.y[n] * inv_dx)),
          int(std::floor(p.z[n] * inv_dx))};
}

// Over this rank's particles (each in an owned cell): count(c) = porous sand particles in
// cell c, water(c) = the water content they hold, summed. Both are zeroed first over their
// whole box; ghost cells stay 0.
inline void tally_pore_water(const Particles& p, const std::vector<MaterialSpec>& materials,
                             double dx, Array3<double>& count, Array3<double>& water) {
  count.fill(0.0);
  water.fill(0.0);
  const double inv_dx = 1.0 / dx;
  for (size_t n = 0; n < p.size(); ++n) {
    const MaterialSpec& m = materials[p.material[n]];
    if (m.kind != MaterialKind::Sand || !m.wet.holds_water()) continue;
    const auto [i, j, k] = particle_cell(p, n, inv_dx);
    count(i, j, k) += 1.0;
    water(i, j, k) += p.water_content[n];
  }
}

}  // namespace dunesim
