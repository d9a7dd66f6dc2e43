// `rheology = "rigid_plastic"`: the step's Drucker-Prager stress solved implicitly by the
// augmented Lagrangian method, the walls' Coulomb friction inside the solve
// (src/sand/rigid_plastic_sand.hpp). The stress lives on the particles between steps, the walls'
// friction force on the grid (carried between steps and checkpointed).
#pragma once
#include "src/grid/mac_grid.hpp"
#include "src/sand/sand_model.hpp"

namespace dunesim {

class RigidPlasticModel final : public SandModel {
 public:
  explicit RigidPlasticModel(const MaterialSpec&) {}
  const char* name() const override { return "rigid_plastic"; }
  bool carries_particle_stress() const override { return true; }
  void allocate_window_arrays(const Topology& topo, MacGrid& grid) const override {
    grid.allocate_elastic_sand(topo);
  }
  void allocate_block_arrays(const Topology& topo, MacGrid& grid) const override {
    grid.allocate_wall_force(topo);
  }
  size_t block_bytes_per_cell() const override { return MacGrid::kWallForceBytesPerCell; }
  SandStageReport apply(const SandStage& stage, double dt) override;
};

}  // namespace dunesim
