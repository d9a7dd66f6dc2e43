#include "src/run_driver.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "decomposition/reductions.hpp"
#include "io/frame_writer.hpp"
#include "io/timing_report.hpp"
#include "src/simulation.hpp"

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

}  // namespace

RunResult run_case(const CaseConfig& case_config, const RunOptions& options, MPI_Comm comm) {
  CaseConfig config = case_config;
  if (!options.output_directory.empty()) config.output.directory = options.output_directory;
  if (options.max_steps >= 0) config.max_steps = options.max_steps;
  if (options.end_time > 0) config.end_time = options.end_time;

  Simulation sim(config, comm);
  const Topology& topo = sim.topology();
  const bool root = topo.rank() == 0;
  std::vector<std::string> material_names;
  for (const MaterialSpec& m : config.materials) material_names.push_back(m.name);
  FrameWriter writer(comm, config.output.directory, config.name, material_names, config.cells,
                     config.cell_size);

  auto write_frame = [&]() {
    if (!options.write_frames) return;
    auto t = sim.clock().time(kOutput);
    std::vector<GridFieldView> fields;
    if (config.output.grid_fields) {
      Box owned = topo.owned_cells(topo.rank());
      fields.push_back({"pressure", &sim.grid().pressure, owned});
      fields.push_back({"fluid_mask", &sim.grid().density, owned});
    }
    writer.write(sim.particles(), sim.time(), sim.steps(), fields);
  };

  const int64_t total_particles = global_sum(topo, int64_t(sim.particles().size()));
  if (root && !options.quiet)
    std::printf("dunesim: case '%s', %lld particles, grid %dx%dx%d, %d ranks (%dx%dx%d)\n",
                config.name.c_str(), (long long)total_particles, config.cells[0],
                config.cells[1], config.cells[2], topo.size(), topo.dims()[0], topo.dims()[1],
                topo.dims()[2]);

  write_frame();
  const double interval = config.output.interval;
  double next_output = interval;
  const double end = config.end_time;
  const double eps = 1e-9 * end;
  std::vector<int> iterations;
  const auto start = std::chrono::steady_clock::now();
  auto last_print = start;
  auto elapsed = [&]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  while (sim.time() < end - eps && (config.max_steps == 0 || sim.steps() < config.max_steps)) {
    double dt = std::min(sim.stable_dt(), end - sim.time());
    // Land exactly on output times so frames are evenly spaced in simulated time.
    if (interval > 0 && sim.time() + dt > next_output - eps) dt = next_output - sim.time();
    sim.step(dt);
    iterations.push_back(sim.last_pressure_solve().iterations);
    bool frame_due = interval <= 0 || sim.time() >= next_output - eps;
    if (frame_due) {
      write_frame();
      while (interval > 0 && next_output <= sim.time() + eps) next_output += interval;
    }
    auto now = std::chrono::steady_clock::now();
    if (root && !options.quiet &&
        std::chrono::duration<double>(now - last_print).count() > 2.0) {
      last_print = now;
      double wall = elapsed();
      double eta = sim.time() > 0 ? wall * (end - sim.time()) / sim.time() : 0;
      std::printf("t = %.4f s  step %lld  dt = %.3e s  pressure its %d  wall %s  ETA %s\n",
                  sim.time(), (long long)sim.steps(), dt, sim.last_pressure_solve().iterations,
                  format_duration(wall).c_str(), format_duration(eta).c_str());
      std::fflush(stdout);
    }
  }

  RunResult result;
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
  write_timing_report(comm, result.report_path, timings);

  if (root && !options.quiet)
    std::printf("dunesim: done, %lld steps to t = %.4f s in %s; report %s\n",
                (long long)result.steps, result.simulated_time,
                format_duration(result.wall_seconds).c_str(), result.report_path.c_str());
  return result;
}

}  // namespace dunesim
