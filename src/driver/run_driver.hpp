// Runs a case to its end time: time-step choice, output frames, progress and the report.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "io/case_config.hpp"
#include "src/driver/stop_signals.hpp"

namespace dunesim {

struct RunOptions {
  std::string output_directory;  // overrides the case's [output] directory when set
  int64_t max_steps = -1;        // overrides the case's [time] max_steps when >= 0
  double end_time = -1;          // overrides the case's [time] end when > 0
  bool write_frames = true;
  bool quiet = false;         // no progress lines
  std::string restart;        // "latest" or a checkpoint file: continue from it
  std::string petsc_options;  // --petsc, already in PETSc's options database; named in
                              // the error when one of them is never read
};

// A command-line value that does not fit the case or the solver: the user's to fix, like a
// bad case file (dunesim exits with status 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunResult {
  int64_t steps = 0;
  double simulated_time = 0;
  double wall_seconds = 0;
  int64_t particles = 0;  // all ranks
  std::string report_path;
  bool stopped = false;         // stopped early by SIGTERM or SIGUSR1, after a checkpoint
  std::string last_checkpoint;  // the last checkpoint written, if any
  // A sand model that solves for its stress (rigid_plastic): steps whose solve stopped at
  // its round limit above its tolerance, and that limit.
  int64_t unconverged_sand_steps = 0;
  int sand_solve_round_limit = 0;
};

// A wall-clock duration for the progress line: "HH:MM:SS" up to 99 hours, "Nd HH:MM:SS"
// above, "more than 100 years" beyond that or when not a number (an ETA from steps too small
// to end), "--" when negative.
std::string format_duration(double seconds);

// Collective. Frames go to <output>/<name>_NNNNNN.h5 with the series <output>/<name>.xmf,
// and the timing report to <output>/timing.json. Checkpoints go to the case's checkpoint
// directory (<output>/checkpoints by default) as its [checkpoint] table says, and when
// `stop_signals` saw SIGTERM or SIGUSR1, after which the run stops at once (result.stopped).
// A signal during start-up (seeding, reading a checkpoint, or before: `dunesim` installs the
// handlers as the first statement of main, before MPI starts) stops the run before it writes
// anything. A pressure solve that diverges throws std::runtime_error naming the material
// parameters beyond their stable range (extreme_material_parameters), the same on every rank.
RunResult run_case(const CaseConfig& config, const RunOptions& options, MPI_Comm comm,
                   const StopSignals& stop_signals);

}  // namespace dunesim
