// How a sand holds and passes its pore water under suction: van Genuchten's (1980) retention
// curve and Mualem's (1976) relative conductivity, the soil model of Richards' equation
// (src/wet/richards.hpp). h is the pressure head in metres (negative: suction).
//
//   S_e(h) = [1 + (alpha |h|)^n]^(-m), m = 1 - 1/n      (h < 0; 1 at h >= 0)
//   S(h)   = S_r + (1 - S_r) S_e                          (saturation of the pores)
//   theta  = porosity S + S_s h  for h > 0                (specific storage S_s, 1/m)
//   K(S_e) = K_s sqrt(S_e) [1 - (1 - S_e^(1/m))^m]^2
//
// Near the residual saturation S_r the curve's suction grows without bound while its water
// barely moves (K < 1e-5 K_s below S_e = 0.05): from S_e = kDriestEffectiveSaturation down it
// is continued by its tangent to theta = 0, so that sand drier than S_r (the model's dry
// sand, S = 0) has a finite head (-1.2 m for the default sand) and the water it holds, and a
// wetting front meets a suction the Picard iteration can follow (with S_e = 1e-4, -16 m and
// a kink, it cycled between two iterates).
#pragma once
#include <vector>

#include "src/wet/wet_parameters.hpp"

namespace dunesim {

class SoilWater {
 public:
  explicit SoilWater(const WetSandSpec& sand);

  // theta, water volume per bulk volume (n S, above n only by storage; below 0 only on the
  // tangent, for the round-off of a flux that emptied a cell).
  double water_content(double head) const;
  // d theta / d h, > 0 everywhere (the Picard iteration's capacity).
  double capacity(double head) const;
  // The head that holds `theta` (the inverse of water_content).
  double head(double theta) const;
  // K(h), m/s.
  double conductivity(double head) const;
  // The mean conductivity between two heads, int K dh / (h_b - h_a) (Kirchhoff's transform):
  // the flux it gives between two cells is exact for steady flow without gravity, so a
  // wetting front entering dry sand meets the suction int K dh / K_s (Green-Ampt's psi)
  // rather than the dry sand's whole head difference times K_s (upstream weighting) or
  // times K of the dry sand (the arithmetic mean's opposite error).
  double mean_conductivity(double head_a, double head_b) const;

  double saturated_conductivity() const { return k_s_; }
  double porosity() const { return porosity_; }

  static constexpr double kDriestEffectiveSaturation = 0.05;

 private:
  // The curve at kTablePoints heads evenly from driest_head_ to 0 (one pow-free lookup
  // where the analytic curve costs seven pow calls; 1e-4 m apart for the default sand,
  // theta within 1e-6 of the curve), Kirchhoff's potential by Simpson's rule.
  static constexpr int kTablePoints = 4097;
  struct Node {
    double theta, capacity, conductivity, kirchhoff;
  };
  struct Lookup {
    const Node &below, &above;
    double fraction;
    double at(double Node::*value) const {
      return below.*value + fraction * (above.*value - below.*value);
    }
  };
  Lookup lookup(double head) const;
  double kirchhoff(double head) const;  // int K dh from the dry sand's head (theta = 0)
  double curve_effective_saturation(double head) const;
  double curve_water_content(double head) const;
  double curve_capacity(double head) const;
  double curve_conductivity(double head) const;

  double porosity_, residual_, alpha_, n_, m_, storage_, k_s_;
  double driest_head_;          // h at kDriestEffectiveSaturation
  double driest_theta_;         // theta there
  double driest_capacity_;      // the curve's slope there, the tangent's below
  double driest_conductivity_;  // K there
  double dry_head_;             // where the tangent reaches theta = 0
  double step_;                 // between the table's heads
  std::vector<Node> table_;
};

}  // namespace dunesim
