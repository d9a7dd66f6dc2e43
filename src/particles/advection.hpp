// Moves particles through the grid velocity field (thesis section 3.2).
#pragma once
#include <array>
#include <cstddef>

#include "src/grid/boundaries.hpp"
#include "src/grid/mac_grid.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

constexpr int kMaxAdvectionSubsteps = 5;

// Midpoint RK2 in up to five substeps, each moving the particle at most about one cell;
// after each substep a particle inside a solid is pushed back out.
void advect_particles(const MacGrid& grid, double dt, const SolidPushOut& push_out,
                      Particles& particles);

// The same for particle n alone. `grid_velocity_here`, when given, must be grid_velocity_at
// the particle's position (G2P has just interpolated it): the first midpoint stage takes it
// instead of interpolating it again.
void advect_particle(const MacGrid& grid, double dt, const SolidPushOut& push_out, size_t n,
                     const std::array<double, 3>* grid_velocity_here, Particles& particles);

// Grid velocity at a point, trilinear on each MAC component.
std::array<double, 3> grid_velocity_at(const MacGrid& grid, double x, double y, double z);

}  // namespace dunesim
