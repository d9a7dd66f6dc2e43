// The sand models of Zhu & Bridson's algorithm (section 3): after the projection each sand
// cell either stays rigid, and joins a rigid cluster that moves as one body, or flows under
// the frictional stress of its friction law (src/sand/sand_plasticity.hpp); the flowing cells
// then meet the walls' Coulomb friction. The rheologies differ only in the law.
#pragma once
#include <memory>

#include "src/sand/sand_model.hpp"
#include "src/sand/sand_rheology.hpp"

namespace dunesim {

class FrictionalSandModel : public SandModel {
 public:
  FrictionalSandModel(std::unique_ptr<FrictionLaw> law, const MaterialSpec& sand)
      : law_(std::move(law)), strengths_(sand) {}
  SandStageReport apply(const SandStage& stage, double dt) override;

 private:
  std::unique_ptr<FrictionLaw> law_;
  SandStrengths strengths_;  // each cell's friction and cohesion: kept for its arrays
};

}  // namespace dunesim
