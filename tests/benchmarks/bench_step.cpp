// Benchmark of the distributed step on a real case at a chosen resolution (not a test).
//
//   mpiexec -n 2 bench_step CASE --cell-size 0.00833 --steps 30 --warmup 10 [--as-water|--dry]
//
// Prints particle-steps per second, seconds per step for each stage (max over ranks),
// pressure iterations, and peak memory per particle.
#include <mpi.h>
#include <petscsys.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "decomposition/reductions.hpp"
#include "io/case_config.hpp"
#include "src/driver/large_allocations.hpp"
#include "src/driver/simulation.hpp"

using namespace dunesim;

namespace {

// Resident set size now, from /proc.
int64_t current_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      int64_t kib;
      status >> kib;
      return kib * 1024;
    }
    std::getline(status, key);
  }
  return 0;
}

// The node's memory bandwidth as STREAM's triad measures it (a = b + s c over arrays far
// larger than any cache, on every rank at once; the best of 5): all ranks' bytes (two 8-byte
// reads and a write per element) over the slowest rank's seconds, GB/s.
double stream_triad_gb_per_s(const Topology& topo) {
  constexpr size_t kElements = size_t(1) << 25;  // 256 MiB an array
  std::vector<double> a(kElements, 0.0), b(kElements, 1.0), c(kElements, 2.0);
  double best = 1e300;
  for (int repeat = 0; repeat < 5; ++repeat) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    for (size_t n = 0; n < kElements; ++n) a[n] = b[n] + 3.0 * c[n];
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, global_max(topo, seconds));
  }
  if (a[kElements / 2] != 7.0) std::abort();  // the loop ran
  return global_sum(topo, 3.0 * sizeof(double) * kElements) / best / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dunesim step benchmark"};
  std::string case_file;
  double cell_size = 0;
  int steps = 30, warmup = 10;
  std::string petsc;
  app.add_option("case", case_file)->required();
  app.add_option("--cell-size", cell_size, "override the case's cell size (m)");
  app.add_option("--steps", steps, "measured steps");
  app.add_option("--warmup", warmup, "steps before measuring (the flow gets going)");
  app.add_option("--petsc", petsc, "PETSc options, e.g. \"-pc_type gamg\"");
  bool as_water = false, dry = false;
  app.add_flag("--as-water", as_water,
               "treat every material as water (same particles, no sand stages)");
  app.add_flag("--dry", dry, "sand holds no water (same particles, no wet-sand stages)");
  bool stage_barriers = false;
  app.add_flag(
      "--stage-barriers", stage_barriers,
      "wait for all ranks before each stage and report the waits apart (load imbalance)");
  bool stream = false;
  app.add_flag("--stream", stream,
               "only measure the node's memory bandwidth (STREAM's triad on every rank), to set "
               "the stages' GB/s against, and run no step (its arrays would count in the "
               "memory figures)");
  CLI11_PARSE(app, argc, argv);

  MPI_Init(&argc, &argv);
  PetscInitializeNoArguments();
  dunesim::map_large_allocations();
  {
    CaseConfig config = load_case(case_file, MPI_COMM_WORLD);
    if (cell_size > 0) set_cell_size(config, cell_size);
    if (!petsc.empty()) config.pressure.petsc_options = petsc;
    if (as_water)
      for (MaterialSpec& m : config.materials) m.kind = MaterialKind::Water;
    if (dry)
      for (MaterialSpec& m : config.materials) m.wet = WetSandSpec{};
    if (stream) {
      const Topology topo(MPI_COMM_WORLD, config.cells, 1);
      const double bandwidth = stream_triad_gb_per_s(topo);
      if (topo.rank() == 0)
        std::printf("stream_triad %.1f GB/s (%d ranks; 24 bytes an element, no write-allocate)\n",
                    bandwidth, topo.size());
      PetscFinalize();
      MPI_Finalize();
      return 0;
    }
    const int64_t rss_before = current_rss_bytes();
    Simulation sim(config, MPI_COMM_WORLD);
    const Topology& topo = sim.topology();
    const bool root = topo.rank() == 0;
    const int64_t particles = global_sum(topo, int64_t(sim.particles().size()));

    if (stage_barriers) sim.clock().synchronise_stages([&topo] { wait_for_all_ranks(topo); });
    for (int s = 0; s < warmup; ++s) sim.step(sim.stable_dt());
    sim.clock().reset();
    const double measured_from = sim.time();
    double iterations = 0, max_iterations = 0, unknowns = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      sim.step(sim.stable_dt());
      iterations += sim.last_pressure_solve().iterations;
      max_iterations = std::max(max_iterations, double(sim.last_pressure_solve().iterations));
      unknowns += double(sim.last_pressure_solve().unknowns);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const int64_t local = int64_t(sim.particles().size());
    const double rss_now = double(current_rss_bytes());
    const double state_bytes = global_sum(topo, rss_now - double(rss_before));
    const double peak_bytes = global_sum(topo, double(peak_rss_bytes()));
    const double peak_added_bytes = global_sum(topo, double(peak_rss_bytes() - rss_before));
    const double imbalance = global_max(topo, double(local)) / (double(particles) / topo.size());
    if (root) {
      std::printf(
          "bench case=%s ranks=%d layout=%dx%dx%d grid=%dx%dx%d particles=%lld steps=%d "
          "(after %d warm-up) simulated=%.4f s\n",
          config.name.c_str(), topo.size(), topo.dims()[0], topo.dims()[1], topo.dims()[2],
          config.cells[0], config.cells[1], config.cells[2], (long long)particles, steps, warmup,
          sim.time());
      std::printf("particle_steps_per_second %.4g\n", double(particles) * steps / wall);
      std::printf("seconds_per_step %.4f\n", wall / steps);
    }
    double wet_stages = 0;      // the stages only wet sand runs
    double imbalance_cost = 0;  // sum over stages of (slowest rank - mean): time lost waiting
    const std::vector<double>& stage_bytes = sim.clock().bytes();
    size_t stage = 0;
    for (const auto& [name, seconds] : sim.clock().totals()) {
      double worst = global_max(topo, seconds), mean = global_sum(topo, seconds) / topo.size();
      imbalance_cost += worst - mean;
      if (name == "darcy_drag" || name == "absorb_water" || name == "percolate_water" ||
          name == "seep_water")
        wet_stages += worst;
      // All ranks' compulsory traffic over the slowest rank's seconds: the node's bandwidth.
      const double bytes = global_sum(topo, stage_bytes[stage++]);
      if (root) {
        std::printf("stage %-28s %.4f s/step max, %.4f mean, %4.1f%% of the step", name.c_str(),
                    worst / steps, mean / steps, 100.0 * worst / wall);
        if (bytes > 0 && worst > 0)
          std::printf(", %6.1f bytes/particle, %5.1f GB/s", bytes / (double(particles) * steps),
                      bytes / worst / 1e9);
        std::printf("\n");
      }
    }
    if (stage_barriers && root)
      std::printf(
          "stage_imbalance_cost %.4f s/step (sum over stages of the slowest rank's "
          "seconds minus the mean; the stages are synchronised)\n",
          imbalance_cost / steps);
    if (root && wet_stages > 0)
      std::printf(
          "wet_sand_stages %.4f s/step, %.1f%% of the step (darcy_drag, absorb_water, "
          "percolate_water, seep_water)\n",
          wet_stages / steps, 100.0 * wet_stages / wall);
    if (root) {
      std::printf("pressure_iterations mean %.1f max %.0f (fluid cells %.0f)\n",
                  iterations / steps, max_iterations, unknowns / steps);
      std::printf(
          "bytes_per_particle %.1f (memory the run holds after its steps) / %.1f (peak "
          "the run added) / %.1f (peak RSS of all ranks, incl. MPI and PETSc)\n",
          state_bytes / particles, peak_added_bytes / particles, peak_bytes / particles);
      std::printf("particle_imbalance %.3f (max/mean per rank)\n", imbalance);
      std::printf("wall_seconds_per_simulated_second %.2f (over the measured steps)\n",
                  wall / (sim.time() - measured_from));
      if (sim.last_sand_stats().sand_cells > 0) {
        const Simulation::SandStats& s = sim.last_sand_stats();
        std::printf(
            "sand cells %lld: rigid %lld, yielding %lld; clusters %lld, largest %lld cells "
            "(last step)\n",
            (long long)s.sand_cells, (long long)s.rigid_cells, (long long)s.yielding_cells,
            (long long)s.clusters, (long long)s.largest_cluster_cells);
        if (s.solve.rounds > 0)
          std::printf(
              "sand stress solve: %d rounds, %d CG iterations, stress change %.1e "
              "(last step)\n",
              s.solve.rounds, s.solve.iterations, s.solve.stress_change);
      }
    }
  }
  PetscFinalize();
  MPI_Finalize();
  return 0;
}
