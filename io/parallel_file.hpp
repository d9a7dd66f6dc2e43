// Writing one HDF5 file shared by all ranks so that it appears under its name only when it
// is complete, and so that a failure on any rank (a full disk) ends the write on every rank
// at the same point: no rank waits alone in a collective call, and the file is closed by all.
#pragma once
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

namespace dunesim {

// Whether write_parallel_file puts every rank's data on disk (H5Fflush: MPI_File_sync)
// before it closes the file, or leaves that to the operating system.
enum class FlushToDisk : bool { No, Yes };

// Collective. Writes a file shared by all ranks so that it appears under `path` only once it
// is complete:
//   1. check_writable_directory, then check_room_for(`expected_bytes`, see
//      estimated_file_bytes): no HDF5 call is made for a file that could not be created or
//      would not fit;
//   2. the ranks create `path`.tmp (create_parallel_file) and `write` fills it (its dataset
//      writes agree across ranks: write_dataset);
//   3. the file is flushed (FlushToDisk::Yes) and closed;
//   4. rank 0 calls `publish` with the temporary path to move it to `path`.
// Each step is agreed across ranks: a failure on any rank throws the same AgreedError, its
// message prefixed with `path`, on every rank. Then every rank closes the file and rank 0
// removes it, leaving what `path` named before untouched. HDF5 prints nothing meanwhile.
void write_parallel_file(MPI_Comm comm, const std::string& path, FlushToDisk flush,
                         uint64_t expected_bytes, const std::function<void(hid_t file)>& write,
                         const std::function<void(const std::string& temporary_path)>& publish);

}  // namespace dunesim
