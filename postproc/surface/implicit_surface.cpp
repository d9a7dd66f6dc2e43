#include "postproc/surface/implicit_surface.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace dunesim {

namespace {

// A bucket's key: its integer coordinates packed into 21 bits each (offset so that
// negative coordinates pack too). Scenes span far fewer than 2^20 kernel radii per axis.
int64_t bucket_key(int64_t i, int64_t j, int64_t k) {
  constexpr int64_t kOffset = int64_t(1) << 20;
  return ((i + kOffset) << 42) | ((j + kOffset) << 21) | (k + kOffset);
}

std::array<int64_t, 3> bucket_of(const Vec3& x, double side) {
  return {int64_t(std::floor(x[0] / side)), int64_t(std::floor(x[1] / side)),
          int64_t(std::floor(x[2] / side))};
}

double distance(const Vec3& a, const Vec3& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

}  // namespace

ParticleSurface::ParticleSurface(std::vector<Vec3> position, std::vector<double> radius,
                                 double kernel_radius)
    : position_(std::move(position)), radius_(std::move(radius)), kernel_radius_(kernel_radius) {
  if (position_.size() != radius_.size())
    throw std::invalid_argument("ParticleSurface: one radius per particle is needed");
  if (!(kernel_radius_ > 0))
    throw std::invalid_argument("ParticleSurface: the kernel radius must be > 0");
}

// Built on the first point query: sampling a whole grid (sampled_field.cpp) scatters from
// the particles instead and never needs them.
void ParticleSurface::fill_buckets() const {
  if (buckets_filled_) return;
  for (size_t n = 0; n < position_.size(); ++n) {
    const auto [i, j, k] = bucket_of(position_[n], kernel_radius_);
    buckets_[bucket_key(i, j, k)].push_back(int32_t(n));
  }
  buckets_filled_ = true;
}

template <class Visit>
void ParticleSurface::for_each_neighbour(const Vec3& x, Visit&& visit) const {
  fill_buckets();
  const auto [bi, bj, bk] = bucket_of(x, kernel_radius_);
  for (int64_t i = bi - 1; i <= bi + 1; ++i)
    for (int64_t j = bj - 1; j <= bj + 1; ++j)
      for (int64_t k = bk - 1; k <= bk + 1; ++k) {
        const auto bucket = buckets_.find(bucket_key(i, j, k));
        if (bucket == buckets_.end()) continue;
        for (int32_t n : bucket->second) {
          const double s = distance(x, position_[n]) / kernel_radius_;
          if (s < 1.0) visit(n, s);
        }
      }
}

double ParticleSurface::phi(const Vec3& x) const {
  double total = 0, radius = 0;
  Vec3 mean{0, 0, 0};
  for_each_neighbour(x, [&](int32_t n, double s) {
    const double w = surface_kernel(s);
    total += w;
    radius += w * radius_[n];
    for (int a = 0; a < 3; ++a) mean[a] += w * position_[n][a];
  });
  if (total <= 0) return kernel_radius_;
  for (double& m : mean) m /= total;
  return distance(x, mean) - radius / total;
}

double ParticleSurface::weighted_mean(const Vec3& x, const std::vector<double>& values) const {
  double total = 0, sum = 0;
  for_each_neighbour(x, [&](int32_t n, double s) {
    const double w = surface_kernel(s);
    total += w;
    sum += w * values[size_t(n)];
  });
  return total > 0 ? sum / total : 0.0;
}

double ParticleSurface::blobby(const Vec3& x, double threshold) const {
  double field = 0;
  for_each_neighbour(x, [&](int32_t, double s) { field += surface_kernel(s); });
  return threshold - field;
}

}  // namespace dunesim
