#include "decomposition/node_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace

int ranks_on_this_node(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  return node_ranks;
}

NodeUse node_use(MPI_Comm comm) {
  const int on_node = ranks_on_this_node(comm);
  const int cores = int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  int mine[2] = {on_node, on_node > cores ? 1 : 0}, most[2];
  MPI_Allreduce(mine, most, 2, MPI_INT, MPI_MAX, comm);
  NodeUse use;
  use.most_ranks_on_a_node = most[0];
  use.oversubscribed = most[1] != 0;
  MPI_Allreduce(&cores, &use.fewest_cores, 1, MPI_INT, MPI_MIN, comm);
  return use;
}

uint64_t memory_per_rank(MPI_Comm comm) {
  const int node_ranks = ranks_on_this_node(comm);
  const uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
  uint64_t mine = control_group_limit(physical) / uint64_t(node_ranks), least = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, comm);
  return least;
}

}  // namespace dunesim
