// The JSON timing report: rank 0 gathers what every rank measured and writes one file.
#include "io/timing_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "decomposition/node_memory.hpp"
#include "io/file_replacement.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

// Keys stay in the order they are added, the order the report has always had.
using Json = nlohmann::ordered_json;

// Strings as JSON; bytes that are not UTF-8 become U+FFFD instead of an exception.
std::string json_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Appends `value` at nesting `depth` in the report's layout: one line per top-level key and
// per row of a table (an array of objects), everything else on one line, so that a long
// per-step list stays one line (nlohmann's dump() breaks every value or none). Numbers are
// written in their shortest exact form, and JSON has no inf or nan: a broken measurement
// shows as null rather than an unreadable file.
void append_json(std::string& out, const Json& value, int depth) {
  if (value.is_number_float()) {
    const double number = value.get<double>();
    out += std::isfinite(number) ? fmt::format("{}", number) : "null";
    return;
  }
  if (!value.is_structured()) {
    out += json_text(value);
    return;
  }
  const bool object = value.is_object();
  const bool one_per_line =
      depth == 0 || (value.is_array() && !value.empty() && value.front().is_object());
  const std::string indent(size_t(2 * (depth + 1)), ' ');
  out += object ? '{' : '[';
  for (auto entry = value.begin(); entry != value.end(); ++entry) {
    if (entry != value.begin()) out += ',';
    if (one_per_line)
      out += '\n' + indent;
    else if (entry != value.begin())
      out += ' ';
    if (object) out += json_text(entry.key()) + ": ";
    append_json(out, entry.value(), depth + 1);
  }
  if (one_per_line && !value.empty()) out += '\n' + std::string(size_t(2 * depth), ' ');
  out += object ? '}' : ']';
}

// FNV-1a over the stage names, to check cheaply that every rank timed the same stages.
uint64_t stage_list_hash(const RunTimings& timings) {
  uint64_t hash = 1469598103934665603ull;
  for (const auto& stage : timings.stage_seconds) {
    for (unsigned char c : stage.first + '\0') { hash = (hash ^ c) * 1099511628211ull; }
  }
  return hash;
}

// The per-rank integers gathered to rank 0, in this order.
enum RankCounter {
  kParticles,
  kHaloBytes,
  kMigratedParticles,
  kMigrationBytes,
  kPeakRss,
  kPeakRiseOutsideStages,
  kCounters
};

// A count taken every step: the counts, their mean and their largest.
Json per_step_summary(const std::vector<int>& counts) {
  int largest = 0;
  double mean = 0;
  for (int count : counts) {
    largest = std::max(largest, count);
    mean += count;
  }
  if (!counts.empty()) mean /= double(counts.size());
  return {{"per_step", counts}, {"mean", mean}, {"max", largest}};
}

struct StageSummary {
  double max = 0, mean = 0, min = 0;
};

// One rank's peak-memory rises: outside the stages, then each stage that raised it.
Json peak_rises(const RunTimings& local, const int64_t* counters, const int64_t* stage_rises) {
  Json rises = {{"outside_stages", counters[kPeakRiseOutsideStages]}};
  for (size_t s = 0; s < local.stage_seconds.size(); ++s)
    if (stage_rises[s] != 0) rises[local.stage_seconds[s].first] = stage_rises[s];
  return rises;
}

std::string render(const RunTimings& local, int ranks, const NodeUse& nodes, double wall_seconds,
                   const std::vector<int64_t>& counters, const std::vector<double>& seconds,
                   const std::vector<int64_t>& stage_rises, const std::vector<double>& bytes) {
  const size_t stages = local.stage_seconds.size();
  std::vector<StageSummary> summaries(stages);
  double sum_of_means = 0;
  for (size_t s = 0; s < stages; ++s) {
    StageSummary& summary = summaries[s];
    summary.max = summary.min = seconds[s];
    double sum = 0;
    for (int r = 0; r < ranks; ++r) {
      double value = seconds[size_t(r) * stages + s];
      summary.max = std::max(summary.max, value);
      summary.min = std::min(summary.min, value);
      sum += value;
    }
    summary.mean = sum / ranks;
    sum_of_means += summary.mean;
  }

  int64_t total_particles = 0, max_particles = 0;
  for (int r = 0; r < ranks; ++r) {
    int64_t particles = counters[size_t(r) * kCounters + kParticles];
    total_particles += particles;
    max_particles = std::max(max_particles, particles);
  }
  const double mean_particles = double(total_particles) / ranks;
  // With no particles at all every rank has the same (zero) load.
  const double imbalance = mean_particles > 0 ? double(max_particles) / mean_particles : 1.0;
  const double particle_steps_per_second =
      wall_seconds > 0 ? double(total_particles) * double(local.steps) / wall_seconds : 0.0;

  Json checks = Json::array();
  for (const ImbalanceCheck& check : local.imbalance_history)
    checks.push_back({{"step", check.step}, {"before", check.before}, {"after", check.after}});

  Json stage_table = Json::array();
  for (size_t s = 0; s < stages; ++s) {
    const StageSummary& summary = summaries[s];
    const double share = sum_of_means > 0 ? summary.mean / sum_of_means : 0.0;
    Json row = {{"name", local.stage_seconds[s].first},
                {"max", summary.max},
                {"mean", summary.mean},
                {"min", summary.min},
                {"share_of_step", share}};
    // All ranks' compulsory traffic, and over the slowest rank's seconds the node's bandwidth.
    if (bytes[s] > 0) {
      row["bytes"] = bytes[s];
      if (summary.max > 0) row["gb_per_s"] = bytes[s] / summary.max / 1e9;
    }
    stage_table.push_back(std::move(row));
  }

  Json per_rank = Json::array();
  for (int r = 0; r < ranks; ++r) {
    const int64_t* c = &counters[size_t(r) * kCounters];
    Json stage_seconds = Json::object();
    for (size_t s = 0; s < stages; ++s)
      stage_seconds[local.stage_seconds[s].first] = seconds[size_t(r) * stages + s];
    per_rank.push_back(
        {{"rank", r},
         {"particles", c[kParticles]},
         {"halo_bytes_sent", c[kHaloBytes]},
         {"migrated_particles_sent", c[kMigratedParticles]},
         {"migration_bytes_sent", c[kMigrationBytes]},
         {"peak_rss_bytes", c[kPeakRss]},
         {"peak_rss_rise_bytes", peak_rises(local, c, &stage_rises[size_t(r) * stages])},
         {"stage_seconds", std::move(stage_seconds)}});
  }

  Json report = {{"case_name", local.case_name},
                 {"ranks", ranks},
                 {"most_ranks_on_a_node", nodes.most_ranks_on_a_node},
                 {"fewest_node_cores", nodes.fewest_cores},
                 {"oversubscribed", nodes.oversubscribed},
                 {"steps", local.steps},
                 {"simulated_time", local.simulated_time},
                 {"wall_seconds", wall_seconds},
                 {"particle_steps_per_second", particle_steps_per_second},
                 {"particle_imbalance", imbalance},
                 {"load_balance_checks", std::move(checks)},
                 {"stages", std::move(stage_table)},
                 {"per_rank", std::move(per_rank)},
                 {"pressure_iterations", per_step_summary(local.pressure_iterations)}};
  if (!local.sand_solve_rounds.empty()) {
    Json sand_solve = per_step_summary(local.sand_solve_rounds);
    sand_solve["round_limit"] = local.sand_solve_round_limit;
    sand_solve["unconverged_steps"] = local.sand_solve_unconverged_steps;
    sand_solve["largest_final_change"] = local.sand_solve_largest_change;
    report["rigid_plastic_rounds"] = std::move(sand_solve);
  }
  if (!local.pore_picard_iterations.empty()) {
    Json picard = per_step_summary(local.pore_picard_iterations);
    picard["solves"] = local.pore_picard_iterations.size();
    report["pore_water_picard_iterations"] = std::move(picard);
    report["pore_water_krylov_iterations"] = per_step_summary(local.pore_krylov_iterations);
  }
  std::string out;
  append_json(out, report, 0);
  return out + "\n";
}

void write_file(const fs::path& path, const std::string& text) {
  std::error_code error;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), error);
    if (error) throw std::runtime_error("cannot create its directory: " + error.message());
  }
  // Written aside and renamed, so a reader never sees a half-written report.
  replace_file(path, text);
}

}  // namespace

void write_timing_report(MPI_Comm comm, const std::string& path, const RunTimings& local) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  // Every rank must report the same stages in the same order, or the gathered table is wrong.
  uint64_t signature[2] = {uint64_t(local.stage_seconds.size()), stage_list_hash(local)};
  uint64_t lowest[2], highest[2];
  MPI_Allreduce(signature, lowest, 2, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(signature, highest, 2, MPI_UINT64_T, MPI_MAX, comm);
  if (lowest[0] != highest[0] || lowest[1] != highest[1]) {
    throw std::runtime_error(path + ": ranks timed different lists of stages");
  }

  const size_t stages = local.stage_seconds.size();
  std::vector<double> my_seconds;
  for (const auto& stage : local.stage_seconds) my_seconds.push_back(stage.second);
  const int64_t my_counters[kCounters] = {local.particles,
                                          local.halo_bytes_sent,
                                          local.migrated_particles_sent,
                                          local.migration_bytes_sent,
                                          local.peak_rss_bytes,
                                          local.peak_rise_outside_stages};
  std::vector<int64_t> my_rises = local.stage_peak_rise;
  my_rises.resize(stages, 0);

  std::vector<double> seconds(rank == 0 ? stages * size_t(ranks) : 0);
  std::vector<int64_t> counters(rank == 0 ? size_t(kCounters) * size_t(ranks) : 0);
  std::vector<int64_t> stage_rises(rank == 0 ? stages * size_t(ranks) : 0);
  MPI_Gather(my_seconds.data(), int(stages), MPI_DOUBLE, seconds.data(), int(stages), MPI_DOUBLE,
             0, comm);
  MPI_Gather(my_counters, kCounters, MPI_INT64_T, counters.data(), kCounters, MPI_INT64_T, 0,
             comm);
  MPI_Gather(my_rises.data(), int(stages), MPI_INT64_T, stage_rises.data(), int(stages),
             MPI_INT64_T, 0, comm);
  std::vector<double> my_bytes = local.stage_bytes, bytes(stages, 0.0);
  my_bytes.resize(stages, 0.0);
  MPI_Reduce(my_bytes.data(), bytes.data(), int(stages), MPI_DOUBLE, MPI_SUM, 0, comm);
  // The run lasted as long as its slowest rank.
  double wall_seconds = 0;
  MPI_Reduce(&local.wall_seconds, &wall_seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  const NodeUse nodes = node_use(comm);

  std::string error;
  if (rank == 0) {
    try {
      write_file(path, render(local, ranks, nodes, wall_seconds, counters, seconds, stage_rises,
                              bytes));
    } catch (const std::exception& e) { error = e.what(); }
  }
  // Every rank learns whether rank 0 managed, so all of them throw or none does.
  int length = int(error.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  if (length == 0) return;
  error.resize(size_t(length));
  MPI_Bcast(error.data(), length, MPI_CHAR, 0, comm);
  throw std::runtime_error(path + ": " + error);
}

}  // namespace dunesim
