// `rheology = "zhu_bridson"`, the default: Zhu & Bridson 2005's yield test (eq. 1 and 5,
// against sigma_rigid of eq. 3) and frictional stress (eq. 2), on the Drucker-Prager cone or,
// with yield_surface = "mohr_coulomb", Mohr-Coulomb's pyramid (src/sand/sand_rheology.hpp).
#pragma once
#include <memory>

#include "src/sand/models/frictional_model.hpp"

namespace dunesim {

class ZhuBridsonModel final : public FrictionalSandModel {
 public:
  explicit ZhuBridsonModel(const MaterialSpec& sand)
      : FrictionalSandModel(std::make_unique<ZhuBridsonFriction>(sand), sand) {}
  const char* name() const override { return "zhu_bridson"; }
};

}  // namespace dunesim
