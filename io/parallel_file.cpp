#include "io/parallel_file.hpp"

#include <filesystem>
#include <system_error>

#include "io/file_room.hpp"
#include "io/parallel_hdf5.hpp"

namespace dunesim {
namespace {

// Collective. Closes a file that is being given up after an agreed failure. Rank 0 first
// empties it, so that what closing still writes (metadata, extending the file to its end,
// sparsely) finds room on a disk that had filled up. A failure to close is not reported:
// the failure that led here is the one to report.
void close_abandoned_file(MPI_Comm comm, H5Handle& file, const std::string& temporary_path) {
  if (file.get() < 0) return;  // never opened, or closed already (every rank alike)
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::error_code ignored;  // a file that cannot be emptied is closed all the same
    std::filesystem::resize_file(temporary_path, 0, ignored);
  }
  MPI_Barrier(comm);
  try {
    agree_across_ranks(comm, [&] { check_status(file.close(), "H5Fclose"); });
  } catch (const AgreedError&) {}
}

}  // namespace

void write_parallel_file(MPI_Comm comm, const std::string& path, FlushToDisk flush,
                         uint64_t expected_bytes, const std::function<void(hid_t file)>& write,
                         const std::function<void(const std::string& temporary_path)>& publish) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string temporary_path = path + ".tmp";
  QuietHdf5Errors quiet;
  check_writable_directory(comm, path);
  check_room_for(comm, path, expected_bytes);
  H5Handle file;
  try {
    run_agreed(comm, path, [&] { file = create_parallel_file(comm, temporary_path); });
    run_agreed(comm, path, [&] { write(file.get()); });
    // Flushing and closing are collective: each is agreed before the next begins.
    if (flush == FlushToDisk::Yes)
      run_agreed(comm, path,
                 [&] { check_status(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "H5Fflush"); });
    run_agreed(comm, path, [&] { check_status(file.close(), "H5Fclose"); });
    // The agreement above is also the barrier: every rank has closed the file, so it is
    // complete, before it may appear under its final name.
    run_agreed(comm, path, [&] {
      if (rank == 0) publish(temporary_path);
    });
  } catch (const AgreedError&) {
    close_abandoned_file(comm, file, temporary_path);
    if (rank == 0) {
      std::error_code ignored;
      std::filesystem::remove(temporary_path, ignored);
    }
    throw;
  }
}

}  // namespace dunesim
