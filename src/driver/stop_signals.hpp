// SIGTERM and SIGUSR1 as requests to stop: the run checkpoints at the next step boundary and
// exits, instead of dying mid-step (batch systems send SIGTERM before a job's time is up).
#pragma once
#include <csignal>

namespace dunesim {

// Installs the handlers for its lifetime and restores the previous ones afterwards; `dunesim
// run` installs them before it reads the case, so that a signal during start-up stops the run
// cleanly too. The handler only sets a flag (async-signal-safe); run_case polls it once
// start-up ends and after every step.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // True once either signal arrived on this process (ranks agree on it with any_rank).
  bool requested() const;

 private:
  struct sigaction previous_term_ {
  }, previous_usr1_{};
};

}  // namespace dunesim
