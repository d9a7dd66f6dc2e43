#include "src/sand/models/frictional_model.hpp"

namespace dunesim {

SandStageReport FrictionalSandModel::apply(const SandStage& stage, double dt) {
  SandStageReport report;
  // With several sand materials each cell mixes the strengths of the sand it holds.
  if (has_several_sand_materials(stage.materials))
    strengths_.mix(stage.topo, stage.halo, stage.grid, stage.particles, stage.materials);
  report.cells = apply_sand_plasticity(stage.topo, stage.halo, stage.grid, stage.grid.sand,
                                       stage.sand, *law_, strengths_, dt, stage.gravity,
                                       stage.symmetry_walls, &wedge_memo_);
  report.yielding_passes = friction_substeps(stage.sand);
  // Rigid sand gets its friction as a body, in the rigid-cluster stage.
  apply_sand_wall_friction(stage, dt, stage.grid.yielding);
  return report;
}

}  // namespace dunesim
