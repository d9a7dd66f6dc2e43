#include "src/particles/advection.hpp"

#include <algorithm>
#include <cmath>

#include "src/grid/interpolation.hpp"

namespace dunesim {

std::array<double, 3> grid_velocity_at(const MacGrid& g, double x, double y, double z) {
  const GridPoint pt(x, y, z, 1.0 / g.dx);
  std::array<double, 3> u;
  for (int a = 0; a < 3; ++a) u[a] = interpolate(g.vel[a], make_stencil(g.vel[a], a, pt));
  return u;
}

void advect_particles(const MacGrid& g, double dt, const SolidPushOut& push_out, Particles& p) {
  const double dx = g.dx;
  for (size_t n = 0; n < p.size(); ++n) {
    const double speed = p.speed(n);
    int substeps = std::clamp(int(std::ceil(speed * dt / dx)), 1, kMaxAdvectionSubsteps);
    double h = dt / substeps;
    double x = p.x[n], y = p.y[n], z = p.z[n];
    for (int s = 0; s < substeps; ++s) {
      std::array<double, 3> u1 = grid_velocity_at(g, x, y, z);
      std::array<double, 3> u2 =
          grid_velocity_at(g, x + 0.5 * h * u1[0], y + 0.5 * h * u1[1], z + 0.5 * h * u1[2]);
      x += h * u2[0];
      y += h * u2[1];
      z += h * u2[2];
      push_out.apply(x, y, z);
    }
    p.x[n] = x;
    p.y[n] = y;
    p.z[n] = z;
  }
}

}  // namespace dunesim
