#include "src/simulation.hpp"

#include <algorithm>
#include <cmath>

#include "decomposition/load_balance.hpp"
#include "decomposition/migration.hpp"
#include "decomposition/reductions.hpp"
#include "src/advection.hpp"
#include "src/extrapolation.hpp"
#include "src/particle_sort.hpp"
#include "src/projection.hpp"
#include "src/seeding.hpp"
#include "src/transfer.hpp"

namespace dunesim {

namespace {
std::vector<std::string> stage_names() {
  return {"particles_to_grid", "save_grid_velocity", "add_body_forces",
          "enforce_boundaries", "project_pressure", "extrapolate_velocity",
          "grid_to_particles", "advect_particles", "migrate_particles", "sort_particles",
          "output"};
}
}  // namespace

int Simulation::ghost_width(double cfl) { return int(std::ceil(cfl)) + 2; }

namespace {

// Work of a cell in particle-equivalents: each particle, plus a share for the grid loops
// that visit every cell whether or not it holds fluid.
constexpr double kGridWorkPerCell = 0.5;

// Cuts that give every rank a similar amount of initial work. Seeding is a pure function
// of the case, so the particles can be counted on an even layout and seeded for real on the
// balanced one.
BlockCuts balanced_initial_cuts(const CaseConfig& config, MPI_Comm comm, int ghost) {
  Topology even(comm, config.cells, ghost);
  Array3<uint8_t> solid(even.local(Stagger::Cell), Stagger::Cell, 0);
  mark_static_solids(config, solid);
  Array3<double> work(even.local(Stagger::Cell), Stagger::Cell, kGridWorkPerCell);
  const double dx = config.cell_size;
  for_each_seed(config, even, solid, [&](const Vec3& p, int, int64_t) {
    work(int(p[0] / dx), int(p[1] / dx), int(p[2] / dx)) += 1.0;
  });
  return choose_balanced_layout(even, work).cuts;
}

}  // namespace

Simulation::Simulation(const CaseConfig& config, MPI_Comm comm)
    : config_(config), clock_(stage_names()) {
  const int ghost = ghost_width(config_.cfl);
  topo_ = std::make_unique<Topology>(comm, config_.cells, ghost,
                                     balanced_initial_cuts(config_, comm, ghost));
  halo_ = std::make_unique<Halo>(*topo_);
  pressure_solver_ = std::make_unique<PressureSolver>(*topo_, config_.pressure);
  push_out_ = std::make_unique<SolidPushOut>(config_, config_.cell_size);
  grid_.allocate(*topo_, config_.cell_size);
  mark_static_solids(config_, grid_.solid);
  particles_ = seed_particles(config_, *topo_, grid_.solid);
}

double Simulation::stable_dt() const {
  double vmax2 = 0;
  for (size_t n = 0; n < particles_.size(); ++n)
    vmax2 = std::max(vmax2, particles_.vx[n] * particles_.vx[n] +
                                particles_.vy[n] * particles_.vy[n] +
                                particles_.vz[n] * particles_.vz[n]);
  const double vmax = global_max(*topo_, std::sqrt(vmax2));
  const Vec3& gr = config_.gravity;
  const double gmag = std::sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
  // sqrt(g dx) is the speed gravity adds over a step that crosses one cell from rest, so
  // a column at rest still gets a step that resolves its first fall.
  const double speed = vmax + std::sqrt(gmag * config_.cell_size);
  double dt = config_.max_dt;
  if (speed > 0) dt = std::min(dt, config_.cfl * config_.cell_size / speed);
  return dt;
}

// One step, in the order of thesis sections 2.3.3 and 3.2.
void Simulation::step(double dt) {
  particles_to_grid();
  save_grid_velocity();
  add_body_forces(dt);
  enforce_boundaries();
  project_pressure(dt);
  extrapolate_velocity();
  grid_to_particles();
  advect_particles(dt);
  migrate_particles();
  time_ += dt;
  ++steps_;
  if (steps_ % kSortInterval == 0) sort_particles();
}

void Simulation::particles_to_grid() {
  auto t = clock_.time(kParticlesToGrid);
  dunesim::particles_to_grid(particles_, config_.materials, *halo_, *topo_, grid_);
}

void Simulation::save_grid_velocity() {
  auto t = clock_.time(kSaveGridVelocity);
  for (int a = 0; a < 3; ++a) grid_.vel_saved[a] = grid_.vel[a];
}

void Simulation::add_body_forces(double dt) {
  auto t = clock_.time(kAddBodyForces);
  for (int a = 0; a < 3; ++a) {
    const double dv = config_.gravity[a] * dt;
    if (dv == 0.0) continue;
    double* v = grid_.vel[a].data();
    for (size_t n = 0; n < grid_.vel[a].size(); ++n) v[n] += dv;
  }
}

void Simulation::enforce_boundaries() {
  auto t = clock_.time(kEnforceBoundaries);
  enforce_solid_velocity(grid_);
}

void Simulation::project_pressure(double dt) {
  auto t = clock_.time(kProjectPressure);
  last_solve_ = dunesim::project_pressure(grid_, dt, *topo_, *pressure_solver_, *halo_);
}

void Simulation::extrapolate_velocity() {
  auto t = clock_.time(kExtrapolateVelocity);
  mark_valid_faces(grid_);
  dunesim::extrapolate_velocity(grid_, *halo_, topo_->ghost());
  enforce_solid_velocity(grid_);
}

void Simulation::grid_to_particles() {
  auto t = clock_.time(kGridToParticles);
  dunesim::grid_to_particles(grid_, config_.materials, particles_);
}

void Simulation::advect_particles(double dt) {
  auto t = clock_.time(kAdvectParticles);
  dunesim::advect_particles(grid_, dt, *push_out_, particles_);
}

void Simulation::migrate_particles() {
  auto t = clock_.time(kMigrateParticles);
  MigrationStats s = dunesim::migrate_particles(*topo_, grid_.dx, particles_);
  migrated_sent_ += s.sent;
  migration_bytes_ += s.bytes_sent;
}

void Simulation::sort_particles() {
  auto t = clock_.time(kSortParticles);
  sort_particles_by_cell(topo_->owned_cells(topo_->rank()), grid_.dx, particles_);
}

}  // namespace dunesim
