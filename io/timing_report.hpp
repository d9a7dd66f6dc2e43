// The per-run timing report (JSON): seconds per stage, solver iterations, work per rank.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "decomposition/load_balance.hpp"  // ImbalanceCheck

namespace dunesim {

// What one rank measured over a run (or a part of one).
struct RunTimings {
  std::string case_name;
  int64_t steps = 0;
  double simulated_time = 0;  // s
  double wall_seconds = 0;    // s, whole run loop
  // Seconds spent in each stage on this rank, in the order the step runs them.
  std::vector<std::pair<std::string, double>> stage_seconds;
  // Each stage's compulsory memory traffic on this rank, bytes (src/driver/stage_traffic.hpp):
  // the report gives their sum and, over the slowest rank's seconds, GB/s.
  std::vector<double> stage_bytes;
  std::vector<int> pressure_iterations;  // one entry per step
  int64_t particles = 0;                 // on this rank at the end
  int64_t halo_bytes_sent = 0;
  int64_t migrated_particles_sent = 0;
  int64_t migration_bytes_sent = 0;
  int64_t peak_rss_bytes = 0;  // this process
  // How much each stage (in stage_seconds' order) raised this process's peak resident
  // memory, and how much the time outside the stages did (setup and seeding included).
  std::vector<int64_t> stage_peak_rise;
  int64_t peak_rise_outside_stages = 0;
  std::vector<ImbalanceCheck> imbalance_history;  // identical on every rank
  // Rigid-plastic sand only (empty otherwise; identical on every rank): each step's
  // augmented-Lagrangian rounds, their limit, the steps that stopped at it before the
  // tolerance, and the largest stress change such a step was left with (over the yield
  // stress).
  std::vector<int> sand_solve_rounds;
  int sand_solve_round_limit = 0;
  int64_t sand_solve_unconverged_steps = 0;
  double sand_solve_largest_change = 0;
  // Richards' pore water only (empty otherwise; identical on every rank): each solve's
  // Picard iterations, and its Krylov iterations over them.
  std::vector<int> pore_picard_iterations;
  std::vector<int> pore_krylov_iterations;
};

// Collective. Rank 0 gathers every rank's figures and writes them to `path` as JSON:
// per stage the max / mean / min seconds over ranks, per rank particles and bytes, the
// pressure iterations (and rigid-plastic sand's solve rounds, the pore water's iterations), total
// particle-steps per second and the load imbalance (max/mean).
void write_timing_report(MPI_Comm comm, const std::string& path, const RunTimings& local);

}  // namespace dunesim
