// The distributed PIC/FLIP solver: one rank's particles and grid block, and the time step.
#pragma once
#include <iterator>
#include <memory>
#include <string>

#include "decomposition/halo.hpp"
#include "decomposition/load_balance.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "io/timing_report.hpp"
#include "src/grid/boundaries.hpp"
#include "src/particles/emission.hpp"
#include "src/grid/mac_grid.hpp"
#include "decomposition/particles.hpp"
#include "src/pressure/pressure_solver.hpp"
#include "src/sand/rigid_clusters.hpp"
#include "src/sand/sand_model.hpp"
#include "src/wet/richards.hpp"
#include "src/driver/stage_clock.hpp"

namespace dunesim {

// Stages of one step, in order; they name the timing report's entries. A new stage is
// added twice, at the same place: here and in kStageNames (checked at compile time).
enum Stage : int {
  kParticlesToGrid,
  kSaveGridVelocity,
  kAddBodyForces,
  kEnforceBoundaries,
  kProjectPressure,
  kSandPlasticity,
  kRigidClusters,
  kReprojectPressure,
  kExtrapolateVelocity,
  kGridToParticles,
  kGridToParticlesAndAdvect,  // the two together, where no Darcy drag comes between
  kDarcyDrag,
  kAdvectParticles,
  kMigrateParticles,
  kAbsorbWater,
  kPercolateWater,
  kSeepWater,
  kEmitParticles,
  kSortParticles,
  kBalanceLoad,
  kWriteFrame,  // output, between steps: the run driver times these three
  kWriteCheckpoint,
  kCatalyst,
  kStageCount
};

struct StageName {
  Stage stage;
  const char* name;
};
inline constexpr StageName kStageNames[] = {
    {kParticlesToGrid, "particles_to_grid"},
    {kSaveGridVelocity, "save_grid_velocity"},
    {kAddBodyForces, "add_body_forces"},
    {kEnforceBoundaries, "enforce_boundaries"},
    {kProjectPressure, "project_pressure"},
    {kSandPlasticity, "sand_plasticity"},
    {kRigidClusters, "rigid_clusters"},
    {kReprojectPressure, "reproject_pressure"},
    {kExtrapolateVelocity, "extrapolate_velocity"},
    {kGridToParticles, "grid_to_particles"},
    {kGridToParticlesAndAdvect, "grid_to_particles_and_advect"},
    {kDarcyDrag, "darcy_drag"},
    {kAdvectParticles, "advect_particles"},
    {kMigrateParticles, "migrate_particles"},
    {kAbsorbWater, "absorb_water"},
    {kPercolateWater, "percolate_water"},
    {kSeepWater, "seep_water"},
    {kEmitParticles, "emit_particles"},
    {kSortParticles, "sort_particles"},
    {kBalanceLoad, "balance_load"},
    {kWriteFrame, "write_frame"},
    {kWriteCheckpoint, "write_checkpoint"},
    {kCatalyst, "catalyst"},
};
// kStageNames[s] names stage s: the report would otherwise put times under wrong names.
constexpr bool stage_names_match_stages() {
  if (std::size(kStageNames) != size_t(kStageCount)) return false;
  for (int s = 0; s < kStageCount; ++s)
    if (kStageNames[s].stage != s) return false;
  return true;
}
static_assert(stage_names_match_stages(), "kStageNames must list every Stage once, in order");

class Simulation {
 public:
  // Whether a new simulation seeds the case's particles, or starts without any because a
  // restart brings its own (seeding them first would hold two sets at once).
  enum class Seeding { kSeed, kNone };
  // Collective over comm: lays out the ranks, marks solids and seeds particles.
  Simulation(const CaseConfig& config, MPI_Comm comm, Seeding seeding = Seeding::kSeed);
  // The same with the given block cuts (e.g. a checkpoint's) instead of balanced ones.
  Simulation(const CaseConfig& config, MPI_Comm comm, const BlockCuts& cuts,
             Seeding seeding = Seeding::kSeed);

  // Max / mean particles per rank now (collective).
  double particle_imbalance() const;
  // Max / mean work per rank now, what the load balancer evens out: particles, each sand
  // particle counting [load_balance] sand_particle_work (collective).
  double work_imbalance() const;
  // Re-cuts the blocks from the particles each cell holds now and moves the particles, and
  // the grid arrays a step reads before writing them, to the new layout (collective).
  // Returns true if the cuts changed.
  bool rebalance();

  // Time step allowed by the CFL number (global max speed) and the case's max_dt.
  double stable_dt() const;
  // Advances every rank by dt (collective).
  void step(double dt);
  // Continues from a saved state (collective): this rank's particles, each in a cell of its
  // block and in the order they were saved in, the simulated time and the step count. Grid
  // arrays that carry state between steps (the pressure: the solver's initial guess) are
  // set through grid(). Throws on every rank if a particle lies outside its rank's block.
  void restore(Particles particles, double time, int64_t steps);

  const CaseConfig& config() const { return config_; }
  const Topology& topology() const { return *topo_; }
  Halo& halo() { return *halo_; }
  MacGrid& grid() { return grid_; }
  Particles& particles() { return particles_; }
  const Particles& particles() const { return particles_; }
  double time() const { return time_; }
  int64_t steps() const { return steps_; }
  const PressureSolveStats& last_pressure_solve() const { return last_solve_; }
  // Bytes this rank's multigrid levels hold between steps.
  size_t multigrid_bytes() const { return pressure_solver_->multigrid_bytes(); }
  // Sand only: what the last step's plasticity and rigid-cluster stages found (all ranks).
  struct SandStats {
    int64_t sand_cells = 0, rigid_cells = 0, yielding_cells = 0;
    int64_t clusters = 0, largest_cluster_cells = 0;
    SandSolveReport solve;  // a model that solves for its stress: the last step's solve
  };
  const SandStats& last_sand_stats() const { return sand_stats_; }
  // This step's fitted motion of each rigid cluster, and the push out of solids (for G2P and
  // advection called on their own, as the tests do).
  const RigidMotions& rigid_motions() const { return rigid_motions_; }
  const SolidPushOut& push_out() const { return *push_out_; }
  StageClock& clock() { return clock_; }
  int64_t migrated_particles_sent() const { return migrated_sent_; }
  int64_t rebalances() const { return rebalances_; }
  // Every load-balance check: the step, and max / mean particles per rank before and after.
  const std::vector<ImbalanceCheck>& imbalance_history() const { return imbalance_history_; }
  int64_t migration_bytes_sent() const { return migration_bytes_; }
  // Particles the pouring sources added over the run so far, this rank.
  int64_t emitted_particles() const { return emitted_; }
  // Wet sand: water particles fully absorbed so far and the last step's percolation
  // substeps, this rank.
  int64_t absorbed_particles() const { return absorbed_particles_; }
  int last_percolation_substeps() const { return percolation_substeps_; }
  int64_t seeped_particles() const { return seeped_particles_; }  // this rank, whole run
  // The case's sand holds water (absorption and percolation run).
  bool has_pore_water() const { return sand_material_ && sand_material_->wet.holds_water(); }
  bool has_richards_pore_water() const {
    return has_pore_water() && sand_material_->wet.pore_flow == PoreFlow::Richards;
  }
  // The last step's Richards stage (zero without one).
  const PoreFlowStats& last_pore_flow() const { return pore_flow_stats_; }

  // Steps between reorderings of the particles by cell (for memory locality).
  static constexpr int kSortInterval = 10;

  // Ghost width: advection may reach ceil(cfl) cells past the block, plus the stencil.
  static int ghost_width(double cfl);

 private:
  void particles_to_grid();
  void save_grid_velocity();
  void add_body_forces(double dt);
  void enforce_boundaries();
  void project_pressure(double dt);
  void sand_plasticity(double dt);
  void project_rigid_clusters(double dt);
  void reproject_pressure(double dt);
  void extrapolate_velocity();
  void grid_to_particles();
  void grid_to_particles_and_advect(double dt);
  void advect_particles(double dt);
  void migrate_particles();
  void absorb_water();
  void percolate_water(double dt);
  void emit_particles(double step_start_time, double dt);
  void apply_darcy_drag(double dt);
  void seep_water(double step_start_time, double dt);
  void sort_particles();
  // An even share of the last pressure solve's unknowns, for stage_traffic.
  double fluid_cells_share() const;
  void balance_load();
  // (Re)allocates everything laid out by the topology: halo, pressure solver, grid block,
  // emitter.
  void lay_out_grid();
  // The arrays of MacGrid::carried_between_steps and carried_counts_between_steps, in their
  // order, as the old blocks held them.
  struct CarriedArrays {
    std::vector<Array3<double>> values;
    std::vector<Array3<uint8_t>> counts;
  };
  // After a re-cut: those arrays, moved to the new blocks.
  void move_carried_arrays(const std::vector<Box>& old_blocks, const CarriedArrays& old_arrays);
  void allocate_sand(const Box& window);
  bool sand_carries_stress() const {
    return sand_model_ && sand_model_->carries_particle_stress();
  }

  CaseConfig config_;
  std::unique_ptr<Topology> topo_;
  std::unique_ptr<Halo> halo_;
  std::unique_ptr<PressureSolver> pressure_solver_;
  std::unique_ptr<SolidPushOut> push_out_;
  std::unique_ptr<ParticleEmitter> emitter_;
  MacGrid grid_;
  SolidBoundaryFaces solid_faces_;  // where the normal velocity is held at zero
  Particles particles_;
  StageClock clock_;
  PressureSolveStats last_solve_;
  const MaterialSpec* sand_material_ = nullptr;  // the case's sand, if it has one
  std::unique_ptr<SandModel> sand_model_;        // its rheology, when it has one
  SandStats sand_stats_;
  RigidMotions rigid_motions_;  // this step's fit of each rigid cluster, for G2P
  double time_ = 0;
  int64_t steps_ = 0;
  int64_t migrated_sent_ = 0, migration_bytes_ = 0;
  int64_t rebalances_ = 0;
  int64_t emitted_ = 0;
  int64_t absorbed_particles_ = 0;
  int percolation_substeps_ = 0;
  std::unique_ptr<PoreWaterFlow> pore_flow_;  // Richards' pore water, made on first use
  PoreFlowStats pore_flow_stats_;
  int64_t seeped_particles_ = 0;
  std::vector<ImbalanceCheck> imbalance_history_;
};

}  // namespace dunesim
