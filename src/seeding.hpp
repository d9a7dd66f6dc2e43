// Initial particles: 8 per cell, jittered from the 2x2x2 sub-grid (thesis section 3.2).
#pragma once
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/mac_grid.hpp"
#include "src/particles.hpp"

namespace dunesim {

constexpr int kParticlesPerCell = 8;

// Seeds the owned cells of this rank. The jitter of a particle depends only on the case
// seed and its global cell index, and its id is 8 * (global cell index) + sub-cell, so any
// number of ranks creates exactly the same particles. A sub-cell position belongs to the
// last source that contains it; positions in solid cells get no particle.
Particles seed_particles(const CaseConfig& config, const Topology& topo, const MacGrid& grid);

}  // namespace dunesim
