// The smoothing pass of Zhu & Bridson 2005, section 5 (thesis chapter 4): a few iterations
// of Laplacian smoothing of the sampled phi near the surface, where each sample may only
// decrease, phi_new = min(phi, mean of its 6 neighbours).
//
// Only decreasing keeps true features: where phi is convex (a ball, a ridge) the neighbours'
// mean is above phi and nothing changes, and a linear phi (a flat surface) equals its mean;
// where phi is locally concave (the dents between the bumps of a particle surface, the
// spurious pits of concave regions) phi drops and the surface fills in. Each iteration is
// a Jacobi step (every sample reads the previous iteration's values), so the result does not
// depend on the order of the samples, and a block sampled with `iterations` extra layers
// beyond a cut agrees with the whole field everywhere but in those layers.
#pragma once
#include "postproc/surface/sampled_field.hpp"

namespace dunesim {

struct SmoothingOptions {
  int iterations = 3;       // 0 turns smoothing off
  double band_samples = 2;  // only samples with |phi| < band_samples * spacing may change
};

// Smooths `field` in place. At the block's faces the missing neighbour counts as the sample
// itself (no flux through the boundary).
void smooth_near_surface(SampledField& field, const SmoothingOptions& options);

}  // namespace dunesim
