// Redistribution after a change of layout: every particle goes to the rank that owns its
// cell, whichever rank that is (restart on another rank count, a new layout after load
// balancing), and cell arrays follow their cells to a re-cut's new blocks.
#pragma once
#include <cstdint>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/box.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"

namespace dunesim {

// Collective. Sends each particle to the owner of the cell containing it (cells of size dx,
// domain origin at 0; positions outside the domain go to the nearest block). Unlike
// migrate_particles any rank may send to any rank, at the cost of an all-to-all exchange.
// Afterwards a rank holds the particles it kept, in their order, followed by those it
// received, in the order of the sending ranks and of their arrays there.
void redistribute_particles(const Topology& topo, double dx, Particles& particles);

// Collective. Moves cell arrays across a re-cut: `old_blocks[r]` is rank r's owned cells
// before it, `from[f]` this rank's array f over (at least) its old block, `to[f]` the array
// laid out for `topo` now. Each owned cell of `to[f]` gets the value its old owner held;
// ghosts are left for a halo fill. Every rank passes the same number of arrays. For doubles
// and for bytes (counts).
template <class T>
void redistribute_cells(const Topology& topo, const std::vector<Box>& old_blocks,
                        const std::vector<const Array3<T>*>& from,
                        const std::vector<Array3<T>*>& to);

}  // namespace dunesim
