// The channels a run can offer its Catalyst pipeline scripts, by the names the scripts
// register their producers under (`TrivialProducer(registrationName=...)`). The case
// reader, the adaptor and the module that fills them share these names.
#pragma once
#include <array>

namespace dunesim {

inline constexpr const char* kParticleChannel = "input";  // the particles
inline constexpr const char* kGridChannel = "grid";       // the pressure on the owned cells
// The sand's and the water's share of each cell, at cell centres.
inline constexpr const char* kMaterialFractionChannel = "material_fraction";
inline constexpr std::array<const char*, 3> kCatalystChannels = {kParticleChannel, kGridChannel,
                                                                 kMaterialFractionChannel};

}  // namespace dunesim
