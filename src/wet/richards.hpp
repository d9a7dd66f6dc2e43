// Pore water as groundwater: Richards' equation on the grid cells of porous sand,
//
//   d theta / dt = div( K(h) grad(h + z) ),
//
// h the pressure head (m, negative under suction), z the height against gravity, theta(h)
// and K(h) from the sand's soil model (soil_water.hpp). Unlike the seed papers' diffusion
// (percolation.hpp) the flux follows the hydraulic head, so soaked sand passes water
// sideways and upwards, a pond's depth pushes water in, and water rises from a water table.
//
// Finite volumes, implicit in time (the step is never cut by the conductivity), solved by
// Celia et al.'s (1990) modified Picard iteration: each iteration solves a symmetric system
// for h with PETSc's CG (options prefix `-pore_`), and the step ends when the water content
// of the heads and that of the fluxes agree within kPicardTolerance in every cell. The water
// a cell ends the step with is the flux form's, so water moves face by face and is conserved
// to round-off on any rank count; a step whose iteration does not settle is split in halves.
//
// A cell with c porous sand particles weighs c / 8 of a full cell, a face between two such
// cells min(c) / 8 of a full face (as in percolation.hpp). The face's conductivity is the
// Kirchhoff mean of K between the two cells' heads of the last iterate
// (SoilWater::mean_conductivity), one value for both sides, so the system stays symmetric;
// upstream weighting (tried first) let ponded infiltration run 21% ahead of Green-Ampt
// after a minute at 1 cm cells. Boundaries, at half a cell from the sand cell's centre:
// - a cell with free water and no porous sand: the head of that water, p / (rho_w g) + z,
//   from the flow's pressure (a pond of depth d pushes with d), K the Kirchhoff mean
//   between the cell's head and the face's;
// - an open cell without water (air): a seepage face, h = 0 on the face, open only while
//   the sand cell is soaked (h >= 0) and its head is above the face's height;
// - solid cells and the domain's walls: no flux.
// Only cells that hold water or touch free water, and two layers around them, are solved
// for: dry sand passes no water (mark_active).
// With soaked_friction = "effective_stress" the last solve's heads are kept in grid.pore_head.
// Water that leaves the sand is owed to free water in the open cell (grid.pore_release, a
// carried array) and becomes a water particle there once a cell is owed half a particle's
// volume; water that enters comes from the release owed to the cell, then from its water
// particles, and a cell without enough water passes only what it has (the sand cell keeps
// the difference out of its new water).
//
// The solve runs every pore_flow_interval of simulated time, not every step
// (pore_flow_time): a wetting front crosses a cell in many of the flow's steps, and free
// water that reaches the sand is taken into its pores in the step it arrives (absorption).
#pragma once
#include <petscksp.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/wet/soil_water.hpp"

namespace dunesim {

struct PoreFlowStats {
  int substeps = 0;               // the step's pieces (1 unless the Picard iteration split it)
  int picard_iterations = 0;      // over the substeps
  int krylov_iterations = 0;      // over the Picard iterations
  double into_sand = 0;           // water content taken from free water, this rank's sand
  double out_of_sand = 0;         // water content given to free water, this rank's sand
  int64_t particles_created = 0;  // water particles made from released water, this rank
};

// The Picard iteration's bound on |theta(h) - theta(fluxes)| in every cell (volume fraction).
inline constexpr double kPicardTolerance = 1e-5;
// Water owed to an open cell becomes a particle once this much (particle volumes) is owed.
inline constexpr double kReleaseQuantum = 0.5;

// The time the pore water advances in the step from t to t + dt: it keeps the time
// floor(t / interval) * interval, so it lags by less than one interval, solves in the steps
// that cross a multiple of the interval, and resumes alike after a restart (it depends on
// the time alone).
inline double pore_flow_time(double t, double dt, double interval) {
  return std::floor((t + dt) / interval) * interval - std::floor(t / interval) * interval;
}

// rho_w |g|, Pa per metre of head. Without gravity a pond's pressure still pushes: heads are
// then in metres of water under 1 g.
double pore_water_weight(const MaterialSpec& sand, const Vec3& gravity);

class PoreWaterFlow {
 public:
  explicit PoreWaterFlow(const Topology& topo);
  ~PoreWaterFlow();
  PoreWaterFlow(const PoreWaterFlow&) = delete;
  PoreWaterFlow& operator=(const PoreWaterFlow&) = delete;

  // Advances the pore water of every porous sand particle by dt and exchanges water with
  // the free water around the sand (collective; particles in owned cells; `step` numbers
  // the step for the ids of new particles). Uses grid.pore_* as scratch; grid.pressure is
  // the flow's pressure of this step. Throws std::runtime_error on every rank when the
  // iteration does not settle even in kMaxSplits halvings of dt.
  PoreFlowStats advance(Halo& halo, const CaseConfig& config, const MaterialSpec& sand,
                        int64_t step, double dt, MacGrid& grid, Particles& particles);

  static constexpr int kMaxPicardIterations = 30;
  static constexpr int kMaxSplits = 12;

 private:
  struct Substep;
  // One face of an active cell as the system sees it.
  struct Link {
    enum Kind { Closed, Pore, Boundary } kind = Closed;
    double conductance = 0;    // K (area in particles) / dx^2, 1/s per metre of head
    int64_t other = 0;         // the neighbour's offset in the cell arrays
    double boundary_head = 0;  // Boundary: the total head (m) held on the face
  };
  struct Exchange {  // water into sand cell `sand` from open cell `open` (< 0: out)
    int64_t sand, open;
    double water;
  };
  // The slot of created_particle_id for water released from an open cell.
  static constexpr int kReleaseSlot = 6;

  void mark_active(Halo& halo, const Substep& s, int reach);
  bool front_leaves_active_cells(const Substep& s) const;
  void number_unknowns(Halo& halo);
  [[noreturn]] void throw_unsettled(const MaterialSpec& sand, double dt);
  void share_free_water(Halo& halo, const Index3& cells, const MacGrid& g);
  void set_heads(const Substep& s);
  void assemble(const Substep& s, double dt);
  bool solve_substep(Halo& halo, const Substep& s, double dt, PoreFlowStats& stats);
  void record_exchanges(const Substep& s, double dt, std::vector<Exchange>& exchanges) const;
  void settle_exchanges(Halo& halo, const CaseConfig& config, int64_t step,
                        const std::vector<Exchange>& exchanges, MacGrid& g, Particles& p,
                        PoreFlowStats& stats);
  void keep_pressure_heads(Halo& halo, MacGrid& g) const;
  void release_owed_water(const CaseConfig& config, int64_t step, MacGrid& g, Particles& p,
                          PoreFlowStats& stats);
  void check(PetscErrorCode ierr, const char* what) const;
  void create_krylov_solver();
  void release_system();
  void release_petsc();

  const Topology& topo_;
  std::optional<SoilWater> soil_;  // tabulated on the first step
  // Per cell of the block: the head (the iterate and the next), the water (sum over
  // particles) at the substep's start and at its end, the free water, and the unknown's
  // global number (-1: not solved for); active_: 1 where solved for (mark_active).
  Array3<double> head_, head_next_, water_start_, water_end_, free_water_, active_;
  Array3<double> inflow_cap_;  // share_free_water
  Array3<PetscInt> unknown_;
  // The last assembly's open links, active cell by active cell in for_each_index order, and
  // how many each cell has: the fluxes and exchanges of an iteration use them again.
  std::vector<Link> links_;
  std::vector<uint8_t> links_per_cell_;
  int64_t local_unknowns_ = 0;
  Mat matrix_ = nullptr;
  KSP ksp_ = nullptr;
  Vec rhs_ = nullptr, solution_ = nullptr;
};

}  // namespace dunesim
