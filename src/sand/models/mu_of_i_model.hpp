// `rheology = "mu_i"`: Zhu & Bridson's rigid clusters with the mu(I) friction of Jop,
// Forterre & Pouliquen 2006 as the yield test and the flowing stress
// (src/sand/sand_rheology.hpp).
#pragma once
#include <memory>

#include "src/sand/models/frictional_model.hpp"

namespace dunesim {

class MuOfIModel final : public FrictionalSandModel {
 public:
  explicit MuOfIModel(const MaterialSpec& sand)
      : FrictionalSandModel(std::make_unique<MuOfIFriction>(sand), sand) {}
  const char* name() const override { return "mu_i"; }
};

}  // namespace dunesim
