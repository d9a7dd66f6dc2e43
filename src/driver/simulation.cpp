#include "src/driver/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "decomposition/load_balance.hpp"
#include "decomposition/migration.hpp"
#include "decomposition/redistribute.hpp"
#include "decomposition/reductions.hpp"
#include "src/driver/stage_traffic.hpp"
#include "src/wet/absorption.hpp"
#include "src/particles/advection.hpp"
#include "src/wet/darcy_drag.hpp"
#include "src/wet/effective_stress.hpp"
#include "src/wet/richards.hpp"
#include "src/grid/extrapolation.hpp"
#include "src/pressure/free_surface.hpp"
#include "src/particles/particle_sort.hpp"
#include "src/particles/pore_water.hpp"
#include "src/wet/percolation.hpp"
#include "src/pressure/projection.hpp"
#include "src/sand/rigid_clusters.hpp"
#include "src/sand/sand_model.hpp"
#include "src/particles/sand_window.hpp"
#include "src/particles/seeding.hpp"
#include "src/wet/seepage.hpp"
#include "src/transfer/transfer.hpp"

namespace dunesim {

namespace {
std::vector<std::string> stage_names() {
  std::vector<std::string> names;
  for (const StageName& stage : kStageNames) names.push_back(stage.name);
  return names;
}
}  // namespace

int Simulation::ghost_width(double cfl) { return int(std::ceil(cfl)) + 2; }

namespace {

// Work of a cell in particle-equivalents: each particle, plus a share for the grid loops
// that visit every cell whether or not it holds fluid. Measured on the 1M-particle dam
// break: the all-cell loops cost about 1e-7 s a cell, the particle stages 3e-7 s a particle.
constexpr double kGridWorkPerCell = 0.25;

// Work of one particle in the same units: 1 for water; a sand particle also pays for the
// sand stages, as much as the case's [load_balance] sand_particle_work says.
double particle_work(const CaseConfig& config, int material) {
  return config.materials[material].kind == MaterialKind::Sand
             ? config.load_balance.sand_particle_work
             : 1.0;
}

// Cuts that give every rank a similar amount of initial work. Seeding is a pure function
// of the case, so the particles can be counted on an even layout and seeded for real on the
// balanced one.
BlockCuts balanced_initial_cuts(const CaseConfig& config, MPI_Comm comm, int ghost) {
  Topology even(comm, config.cells, ghost);
  Array3<uint8_t> solid(even.local(Stagger::Cell), Stagger::Cell, 0);
  mark_static_solids(config, solid);
  Array3<double> work(even.local(Stagger::Cell), Stagger::Cell, kGridWorkPerCell);
  const double dx = config.cell_size;
  for_each_seed(config, even, solid, [&](const Vec3& p, int source, int64_t) {
    work(int(p[0] / dx), int(p[1] / dx), int(p[2] / dx)) +=
        particle_work(config, config.sources[source].material);
  });
  return choose_balanced_layout(even, work).cuts;
}

}  // namespace

Simulation::Simulation(const CaseConfig& config, MPI_Comm comm, Seeding seeding)
    : Simulation(config, comm, balanced_initial_cuts(config, comm, ghost_width(config.cfl)),
                 seeding) {}

Simulation::Simulation(const CaseConfig& config, MPI_Comm comm, const BlockCuts& cuts,
                       Seeding seeding)
    : config_(config), clock_(stage_names()) {
  topo_ = std::make_unique<Topology>(comm, config_.cells, ghost_width(config_.cfl), cuts);
  halo_ = std::make_unique<Halo>(*topo_);
  push_out_ = std::make_unique<SolidPushOut>(config_, config_.cell_size);
  // The first sand material sets the model that every sand material shares.
  for (const MaterialSpec& m : config_.materials)
    if (m.kind == MaterialKind::Sand && !sand_material_) sand_material_ = &m;
  if (sand_material_) sand_model_ = make_sand_model(*sand_material_);
  lay_out_grid();
  if (seeding == Seeding::kSeed)
    particles_ = seed_particles(config_, *topo_, grid_.solid, sand_carries_stress());
}

void Simulation::lay_out_grid() {
  pressure_solver_ = std::make_unique<PressureSolver>(*topo_, config_.pressure);
  grid_.allocate(*topo_, config_.cell_size);
  mark_static_solids(config_, grid_.solid);
  solid_faces_ = find_solid_boundary_faces(grid_.solid, grid_);
  emitter_ = std::make_unique<ParticleEmitter>(config_, *topo_);
  if (sand_model_) {
    allocate_sand(grid_.sand_window);
    sand_model_->allocate_block_arrays(*topo_, grid_);
  }
  if (has_pore_water())
    grid_.allocate_pore_water(*topo_, has_several_porosities(config_.materials));
  if (has_richards_pore_water()) grid_.allocate_pore_release(*topo_);
  if (sand_material_ && sand_material_->wet.soaked_friction == SoakedFriction::EffectiveStress)
    grid_.allocate_pore_head(*topo_);
  if (config_.pressure.free_surface == FreeSurface::GhostFluid) grid_.allocate_surface(*topo_);
}

// The window stays when a re-cut lays the grid out again, and is Box{} (no sand arrays)
// until the first step fits it to the particles.
void Simulation::allocate_sand(const Box& window) {
  grid_.allocate_sand(*topo_, window);
  sand_model_->allocate_window_arrays(*topo_, grid_);
  mark_wall_friction(config_, grid_.wall_mu);
}

namespace {
double max_over_mean(const Topology& topo, double local) {
  const double mean = global_sum(topo, local) / topo.size();
  return mean > 0 ? global_max(topo, local) / mean : 1.0;
}
}  // namespace

double Simulation::particle_imbalance() const {
  return max_over_mean(*topo_, double(particles_.size()));
}

double Simulation::work_imbalance() const {
  double local = 0;
  for (size_t n = 0; n < particles_.size(); ++n)
    local += particle_work(config_, particles_.material[n]);
  return max_over_mean(*topo_, local);
}

bool Simulation::rebalance() {
  Array3<double> work(topo_->local(Stagger::Cell), Stagger::Cell, kGridWorkPerCell);
  const double dx = config_.cell_size;
  for (size_t n = 0; n < particles_.size(); ++n)
    work(int(particles_.x[n] / dx), int(particles_.y[n] / dx), int(particles_.z[n] / dx)) +=
        particle_work(config_, particles_.material[n]);
  BalancedLayout layout = choose_balanced_layout(*topo_, work);
  if (layout.cuts == topo_->starts()) return false;
  // The arrays the next step reads before writing them move to the new blocks with their
  // cells; the rest of the grid is laid out afresh.
  std::vector<Box> old_blocks;
  for (int r = 0; r < topo_->size(); ++r) old_blocks.push_back(topo_->owned_cells(r));
  CarriedArrays old_arrays;
  for (const MacGrid::CarriedArray& a : grid_.carried_between_steps())
    old_arrays.values.push_back(std::move(*a.array));
  for (const MacGrid::CarriedCounts& a : grid_.carried_counts_between_steps())
    old_arrays.counts.push_back(std::move(*a.array));
  topo_->recut(layout.cuts);
  lay_out_grid();
  move_carried_arrays(old_blocks, old_arrays);
  redistribute_particles(*topo_, dx, particles_);
  ++rebalances_;
  return true;
}

namespace {
// The arrays `old` (as the old blocks held them) into `now` (laid out for the new blocks),
// each owned cell from its old owner, the ghosts filled.
template <class T>
void move_to_new_blocks(const Topology& topo, Halo& halo, const std::vector<Box>& old_blocks,
                        const std::vector<Array3<T>>& old, const std::vector<Array3<T>*>& now) {
  std::vector<const Array3<T>*> from;
  for (const Array3<T>& a : old) from.push_back(&a);
  redistribute_cells(topo, old_blocks, from, now);
  for (Array3<T>* a : now) halo.fill<T>({a});
}
}  // namespace

void Simulation::move_carried_arrays(const std::vector<Box>& old_blocks,
                                     const CarriedArrays& old_arrays) {
  std::vector<Array3<double>*> values;
  for (const MacGrid::CarriedArray& a : grid_.carried_between_steps()) values.push_back(a.array);
  move_to_new_blocks(*topo_, *halo_, old_blocks, old_arrays.values, values);
  std::vector<Array3<uint8_t>*> counts;
  for (const MacGrid::CarriedCounts& a : grid_.carried_counts_between_steps())
    counts.push_back(a.array);
  move_to_new_blocks(*topo_, *halo_, old_blocks, old_arrays.counts, counts);
}

void Simulation::balance_load() {
  auto t = clock_.time(kBalanceLoad);
  ImbalanceCheck check{steps_, work_imbalance(), 0.0};
  check.after = check.before > config_.load_balance.threshold && rebalance() ? work_imbalance()
                                                                             : check.before;
  imbalance_history_.push_back(check);
}

double Simulation::stable_dt() const {
  double local_vmax2 = 0;
  for (size_t n = 0; n < particles_.size(); ++n)
    local_vmax2 = std::max(local_vmax2, particles_.speed_squared(n));
  const double vmax = global_max(*topo_, std::sqrt(local_vmax2));
  const Vec3& gr = config_.gravity;
  const double gmag = std::sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
  // sqrt(g dx) is the speed gravity adds over a step that crosses one cell from rest, so
  // a column at rest still gets a step that resolves its first fall.
  const double speed = vmax + std::sqrt(gmag * config_.cell_size);
  double dt = config_.max_dt;
  if (speed > 0) dt = std::min(dt, config_.cfl * config_.cell_size / speed);
  if (sand_model_) dt = std::min(dt, sand_model_->time_step_limit(config_.cell_size));
  return dt;
}

// One step, in the order of thesis sections 2.3.3 and 3.2.
void Simulation::step(double dt) {
  particles_to_grid();
  // P2G is the affine velocity's last reader before G2P rewrites it for every particle, so a
  // sort here leaves its rows in place (AffineRows::Leave).
  if ((steps_ + 1) % kSortInterval == 0) sort_particles();
  save_grid_velocity();
  add_body_forces(dt);
  enforce_boundaries();
  project_pressure(dt);
  if (sand_material_) {
    // The sand stages' scratch then reuses the Krylov vectors' memory instead of adding to it.
    pressure_solver_->release_krylov_vectors();
    {
      // Soaked sand's friction on the effective stress, where the case asks for it.
      std::optional<EffectivePressureWindow> effective;
      if (grid_.pore_head.size() > 0)
        effective.emplace(grid_, pore_water_weight(*sand_material_, config_.gravity));
      sand_plasticity(dt);
      project_rigid_clusters(dt);
    }
    reproject_pressure(dt);
  }
  pressure_solver_->release_system();
  extrapolate_velocity();
  if (has_pore_water()) {
    grid_to_particles();
    apply_darcy_drag(dt);
    advect_particles(dt);
  } else {
    grid_to_particles_and_advect(dt);
  }
  // G2P was the rigid clusters' labels' last reader. Freed (8 bytes a cell of the sand
  // window), they leave room for the sort and the next step's first stages.
  grid_.rigid_clusters = {};
  migrate_particles();
  if (has_pore_water()) {
    absorb_water();
    percolate_water(dt);
    // Richards' pore water seeps through its own boundary faces.
    if (!has_richards_pore_water()) seep_water(time_, dt);
  }
  emit_particles(time_, dt);
  time_ += dt;
  ++steps_;
  const int balance_every = config_.load_balance.interval_steps;
  if (topo_->size() > 1 && balance_every > 0 && steps_ % balance_every == 0) balance_load();
}

void Simulation::particles_to_grid() {
  auto t = clock_.time(kParticlesToGrid);
  if (sand_material_) {
    const Box window = fit_sand_window(*topo_, particles_, config_.materials, config_.cell_size,
                                       grid_.sand_window);
    if (!(window == grid_.sand_window)) allocate_sand(window);
  }
  dunesim::particles_to_grid(particles_, config_.materials, *halo_, *topo_, grid_);
  if (grid_.has_surface_phi()) compute_surface_phi(particles_, *halo_, *topo_, grid_);
  clock_.add_bytes(kParticlesToGrid, traffic::particles_to_grid(particles_, grid_));
}

void Simulation::save_grid_velocity() {
  auto t = clock_.time(kSaveGridVelocity);
  // Outside the particle window both are 0 already (MacGrid::particle_window).
  for (int a = 0; a < 3; ++a) {
    const Array3<double>& from = grid_.vel[a];
    Array3<float>& to = grid_.vel_saved[a];
    for_each_row(overlap(from.box(), faces_of_cells(grid_.particle_window, a)),
                 [&](int i, int j, int k, int length) {
                   const double* row = &from(i, j, k);
                   float* saved = &to(i, j, k);
                   for (int n = 0; n < length; ++n) saved[n] = float(row[n]);
                 });
  }
  clock_.add_bytes(kSaveGridVelocity, traffic::save_grid_velocity(grid_));
}

void Simulation::add_body_forces(double dt) {
  auto t = clock_.time(kAddBodyForces);
  // Outside the particle window the velocities stay 0 (MacGrid::particle_window).
  for (int a = 0; a < 3; ++a) {
    const double dv = config_.gravity[a] * dt;
    if (dv == 0.0) continue;
    Array3<double>& v = grid_.vel[a];
    for_each_row(overlap(v.box(), faces_of_cells(grid_.particle_window, a)),
                 [&](int i, int j, int k, int length) {
                   double* row = &v(i, j, k);
                   for (int n = 0; n < length; ++n) row[n] += dv;
                 });
  }
  clock_.add_bytes(kAddBodyForces, traffic::add_body_forces(grid_, config_.gravity.data()));
}

void Simulation::enforce_boundaries() {
  auto t = clock_.time(kEnforceBoundaries);
  enforce_solid_velocity(solid_faces_, grid_);
}

void Simulation::project_pressure(double dt) {
  auto t = clock_.time(kProjectPressure);
  const double rtol = sand_material_ ? tolerance_before_reprojection(config_.pressure.rtol)
                                     : config_.pressure.rtol;
  last_solve_ = dunesim::project_pressure(grid_, dt, *topo_, *pressure_solver_, *halo_, rtol);
  clock_.add_bytes(kProjectPressure,
                   traffic::project_pressure(grid_, fluid_cells_share(), last_solve_.iterations));
}

void Simulation::sand_plasticity(double dt) {
  auto t = clock_.time(kSandPlasticity);
  const std::array<bool, 6>& frictionless = config_.frictionless_wall;  // x-, x+, y-, y+, ...
  const SymmetryWalls symmetry_walls{frictionless[0], frictionless[1], frictionless[2],
                                     frictionless[3]};
  const SandStageReport r =
      sand_model_->apply({*topo_, *halo_, grid_, particles_, config_.materials, *sand_material_,
                          config_.gravity, solid_faces_, symmetry_walls},
                         dt);
  // The walls' normal speeds are the stage's scratch.
  grid_.wall_normal_speed.clear();
  double counts[3] = {double(r.cells.sand_cells), double(r.cells.rigid_cells),
                      double(r.cells.yielding_cells)};
  global_sum_in_place(*topo_, counts, 3);
  sand_stats_.sand_cells = int64_t(counts[0]);
  sand_stats_.rigid_cells = int64_t(counts[1]);
  sand_stats_.yielding_cells = int64_t(counts[2]);
  sand_stats_.solve = r.solve;
  clock_.add_bytes(kSandPlasticity,
                   traffic::sand_plasticity(r.cells.sand_cells, r.cells.yielding_cells,
                                            r.yielding_passes));
}

void Simulation::project_rigid_clusters(double dt) {
  auto t = clock_.time(kRigidClusters);
  const WallContact contact{dt, &grid_.wall_mu};
  RigidClusterStats s =
      dunesim::project_rigid_clusters(*topo_, *halo_, grid_, grid_.rigid, &contact);
  sand_stats_.clusters = s.clusters;
  sand_stats_.largest_cluster_cells = s.largest_cluster_cells;
  rigid_motions_ = std::move(s.motions);
  clock_.add_bytes(kRigidClusters, traffic::rigid_clusters(grid_));
}

void Simulation::reproject_pressure(double dt) {
  auto t = clock_.time(kReprojectPressure);
  const PressureSolveStats s =
      dunesim::reproject_pressure(grid_, dt, *topo_, *pressure_solver_, *halo_);
  clock_.add_bytes(kReprojectPressure,
                   traffic::project_pressure(grid_, fluid_cells_share(), s.iterations));
}

void Simulation::extrapolate_velocity() {
  auto t = clock_.time(kExtrapolateVelocity);
  dunesim::extrapolate_velocity(grid_, *halo_, topo_->ghost());
  enforce_solid_velocity(solid_faces_, grid_);
  clock_.add_bytes(kExtrapolateVelocity, traffic::extrapolate_velocity(grid_));
}

void Simulation::grid_to_particles() {
  auto t = clock_.time(kGridToParticles);
  dunesim::grid_to_particles(grid_, config_.materials, particles_, &rigid_motions_);
  clock_.add_bytes(kGridToParticles, traffic::grid_to_particles(particles_, grid_));
}

void Simulation::grid_to_particles_and_advect(double dt) {
  auto t = clock_.time(kGridToParticlesAndAdvect);
  dunesim::grid_to_particles_and_advect(grid_, config_.materials, particles_, &rigid_motions_, dt,
                                        *push_out_);
  clock_.add_bytes(kGridToParticlesAndAdvect,
                   traffic::grid_to_particles_and_advect(particles_, grid_));
}

void Simulation::advect_particles(double dt) {
  auto t = clock_.time(kAdvectParticles);
  dunesim::advect_after_grid_to_particles(grid_, config_.materials, particles_, &rigid_motions_,
                                          dt, *push_out_);
  clock_.add_bytes(kAdvectParticles, traffic::advect_particles(particles_, grid_));
}

void Simulation::migrate_particles() {
  auto t = clock_.time(kMigrateParticles);
  MigrationStats s = dunesim::migrate_particles(*topo_, grid_.dx, particles_);
  migrated_sent_ += s.sent;
  migration_bytes_ += s.bytes_sent;
  // The leavers packed and sent, and as many received and unpacked: twice what was sent.
  clock_.add_bytes(kMigrateParticles,
                   traffic::migrate_particles(particles_) + 2 * double(s.bytes_sent));
}

void Simulation::absorb_water() {
  auto t = clock_.time(kAbsorbWater);
  AbsorptionStats s = absorb_free_water(*topo_, *halo_, config_.materials, *sand_material_,
                                        config_.gravity, grid_, particles_);
  absorbed_particles_ += s.particles_removed;
}

void Simulation::percolate_water(double dt) {
  auto t = clock_.time(kPercolateWater);
  if (has_richards_pore_water()) {
    if (!pore_flow_) pore_flow_ = std::make_unique<PoreWaterFlow>(*topo_);
    // steps_ + 1 numbers the step being taken, as for emission.
    const double pore_dt = pore_flow_time(time_, dt, sand_material_->wet.pore_flow_interval);
    pore_flow_stats_ = pore_flow_->advance(*halo_, config_, *sand_material_, steps_ + 1, pore_dt,
                                           grid_, particles_);
    percolation_substeps_ = pore_flow_stats_.substeps;
    seeped_particles_ += pore_flow_stats_.particles_created;
    return;
  }
  percolation_substeps_ = percolate_pore_water(*topo_, *halo_, config_.materials, *sand_material_,
                                               config_.gravity, dt, grid_, particles_);
}

void Simulation::apply_darcy_drag(double dt) {
  auto t = clock_.time(kDarcyDrag);
  dunesim::apply_darcy_drag(config_.materials, *sand_material_, config_.gravity, dt, grid_,
                            particles_);
}

void Simulation::seep_water(double step_start_time, double dt) {
  auto t = clock_.time(kSeepWater);
  // steps_ + 1 numbers the step being taken, as for emission.
  SeepageStats s = release_seepage(*topo_, *halo_, config_, *sand_material_, steps_ + 1,
                                   step_start_time, dt, grid_, particles_);
  seeped_particles_ += s.particles_created;
}

void Simulation::emit_particles(double step_start_time, double dt) {
  auto t = clock_.time(kEmitParticles);
  // steps_ + 1 numbers the step being taken, so no step reuses the initial seeds' ids.
  emitted_ += emitter_->emit(config_, grid_.solid, steps_ + 1, step_start_time, dt, particles_);
}

void Simulation::sort_particles() {
  auto t = clock_.time(kSortParticles);
  // The sort's order and scratch (8 bytes a particle) set a large run's peak memory: the
  // multigrid's vectors, idle until the projection makes them again, make room for them.
  pressure_solver_->release_multigrid_vectors();
  sort_particles_by_cell(topo_->owned_cells(topo_->rank()), grid_.dx, particles_,
                         AffineRows::Leave);
  clock_.add_bytes(kSortParticles, traffic::sort_particles(particles_));
}

double Simulation::fluid_cells_share() const {
  return double(last_solve_.unknowns) / topo_->size();
}

void Simulation::restore(Particles particles, double time, int64_t steps) {
  const Box owned = topo_->owned_cells(topo_->rank());
  const double dx = config_.cell_size;
  bool outside = false;
  for (size_t n = 0; n < particles.size(); ++n)
    outside = outside || !owned.contains(int(std::floor(particles.x[n] / dx)),
                                         int(std::floor(particles.y[n] / dx)),
                                         int(std::floor(particles.z[n] / dx)));
  // Decided collectively so that every rank throws, or none does.
  if (any_rank(*topo_, outside))
    throw std::runtime_error(
        "restored particles lie outside their rank's block; send them "
        "to their owners first (redistribute_particles)");
  particles_ = std::move(particles);
  // A checkpoint of this case carries the stress exactly when this case needs it; one
  // written otherwise starts unloaded or drops it.
  if (particles_.carries_stress != sand_carries_stress())
    particles_.carry_stress(sand_carries_stress());
  // Likewise the affine velocity: a checkpoint without it starts the APIC particles from a
  // uniform velocity, which the first G2P replaces.
  if (particles_.carries_affine != needs_particle_affine(config_))
    particles_.carry_affine(needs_particle_affine(config_));
  // And the water content, which only cases with porous sand carry.
  carry_water_as_needed(config_, particles_);
  time_ = time;
  steps_ = steps;
}

}  // namespace dunesim
