// Sources that keep adding particles during the run: a pouring source (emit_until) keeps its
// shape full of material until then, like a nozzle or a hopper outlet; a rain source
// (rain_rate) lets drops appear at random points of its block.
#pragma once
#include <cstdint>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

// Refills the empty cells of the pouring sources on one rank's block. What is emitted is a
// function of the case, the step number, the time and the particles present, so emission
// has no state of its own to checkpoint, and any number of ranks emits the same particles.
class ParticleEmitter {
 public:
  // Finds the owned cells that a pouring source of `config` can reach; build a new emitter
  // when the blocks are re-cut.
  ParticleEmitter(const CaseConfig& config, const Topology& topo);

  // After step number `step` (the first step is 1), which began at `step_start_time` and
  // lasted `step_duration`:
  // - every owned non-solid cell without particles gets, at each of the 2x2x2 jittered
  //   sub-cell positions that lies in a pouring source still pouring at `step_start_time`
  //   (emit_until above it), a particle with that source's material and velocity. A
  //   position belongs to the last such source that contains it.
  // - every sub-cell position in a rain source's block, in a non-solid owned cell, becomes a
  //   drop with probability rain_rate * step_duration / (block height along gravity), so
  //   the block delivers rain_rate metres of water per second over its area (at most one
  //   drop per sub-cell and step).
  // Ids follow created_particle_id (src/particles/seeding.hpp). Returns the particles added here.
  int64_t emit(const CaseConfig& config, const Array3<uint8_t>& solid, int64_t step,
               double step_start_time, double step_duration, Particles& particles);

 private:
  void refill_pouring_sources(const CaseConfig& config, const Array3<uint8_t>& solid,
                              int64_t step, double step_start_time, Particles& particles);
  void let_rain_fall(const CaseConfig& config, const Array3<uint8_t>& solid, int64_t step,
                     double step_start_time, double step_duration, Particles& particles);

  Box owned_;                 // this rank's cells
  Box reach_;                 // owned cells inside some pouring source's bounding box
  Array3<uint8_t> occupied_;  // over reach_: the cell holds a particle; scratch
};

}  // namespace dunesim
