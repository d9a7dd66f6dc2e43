// dunesim_surface's work on one frame, on all ranks together: read the particles (each rank
// a share of the rows), send them to the ranks whose slab of the sample grid they reach,
// sample and smooth phi, contour each slab, and write the pieces (and the merged surface).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "postproc/surface/implicit_surface.hpp"
#include "postproc/surface/sampled_field.hpp"
#include "postproc/surface/slab_layout.hpp"

namespace dunesim {

struct SurfaceOptions {
  std::string out;                  // output directory, which must exist
  double resolution = 2;            // samples per cell size
  double kernel_radius_factor = 2;  // R in particle spacings
  std::string material;             // only particles of this material; empty: all
  bool smoothing = true;            // Zhu & Bridson's smoothing pass (never with blobby)
  bool blobby = false;              // the classic blobby field instead of Zhu & Bridson's phi
  bool merge = false;               // also one welded OUT/<stem>.vtp and .ply on rank 0
  double cell_size = 0;             // m; 0: the frame's own (/run, or /grid @cell_size)
  double max_samples = 2e9;         // refuse larger sample grids (all ranks together)
  bool vdb = false;                 // also OUT/<stem>.vdb, one level set per material
};

struct FrameSurface {
  int64_t particles = 0;  // particles used (of the chosen material), all ranks
  int64_t triangles = 0;  // triangles, all ranks
  // Seconds of each stage on the slowest rank: read, exchange, phi (sampling and
  // smoothing), contour, write.
  double read = 0, exchange = 0, phi = 0, contour = 0, write = 0;
};

// This rank's share of one frame's phi (of options.material's particles): its slab of the
// sample grid with the ghost planes, sampled and smoothed.
struct SlabPhi {
  int64_t particles = 0;     // all ranks; 0 (nothing else set) only when allowed to be empty
  double kernel_radius = 0;  // R, m
  SlabLayout layout;
  std::optional<ParticleSurface> surface;  // the particles this rank's samples need
  std::vector<double> saturation;          // of those particles, when has_saturation
  bool has_saturation = false;
  SampledField field;                       // empty when the rank has no slab
  std::vector<std::string> material_names;  // the frame's materials, in @names order
  double read = 0, exchange = 0, phi = 0;   // seconds on the slowest rank
};

// Collective: read, exchange, sample and smooth (surface_of_frame's first stages). Throws
// AgreedError on every rank, its message beginning with the frame's path, on any failure;
// a frame without particles of the material is one unless `allow_empty`.
SlabPhi sample_slab_phi(MPI_Comm comm, const std::string& frame, const SurfaceOptions& options,
                        bool allow_empty);

// Collective. Writes OUT/<stem>_<rank>.vtp on every rank, OUT/<stem>.pvtp on rank 0 and,
// with options.merge, OUT/<stem>.vtp and OUT/<stem>.ply on rank 0, with options.vdb
// OUT/<stem>.vdb on rank 0 (stem: the frame's file
// name without .h5). Any failure throws AgreedError on every rank, its message beginning
// with the frame's path.
FrameSurface surface_of_frame(MPI_Comm comm, const std::string& frame,
                              const SurfaceOptions& options);

}  // namespace dunesim
