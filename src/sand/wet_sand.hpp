// What water in the pores does to sand: Lenaerts & Dutre 2009, eq. 6 and the text after it.
// Dry sand flows, moist sand stands (cohesion peaks at the ideal saturation S'), soaked sand
// is mud (cohesion and friction fade, a viscosity grows).
#pragma once
#include <algorithm>

#include "io/case_config.hpp"

namespace dunesim {

struct WetSandProperties {
  double cohesion = 0;        // Pa
  double friction_scale = 1;  // multiplies the friction coefficient sin(phi)
  double viscosity = 0;       // Pa s
};

// The properties at saturation S (clamped to [0, 1]) of sand of dry cohesion c_dry and
// cohesion c_wet at the ideal saturation S', under the water model `w`:
//   S <= S': c = c_dry (1 - S/S') + c_wet S/S', friction unchanged, no viscosity;
//   S >  S': c = c_wet (1 - S)/(1 - S'), friction scaled by (1 - S)/(1 - S') (unchanged
//            with soaked_friction = "effective_stress": the pore water's pressure takes its
//            share of the stress instead), viscosity mu (S - S')/(1 - S').
inline WetSandProperties wet_sand_properties(double c_dry, double c_wet, const WetSandSpec& w,
                                             double saturation) {
  const double s = std::clamp(saturation, 0.0, 1.0), ideal = w.ideal_saturation;
  WetSandProperties p;
  if (s <= ideal) {
    p.cohesion = c_dry * (1 - s / ideal) + c_wet * s / ideal;
    return p;
  }
  const double drier = (1 - s) / (1 - ideal);  // 1 at S', 0 when soaked
  p.cohesion = c_wet * drier;
  if (w.soaked_friction == SoakedFriction::Mud) p.friction_scale = drier;
  p.viscosity = w.mud_viscosity * (1 - drier);
  return p;
}

// The same for the material `sand`'s own cohesions.
inline WetSandProperties wet_sand_properties(const MaterialSpec& sand, double saturation) {
  return wet_sand_properties(sand.cohesion, sand.wet.cohesion_wet, sand.wet, saturation);
}

}  // namespace dunesim
