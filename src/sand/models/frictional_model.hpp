// The sand models of Zhu & Bridson's algorithm (section 3): after the projection each sand
// cell either stays rigid, and joins a rigid cluster that moves as one body, or flows under
// the frictional stress of its friction law (src/sand/sand_plasticity.hpp); the flowing cells
// then meet the walls' Coulomb friction. The rheologies differ only in the law.
#pragma once
#include <memory>

#include "src/sand/cohesive_wedges.hpp"
#include "src/sand/sand_model.hpp"
#include "src/sand/sand_rheology.hpp"

namespace dunesim {

class FrictionalSandModel : public SandModel {
 public:
  FrictionalSandModel(std::unique_ptr<FrictionLaw> law, const MaterialSpec& sand)
      : law_(std::move(law)),
        strengths_(sand),
        resting_grains_hold_(sand.rheology.resting_grains_hold) {}
  SandStageReport apply(const SandStage& stage, double dt) override;
  // How long each cell's sand has rested, where resting grains hold (resting_grains.hpp).
  void allocate_block_arrays(const Topology& topo, MacGrid& grid) const override {
    if (resting_grains_hold_) grid.allocate_sand_rest_steps(topo);
  }
  size_t block_bytes_per_cell() const override {
    return resting_grains_hold_ ? MacGrid::kRestingGrainsBytesPerCell : 0;
  }

 private:
  std::unique_ptr<FrictionLaw> law_;
  SandStrengths strengths_;     // each cell's friction and cohesion: kept for its arrays
  WedgeSearchMemo wedge_memo_;  // the cohesive wedges' last search
  bool resting_grains_hold_;
};

}  // namespace dunesim
