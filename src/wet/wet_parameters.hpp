// Wet sand's parameters: how a sand holds water and what water does to it, read and
// validated by the case reader (io/case_config.cpp) and used by the wet-sand stages
// (src/wet/) and the saturation-dependent properties of the sand (src/sand/wet_sand.hpp).
#pragma once

namespace dunesim {

enum class PoreFlow { Diffusion, Richards };

// What soaking does to the sand's friction: the seed papers' mud (friction fades above S' and
// is gone at S = 1), or Terzaghi's effective stress (the friction angle stays, and acts on
// the pressure less the pore water's, which carries part of the weight below a water table;
// src/wet/effective_stress.hpp).
enum class SoakedFriction { Mud, EffectiveStress };

// How a sand holds water and what water does to it (Lenaerts & Dutre 2009, eq. 6 and the
// text after it; Rungjiratananon et al. 2008 for the propagation). S is the saturation, the
// filled fraction of the pore volume; a particle's water content is theta = n S.
struct WetSandSpec {
  double porosity = 0.0;               // n: pore volume / bulk volume; 0 = holds no water
  double ideal_saturation = 0.4;       // S': cohesion peaks here; friction falls and viscosity
                                       // grows above it
  double cohesion_wet = 0.0;           // c_wet, Pa: cohesion at S'
  double mud_viscosity = 0.0;          // mu, Pa s: viscosity of fully saturated sand
  double propagation_rate = 0.0;       // k_p, m^2/s: capillary diffusivity of the saturation
  double conductivity = 0.0;           // K, m/s: saturated hydraulic conductivity (drainage)
  double initial_saturation = 0.0;     // S of the particles its sources create (unless they say)
  double pore_water_density = 1000.0;  // kg/m^3: the case's water material, if it has one

  // How the pore water flows (src/wet/): "diffusion", the capillary diffusion and drainage of
  // the seed papers, or "richards", Darcy's flux under the hydraulic head with the soil model
  // below (Carsel & Parrish 1988's sand by default).
  PoreFlow pore_flow = PoreFlow::Diffusion;
  double van_genuchten_alpha = 14.5;  // 1/m: about the inverse of the air-entry suction
  double van_genuchten_n = 2.68;      // -: the width of the pore-size distribution
  double residual_saturation = 0.1;   // S_r: water the grains keep (theta_r / theta_s)
  double specific_storage = 1e-4;     // S_s, 1/m: water a soaked pore takes per metre of head
  // s between implicit solves: pore water moves over many of the flow's steps, and free
  // water's contact is taken up each step by absorption (src/wet/richards.hpp).
  double pore_flow_interval = 0.05;
  SoakedFriction soaked_friction = SoakedFriction::Mud;  // needs Richards' heads otherwise

  bool holds_water() const { return porosity > 0.0; }
};

}  // namespace dunesim
