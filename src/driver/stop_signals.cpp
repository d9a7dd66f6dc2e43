#include "src/driver/stop_signals.hpp"

#include <initializer_list>

namespace dunesim {
namespace {

// The signal caught (0: none yet).
volatile std::sig_atomic_t stop_requested = 0;

void request_stop(int signal) { stop_requested = signal; }

bool installed = false;
struct sigaction previous_term {
}, previous_usr1{};

// Whether `signal` is handled by request_stop now.
bool ours(int signal) {
  struct sigaction current {};
  sigaction(signal, nullptr, &current);
  return current.sa_handler == request_stop;
}

}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  // Restart interrupted system calls: MPI and file I/O should not see EINTR.
  action.sa_flags = SA_RESTART;
  if (!installed) {
    sigaction(SIGTERM, &action, &previous_term);
    sigaction(SIGUSR1, &action, &previous_usr1);
    installed = true;
    return;
  }
  for (const int signal : {SIGTERM, SIGUSR1})
    if (!ours(signal)) sigaction(signal, &action, nullptr);
}

int restore_stop_signal_handlers() {
  if (installed) {
    sigaction(SIGTERM, &previous_term, nullptr);
    sigaction(SIGUSR1, &previous_usr1, nullptr);
    installed = false;
  }
  return stop_requested;
}

StopSignals::StopSignals() { install_stop_signal_handlers(); }

StopSignals::~StopSignals() { restore_stop_signal_handlers(); }

bool StopSignals::requested() const { return stop_requested != 0; }

}  // namespace dunesim
