// The implicit surface's phi sampled on a block of a regular lattice. A block knows its
// place in the lattice by integer indices, so that blocks sampled on different ranks put a
// shared sample at exactly the same point (the same arithmetic on the same integers).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "decomposition/vec3.hpp"
#include "postproc/surface/implicit_surface.hpp"

namespace dunesim {

// Samples (i, j, k), 0 <= i < samples[0] (x fastest), of the lattice whose sample index I
// lies at origin + I * spacing; the block's sample (0, 0, 0) has lattice index `first`.
struct SampleBlock {
  Vec3 origin{0, 0, 0};
  double spacing = 0;
  std::array<int64_t, 3> first{0, 0, 0};
  std::array<int, 3> samples{0, 0, 0};

  size_t size() const { return size_t(samples[0]) * size_t(samples[1]) * size_t(samples[2]); }
  size_t index(int i, int j, int k) const {
    return (size_t(k) * size_t(samples[1]) + size_t(j)) * size_t(samples[0]) + size_t(i);
  }
  Vec3 position(int i, int j, int k) const {
    return {origin[0] + double(first[0] + i) * spacing,
            origin[1] + double(first[1] + j) * spacing,
            origin[2] + double(first[2] + k) * spacing};
  }
};

// Samples lo[a] <= i <= hi[a] of a block, in the block's own indices.
struct SampleRange {
  std::array<int, 3> lo{0, 0, 0}, hi{0, 0, 0};
};

// phi at every sample of the block, in index() order.
struct SampledField : SampleBlock {
  std::vector<double> phi;
};

// Samples `surface` (Zhu & Bridson's phi) at every sample of `block`.
SampledField sample_surface(const ParticleSurface& surface, const SampleBlock& block);

// Samples the classic blobby field of `surface` (threshold - sum of kernels, negative
// inside) at every sample of `block`.
SampledField sample_blobby(const ParticleSurface& surface, const SampleBlock& block,
                           double threshold);

// Samples `surface` over the box [lo, hi], widened to whole samples: origin lo, first 0.
SampledField sample_surface(const ParticleSurface& surface, const Vec3& lo, const Vec3& hi,
                            double spacing);

}  // namespace dunesim
