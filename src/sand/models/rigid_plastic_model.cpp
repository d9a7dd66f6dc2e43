#include "src/sand/models/rigid_plastic_model.hpp"

#include "src/sand/elastic_plastic_sand.hpp"
#include "src/sand/rigid_plastic_sand.hpp"
#include "src/sand/wall_friction.hpp"

namespace dunesim {

SandStageReport RigidPlasticModel::apply(const SandStage& stage, double dt) {
  MacGrid& g = stage.grid;
  gather_particle_stress(stage.topo, stage.halo, stage.particles, stage.materials, g);
  // Sizes the walls' normal speeds near the sand and marks the faces with friction; the
  // solve then re-reads the speeds with its own stress, and holds the walls' friction.
  normal_speed_from_wall_pressure(g, dt, stage.gravity,
                                  neighbourhood(g.sand_region, 2,
                                                stage.topo.local(Stagger::Cell)),
                                  stage.walls, g.wall_normal_speed);
  const RigidPlasticStats r =
      apply_rigid_plastic_sand(stage.topo, stage.halo, g, g.sand, stage.sand, dt, stage.gravity);
  scatter_stress_to_particles(g, stage.materials, stage.particles);
  apply_mud_viscosity(stage.topo, stage.halo, g, g.sand, stage.sand, dt);
  SandStageReport report;
  report.cells = r.cells;
  report.solve = {r.rounds, kRigidPlasticMaxRounds, r.solver_iterations, r.stress_change,
                  r.converged};
  return report;
}

}  // namespace dunesim
