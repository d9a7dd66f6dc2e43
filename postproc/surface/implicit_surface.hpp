// The surface of a set of particles as an implicit function (Zhu & Bridson 2005, section 5;
// thesis chapter 4): negative inside the particles' body, zero on its surface.
//
// For a point x, the particles within the kernel radius R give weights
//   w_i = k(|x - x_i| / R) / sum_j k(|x - x_j| / R),   k(s) = max(0, (1 - s^2)^3),
// a weighted mean position x_bar = sum w_i x_i and radius r_bar = sum w_i r_i, and
//   phi(x) = |x - x_bar| - r_bar.
// For one particle that is exactly the sphere's signed distance |x - x0| - r0; over a flat
// layer of particles x_bar slides along with x, so the zero level stays flat where a sum of
// blobs (the classic metaball surface, kept for comparison) bulges over every particle.
// Points with no particle within R are outside: phi is R there (a positive cap; the exact
// distance is not needed to find the zero level).
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "decomposition/vec3.hpp"

namespace dunesim {

class ParticleSurface {
 public:
  // `radius[n]` is particle n's radius (Zhu & Bridson use half the particle spacing);
  // `kernel_radius` is R, about twice the particle spacing.
  ParticleSurface(std::vector<Vec3> position, std::vector<double> radius, double kernel_radius);

  // Zhu & Bridson's phi(x), see above.
  double phi(const Vec3& x) const;

  // The kernel-weighted mean at x of a value given per particle (`values[n]` for particle n):
  // what a surface vertex shows of its particles, e.g. their saturation. 0 where no particle
  // is within R.
  double weighted_mean(const Vec3& x, const std::vector<double>& values) const;

  // The classic blobby surface with the same kernel: threshold - sum_i k(|x - x_i| / R), so
  // that it too is negative inside. `threshold` sets where the surface lies.
  double blobby(const Vec3& x, double threshold) const;

  double kernel_radius() const { return kernel_radius_; }
  const std::vector<Vec3>& positions() const { return position_; }
  const std::vector<double>& radii() const { return radius_; }

 private:
  // Calls visit(n, s) for every particle n with s = |x - x_n| / R < 1.
  template <class Visit>
  void for_each_neighbour(const Vec3& x, Visit&& visit) const;

  std::vector<Vec3> position_;
  std::vector<double> radius_;
  double kernel_radius_;
  void fill_buckets() const;

  // Particles bucketed in cubes of side R: a point's neighbours lie in its cube's 27.
  mutable std::unordered_map<int64_t, std::vector<int32_t>> buckets_;
  mutable bool buckets_filled_ = false;
};

// k(s) = max(0, (1 - s^2)^3).
inline double surface_kernel(double s) {
  const double t = 1.0 - s * s;
  return t > 0 ? t * t * t : 0.0;
}

}  // namespace dunesim
