#include "src/driver/stage_traffic.hpp"

#include <cstddef>

namespace dunesim::traffic {
namespace {

constexpr double kPosition = 3 * sizeof(double);
constexpr double kVelocity = 3 * sizeof(float);
constexpr double kMaterial = sizeof(uint8_t);

double affine_bytes(const Particles& p) { return p.carries_affine ? 9 * sizeof(float) : 0; }
double water_bytes(const Particles& p) { return p.carries_water ? sizeof(double) : 0; }

double faces(const MacGrid& g) {
  return double(g.vel[0].size() + g.vel[1].size() + g.vel[2].size());
}
double cells(const MacGrid& g) { return double(g.cell_type.size()); }
// The faces and cells of the block within the particle window, which P2G's block-wide passes
// and gravity cover (the cleared box is that window and the last one: about the same).
double window_faces(const MacGrid& g, int a) {
  return double(overlap(g.vel[a].box(), faces_of_cells(g.particle_window, a)).volume());
}
double window_cells(const MacGrid& g) {
  return double(overlap(g.cell_type.box(), g.particle_window).volume());
}

// One preconditioned CG iteration per fluid cell, as PETSc's KSPCG runs it with the shell
// matrix and preconditioner (src/pressure/): the vector operations (two dot products 16 + 16,
// the norm 8, three updates of two read and one written vector 3 x 24) 112; the matrix-free
// product (p read, A p written, a 17-byte stencil) 33; the V-cycle's finest level: 4 smoothing
// sweeps of a red and a black half-sweep (each reads all of x and half of b, the stencil and
// x written: 49 a sweep) 196, the correction zeroed 8, the residual restricted (x, b and the
// stencil read) 33 and prolonged (x read and written) 16; the coarser levels an eighth of
// the cells each (1 / 7 of the finest's together) with 8 smoothing sweeps, not 4; plus the
// copy out into PETSc's vector 16 (the finest level reads its right-hand side from PETSc's
// residual in place).
constexpr double kVectorOperations = 112;
constexpr double kMatrixProduct = 33;
constexpr double kFinestLevel = 196 + 8 + 33 + 16;
constexpr double kCoarseLevel = 2 * 196 + 8 + 33 + 16;
constexpr double kPreconditioner = kFinestLevel + kCoarseLevel / 7 + 16;
constexpr double kIteration = kVectorOperations + kMatrixProduct + kPreconditioner;

}  // namespace

double particles_to_grid(const Particles& p, const MacGrid& g) {
  const double per_particle =
      kPosition + kVelocity + kMaterial + water_bytes(p) + affine_bytes(p);
  // Written within the particle window: face velocities (double) and weights (float, in
  // vel_saved); per cell the type, density (float) and particle count (double).
  const double window_face_count = window_faces(g, 0) + window_faces(g, 1) + window_faces(g, 2);
  const double grid =
      window_face_count * (sizeof(double) + sizeof(float)) + window_cells(g) * (1 + 4 + 8);
  const double sand = double(g.sand.size()) * (sizeof(uint8_t) + sizeof(float));
  return double(p.size()) * per_particle + grid + sand;
}

double save_grid_velocity(const MacGrid& g) {
  const double window_face_count = window_faces(g, 0) + window_faces(g, 1) + window_faces(g, 2);
  return window_face_count * (sizeof(double) + sizeof(float));
}

double add_body_forces(const MacGrid& g, const double gravity[3]) {
  double bytes = 0;
  for (int a = 0; a < 3; ++a)
    if (gravity[a] != 0) bytes += window_faces(g, a) * 2 * sizeof(double);
  return bytes;
}

double project_pressure(const MacGrid& g, double fluid_cells, int iterations) {
  // The divergence (faces read; type, density read and the right-hand side written per
  // cell) and the gradient's update (faces read and written, the pressure read).
  const double setup = faces(g) * 3 * sizeof(double) + cells(g) * (1 + 4 + 8 + 8);
  // The right-hand side and the guess loaded into PETSc and the solution stored (48), and the
  // first residual and preconditioner application, about one iteration.
  return setup + fluid_cells * (48 + (iterations + 1) * kIteration);
}

double sand_plasticity(int64_t sand_cells, int64_t yielding_cells, int passes) {
  // Classification: each sand cell's 6 face velocities read (48 with its neighbours' shares
  // counted once: 24), the stress written (6 floats) and its masks (2). Each substep: the
  // yielding cells' faces read and written (48) and their stress read (24).
  return double(sand_cells) * (24 + 24 + 2) + double(yielding_cells) * passes * (48 + 24);
}

double rigid_clusters(const MacGrid& g) {
  // Over the sand window: the rigid mask read, the labels written and read (8-byte), the face
  // velocities read and written.
  return double(g.rigid.size()) * (1 + 2 * sizeof(int64_t) + 2 * 3 * sizeof(double));
}

double extrapolate_velocity(const MacGrid& g) {
  return faces(g) * 2 * sizeof(double) + cells(g) * sizeof(uint8_t);
}

double grid_to_particles(const Particles& p, const MacGrid& g) {
  const double per_particle = kPosition + kMaterial + 2 * kVelocity + affine_bytes(p);
  return double(p.size()) * per_particle + faces(g) * (sizeof(double) + sizeof(float));
}

double advect_particles(const Particles& p, const MacGrid& g) {
  return double(p.size()) * 2 * kPosition + faces(g) * sizeof(double);
}

double grid_to_particles_and_advect(const Particles& p, const MacGrid& g) {
  return grid_to_particles(p, g) + advect_particles(p, g) - double(p.size()) * kPosition -
         faces(g) * sizeof(double);
}

double migrate_particles(const Particles& p) { return double(p.size()) * kPosition; }

double sort_particles(const Particles& p) {
  // The cell index and permutation (4 + 4), every attribute but the affine velocity (which
  // the sort leaves in place: Simulation::step) read and written.
  return double(p.size()) * (8 + 2 * (double(p.packed_bytes()) - affine_bytes(p)));
}

}  // namespace dunesim::traffic
