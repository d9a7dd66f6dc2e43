#include "src/driver/stop_signals.hpp"

namespace dunesim {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

void request_stop(int) { stop_requested = 1; }

}  // namespace

StopSignals::StopSignals() {
  stop_requested = 0;
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  // Restart interrupted system calls: MPI and file I/O should not see EINTR.
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, &previous_term_);
  sigaction(SIGUSR1, &action, &previous_usr1_);
}

StopSignals::~StopSignals() {
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGUSR1, &previous_usr1_, nullptr);
}

bool StopSignals::requested() const { return stop_requested != 0; }

}  // namespace dunesim
