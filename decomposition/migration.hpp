// Particle migration: after advection every particle moves to the rank owning its cell.
#pragma once
#include <cstdint>

#include "decomposition/topology.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

struct MigrationStats {
  int64_t sent = 0;      // particles this rank sent away
  int64_t received = 0;  // particles this rank received
  int64_t bytes_sent = 0;
};

// Sends each particle to the owner of the cell containing it (cells of size dx, domain
// origin at 0). Particles may only move to a neighbouring block: the time step's CFL limit
// and the ghost width guarantee it, and a violation throws rather than losing particles.
MigrationStats migrate_particles(const Topology& topo, double dx, Particles& particles);

}  // namespace dunesim
