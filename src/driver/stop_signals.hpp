// SIGTERM and SIGUSR1 as requests to stop: the run checkpoints at the next step boundary and
// exits, instead of dying mid-step (batch systems send SIGTERM before a job's time is up).
#pragma once
#include <csignal>

namespace dunesim {

// Installs the stop handlers, keeping any request already caught: `dunesim` calls it as the
// first statement of main, before MPI starts, so that a signal at any moment of start-up is
// caught, and again after PETSc starts (puts them back if anything replaced them). The
// handler only sets a flag (async-signal-safe).
void install_stop_signal_handlers();

// Gives SIGTERM and SIGUSR1 back the dispositions they had before the first
// install_stop_signal_handlers. Returns the signal caught meanwhile (0 if none): commands that
// do not stop cleanly (`check`, `info`) raise it again, to end as the signal ends them.
int restore_stop_signal_handlers();

// The handlers for its lifetime (installed if they are not, restored afterwards); a request
// caught before it exists counts. run_case polls it once start-up ends and after every step.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // True once either signal arrived on this process (ranks agree on it with any_rank).
  bool requested() const;
};

}  // namespace dunesim
