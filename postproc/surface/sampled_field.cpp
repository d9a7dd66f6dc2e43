#include "postproc/surface/sampled_field.hpp"

#include <cmath>

namespace dunesim {

namespace {

// `value(x)` at every sample x of `block`.
template <class Value>
SampledField sample(const SampleBlock& block, Value&& value) {
  SampledField field;
  static_cast<SampleBlock&>(field) = block;
  field.phi.resize(block.size());
  for (int k = 0; k < block.samples[2]; ++k)
    for (int j = 0; j < block.samples[1]; ++j)
      for (int i = 0; i < block.samples[0]; ++i)
        field.phi[block.index(i, j, k)] = value(block.position(i, j, k));
  return field;
}

}  // namespace

SampledField sample_surface(const ParticleSurface& surface, const SampleBlock& block) {
  return sample(block, [&](const Vec3& x) { return surface.phi(x); });
}

SampledField sample_blobby(const ParticleSurface& surface, const SampleBlock& block,
                           double threshold) {
  return sample(block, [&](const Vec3& x) { return surface.blobby(x, threshold); });
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
