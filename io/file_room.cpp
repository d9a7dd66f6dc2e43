#include "io/file_room.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "io/input_file.hpp"
#include "io/rank_agreement.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMiB = uint64_t(1) << 20;
// Datasets this large start on a 1 MiB boundary (H5Pset_alignment in parallel_hdf5.cpp).
constexpr uint64_t kAlignment = kMiB;
// Object header, attributes and chunk index of one dataset, generously.
constexpr uint64_t kMetadataPerDataset = 16 << 10;
// Per chunk: its checksum and its entry in the chunk index.
constexpr uint64_t kPerChunk = 64;
// Less free space than this counts as a full disk when a write has failed.
constexpr uint64_t kNearlyFull = 64 * kMiB;

fs::path directory_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// This process's file size limit in bytes, if it has one.
std::optional<uint64_t> file_size_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return {};
  return uint64_t(limit.rlim_cur);
}

// Free bytes on the disk that holds `directory` (for an unprivileged user), if known.
std::optional<uint64_t> free_bytes(const fs::path& directory) {
  struct statvfs disk {};
  if (statvfs(directory.c_str(), &disk) != 0) return {};
  return uint64_t(disk.f_bavail) * uint64_t(disk.f_frsize);
}

std::string file_name_of(hid_t object) {
  const ssize_t length = H5Fget_name(object, nullptr, 0);
  if (length <= 0) return "";
  std::string name(size_t(length), '\0');
  H5Fget_name(object, name.data(), name.size() + 1);
  return name;
}

}  // namespace

uint64_t estimated_file_bytes(const std::vector<uint64_t>& dataset_bytes, Checksums checksums) {
  uint64_t total = kMiB;  // superblock, groups, root attributes
  for (uint64_t bytes : dataset_bytes) {
    total += bytes + kMetadataPerDataset;
    // Chunks stay below the alignment threshold; a contiguous dataset may not.
    if (checksums == Checksums::Fletcher32)
      total += (bytes / kChunkBytes + 1) * kPerChunk;
    else if (bytes >= kAlignment)
      total += kAlignment;
  }
  return total;
}

void check_room_for(MPI_Comm comm, const std::string& path, uint64_t bytes) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  run_agreed(comm, path, [&] {
    const std::optional<uint64_t> limit = file_size_limit();
    if (limit && bytes > *limit)
      throw std::runtime_error(
          fmt::format("cannot write it: it needs about {}, more than the "
                      "file size limit of {} (ulimit -f)",
                      format_bytes(bytes), format_bytes(*limit)));
    if (rank != 0) return;
    const std::optional<uint64_t> available = free_bytes(directory_of(path));
    if (available && bytes > *available)
      throw std::runtime_error(
          fmt::format("cannot write it: it needs about {}, and the disk "
                      "holding it has {} free",
                      format_bytes(bytes), format_bytes(*available)));
  });
}

std::string write_failure_cause(hid_t object) {
  std::string causes;
  const std::optional<uint64_t> available = free_bytes(directory_of(file_name_of(object)));
  if (available && *available < kNearlyFull)
    causes += "the disk holding it is full: " + format_bytes(*available) + " free";
  if (const std::optional<uint64_t> limit = file_size_limit())
    causes += (causes.empty() ? "" : "; ") + std::string("the file size limit is ") +
              format_bytes(*limit) + " (ulimit -f)";
  return causes.empty() ? "" : " (" + causes + ")";
}

}  // namespace dunesim
