// Reorders a rank's particles by the cell that holds them, so that transfers walk the grid
// in memory order (particles drift out of order as they move and migrate).
#pragma once
#include "decomposition/box.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

// What the sort does with the affine velocity's rows (Particles::affine): move them with
// their particles, or leave them where they are, when the sort runs where every particle's
// row is rewritten before it is next read (after P2G, before G2P). The rows are a third of a
// dry APIC particle's bytes and, moved a word at a time, most of the sort's cost.
enum class AffineRows { Move, Leave };

// Stable counting sort by cell index (x fastest) within `cells`, the rank's owned block.
void sort_particles_by_cell(const Box& cells, double dx, Particles& particles,
                            AffineRows affine = AffineRows::Move);

}  // namespace dunesim
