#include "src/driver/run_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "decomposition/reductions.hpp"
#include "io/checkpoint.hpp"
#include "io/frame_writer.hpp"
#include "io/timing_report.hpp"
#include "src/driver/material_fraction.hpp"
#include "src/driver/physics_budget.hpp"
#include "src/driver/simulation.hpp"
#include "src/driver/simulation_checkpoint.hpp"
#include "src/driver/stop_signals.hpp"
#include "src/pressure/pressure_solver.hpp"

#if DUNESIM_WITH_CATALYST
#include "io/catalyst_adaptor.hpp"
#endif

namespace dunesim {

std::string format_duration(double seconds) {
  if (std::isnan(seconds)) return "more than 100 years";
  if (seconds < 0) return "--";
  constexpr double kHundredYears = 100 * 365.25 * 86400;
  if (seconds > kHundredYears) return "more than 100 years";
  const long s = long(std::lround(seconds));
  const long hours = s / 3600, minutes = (s / 60) % 60;
  char buf[48];
  if (hours > 99)
    std::snprintf(buf, sizeof buf, "%ldd %02ld:%02ld:%02ld", hours / 24, hours % 24, minutes,
                  s % 60);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", hours, minutes, s % 60);
  return buf;
}

namespace {

// What a diverged pressure solve at step dt adds to its message: the material parameters
// beyond their stable range for this grid, or that none is.
std::string diverged_solve_causes(const CaseConfig& config, double dt) {
  const std::string extreme = extreme_material_parameters(config, dt);
  if (extreme.empty()) return "; no material parameter is beyond its stable range for this grid";
  return "; material parameters beyond their stable range for this grid:" + extreme;
}

// The case's settings with the command line's on top.
CaseConfig with_options(CaseConfig config, const RunOptions& options) {
  if (!options.output_directory.empty()) config.output.directory = options.output_directory;
  if (options.max_steps >= 0) config.max_steps = options.max_steps;
  if (options.end_time > 0) config.end_time = options.end_time;
  return config;
}

std::string checkpoint_directory(const CaseConfig& config) {
  if (!config.checkpoint.directory.empty()) return config.checkpoint.directory;
  return config.output.directory + "/checkpoints";
}

// The simulation a run starts from, and the case it runs.
struct RunStart {
  CaseConfig config;  // after a restart, the case stored in the checkpoint
  std::unique_ptr<Simulation> simulation;
  bool restarted = false;
  RunProgress resumed;  // where the checkpoint left off (restarts only)
};

// The case stored in a checkpoint. Its text passed the checkpoint's checksum, so a text that
// does not parse is damage to the checkpoint, not a mistake in the case file on disk (whose
// name the stored text carries). Collective: the meshes it names are read on rank 0 for all.
CaseConfig stored_case(const CheckpointReader& checkpoint, MPI_Comm comm) {
  const CheckpointCase& stored = checkpoint.source();
  try {
    return parse_case_text(stored.text, stored.file, comm);
  } catch (const CaseError& e) {
    std::string problem = e.what();
    const std::string named = stored.file + ": ";
    if (problem.rfind(named, 0) == 0) problem.erase(0, named.size());
    throw std::runtime_error(checkpoint.path() +
                             ": damaged checkpoint: the case text stored "
                             "in it (read from " +
                             stored.file + ") is not a valid case: " + problem);
  }
}

// Collective. The case's initial state, or the checkpoint's that options.restart names. A
// restart runs the case stored in the checkpoint (so that the physics cannot change
// half-way), with this command line's options on top.
RunStart start_run(const CaseConfig& case_config, const RunOptions& options, MPI_Comm comm,
                   bool root) {
  RunStart start;
  start.config = with_options(case_config, options);
  if (options.restart.empty()) {
    start.simulation = std::make_unique<Simulation>(start.config, comm);
    return start;
  }
  CheckpointReader checkpoint(comm, find_checkpoint(comm, checkpoint_directory(start.config),
                                                    options.restart));
  const CheckpointCase& stored = checkpoint.source();
  start.config = with_options(stored_case(checkpoint, comm), options);
  if (root && stored.text != case_config.text)
    std::fprintf(stderr,
                 "warning: %s differs from the case stored in %s (read from %s); the run "
                 "continues with the stored case\n",
                 case_config.file.c_str(), checkpoint.path().c_str(), stored.file.c_str());
  start.simulation = restore_simulation(start.config, checkpoint, comm);
  start.restarted = true;
  start.resumed = checkpoint.progress();
  if (root && !options.quiet)
    std::printf("dunesim: restarting from %s (t = %.6g s, step %lld, written by %d ranks)\n",
                checkpoint.path().c_str(), start.resumed.time, (long long)start.resumed.steps,
                checkpoint.ranks());
  return start;
}

// Why PETSc's options database holds options that nothing read: "" when it read them all.
std::string never_read_problem(const std::string& options) {
  std::string names;
  for (const std::string& name : petsc_options_never_read(options))
    names += (names.empty() ? "" : ", ") + name;
  if (names.empty()) return "";
  return "PETSc never read " + names +
         " (misspelt, or not an option of the pressure solver as it is configured)";
}

// Collective; once the pressure solver has set itself up and solved. PETSc skips an option
// that nothing asks for without a word, so a misspelt one ("-ksp_typo gmres") would change
// nothing unseen: every option of the command line and of the case must have been read.
void check_petsc_options_were_read(const CaseConfig& config, const RunOptions& options,
                                   MPI_Comm comm) {
  const RankError command_line =
      first_error_on_any_rank(comm, never_read_problem(options.petsc_options));
  if (command_line.failed())
    throw UsageError("--petsc \"" + options.petsc_options + "\": " + command_line.message);
  const RankError of_case =
      first_error_on_any_rank(comm, never_read_problem(config.pressure.petsc_options));
  if (of_case.failed()) throw CaseError(config.file, "pressure.petsc_options", of_case.message);
}

// Simulated times closer than this count as equal (end of run, output times).
double time_tolerance(const CaseConfig& config) { return 1e-9 * config.end_time; }

// Before the end time and, with max_steps, before that many steps.
bool run_continues(const Simulation& sim, const CaseConfig& config) {
  return sim.time() < config.end_time - time_tolerance(config) &&
         (config.max_steps == 0 || sim.steps() < config.max_steps);
}

// Output times: every `interval` of simulated time, or every step when it is not positive.
// They are reached by the same additions as in an uninterrupted run, so that a restarted run
// lands on the same output times and takes the same steps.
class OutputSchedule {
 public:
  OutputSchedule(const CaseConfig& config, double now)
      : interval_(config.output.interval), eps_(time_tolerance(config)), next_(interval_) {
    move_past(now);
  }
  // The step dt, shortened to land exactly on the next output time, so that frames are
  // evenly spaced in simulated time.
  double clip(double now, double dt) const {
    return interval_ > 0 && now + dt > next_ - eps_ ? next_ - now : dt;
  }
  // Whether a frame is due at `now`; if so, the next output time moves past it.
  bool due(double now) {
    if (interval_ > 0 && now < next_ - eps_) return false;
    move_past(now);
    return true;
  }

 private:
  // Validation keeps the frames to kMaxOutputFrames (output_schedule_problem), so this ends;
  // the count guards cases built in code (tests, benchmarks), which skip validation.
  void move_past(double now) {
    for (int64_t added = 0; interval_ > 0 && next_ <= now + eps_; ++added) {
      if (added > kMaxOutputFrames)
        throw std::runtime_error("output schedule: more than " +
                                 std::to_string(kMaxOutputFrames) +
                                 " frames to reach t = " + std::to_string(now) +
                                 " s at output.interval = " + std::to_string(interval_) + " s");
      next_ += interval_;
    }
  }
  double interval_, eps_, next_;
};

// Checkpoints every so many steps, every so many wall-clock seconds, and when a stop signal
// arrived ([checkpoint] in the case).
class CheckpointPolicy {
 public:
  CheckpointPolicy(const CheckpointSpec& spec, bool root)
      : spec_(spec), root_(root), last_(std::chrono::steady_clock::now()) {}
  // Collective: every rank must take the same decision at the same step, and only rank 0's
  // clock counts.
  bool due(const Topology& topo, bool stopping, int64_t steps) const {
    const double seconds = spec_.interval_seconds;
    const bool time_due =
        seconds > 0 && any_rank(topo, root_ && std::chrono::duration<double>(
                                                   std::chrono::steady_clock::now() - last_)
                                                       .count() >= seconds);
    const int64_t every = spec_.interval_steps;
    return stopping || time_due || (every > 0 && steps % every == 0);
  }
  void written() { last_ = std::chrono::steady_clock::now(); }

 private:
  CheckpointSpec spec_;
  bool root_;
  std::chrono::steady_clock::time_point last_;
};

// Wall-clock time since the run loop started, and a progress line on rank 0 at most every
// 2 s (none with --quiet).
class Progress {
 public:
  Progress(bool print, double start_time, double end_time)
      : print_(print),
        start_time_(start_time),
        end_time_(end_time),
        start_(std::chrono::steady_clock::now()),
        last_print_(start_) {}
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void after_step(const Simulation& sim, double dt) {
    const auto now = std::chrono::steady_clock::now();
    if (!print_ || std::chrono::duration<double>(now - last_print_).count() <= 2.0) return;
    last_print_ = now;
    const double wall = elapsed();
    const double eta = sim.time() > start_time_
                           ? wall * (end_time_ - sim.time()) / (sim.time() - start_time_)
                           : 0;
    std::printf("t = %.4f s  step %lld  dt = %.3e s  pressure its %d  wall %s  ETA %s\n",
                sim.time(), (long long)sim.steps(), dt, sim.last_pressure_solve().iterations,
                format_duration(wall).c_str(), format_duration(eta).c_str());
    std::fflush(stdout);
  }

 private:
  bool print_;
  double start_time_, end_time_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

// Collective. The frame of now: the particles and, with `grid_fields`, the pressure and a
// fluid mask (1 in fluid cells, 0 in air and solid).
void write_frame(FrameWriter& writer, Simulation& sim, bool grid_fields) {
  auto t = sim.clock().time(kWriteFrame);
  std::vector<GridFieldView> fields;
  Array3<double> fluid_mask;
  if (grid_fields) {
    const Topology& topo = sim.topology();
    Box owned = topo.owned_cells(topo.rank());
    const Array3<uint8_t>& type = sim.grid().cell_type;
    fluid_mask.reset(type.box(), Stagger::Cell, 0.0);
    for (size_t n = 0; n < type.size(); ++n) fluid_mask.data()[n] = type.data()[n] == kFluid;
    fields.push_back({"pressure", &sim.grid().pressure, owned});
    fields.push_back({"fluid_mask", &fluid_mask, owned});
  }
  writer.write(sim.particles(), sim.time(), sim.steps(), fields);
}

#if DUNESIM_WITH_CATALYST
// Collective. In situ visualisation; its cost is the timing report's catalyst stage.
// `is_sand[m]`: whether material m is sand, for the material_fraction channel.
void coprocess(CatalystAdaptor& catalyst, Simulation& sim, const std::vector<uint8_t>& is_sand) {
  auto t = sim.clock().time(kCatalyst);
  const Topology& topo = sim.topology();
  const Box owned = topo.owned_cells(topo.rank());
  const GridFieldView pressure{"pressure", &sim.grid().pressure, owned};
  MaterialFractions fractions;
  const auto material_fraction_fields = [&] {
    material_fractions(sim.particles(), is_sand, topo, sim.halo(), sim.grid().dx, fractions);
    return std::vector<GridFieldView>{{"sand", &fractions.sand, owned},
                                      {"water", &fractions.water, owned}};
  };
  catalyst.coprocess(sim.particles(), pressure, material_fraction_fields, sim.time(),
                     sim.steps());
}

// Whether each material is sand (1) or water (0).
std::vector<uint8_t> sand_materials(const CaseConfig& config) {
  std::vector<uint8_t> is_sand;
  for (const MaterialSpec& m : config.materials) is_sand.push_back(m.kind == MaterialKind::Sand);
  return is_sand;
}
#endif

// Each material's porosity (0 for those that hold no water), for saturation in output.
std::vector<double> material_porosity(const CaseConfig& config) {
  std::vector<double> porosity;
  for (const MaterialSpec& m : config.materials) porosity.push_back(m.wet.porosity);
  return porosity;
}

// Collective. The frame series of the run; after a restart it continues the earlier one.
FrameWriter open_frame_series(const RunStart& start, MPI_Comm comm) {
  const CaseConfig& config = start.config;
  const FrameOptions options{config.output.single_precision, config.output.particle_stride};
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  FrameWriter writer(comm, config.output.directory, config.name, run_record_of(config, ranks),
                     material_porosity(config), options);
  if (start.restarted) writer.continue_series(start.resumed.frames_written);
  return writer;
}

#if DUNESIM_WITH_CATALYST
// Collective. In situ visualisation, set up only when the case names Catalyst scripts.
std::unique_ptr<CatalystAdaptor> start_catalyst(const CaseConfig& config, MPI_Comm comm) {
  if (config.catalyst.scripts.empty()) return nullptr;
  CatalystSetup setup;
  setup.comm = comm;
  setup.scripts = config.catalyst.scripts;
  setup.extracts_directory = config.output.directory + "/catalyst";
  setup.global_cells = config.cells;
  setup.cell_size = config.cell_size;
  setup.material_porosity = material_porosity(config);
  setup.particle_stride = config.catalyst.particle_stride;
  setup.channels = config.catalyst.channels;
  return std::make_unique<CatalystAdaptor>(setup);
}
#endif

// Collective (it counts the particles); rank 0 prints the run's size when `print` is set.
void announce_run(const CaseConfig& config, const Simulation& sim, bool print) {
  const Topology& topo = sim.topology();
  const int64_t total_particles = global_sum(topo, int64_t(sim.particles().size()));
  if (print)
    std::printf("dunesim: case '%s', %lld particles, grid %dx%dx%d, %d ranks (%dx%dx%d)\n",
                config.name.c_str(), (long long)total_particles, config.cells[0], config.cells[1],
                config.cells[2], topo.size(), topo.dims()[0], topo.dims()[1], topo.dims()[2]);
}

// The sand model's stress solve over the run, for a model that has one (rigid_plastic): its
// rounds each step, and the steps that stopped at the round limit above the tolerance.
struct SandSolveRecord {
  std::vector<int> rounds;
  int round_limit = 0;
  int64_t unconverged_steps = 0;
  double largest_change = 0;  // left by an unconverged step, over the yield stress
  void after_step(const Simulation& sim) {
    const SandSolveReport& s = sim.last_sand_stats().solve;
    if (s.rounds == 0) return;
    rounds.push_back(s.rounds);
    round_limit = s.round_limit;
    if (s.converged) return;
    ++unconverged_steps;
    largest_change = std::max(largest_change, s.stress_change);
  }
};

// Richards' pore water over the run: each solve's Picard and Krylov iterations (the steps
// between solves have none).
struct PoreWaterRecord {
  std::vector<int> picard, krylov;
  void after_step(const Simulation& sim) {
    const PoreFlowStats& s = sim.last_pore_flow();
    if (s.picard_iterations == 0) return;
    picard.push_back(s.picard_iterations);
    krylov.push_back(s.krylov_iterations);
  }
};

// Collective. Gathers what every rank measured into result.report_path. Steps and simulated
// time are this run's own: a restarted run does not count what the checkpoint had done.
void write_report(MPI_Comm comm, const CaseConfig& config, Simulation& sim,
                  const RunResult& result, const RunProgress& resumed,
                  std::vector<int> pressure_iterations, SandSolveRecord sand_solve,
                  PoreWaterRecord pore_water) {
  RunTimings timings;
  timings.case_name = config.name;
  timings.steps = result.steps - resumed.steps;
  timings.simulated_time = result.simulated_time - resumed.time;
  timings.wall_seconds = result.wall_seconds;
  timings.stage_seconds = sim.clock().totals();
  timings.stage_bytes = sim.clock().bytes();
  timings.pressure_iterations = std::move(pressure_iterations);
  timings.sand_solve_rounds = std::move(sand_solve.rounds);
  timings.sand_solve_round_limit = sand_solve.round_limit;
  timings.sand_solve_unconverged_steps = sand_solve.unconverged_steps;
  timings.sand_solve_largest_change = sand_solve.largest_change;
  timings.pore_picard_iterations = std::move(pore_water.picard);
  timings.pore_krylov_iterations = std::move(pore_water.krylov);
  timings.particles = int64_t(sim.particles().size());
  timings.halo_bytes_sent = sim.halo().bytes_sent();
  timings.migrated_particles_sent = sim.migrated_particles_sent();
  timings.migration_bytes_sent = sim.migration_bytes_sent();
  timings.peak_rss_bytes = peak_rss_bytes();
  for (const auto& stage : sim.clock().peak_rises())
    timings.stage_peak_rise.push_back(stage.second);
  timings.peak_rise_outside_stages = sim.clock().peak_rise_outside_stages();
  timings.imbalance_history = sim.imbalance_history();
  write_timing_report(comm, result.report_path, timings);
}

// Rank 0's last line: how the run ended.
void print_end(const RunResult& result, bool quiet) {
  if (result.unconverged_sand_steps > 0)
    std::fprintf(stderr,
                 "dunesim: warning: the sand's stress solve stopped at its %d-round limit "
                 "before its tolerance in %lld of %lld steps; %s has each step's rounds and "
                 "the largest change left\n",
                 result.sand_solve_round_limit, (long long)result.unconverged_sand_steps,
                 (long long)result.steps, result.report_path.c_str());
  if (result.stopped)
    std::fprintf(stderr,
                 "dunesim: stopped by a signal at t = %.6g s, step %lld; checkpoint %s "
                 "(continue with --restart latest)\n",
                 result.simulated_time, (long long)result.steps, result.last_checkpoint.c_str());
  else if (!quiet)
    std::printf("dunesim: done, %lld steps to t = %.4f s in %s; report %s\n",
                (long long)result.steps, result.simulated_time,
                format_duration(result.wall_seconds).c_str(), result.report_path.c_str());
}

// A stop signal before the first step: nothing was computed, so there is nothing to save,
// and nothing is written (the output directory is left as it was).
RunResult stopped_during_start_up(const Simulation& sim, const RunOptions& options, bool root) {
  RunResult result;
  result.stopped = true;
  result.steps = sim.steps();
  result.simulated_time = sim.time();
  if (root)
    std::fprintf(stderr,
                 "dunesim: stopped by a signal during start-up, before step %lld: "
                 "nothing to save, no checkpoint written (%s)\n",
                 (long long)sim.steps() + 1,
                 options.restart.empty() ? "run the same command again"
                                         : "continue from the same checkpoint");
  return result;
}

}  // namespace

RunResult run_case(const CaseConfig& case_config, const RunOptions& options, MPI_Comm comm,
                   const StopSignals& stop_signals) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const bool root = rank == 0;
  RunStart start = start_run(case_config, options, comm, root);
  const CaseConfig& config = start.config;
  Simulation& sim = *start.simulation;
  const Topology& topo = sim.topology();
  if (any_rank(topo, stop_signals.requested()))
    return stopped_during_start_up(sim, options, root);
  FrameWriter writer = open_frame_series(start, comm);
  CheckpointWriter checkpoints(comm, checkpoint_directory(config), config.checkpoint.keep,
                               [&] { return stop_signals.requested(); });
#if DUNESIM_WITH_CATALYST
  std::unique_ptr<CatalystAdaptor> catalyst = start_catalyst(config, comm);
#endif
  announce_run(config, sim, root && !options.quiet);

  // After a restart the frame of this moment, if one was due, was written before the checkpoint.
  if (!start.restarted && options.write_frames)
    write_frame(writer, sim, config.output.grid_fields);
  OutputSchedule outputs(config, sim.time());
  CheckpointPolicy checkpoint_policy(config.checkpoint, root);
  Progress progress(root && !options.quiet, sim.time(), config.end_time);
  double last_dt = start.resumed.last_dt;
  std::vector<int> iterations;
  SandSolveRecord sand_solve;
  PoreWaterRecord pore_water;
  RunResult result;
  bool petsc_options_checked = false;

  while (run_continues(sim, config)) {
    const double dt =
        outputs.clip(sim.time(), std::min(sim.stable_dt(), config.end_time - sim.time()));
    try {
      sim.step(dt);
    } catch (const PressureSolveDiverged& e) {
      throw std::runtime_error(std::string(e.what()) + diverged_solve_causes(config, dt));
    }
    last_dt = dt;
    if (!petsc_options_checked && sim.last_pressure_solve().unknowns > 0) {
      check_petsc_options_were_read(config, options, comm);
      petsc_options_checked = true;
    }
    iterations.push_back(sim.last_pressure_solve().iterations);
    sand_solve.after_step(sim);
    pore_water.after_step(sim);
#if DUNESIM_WITH_CATALYST
    if (catalyst && sim.steps() % config.catalyst.interval_steps == 0)
      coprocess(*catalyst, sim, sand_materials(config));
#endif
    if (outputs.due(sim.time()) && options.write_frames)
      write_frame(writer, sim, config.output.grid_fields);
    // Signals may reach the ranks at different moments: they agree on stopping.
    result.stopped = any_rank(topo, stop_signals.requested());
    if (checkpoint_policy.due(topo, result.stopped, sim.steps())) {
      auto t = sim.clock().time(kWriteCheckpoint);
      result.last_checkpoint =
          write_checkpoint(checkpoints, sim, last_dt, writer.frames_written());
      checkpoint_policy.written();
    }
    if (result.stopped) break;
    progress.after_step(sim, dt);
  }

  result.steps = sim.steps();
  result.simulated_time = sim.time();
  result.wall_seconds = progress.elapsed();
  result.particles = global_sum(topo, int64_t(sim.particles().size()));
  result.report_path = config.output.directory + "/timing.json";
  result.unconverged_sand_steps = sand_solve.unconverged_steps;
  result.sand_solve_round_limit = sand_solve.round_limit;
  write_report(comm, config, sim, result, start.resumed, std::move(iterations),
               std::move(sand_solve), std::move(pore_water));
  if (root) print_end(result, options.quiet);
  return result;
}

}  // namespace dunesim
