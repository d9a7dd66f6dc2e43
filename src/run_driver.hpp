// Runs a case to its end time: time-step choice, output frames, progress and the report.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

#include "io/case_config.hpp"

namespace dunesim {

struct RunOptions {
  std::string output_directory;  // overrides the case's [output] directory when set
  int64_t max_steps = -1;        // overrides the case's [time] max_steps when >= 0
  double end_time = -1;          // overrides the case's [time] end when > 0
  bool write_frames = true;
  bool quiet = false;            // no progress lines
};

struct RunResult {
  int64_t steps = 0;
  double simulated_time = 0;
  double wall_seconds = 0;
  int64_t particles = 0;         // all ranks
  std::string report_path;
};

// Collective. Frames go to <output>/<name>_NNNNNN.h5 with the series <output>/<name>.xmf,
// and the timing report to <output>/timing.json.
RunResult run_case(const CaseConfig& config, const RunOptions& options, MPI_Comm comm);

}  // namespace dunesim
