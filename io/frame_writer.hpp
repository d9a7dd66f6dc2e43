// Output frames: one shared HDF5 file per frame, written collectively by all ranks, plus an
// XDMF time series that ParaView and VisIt open directly.
#pragma once
#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/particles.hpp"
#include "io/parallel_hdf5.hpp"
#include "io/run_record.hpp"

namespace dunesim {

// A cell-centred grid field to write next to the particles: each rank passes its array
// and the box of cells it owns; the file holds the global cells[0] x cells[1] x cells[2] array.
struct GridFieldView {
  std::string name;
  const Array3<double>* array = nullptr;
  Box owned;
};

// Each particle's saturation S, as frames and Catalyst show it: theta / n for porous sand,
// 1 for water (its volume is all water), 0 for sand without pores. `porosity` holds one
// value per material (0 for those that hold no water; empty = all 0).
std::vector<float> saturation_of(const Particles& p, const std::vector<double>& porosity);
// The same for particle n.
float saturation_at(const Particles& p, const std::vector<double>& porosity, size_t n);

// What a frame holds of the particles. Single precision stores position, velocity and water
// content as float32 (positions relative to the domain's origin at 0, so their round-off is
// 6e-8 of the domain's size): half the bytes of a frame. A stride s > 1 keeps the particles
// whose id is a multiple of s (a preview), the same ones on any number of ranks.
struct FrameOptions {
  bool single_precision = false;
  int64_t particle_stride = 1;
  // Most bytes a rank converts for one collective write (write_rows_in_pieces); more
  // particles than fit are written in several.
  size_t piece_bytes = kPieceBytes;
};

// The particles of `p` whose id is a multiple of `stride` (all of them for stride 1), in order.
Particles particles_with_stride(const Particles& p, int64_t stride);

// The bytes of each /particles/connectivity value in a frame of `particles` particles: 4 while
// the indices fit in int32, else 8.
int connectivity_bytes(int64_t particles);

// An upper bound on the size of a frame of `particles` particles (those the stride keeps) and
// `grid_fields` fields of `cells` (estimated_file_bytes: the room FrameWriter::write checks
// for before writing).
// `run_bytes` is what the /run group adds (run_group_bytes).
uint64_t frame_file_bytes(int64_t particles, const std::array<int, 3>& cells, size_t grid_fields,
                          bool single_precision, uint64_t run_bytes);

class FrameWriter {
 public:
  // `directory` is created if missing (by rank 0). The series file is
  // <directory>/<case_name>.xmf. `run` is what every frame's /run group records (its grid
  // and material names are the frames' too; its ranks are set to those of `comm`).
  // `material_porosity` (one per material, 0 for those that hold no water; empty = all 0)
  // turns water content into saturation.
  FrameWriter(MPI_Comm comm, std::string directory, std::string case_name, RunRecord run,
              std::vector<double> material_porosity = {}, FrameOptions options = {});

  // Collective. Writes <directory>/<case_name>_NNNNNN.h5 (NNNNNN = frame number) with
  // these datasets (float64 as float32 in single precision; N the particles the stride keeps)
  //   /particles/position (N x 3 float64), /particles/velocity (N x 3 float64),
  //   /particles/id (int64), /particles/material (uint8), /particles/connectivity (0 .. N-1,
  //   int32, or int64 for N beyond int32: connectivity_bytes),
  //   /particles/saturation (float32: S of porous sand, 1 for water, 0 for sand without
  //   pores), /particles/water_content (float64: see Particles)
  //   attributes on the root: time (s), step, frame, particle_count (N), case_name,
  //   particle_stride
  //   /run: the run's record (io/run_record.hpp)
  //   /grid/<name> (cells[2] x cells[1] x cells[0] float64) for each grid field given,
  // then rewrites the XDMF series to list every frame written so far. Returns the .h5 path.
  std::string write(const Particles& particles, double time, int64_t step,
                    const std::vector<GridFieldView>& grid_fields = {});

  // Collective. Continues a series after a restart: the next frame is number `frames_before`,
  // and the series lists those of frames 0 .. frames_before-1 found in the directory.
  void continue_series(int64_t frames_before);

  // Frames in the series so far, including those before a restart: the next frame's number.
  int frames_written() const { return int(next_frame_); }

 private:
  struct FrameRecord {
    std::string h5_name;  // file name relative to the directory
    double time;
    int64_t particle_count;
    std::vector<std::string> grid_fields;
    int float_bytes = 8;  // of position, velocity and water_content: 8, or 4 in single precision
    int connectivity_bytes = 8;  // of /particles/connectivity (frames of older builds: 8)
  };
  void write_xdmf() const;
  void write_particle_datasets(hid_t root, const Particles& particles,
                               const RankRows& rows) const;

  MPI_Comm comm_;
  std::string directory_, case_name_;
  RunRecord run_;
  std::vector<double> material_porosity_;
  FrameOptions options_;
  std::array<int, 3> global_cells_;
  double cell_size_;
  std::vector<FrameRecord> frames_;
  int64_t next_frame_ = 0;
};

}  // namespace dunesim
