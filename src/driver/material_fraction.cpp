#include "src/driver/material_fraction.hpp"

#include <cmath>

namespace dunesim {

void material_fractions(const Particles& particles, const std::vector<uint8_t>& is_sand,
                        const Topology& topo, Halo& halo, double cell_size,
                        MaterialFractions& fractions) {
  const Box local = topo.local(Stagger::Cell);
  fractions.sand.reset(local, Stagger::Cell, 0.0);
  fractions.water.reset(local, Stagger::Cell, 0.0);
  constexpr double kParticlesPerCell = 8.0;  // seeding: 2 x 2 x 2
  const double weight = 1.0 / kParticlesPerCell;
  for (size_t n = 0; n < particles.size(); ++n) {
    Array3<double>& target = is_sand[particles.material[n]] ? fractions.sand : fractions.water;
    // Cell-centre coordinates: centre i is at (i + 1/2) cell_size. A particle in an owned
    // cell reaches the centres one cell either side, inside the ghost layer.
    const double u[3] = {particles.x[n] / cell_size - 0.5, particles.y[n] / cell_size - 0.5,
                         particles.z[n] / cell_size - 0.5};
    int base[3];
    double w[3][2];
    for (int a = 0; a < 3; ++a) {
      base[a] = int(std::floor(u[a]));
      const double t = u[a] - base[a];
      w[a][0] = 1.0 - t;
      w[a][1] = t;
    }
    for (int dk = 0; dk < 2; ++dk)
      for (int dj = 0; dj < 2; ++dj)
        for (int di = 0; di < 2; ++di)
          target(base[0] + di, base[1] + dj, base[2] + dk) +=
              weight * w[0][di] * w[1][dj] * w[2][dk];
  }
  // What landed in ghosts goes to the owners; then every ghost gets its owner's total.
  halo.sum<double>({&fractions.sand, &fractions.water});
  halo.fill<double>({&fractions.sand, &fractions.water});
}

}  // namespace dunesim
