// Moves particles through the grid velocity field (thesis section 3.2).
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "src/grid/boundaries.hpp"
#include "src/grid/interpolation.hpp"
#include "src/grid/mac_grid.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

constexpr int kMaxAdvectionSubsteps = 5;

// Midpoint RK2 in up to five substeps, each moving the particle at most about one cell;
// after each substep a particle inside a solid is pushed back out.
void advect_particles(const MacGrid& grid, double dt, const SolidPushOut& push_out,
                      Particles& particles);

// Grid velocity at a point, trilinear on each MAC component.
inline std::array<double, 3> grid_velocity_at(const MacGrid& g, double x, double y, double z) {
  const GridPoint pt(x, y, z, 1.0 / g.dx);
  std::array<double, 3> u;
  for (int a = 0; a < 3; ++a) u[a] = interpolate(g.vel[a], make_stencil(g.vel[a], a, pt));
  return u;
}

// How many midpoint substeps a particle takes over dt and how long each is: enough that
// each moves it at most about one cell, ceil(speed dt / dx), 1 to kMaxAdvectionSubsteps.
// Made once per stage: most particles move less than a cell a step, and for them the
// square root and the divisions are skipped (they were a chain of latencies that took about
// a third of the one-pass G2P and advection's time).
class AdvectionSubsteps {
 public:
  AdvectionSubsteps(double dt, double dx) : dt_(dt), dx_(dx) {
    for (int s = 1; s <= kMaxAdvectionSubsteps; ++s) length_[s] = dt / s;
    // Below this squared speed, speed dt / dx < 1 - 5e-10 whatever the rounding, so the
    // count is 1, as the exact formula gives.
    const double one_cell_speed = dx / dt;
    one_substep_below_ = one_cell_speed * one_cell_speed * (1 - 1e-9);
  }
  int count(double speed_squared) const {
    if (speed_squared < one_substep_below_) return 1;
    const double speed = std::sqrt(speed_squared);
    return std::clamp(int(std::ceil(speed * dt_ / dx_)), 1, kMaxAdvectionSubsteps);
  }
  double length(int count) const { return length_[count]; }  // dt / count

 private:
  double dt_, dx_, one_substep_below_;
  std::array<double, kMaxAdvectionSubsteps + 1> length_{};
};

// The same for particle n alone. `grid_velocity_here`, when given, must be grid_velocity_at
// the particle's position (G2P has just interpolated it): the first midpoint stage takes it
// instead of interpolating it again.
// Inline: G2P calls it particle by particle (grid_to_particles_and_advect).
inline void advect_particle(const MacGrid& g, const AdvectionSubsteps& steps,
                            const SolidPushOut& push_out, size_t n,
                            const std::array<double, 3>* grid_velocity_here, Particles& p) {
  const int substeps = steps.count(p.speed_squared(n));
  const double h = steps.length(substeps);
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

}  // namespace dunesim
