#include "src/sand/models/elastic_plastic_model.hpp"

#include "src/sand/elastic_plastic_sand.hpp"

namespace dunesim {

double ElasticPlasticModel::time_step_limit(double dx) const {
  return elastic_time_step_limit(shear_modulus_, density_, dx);
}

SandStageReport ElasticPlasticModel::apply(const SandStage& stage, double dt) {
  MacGrid& g = stage.grid;
  gather_particle_stress(stage.topo, stage.halo, stage.particles, stage.materials, g);
  SandStageReport report;
  report.cells = apply_elastic_plastic_sand(stage.topo, stage.halo, g, g.sand, stage.sand, dt);
  scatter_stress_to_particles(g, stage.materials, stage.particles);
  apply_mud_viscosity(stage.topo, stage.halo, g, g.sand, stage.sand, dt);
  // The elastic stress holds the sand without rigid cells, so all of it meets the walls here.
  apply_sand_wall_friction(stage, dt, g.sand);
  return report;
}

}  // namespace dunesim
