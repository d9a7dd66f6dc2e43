#include "src/run_driver.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "decomposition/reductions.hpp"
#include "io/checkpoint.hpp"
#include "io/frame_writer.hpp"
#include "io/timing_report.hpp"
#include "src/simulation.hpp"
#include "src/simulation_checkpoint.hpp"
#include "src/stop_signals.hpp"

#if DUNESIM_WITH_CATALYST
#include "io/catalyst_adaptor.hpp"
#endif

namespace dunesim {

namespace {

int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

std::string format_duration(double seconds) {
  long s = long(std::lround(seconds));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
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

}  // namespace

RunResult run_case(const CaseConfig& case_config, const RunOptions& options, MPI_Comm comm) {
  CaseConfig config = with_options(case_config, options);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const bool root = rank == 0;

  // A restart runs the case stored in the checkpoint (so that the physics cannot change
  // half-way), with this command line's options on top.
  std::unique_ptr<Simulation> simulation;
  RunProgress resumed;
  if (!options.restart.empty()) {
    CheckpointReader checkpoint(
        comm, find_checkpoint(comm, checkpoint_directory(config), options.restart));
    const CheckpointCase& stored = checkpoint.source();
    if (root && stored.text != case_config.text)
      std::fprintf(stderr,
                   "warning: %s differs from the case stored in %s (read from %s); the run "
                   "continues with the stored case\n",
                   case_config.file.c_str(), checkpoint.path().c_str(), stored.file.c_str());
    config = with_options(parse_case_text(stored.text, stored.file), options);
    simulation = restore_simulation(config, checkpoint, comm);
    resumed = checkpoint.progress();
    if (root && !options.quiet)
      std::printf("dunesim: restarting from %s (t = %.6g s, step %lld, written by %d ranks)\n",
                  checkpoint.path().c_str(), resumed.time, (long long)resumed.steps,
                  checkpoint.ranks());
  } else {
    simulation = std::make_unique<Simulation>(config, comm);
  }
  Simulation& sim = *simulation;
  const bool restarted = !options.restart.empty();
  const Topology& topo = sim.topology();
  std::vector<std::string> material_names;
  std::vector<double> material_porosity;
  for (const MaterialSpec& m : config.materials) {
    material_names.push_back(m.name);
    material_porosity.push_back(m.wet.porosity);
  }
  FrameWriter writer(comm, config.output.directory, config.name, material_names, config.cells,
                     config.cell_size, material_porosity);
  if (restarted) writer.continue_series(resumed.frames_written);
  CheckpointWriter checkpoints(comm, checkpoint_directory(config), config.checkpoint.keep);
  StopSignals stop_signals;
#if DUNESIM_WITH_CATALYST
  // In situ visualisation: set up only when the case names Catalyst scripts.
  std::unique_ptr<CatalystAdaptor> catalyst;
  if (!config.catalyst.scripts.empty())
    catalyst = std::make_unique<CatalystAdaptor>(comm, config.catalyst.scripts,
                                                 config.output.directory + "/catalyst",
                                                 config.cells, config.cell_size);
#endif

  auto write_frame = [&]() {
    if (!options.write_frames) return;
    auto t = sim.clock().time(kOutput);
    std::vector<GridFieldView> fields;
    Array3<double> fluid_mask;  // 1 in fluid cells, 0 in air and solid
    if (config.output.grid_fields) {
      Box owned = topo.owned_cells(topo.rank());
      const Array3<uint8_t>& type = sim.grid().cell_type;
      fluid_mask.reset(type.box(), Stagger::Cell, 0.0);
      for (size_t n = 0; n < type.size(); ++n) fluid_mask.data()[n] = type.data()[n] == kFluid;
      fields.push_back({"pressure", &sim.grid().pressure, owned});
      fields.push_back({"fluid_mask", &fluid_mask, owned});
    }
    writer.write(sim.particles(), sim.time(), sim.steps(), fields);
  };

  const int64_t total_particles = global_sum(topo, int64_t(sim.particles().size()));
  if (root && !options.quiet)
    std::printf("dunesim: case '%s', %lld particles, grid %dx%dx%d, %d ranks (%dx%dx%d)\n",
                config.name.c_str(), (long long)total_particles, config.cells[0],
                config.cells[1], config.cells[2], topo.size(), topo.dims()[0], topo.dims()[1],
                topo.dims()[2]);

  // After a restart the frame of this moment, if one was due, was written before the checkpoint.
  if (!restarted) write_frame();
  const double interval = config.output.interval;
  const double end = config.end_time;
  const double eps = 1e-9 * end;
  // The first output time after now, by the same additions as in an uninterrupted run, so
  // that a restarted run lands on the same output times and takes the same steps.
  double next_output = interval;
  while (interval > 0 && next_output <= sim.time() + eps) next_output += interval;
  double last_dt = resumed.last_dt;
  std::vector<int> iterations;
  const auto start = std::chrono::steady_clock::now();
  const double start_time = sim.time();
  auto last_print = start;
  auto elapsed = [&]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto last_checkpoint = start;
  std::string checkpoint_path;
  bool stopped = false;

  while (sim.time() < end - eps && (config.max_steps == 0 || sim.steps() < config.max_steps)) {
    double dt = std::min(sim.stable_dt(), end - sim.time());
    // Land exactly on output times so frames are evenly spaced in simulated time.
    if (interval > 0 && sim.time() + dt > next_output - eps) dt = next_output - sim.time();
    sim.step(dt);
    last_dt = dt;
    iterations.push_back(sim.last_pressure_solve().iterations);
#if DUNESIM_WITH_CATALYST
    if (catalyst && sim.steps() % config.catalyst.interval_steps == 0) {
      // In situ visualisation is output: its cost shows in the timing report's output stage.
      auto t = sim.clock().time(kOutput);
      const GridFieldView pressure{"pressure", &sim.grid().pressure,
                                   topo.owned_cells(topo.rank())};
      catalyst->coprocess(sim.particles(), pressure, sim.time(), sim.steps());
    }
#endif
    bool frame_due = interval <= 0 || sim.time() >= next_output - eps;
    if (frame_due) {
      write_frame();
      while (interval > 0 && next_output <= sim.time() + eps) next_output += interval;
    }
    // Every rank must take the same decision at the same step: signals may reach the ranks
    // at different moments, and only rank 0's clock counts.
    stopped = any_rank(topo, stop_signals.requested());
    const double seconds = config.checkpoint.interval_seconds;
    const bool time_due =
        seconds > 0 &&
        any_rank(topo, root && std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - last_checkpoint)
                                       .count() >= seconds);
    const int64_t every = config.checkpoint.interval_steps;
    if (stopped || time_due || (every > 0 && sim.steps() % every == 0)) {
      auto t = sim.clock().time(kOutput);
      checkpoint_path = write_checkpoint(checkpoints, sim, last_dt, writer.frames_written());
      last_checkpoint = std::chrono::steady_clock::now();
    }
    if (stopped) break;
    auto now = std::chrono::steady_clock::now();
    if (root && !options.quiet &&
        std::chrono::duration<double>(now - last_print).count() > 2.0) {
      last_print = now;
      double wall = elapsed();
      double eta = sim.time() > start_time
                       ? wall * (end - sim.time()) / (sim.time() - start_time) : 0;
      std::printf("t = %.4f s  step %lld  dt = %.3e s  pressure its %d  wall %s  ETA %s\n",
                  sim.time(), (long long)sim.steps(), dt, sim.last_pressure_solve().iterations,
                  format_duration(wall).c_str(), format_duration(eta).c_str());
      std::fflush(stdout);
    }
  }

  RunResult result;
  result.stopped = stopped;
  result.last_checkpoint = checkpoint_path;
  result.steps = sim.steps();
  result.simulated_time = sim.time();
  result.wall_seconds = elapsed();
  result.particles = global_sum(topo, int64_t(sim.particles().size()));
  result.report_path = config.output.directory + "/timing.json";

  RunTimings timings;
  timings.case_name = config.name;
  timings.steps = result.steps;
  timings.simulated_time = result.simulated_time;
  timings.wall_seconds = result.wall_seconds;
  timings.stage_seconds = sim.clock().totals();
  timings.pressure_iterations = iterations;
  timings.particles = int64_t(sim.particles().size());
  timings.halo_bytes_sent = sim.halo().bytes_sent();
  timings.migrated_particles_sent = sim.migrated_particles_sent();
  timings.migration_bytes_sent = sim.migration_bytes_sent();
  timings.peak_rss_bytes = peak_rss_bytes();
  timings.imbalance_history = sim.imbalance_history();
  write_timing_report(comm, result.report_path, timings);

  if (root && stopped)
    std::fprintf(stderr, "dunesim: stopped by a signal at t = %.6g s, step %lld; checkpoint %s "
                 "(continue with --restart latest)\n", sim.time(), (long long)sim.steps(),
                 checkpoint_path.c_str());
  else if (root && !options.quiet)
    std::printf("dunesim: done, %lld steps to t = %.4f s in %s; report %s\n",
                (long long)result.steps, result.simulated_time,
                format_duration(result.wall_seconds).c_str(), result.report_path.c_str());
  return result;
}

}  // namespace dunesim
