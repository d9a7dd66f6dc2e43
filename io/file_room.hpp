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

// One dataset as the room check sees it: its bytes of data, and the bytes of one index along
// its slowest axis (the element size of a 1-D dataset, a z-slab of a grid field), which decide
// its chunks.
struct DatasetSize {
  uint64_t bytes = 0;
  uint64_t slab_bytes = 1;
};

// An upper bound on the size of a parallel HDF5 file (create_parallel_file) holding these
// datasets, given in the order they are created, stored as write_dataset stores them with
// `checksums`. Meant to be tight (the unit tests hold it within 1.25 times the real file plus
// 64 KiB for small and large frames and checkpoints), so a nearly full disk is refused only
// when the file really does not fit. Derived from how HDF5 1.10 lays the file out, as
// measured on frames and checkpoints of 2,048 and 150,000 particles:
//
//  * Raw data. Contiguous datasets take their bytes. Checksummed datasets are chunked along
//    the slowest axis (dataset_creation: kChunkBytes / slab_bytes slabs a chunk) and every
//    chunk, the last one too, is stored whole plus its 4-byte Fletcher32 checksum: a dataset
//    of 1.2 MB in chunks of 983,040 bytes takes 1,966,088 bytes.
//  * Alignment. Any block of 1 MiB or more starts on a 1 MiB boundary (H5Pset_alignment), and
//    the gap before it becomes free space, which HDF5 gives to the next smaller blocks that
//    fit, the smallest gap that fits first. A 150,000-particle frame (12.15 MB of data) is
//    14.83 MB because two gaps stayed empty. The estimate replays this: blocks in order,
//    large ones aligned at the end of the file, smaller ones into the smallest gap that holds
//    them with room to spare for all the metadata (so metadata put into a gap cannot push a
//    block the estimate placed there to the end), else at the end.
//  * Metadata: 16 KiB for the superblock, the groups, their symbol tables and the global
//    heap of the string attributes, then 4 KiB per contiguous dataset (its object header,
//    and the small-data block a dataset under 2 KiB shares) and 6 KiB per chunked one (also
//    its chunk index, a B-tree node of 2-3 KiB), 4 KiB more for every 64 chunks (another
//    node). Measured: 10 KiB in all for a frame of 8 datasets, 44 KiB for a checkpoint of
//    13. The replay puts each dataset's metadata at the end of the file before its data; as
//    metadata swallowed by the rounding up to an aligned block may yet be written after it
//    (attributes added later), what came before the last aligned block is counted again.
//
// Measured (2 ranks), real file against the estimate: frames of 2,048 particles 176,128 B
// against 215,040; 70,000: 5,947,776 against 5,978,496; 150,000: 14,831,488 against
// 14,864,256 (single precision 9,140,032 against 9,172,800); a checkpoint of 2,048 particles
// on 8^3 cells 157,184 against about 209,000.
uint64_t estimated_file_bytes(const std::vector<DatasetSize>& datasets, Checksums checksums);

// Collective. Throws AgreedError naming `path` on every rank ("PATH: cannot write into DIR:
// permission denied (on rank N)") unless every rank may create files in the directory that
// is to hold `path`. Checked before check_room_for: a read-only directory on a full disk is
// first of all read-only.
void check_writable_directory(MPI_Comm comm, const std::string& path);

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
