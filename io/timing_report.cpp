// The JSON timing report: rank 0 gathers what every rank measured and writes one file.
#include "io/timing_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "io/file_replacement.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

// JSON has no inf or nan; a broken measurement shows as null rather than an unreadable file.
std::string json_number(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : "null";
}

// FNV-1a over the stage names, to check cheaply that every rank timed the same stages.
uint64_t stage_list_hash(const RunTimings& timings) {
  uint64_t hash = 1469598103934665603ull;
  for (const auto& stage : timings.stage_seconds) {
    for (unsigned char c : stage.first + '\0') {
      hash = (hash ^ c) * 1099511628211ull;
    }
  }
  return hash;
}

// The per-rank integers gathered to rank 0, in this order.
enum RankCounter { kParticles, kHaloBytes, kMigratedParticles, kMigrationBytes, kPeakRss,
                   kCounters };

struct StageSummary {
  double max = 0, mean = 0, min = 0;
};

std::string render(const RunTimings& local, int ranks, double wall_seconds,
                   const std::vector<int64_t>& counters, const std::vector<double>& seconds) {
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

  const std::vector<int>& iterations = local.pressure_iterations;
  int max_iterations = 0;
  double mean_iterations = 0;
  for (int count : iterations) {
    max_iterations = std::max(max_iterations, count);
    mean_iterations += count;
  }
  if (!iterations.empty()) mean_iterations /= double(iterations.size());

  std::string out = "{\n";
  out += fmt::format("  \"case_name\": {},\n", json_string(local.case_name));
  out += fmt::format("  \"ranks\": {},\n", ranks);
  out += fmt::format("  \"steps\": {},\n", local.steps);
  out += fmt::format("  \"simulated_time\": {},\n", json_number(local.simulated_time));
  out += fmt::format("  \"wall_seconds\": {},\n", json_number(wall_seconds));
  out += fmt::format("  \"particle_steps_per_second\": {},\n",
                     json_number(particle_steps_per_second));
  out += fmt::format("  \"particle_imbalance\": {},\n", json_number(imbalance));
  out += "  \"load_balance_checks\": [";
  for (size_t c = 0; c < local.imbalance_history.size(); ++c) {
    const ImbalanceCheck& check = local.imbalance_history[c];
    out += fmt::format("{}{{\"step\": {}, \"before\": {}, \"after\": {}}}", c ? ", " : "",
                       check.step, json_number(check.before), json_number(check.after));
  }
  out += "],\n";

  out += "  \"stages\": [";
  for (size_t s = 0; s < stages; ++s) {
    const StageSummary& summary = summaries[s];
    double share = sum_of_means > 0 ? summary.mean / sum_of_means : 0.0;
    out += fmt::format(
        "{}\n    {{\"name\": {}, \"max\": {}, \"mean\": {}, \"min\": {}, "
        "\"share_of_step\": {}}}",
        s ? "," : "", json_string(local.stage_seconds[s].first), json_number(summary.max),
        json_number(summary.mean), json_number(summary.min), json_number(share));
  }
  out += stages ? "\n  ],\n" : "],\n";

  out += "  \"per_rank\": [";
  for (int r = 0; r < ranks; ++r) {
    const int64_t* c = &counters[size_t(r) * kCounters];
    out += fmt::format(
        "{}\n    {{\"rank\": {}, \"particles\": {}, \"halo_bytes_sent\": {}, "
        "\"migrated_particles_sent\": {}, \"migration_bytes_sent\": {}, "
        "\"peak_rss_bytes\": {}, \"stage_seconds\": {{",
        r ? "," : "", r, c[kParticles], c[kHaloBytes], c[kMigratedParticles],
        c[kMigrationBytes], c[kPeakRss]);
    for (size_t s = 0; s < stages; ++s) {
      out += fmt::format("{}{}: {}", s ? ", " : "", json_string(local.stage_seconds[s].first),
                         json_number(seconds[size_t(r) * stages + s]));
    }
    out += "}}";
  }
  out += "\n  ],\n";

  out += "  \"pressure_iterations\": {\"per_step\": [";
  for (size_t i = 0; i < iterations.size(); ++i) {
    out += fmt::format("{}{}", i ? ", " : "", iterations[i]);
  }
  out += fmt::format("], \"mean\": {}, \"max\": {}}}\n", json_number(mean_iterations),
                     max_iterations);
  out += "}\n";
  return out;
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
  const int64_t my_counters[kCounters] = {local.particles, local.halo_bytes_sent,
                                          local.migrated_particles_sent,
                                          local.migration_bytes_sent, local.peak_rss_bytes};

  std::vector<double> seconds(rank == 0 ? stages * size_t(ranks) : 0);
  std::vector<int64_t> counters(rank == 0 ? size_t(kCounters) * size_t(ranks) : 0);
  MPI_Gather(my_seconds.data(), int(stages), MPI_DOUBLE, seconds.data(), int(stages), MPI_DOUBLE,
             0, comm);
  MPI_Gather(my_counters, kCounters, MPI_INT64_T, counters.data(), kCounters, MPI_INT64_T, 0,
             comm);
  // The run lasted as long as its slowest rank.
  double wall_seconds = 0;
  MPI_Reduce(&local.wall_seconds, &wall_seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);

  std::string error;
  if (rank == 0) {
    try {
      write_file(path, render(local, ranks, wall_seconds, counters, seconds));
    } catch (const std::exception& e) {
      error = e.what();
    }
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
