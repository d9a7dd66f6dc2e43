#include "postproc/surface/phi_smoothing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dunesim {

namespace {

// The mean of sample (i, j, k)'s 6 neighbours in `phi`; one beyond the block is replaced by
// the sample itself.
double neighbour_mean(const SampledField& field, const std::vector<double>& phi, int i, int j,
                      int k) {
  const std::array<int, 3> at{i, j, k};
  const double centre = phi[field.index(i, j, k)];
  double sum = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (int step : {-1, 1}) {
      std::array<int, 3> n = at;
      n[axis] += step;
      const bool inside = n[axis] >= 0 && n[axis] < field.samples[axis];
      sum += inside ? phi[field.index(n[0], n[1], n[2])] : centre;
    }
  return sum / 6;
}

}  // namespace

void smooth_near_surface(SampledField& field, const SmoothingOptions& options) {
  const double band = options.band_samples * field.spacing;
  std::vector<double> previous;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    previous = field.phi;
    for (int k = 0; k < field.samples[2]; ++k)
      for (int j = 0; j < field.samples[1]; ++j)
        for (int i = 0; i < field.samples[0]; ++i) {
          const size_t n = field.index(i, j, k);
          if (!(std::abs(previous[n]) < band)) continue;
          field.phi[n] = std::min(previous[n], neighbour_mean(field, previous, i, j, k));
        }
  }
}

}  // namespace dunesim
