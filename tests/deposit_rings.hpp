// A sand deposit's mass by distance from a vertical axis, ring by ring: the share of the
// particles (all of the same mass) within (r + 1) ring widths of the axis, for each ring r,
// summed over all ranks. Used to compare deposits across rank counts and over time.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"

namespace dunesim::test {

inline std::vector<double> mass_within_rings(const Simulation& sim, double axis_x, double axis_y,
                                             double ring_width, int rings) {
  const Particles& p = sim.particles();
  std::vector<double> share(rings, 0.0);
  for (size_t n = 0; n < p.size(); ++n) {
    const int ring = int(std::hypot(p.x[n] - axis_x, p.y[n] - axis_y) / ring_width);
    for (int r = std::max(ring, 0); r < rings; ++r) share[r] += 1.0;
  }
  global_sum_in_place(sim.topology(), share.data(), rings);
  const double total = double(global_sum(sim.topology(), int64_t(p.size())));
  for (double& s : share) s /= total;
  return share;
}

// The largest difference between two profiles over their first `rings` entries.
inline double largest_ring_difference(const std::vector<double>& a, const std::vector<double>& b,
                                      int rings) {
  double d = 0;
  for (int r = 0; r < rings; ++r) d = std::max(d, std::abs(a[r] - b[r]));
  return d;
}

}  // namespace dunesim::test
