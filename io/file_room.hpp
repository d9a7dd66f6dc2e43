// Whether a file fits where it is to be written, and why a write did not fit.
//
// A write that fails half-way through a parallel HDF5 file cannot be undone cleanly: HDF5
// 1.10 cannot close a file whose closing writes fail (under a file size limit, every write
// past the limit does) and later crashes in MPI_Finalize, and a write that fails inside one
// of HDF5's own collective calls (allocating chunks in H5Dcreate) can leave the other ranks
// waiting there. So frames and checkpoints check for room before they create the file, and
// explain a failure that happens anyway.
#pragma once
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/parallel_hdf5.hpp"

namespace dunesim {

// An upper bound on the size of a parallel HDF5 file holding datasets of these sizes (bytes
// of data each), stored as write_dataset stores them with `checksums`: the data, metadata,
// and either the 1 MiB alignment of large contiguous datasets or the chunks' checksums.
uint64_t estimated_file_bytes(const std::vector<uint64_t>& dataset_bytes, Checksums checksums);

// Collective. Throws AgreedError naming `path` on every rank unless a file of `bytes` fits:
// under every rank's file size limit (ulimit -f, which each rank's writes must respect) and
// in the free space of the disk that holds `path` (looked up on rank 0).
void check_room_for(MPI_Comm comm, const std::string& path, uint64_t bytes);

// For a failed write into the file that `object` (any open HDF5 object) belongs to: " (the
// disk holding it is full: 12 KiB free)", " (the file size limit is 6 MiB (ulimit -f))",
// both, or "" when neither explains it. errno is lost on the way up through MPI-IO and HDF5,
// so the usual causes are looked up afterwards. Local: safe on one rank alone.
std::string write_failure_cause(hid_t object);

}  // namespace dunesim
