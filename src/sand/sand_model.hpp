// What a sand rheology is to the rest of the simulator: one interface, one implementation per
// rheology (src/sand/models/), one factory from the case's material. The time step asks a
// model for its time-step limit and its arrays, runs its stage after the projection, and
// reads back what it found; nothing outside make_sand_model asks which model it is.
//
// Adding a model: a class deriving from SandModel in its own files (src/sand/models/), one
// line in make_sand_model, its name among the case reader's rheologies (io/case_config.cpp)
// and, for keys of its own, their rows in the case schema (io/case_schema.cpp).
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "decomposition/vec3.hpp"
#include "io/case_config.hpp"
#include "src/grid/boundaries.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/sand_plasticity.hpp"

namespace dunesim {

// What the sand stage works on: this rank's block after the projection (velocities,
// pressure, density and cell types halo-filled; grid.sand marks the sand cells) and its
// particles.
struct SandStage {
  const Topology& topo;
  Halo& halo;
  MacGrid& grid;
  Particles& particles;
  const std::vector<MaterialSpec>& materials;
  const MaterialSpec& sand;  // the case's sand material
  const Vec3& gravity;
  const SolidBoundaryFaces& walls;  // faces between solid and non-solid cells
  SymmetryWalls symmetry_walls;     // the case's frictionless_walls at x-, x+, y-, y+
};

// An implicit stress solve's work in one step; rounds == 0: the model solves nothing.
struct SandSolveReport {
  int rounds = 0;            // rounds taken
  int round_limit = 0;       // the most it takes before it stops short of its tolerance
  int iterations = 0;        // linear-solver iterations over the rounds
  double stress_change = 0;  // the last round's change, over the yield stress
  bool converged = true;     // false: stopped at round_limit above the tolerance
};

// What one step's sand stage found on this rank.
struct SandStageReport {
  SandPlasticityStats cells;  // this rank's sand, rigid and yielding cells
  SandSolveReport solve;      // the same on every rank
  // Passes the stage made over the yielding cells' faces (the frictional models' friction
  // substeps; the others report 1), for the stage's memory traffic (stage_traffic.hpp).
  int yielding_passes = 1;
};

class SandModel {
 public:
  virtual ~SandModel() = default;
  // The case's `rheology` value that selects the model.
  virtual const char* name() const = 0;
  // Whether sand particles carry a stress between steps (Particles::stress: migrated,
  // written to checkpoints).
  virtual bool carries_particle_stress() const { return false; }
  // Grid arrays of the model's own beyond the sand arrays every model has: over the sand
  // window (called each time the window moves), and over the whole block (called each time
  // the blocks are laid out).
  virtual void allocate_window_arrays(const Topology&, MacGrid&) const {}
  virtual void allocate_block_arrays(const Topology&, MacGrid&) const {}
  // Bytes per cell allocate_block_arrays adds (the memory check before a run).
  virtual size_t block_bytes_per_cell() const { return 0; }
  // The longest step the model stays stable at, s, for cells of size dx; infinity when the
  // flow's CFL number alone limits the step.
  virtual double time_step_limit(double /*dx*/) const {
    return std::numeric_limits<double>::infinity();
  }
  // The stage after the projection (collective): leaves each sand cell's stress in
  // grid.stress, grid.rigid marking the cells that move as rigid clusters (the next stage)
  // and grid.yielding those that flow, and the velocities changed by the stress and the
  // walls' friction, halo-filled.
  virtual SandStageReport apply(const SandStage& stage, double dt) = 0;
};

// The model of a sand material's `rheology`.
std::unique_ptr<SandModel> make_sand_model(const MaterialSpec& sand);

// Coulomb friction at the walls (eq. 4) for the sand of `sliding_cells`, with the normal
// stress the projection found, so that the weight of the sand above a wall cell presses it
// (wall_friction.hpp). Faces of rigid cells are left to the rigid-cluster stage, which
// brakes each cluster as a body. For the models whose stage leaves the walls' friction to it.
void apply_sand_wall_friction(const SandStage& stage, double dt,
                              const Array3<uint8_t>& sliding_cells);

}  // namespace dunesim
