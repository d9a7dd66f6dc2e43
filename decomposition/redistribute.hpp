// Particle redistribution: every particle goes to the rank that owns its cell, whichever
// rank that is (restart on another rank count, a new layout after load balancing).
#pragma once
#include "decomposition/topology.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

// Collective. Sends each particle to the owner of the cell containing it (cells of size dx,
// domain origin at 0; positions outside the domain go to the nearest block). Unlike
// migrate_particles any rank may send to any rank, at the cost of an all-to-all exchange.
// Afterwards a rank holds the particles it kept, in their order, followed by those it
// received, in the order of the sending ranks and of their arrays there.
void redistribute_particles(const Topology& topo, double dx, Particles& particles);

}  // namespace dunesim
