// `rheology = "elastic_plastic"`: each sand cell builds up an elastic stress capped by the
// Coulomb yield stress, carried on the particles between steps
// (src/sand/elastic_plastic_sand.hpp). No rigid clusters; the step is limited by the elastic
// shear wave.
#pragma once
#include "src/sand/sand_model.hpp"

namespace dunesim {

class ElasticPlasticModel final : public SandModel {
 public:
  explicit ElasticPlasticModel(const MaterialSpec& sand)
      : shear_modulus_(sand.rheology.shear_modulus), density_(sand.density) {}
  const char* name() const override { return "elastic_plastic"; }
  bool carries_particle_stress() const override { return true; }
  void allocate_window_arrays(const Topology& topo, MacGrid& grid) const override {
    grid.allocate_elastic_sand(topo);
  }
  double time_step_limit(double dx) const override;
  SandStageReport apply(const SandStage& stage, double dt) override;

 private:
  double shear_modulus_, density_;
};

}  // namespace dunesim
