#include "src/sand/models/frictional_model.hpp"

namespace dunesim {

SandStageReport FrictionalSandModel::apply(const SandStage& stage, double dt) {
  SandStageReport report;
  report.cells = apply_sand_plasticity(stage.topo, stage.halo, stage.grid, stage.grid.sand,
                                       stage.sand, *law_, dt, stage.gravity);
  // Rigid sand gets its friction as a body, in the rigid-cluster stage.
  apply_sand_wall_friction(stage, dt, stage.grid.yielding);
  return report;
}

}  // namespace dunesim
