#include "src/sand/resting_grains.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/particles/seeding.hpp"

namespace dunesim {

double settling_time(double dx, double gravity) { return std::sqrt(2 * dx / gravity); }

RestingGrains::RestingGrains(MacGrid& g, const SurfaceRest& rest)
    : g_(g), rest_(rest), on_(g.sand_rest_steps.size() > 0 && rest.gravity > 0) {
  if (!on_) return;
  // A count saturates at 255 steps: where the step is shorter than settling_time / 255,
  // nothing rests long enough to hold.
  const double steps = std::ceil(settling_time(g.dx, rest.gravity) / rest.dt);
  steps_needed_ = int(std::min(steps, double(std::numeric_limits<uint8_t>::max()) + 1));
}

double RestingGrains::stopping_share(int i, int j, int k) const {
  if (!on_ || g_.sand_rest_steps(i, j, k) < steps_needed_ || !loose(i, j, k)) return 1.0;
  return double(g_.sand_count(i, j, k)) / kParticlesPerCell;
}

void RestingGrains::record(int i, int j, int k, double mu) {
  if (!on_) return;
  uint8_t& steps = g_.sand_rest_steps(i, j, k);
  const bool rests = loose(i, j, k) && slower_than_friction_stops(g_, i, j, k, mu, rest_);
  steps = rests ? uint8_t(std::min(int(steps) + 1, int(std::numeric_limits<uint8_t>::max())))
                : uint8_t(0);
}

void RestingGrains::forget_cells_without_sand(MacGrid& g, const Array3<uint8_t>& sand_cells,
                                              const Box& last_region) {
  if (g.sand_rest_steps.size() == 0) return;
  for_each_index(last_region.intersect(g.sand_rest_steps.box()), [&](int i, int j, int k) {
    if (!holds_sand(sand_cells, i, j, k)) g.sand_rest_steps(i, j, k) = 0;
  });
}

}  // namespace dunesim
