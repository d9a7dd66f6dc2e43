// The bytes a stage of the step must move between memory and the processor at the least (its
// compulsory traffic): every array it reads read once, every array it writes written once, by
// the arrays' element sizes and this rank's counts. Over the stage's seconds this is the
// bandwidth the stage achieved, to set against the machine's (a stage far below it is bound by
// latency, arithmetic or communication, not by the bytes it must move). A lower bound by
// construction: caches that miss, gathers that fetch a whole line for 8 bytes and repeated
// sweeps of the same array all move more. docs/findings/stage_bandwidth.md has the figures.
#pragma once
#include <cstdint>

#include "decomposition/particles.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

namespace traffic {

// Per particle: P2G reads the position, velocity, material, water and affine velocity.
double particles_to_grid(const Particles& p, const MacGrid& g);
// The face velocities read (double) and saved (float).
double save_grid_velocity(const MacGrid& g);
// The face velocities of each axis with gravity along it, read and written.
double add_body_forces(const MacGrid& g, const double gravity[3]);
// The divergence and the gradient update over the block, and `iterations` Krylov iterations
// over this rank's `fluid_cells` (vectors, the matrix-free stencil and the V-cycle's finest
// level; see .cpp).
double project_pressure(const MacGrid& g, double fluid_cells, int iterations);
// This rank's sand cells classified, and its yielding cells' faces in each of `passes`.
double sand_plasticity(int64_t sand_cells, int64_t yielding_cells, int passes);
// The rigid cells' labels and velocities over the sand window.
double rigid_clusters(const MacGrid& g);
// The face velocities read and written, with the cell types, over the block.
double extrapolate_velocity(const MacGrid& g);
// Per particle: G2P reads the position and the old velocity and writes the new one and the
// affine velocity; the grid's velocities and saved velocities are read.
double grid_to_particles(const Particles& p, const MacGrid& g);
// Per particle: the position read and written; the grid's velocities read.
double advect_particles(const Particles& p, const MacGrid& g);
// The two above in one pass: the positions and the face velocities read once.
double grid_to_particles_and_advect(const Particles& p, const MacGrid& g);
// Per particle: the position read to find leavers (the packed leavers come on top).
double migrate_particles(const Particles& p);
// Every attribute read and written in the new order, and the permutation.
double sort_particles(const Particles& p);

}  // namespace traffic
}  // namespace dunesim
