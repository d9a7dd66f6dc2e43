#include "io/file_room.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>

#include "io/input_file.hpp"
#include "io/rank_agreement.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kKiB = uint64_t(1) << 10;
// Blocks this large start on a 1 MiB boundary (H5Pset_alignment in parallel_hdf5.cpp).
constexpr uint64_t kAlignment = kMiB;
// Metadata (see estimated_file_bytes in the header): of the file, and of each dataset.
constexpr uint64_t kFileMetadata = 16 * kKiB;
constexpr uint64_t kContiguousMetadata = 4 * kKiB;
constexpr uint64_t kChunkedMetadata = 6 * kKiB;
// A chunk index grows by a B-tree node (2-3 KiB) for every 64 chunks.
constexpr uint64_t kChunksPerIndexNode = 64;
constexpr uint64_t kIndexNodeBytes = 4 * kKiB;
// Fletcher32 appends its checksum to every chunk.
constexpr uint64_t kChecksumBytes = 4;
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

// The raw data blocks of one dataset as write_dataset stores it (dataset_creation), in bytes.
std::vector<uint64_t> data_blocks(const DatasetSize& dataset, Checksums checksums) {
  if (dataset.bytes == 0) return {};
  if (checksums == Checksums::No) return {dataset.bytes};
  const uint64_t slab = std::max<uint64_t>(dataset.slab_bytes, 1);
  const uint64_t slabs = std::max<uint64_t>(dataset.bytes / slab, 1);
  const uint64_t chunk_slabs = std::clamp<uint64_t>(kChunkBytes / slab, 1, slabs);
  const uint64_t chunks = (slabs + chunk_slabs - 1) / chunk_slabs;
  return std::vector<uint64_t>(chunks, chunk_slabs * slab + kChecksumBytes);
}

// Where HDF5 puts blocks (see estimated_file_bytes): the end of the file so far, and the gaps
// that alignment left before it.
class FileLayout {
 public:
  // `margin`: the metadata that may yet be put into a gap.
  FileLayout(uint64_t start, uint64_t margin) : end_(start), margin_(margin) {}

  // Metadata, at the end here: HDF5 puts it there or into a gap (then the data that gap
  // would have held goes to the end: the margin).
  void append(uint64_t bytes) {
    end_ += bytes;
    metadata_ += bytes;
  }

  void place(uint64_t block) {
    if (block >= kAlignment) {
      const uint64_t start = (end_ + kAlignment - 1) / kAlignment * kAlignment;
      if (start > end_) gaps_.insert(start - end_);
      end_ = start + block;
      // The metadata so far may have vanished in the rounding up to `start`, yet HDF5 may
      // write some of it after this block (attributes added later, a header's continuation).
      metadata_before_aligned_ = metadata_;
      return;
    }
    // The smallest gap that holds the block with room for all the metadata besides.
    const auto gap = gaps_.lower_bound(block + margin_);
    if (gap == gaps_.end()) {
      end_ += block;
      return;
    }
    const uint64_t rest = *gap - block;
    gaps_.erase(gap);
    gaps_.insert(rest);
  }

  uint64_t end() const { return end_ + metadata_before_aligned_; }

 private:
  uint64_t end_;
  uint64_t margin_;
  uint64_t metadata_ = 0;
  uint64_t metadata_before_aligned_ = 0;
  std::multiset<uint64_t> gaps_;  // only their sizes matter
};

// The metadata of one dataset (see estimated_file_bytes).
uint64_t dataset_metadata(const DatasetSize& dataset, size_t chunks, Checksums checksums) {
  if (checksums == Checksums::No || dataset.bytes == 0) return kContiguousMetadata;
  return kChunkedMetadata + uint64_t(chunks) / kChunksPerIndexNode * kIndexNodeBytes;
}

}  // namespace

uint64_t estimated_file_bytes(const std::vector<DatasetSize>& datasets, Checksums checksums) {
  std::vector<std::vector<uint64_t>> blocks;
  uint64_t metadata = 0;
  for (const DatasetSize& dataset : datasets) {
    blocks.push_back(data_blocks(dataset, checksums));
    metadata += dataset_metadata(dataset, blocks.back().size(), checksums);
  }
  FileLayout layout(kFileMetadata, kFileMetadata + metadata);
  for (size_t d = 0; d < datasets.size(); ++d) {
    layout.append(dataset_metadata(datasets[d], blocks[d].size(), checksums));
    for (uint64_t block : blocks[d]) layout.place(block);
  }
  return layout.end();
}

void check_writable_directory(MPI_Comm comm, const std::string& path) {
  const fs::path directory = directory_of(path);
  run_agreed(comm, path, [&] {
    // access() asks the kernel the question creating a file asks: the mode bits (ignored for
    // root), an immutable directory (refused even to root) and a read-only file system.
    if (access(directory.c_str(), W_OK | X_OK) == 0) return;
    const int error = errno;
    std::string why;
    switch (error) {
      case EACCES:
      case EPERM: why = "permission denied"; break;
      case EROFS: why = "read-only file system"; break;
      case ENOENT:
      case ENOTDIR: why = "no such directory"; break;
      default: why = std::error_code(error, std::generic_category()).message();
    }
    throw std::runtime_error(fmt::format("cannot write into {}: {}", directory.string(), why));
  });
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
