#include "src/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/input_file.hpp"
#include "src/mac_grid.hpp"

namespace dunesim {

namespace {

// A control group's memory limit in `file`, if it has one ("max" means none).
uint64_t limit_in(const std::filesystem::path& file, uint64_t bytes) {
  std::ifstream in(file);
  uint64_t limit = 0;
  return in >> limit && limit > 0 ? std::min(bytes, limit) : bytes;
}

// The limits of this process's control group and its ancestors (cgroup v2, "0::/path" in
// /proc/self/cgroup), or of its v1 memory group: a batch job's share of the node.
uint64_t control_group_limit(uint64_t bytes) {
  std::ifstream groups("/proc/self/cgroup");
  const std::filesystem::path root = "/sys/fs/cgroup";
  for (std::string line; std::getline(groups, line);) {
    if (line.rfind("0::/", 0) == 0) {
      for (std::filesystem::path group = line.substr(4); !group.empty() && group != "/";
           group = group.parent_path())
        bytes = limit_in(root / group / "memory.max", bytes);
    } else if (const size_t at = line.find(":memory:/"); at != std::string::npos) {
      bytes = limit_in(root / "memory" / line.substr(at + 9) / "memory.limit_in_bytes", bytes);
    }
  }
  return limit_in(root / "memory.max", bytes);
}

// Collective. The memory each rank can count on: its node's (or its control group's), shared
// by the ranks on the node; the least over all ranks.
uint64_t memory_per_rank(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  const uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
  uint64_t mine = control_group_limit(physical) / uint64_t(node_ranks), least = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, comm);
  return least;
}

size_t grid_bytes_per_cell(const CaseConfig& config) {
  size_t bytes = MacGrid::kBytesPerCell;
  for (const MaterialSpec& m : config.materials) {
    if (m.kind != MaterialKind::Sand) continue;
    bytes += MacGrid::kSandBytesPerCell;
    if (m.wet.holds_water()) bytes += MacGrid::kPoreWaterBytesPerCell;
  }
  return bytes;
}

}  // namespace

void check_grid_fits_memory(const CaseConfig& config, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const double cells = double(config.cells[0]) * config.cells[1] * config.cells[2];
  const double grid_bytes = cells * double(grid_bytes_per_cell(config));
  const double available = double(memory_per_rank(comm));
  if (grid_bytes / ranks <= available) return;
  const double ranks_needed = std::ceil(grid_bytes / available);
  throw CaseError(
      config.file, "domain.cell_size",
      "gives " + std::to_string(config.cells[0]) + " x " + std::to_string(config.cells[1]) +
          " x " + std::to_string(config.cells[2]) + " cells, whose grid arrays alone (" +
          std::to_string(grid_bytes_per_cell(config)) + " bytes per cell) need " +
          format_bytes(uint64_t(grid_bytes / ranks)) + " per rank on " + std::to_string(ranks) +
          " rank(s), more than the " + format_bytes(uint64_t(available)) +
          " of memory each rank has on its node; use a larger cell_size or at least " +
          std::to_string(int64_t(ranks_needed)) + " ranks");
}

}  // namespace dunesim
