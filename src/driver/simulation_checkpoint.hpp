// What of a Simulation a checkpoint holds, and how a Simulation continues from one.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>

#include "io/checkpoint.hpp"
#include "src/driver/simulation.hpp"

namespace dunesim {

// Collective. Saves the simulation's particles, the grid arrays that carry state between
// steps, its time and step count, with the case it runs and the run's `last_dt` and
// `frames_written`. Returns the checkpoint's path.
std::string write_checkpoint(CheckpointWriter& writer, Simulation& sim, double last_dt,
                             int64_t frames_written);

// Collective over comm. A simulation of `config` (normally parsed from the checkpoint's case
// text) that continues from `checkpoint`: on as many ranks as wrote it, with their block
// layout and each rank's particles in their order, so that the run continues bit for bit;
// on another number of ranks, with the case's usual layout and every particle sent to the
// rank that owns it (same physics, different rounding).
std::unique_ptr<Simulation> restore_simulation(const CaseConfig& config,
                                               CheckpointReader& checkpoint, MPI_Comm comm);

}  // namespace dunesim
