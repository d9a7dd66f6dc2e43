// The dunesim command: `dunesim run CASE`, `dunesim check CASE...`, `dunesim info FILE`.
#include <mpi.h>
#include <petscsys.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "decomposition/reductions.hpp"
#include "io/case_config.hpp"
#include "io/command_line.hpp"
#include "io/file_summary.hpp"
#include "src/driver/large_allocations.hpp"
#include "src/driver/memory_budget.hpp"
#include "src/driver/physics_budget.hpp"
#include "src/pressure/pressure_solver.hpp"
#include "src/driver/run_driver.hpp"
#include "src/driver/stop_signals.hpp"

namespace {

// Exit statuses a job script can tell apart.
constexpr int kExitCaseError = dunesim::kExitUsage;  // bad case file or option: fix the input
constexpr int kExitRuntimeError = 3;  // the run failed (solver diverged, I/O error, ...)
constexpr int kExitStopped = 75;      // stopped by SIGTERM/SIGUSR1 after a checkpoint, or during
                                      // start-up with nothing to save: resubmit (with --restart
                                      // latest after a checkpoint; 75 is EX_TEMPFAIL)

using dunesim::UsageError;

// --max-steps: a whole number >= 0 that fits in 64 bits (CLI11 alone would clamp
// 99999999999999999999 to the largest one).
const CLI::Validator kStepCount(
    [](std::string& text) {
      int64_t value = 0;
      const char* end = text.data() + text.size();
      const auto [stop, error] = std::from_chars(text.data(), end, value);
      if (error == std::errc::result_out_of_range)
        return "expected a whole number of steps up to " +
               std::to_string(std::numeric_limits<int64_t>::max()) + ", got " + text;
      if (error != std::errc() || stop != end || value < 0)
        return "expected a whole number of steps >= 0, got " + text;
      return std::string();
    },
    "INT>=0");

// --end-time: seconds, finite and > 0.
const CLI::Validator kPositiveSeconds =
    dunesim::positive_finite_number("a finite number of seconds > 0", "SECONDS>0");

// The command line's values that can only be judged with the case in hand.
void check_run_options(const dunesim::CaseConfig& config, const dunesim::RunOptions& options) {
  if (options.end_time <= 0) return;
  const std::string problem =
      dunesim::output_schedule_problem(options.end_time, config.output.interval, "--end-time");
  if (!problem.empty()) throw UsageError(problem);
}

// Collective. Both PETSc option strings, read into a solver before any work (see
// petsc_options_problem): the case's alone, then the command line's under them, as the run
// inserts them (the case's come last and win).
void check_petsc_options(const dunesim::CaseConfig& config, const std::string& command_line) {
  const std::string& of_case = config.pressure.petsc_options;
  dunesim::RankError error =
      dunesim::first_error_on_any_rank(MPI_COMM_WORLD, dunesim::petsc_options_problem(of_case));
  if (error.failed())
    throw dunesim::CaseError(config.file, "pressure.petsc_options", error.message);
  if (command_line.empty()) return;
  error = dunesim::first_error_on_any_rank(MPI_COMM_WORLD, dunesim::petsc_options_problem(
                                                               command_line + " " + of_case));
  if (error.failed()) throw UsageError("--petsc \"" + command_line + "\": " + error.message);
  if (PetscOptionsInsertString(nullptr, command_line.c_str()) != 0)
    throw UsageError("--petsc \"" + command_line + "\": PETSc cannot read it");
}

// `dunesim check CASE` (check_only) or `dunesim run CASE`: the exit status, the same on
// every rank.
int check_or_run(const std::string& case_file, bool check_only,
                 const dunesim::RunOptions& options, const std::string& petsc_options, int rank) {
  // A run takes SIGTERM and SIGUSR1 as requests to stop, start-up included (main installed
  // the handlers before MPI started; reading the case and its meshes, seeding, reading a
  // checkpoint follow): run_case checks them once start-up ends, instead of the ranks dying
  // of the signal.
  std::optional<dunesim::StopSignals> stop_signals;
  if (!check_only) stop_signals.emplace();
  try {
    dunesim::CaseConfig config = dunesim::load_case(case_file, MPI_COMM_WORLD);
    dunesim::check_grid_fits_memory(config, MPI_COMM_WORLD);
    if (!check_only) check_run_options(config, options);
    // The run ends at --end-time when it is given: its step count is the one to bound.
    dunesim::check_physics_budget(config, check_only ? -1 : options.end_time);
    check_petsc_options(config, petsc_options);
    if (check_only) {
      if (rank == 0) std::printf("%s: ok\n", case_file.c_str());
      return 0;
    }
    const dunesim::RunResult result =
        dunesim::run_case(config, options, MPI_COMM_WORLD, *stop_signals);
    return result.stopped ? kExitStopped : 0;
  } catch (const dunesim::CaseError& e) {
    // Every rank parsed the same text, so every rank is here with the same error.
    if (rank == 0) std::fprintf(stderr, "error: %s\n", e.what());
    return kExitCaseError;
  } catch (const UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s\n", e.what());
    return kExitCaseError;
  } catch (const std::runtime_error& e) {
    // By convention runtime errors (solver divergence, I/O, lost particles) are raised only
    // after the ranks agreed on them, so every rank is here and can finalise cleanly.
    if (rank == 0) std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRuntimeError;
  } catch (const std::exception& e) {
    // Anything else may have left other ranks waiting in a collective: end the whole job.
    std::fprintf(stderr, "internal error (rank %d): %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitRuntimeError);
  }
  return kExitRuntimeError;
}

// `dunesim check CASE...`: every case in turn, so one call reports each bad file; the status
// of the first that fails (0 when all pass), the same on every rank.
int check_cases(const std::vector<std::string>& case_files, int rank) {
  int first_failure = 0;
  for (const std::string& file : case_files) {
    const int status = check_or_run(file, true, dunesim::RunOptions{}, std::string(), rank);
    if (first_failure == 0) first_failure = status;
  }
  return first_failure;
}

// `dunesim info FILE`: rank 0 reads the file; every rank returns the same status.
int print_file_summary(const std::string& file, int rank) {
  int status = 0;
  if (rank == 0) {
    try {
      std::fputs(dunesim::summarize_output_file(file).c_str(), stdout);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      status = kExitRuntimeError;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

// Before main, too: the shared libraries' initialisers (ParaView Catalyst's VTK and Python
// among them) take about a second before main starts, and a batch system may send SIGTERM or
// SIGUSR1 then. The dynamic loader runs the executable's .preinit_array before any library's
// initialiser; sigaction needs nothing initialised.
void catch_stop_signals_before_the_libraries(int, char**, char**) {
  dunesim::install_stop_signal_handlers();
}
__attribute__((section(".preinit_array"), used)) void (*const kCatchStopSignalsFirst)(
    int, char**, char**) = catch_stop_signals_before_the_libraries;

}  // namespace

int main(int argc, char** argv) {
  // A batch system may send SIGTERM or SIGUSR1 at any moment, also while MPI starts; the
  // request is kept until the run (or check and info, which give the signal its default
  // action back) looks at it. (Installed again in case a library replaced them.)
  dunesim::install_stop_signal_handlers();
  CLI::App app{"dunesim: sand and water as particles on a distributed MAC grid"};
  app.require_subcommand(1);
  std::string case_file;
  dunesim::RunOptions options;
  std::string petsc_options;

  CLI::App* run = app.add_subcommand("run", "run a case (under mpiexec for several ranks)");
  run->add_option("case", case_file, "case file (TOML)")->required();
  run->add_option("--output", options.output_directory, "output directory (overrides the case)");
  run->add_option("--max-steps", options.max_steps, "stop after this many steps (0: no limit)")
      ->check(kStepCount);
  run->add_option("--end-time", options.end_time, "simulated end time in s (overrides the case)")
      ->check(kPositiveSeconds);
  run->add_flag(
      "--no-frames", [&](int64_t) { options.write_frames = false; },
      "write no output frames (benchmarks)");
  run->add_flag("--quiet", options.quiet, "no progress lines");
  run->add_option("--petsc", petsc_options, "extra PETSc options, e.g. \"-ksp_monitor\"");
  run->add_option("--restart", options.restart,
                  "continue from a checkpoint: \"latest\" (in the case's checkpoint "
                  "directory) or a checkpoint file");

  std::vector<std::string> checked_files;
  CLI::App* check = app.add_subcommand("check", "validate case files without running them");
  check->add_option("cases", checked_files, "case files (TOML), each checked in turn")
      ->required();

  std::string info_file;
  CLI::App* info = app.add_subcommand(
      "info",
      "summarise an output frame or a checkpoint: its time, step, particles and datasets, "
      "and the run that wrote it (version, source revision, ranks, case file, grid, domain, "
      "gravity, materials, and the case text's length in lines with its first 20 lines)");
  info->add_option("file", info_file, "frame or checkpoint (.h5)")->required();

  if (const std::optional<int> status = dunesim::start_mpi_command(app, argc, argv))
    return *status;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  // `check` and `info` end as the signal ends them, as any command would.
  if (!run->parsed())
    if (const int signal = dunesim::restore_stop_signal_handlers()) std::raise(signal);

  if (info->parsed()) {
    int status = print_file_summary(info_file, rank);
    MPI_Finalize();
    return status;
  }

  PetscInitializeNoArguments();
  dunesim::map_large_allocations();
  // PETSc's default handler prints on rank 0 only and makes the other ranks sleep and exit(0),
  // leaving rank 0 in MPI_Finalize: errors come back as codes, which the ranks agree on.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  // PETSc may install signal handlers of its own (it leaves SIGTERM to Open MPI, and SIGUSR1
  // alone): the stop handlers stay in place, a signal caught so far still counts.
  if (run->parsed()) dunesim::install_stop_signal_handlers();
  options.petsc_options = petsc_options;
  const int status = check->parsed()
                         ? check_cases(checked_files, rank)
                         : check_or_run(case_file, false, options, petsc_options, rank);
  PetscFinalize();
  MPI_Finalize();
  return status;
}
