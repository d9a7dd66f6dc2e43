// How much of each cell the sand and the water fill, for surfaces drawn in situ (Catalyst's
// `material_fraction` channel). dunesim seeds 2 x 2 x 2 particles a cell, so a particle
// stands for 1/8 of a cell; it is spread over the 8 cell centres around it with trilinear
// weights. A cell inside a seeded block then holds 1, the centres on either side of a
// block's face 7/8 and 1/8, and the level 1/2 lies exactly on the face; particles against a
// wall spread into the wall layer the same way, so the level 1/2 lies on the wall too.
#pragma once
#include <cstdint>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"

namespace dunesim {

struct MaterialFractions {
  Array3<double> sand, water;  // over the rank's local cells: owned, ghosts and wall layers
};

// Collective. Every entry of the rank's local cells becomes the sum over all ranks'
// particles, so ranks that hold the same cell (one as owner, one as ghost) hold the same
// value. `is_sand[m]` tells whether material m is sand (else water).
void material_fractions(const Particles& particles, const std::vector<uint8_t>& is_sand,
                        const Topology& topo, Halo& halo, double cell_size,
                        MaterialFractions& fractions);

}  // namespace dunesim
