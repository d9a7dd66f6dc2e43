#include "postproc/surface/sampled_field.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace dunesim {

namespace {

// The kernel sums of every sample of `block`, gathered particle by particle: each particle
// adds to the samples within R of it, about 4 pi/3 (R / spacing)^3 of them, where asking
// every sample for its neighbours costs 27 buckets of candidates each (7 times the distance
// tests at R = 2 h and samples h apart). A sample's sums add its particles in their order
// in `surface`, so a sample gets the same value, bit for bit, wherever it is computed from
// the same particles in the same order.
struct KernelSums {
  std::vector<double> weight, radius, x, y, z;
  explicit KernelSums(size_t n) : weight(n), radius(n), x(n), y(n), z(n) {}
};

// The block's samples along axis a within R of coordinate c: [lo, hi], possibly empty.
std::pair<int, int> samples_near(const SampleBlock& block, int a, double c, double reach) {
  const double base = block.origin[a] + double(block.first[a]) * block.spacing;
  const int lo = std::max(0, int(std::floor((c - reach - base) / block.spacing)));
  const int hi =
      std::min(block.samples[a] - 1, int(std::ceil((c + reach - base) / block.spacing)));
  return {lo, hi};
}

// k(s) = (1 - s^2)^3 needs only s^2: no square root per sample. Offsets along each axis are
// computed once per particle; a sample's position is the block's same arithmetic on the same
// integers, so the sums do not depend on which rank computes them.
template <class Add>
void for_each_sample_near_particles(const ParticleSurface& surface, const SampleBlock& block,
                                    Add&& add) {
  const double reach = surface.kernel_radius(), inv_reach2 = 1.0 / (reach * reach);
  const std::vector<Vec3>& position = surface.positions();
  std::array<std::vector<double>, 3> squared;  // (sample - particle)^2 along each axis
  for (size_t n = 0; n < position.size(); ++n) {
    const Vec3& p = position[n];
    std::array<std::pair<int, int>, 3> range;
    for (int a = 0; a < 3; ++a) {
      range[a] = samples_near(block, a, p[a], reach);
      squared[a].clear();
      for (int s = range[a].first; s <= range[a].second; ++s) {
        std::array<int, 3> at{0, 0, 0};
        at[a] = s;
        const double d = block.position(at[0], at[1], at[2])[a] - p[a];
        squared[a].push_back(d * d);
      }
    }
    for (int k = range[2].first; k <= range[2].second; ++k)
      for (int j = range[1].first; j <= range[1].second; ++j) {
        const double dyz =
            squared[1][size_t(j - range[1].first)] + squared[2][size_t(k - range[2].first)];
        for (int i = range[0].first; i <= range[0].second; ++i) {
          const double s2 = (squared[0][size_t(i - range[0].first)] + dyz) * inv_reach2;
          if (s2 >= 1.0) continue;
          const double t = 1.0 - s2;
          add(block.index(i, j, k), n, t * t * t);
        }
      }
  }
}

SampledField empty_field(const SampleBlock& block, double value) {
  SampledField field;
  static_cast<SampleBlock&>(field) = block;
  field.phi.assign(block.size(), value);
  return field;
}

}  // namespace

SampledField sample_surface(const ParticleSurface& surface, const SampleBlock& block) {
  KernelSums sums(block.size());
  const std::vector<Vec3>& position = surface.positions();
  const std::vector<double>& radius = surface.radii();
  for_each_sample_near_particles(surface, block, [&](size_t at, size_t n, double w) {
    sums.weight[at] += w;
    sums.radius[at] += w * radius[n];
    sums.x[at] += w * position[n][0];
    sums.y[at] += w * position[n][1];
    sums.z[at] += w * position[n][2];
  });
  // No particle within R: outside, phi = R (as ParticleSurface::phi).
  SampledField field = empty_field(block, surface.kernel_radius());
  for (int k = 0; k < block.samples[2]; ++k)
    for (int j = 0; j < block.samples[1]; ++j)
      for (int i = 0; i < block.samples[0]; ++i) {
        const size_t at = block.index(i, j, k);
        const double total = sums.weight[at];
        if (total <= 0) continue;
        const Vec3 x = block.position(i, j, k);
        const double mx = sums.x[at] / total - x[0], my = sums.y[at] / total - x[1],
                     mz = sums.z[at] / total - x[2];
        field.phi[at] = std::sqrt(mx * mx + my * my + mz * mz) - sums.radius[at] / total;
      }
  return field;
}

SampledField sample_blobby(const ParticleSurface& surface, const SampleBlock& block,
                           double threshold) {
  SampledField field = empty_field(block, threshold);
  for_each_sample_near_particles(surface, block,
                                 [&](size_t at, size_t, double w) { field.phi[at] -= w; });
  return field;
}

SampledField sample_surface(const ParticleSurface& surface, const Vec3& lo, const Vec3& hi,
                            double spacing) {
  SampleBlock block;
  block.origin = lo;
  block.spacing = spacing;
  for (int a = 0; a < 3; ++a) block.samples[a] = int(std::ceil((hi[a] - lo[a]) / spacing)) + 1;
  return sample_surface(surface, block);
}

}  // namespace dunesim
