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

void advect_particle(const MacGrid& g, double dt, const SolidPushOut& push_out, size_t n,
                     const std::array<double, 3>* grid_velocity_here, Particles& p) {
  const double speed = p.speed(n);
  const int substeps = std::clamp(int(std::ceil(speed * dt / g.dx)), 1, kMaxAdvectionSubsteps);
  const double h = dt / substeps;
  double x = p.x[n], y = p.y[n], z = p.z[n];
  for (int s = 0; s < substeps; ++s) {
    const std::array<double, 3> u1 =
        s == 0 && grid_velocity_here ? *grid_velocity_here : grid_velocity_at(g, x, y, z);
    const std::array<double, 3> u2 =
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

void advect_particles(const MacGrid& g, double dt, const SolidPushOut& push_out, Particles& p) {
  for (size_t n = 0; n < p.size(); ++n) advect_particle(g, dt, push_out, n, nullptr, p);
}

}  // namespace dunesim
