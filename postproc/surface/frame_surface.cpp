#include "postproc/surface/frame_surface.hpp"

#include <fmt/format.h>
#include <vtkDoubleArray.h>
#include <vtkPointData.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "io/rank_agreement.hpp"
#include "postproc/surface/frame_level_sets.hpp"
#include "postproc/surface/frame_particles.hpp"
#include "postproc/surface/merged_surface.hpp"
#include "postproc/surface/mesh_files.hpp"
#include "postproc/surface/particle_exchange.hpp"
#include "postproc/surface/phi_smoothing.hpp"
#include "postproc/surface/slab_layout.hpp"
#include "postproc/surface/surface_mesh.hpp"

namespace dunesim {

namespace {

namespace fs = std::filesystem;

// Lengths in m, all from the cell size: dunesim seeds 2 x 2 x 2 particles per cell, so the
// particle spacing h is half a cell; a particle's radius is h / 2 and R a multiple of h.
struct Scales {
  double cell_size, particle_radius, kernel_radius, spacing;
};

// --cell-size, when given, overrides the frame's own.
Scales scales_of(const FrameParticles& frame, const SurfaceOptions& options) {
  const double cell_size = options.cell_size > 0 ? options.cell_size : frame.cell_size;
  if (!(cell_size > 0))
    throw std::runtime_error(
        "no cell size: the frame has neither /run @cell_size (frames written since it was "
        "added) nor /grid @cell_size (frames of cases with grid fields); give it with "
        "--cell-size");
  const double h = cell_size / 2;
  return {cell_size, h / 2, options.kernel_radius_factor * h, cell_size / options.resolution};
}

struct Bounds {
  Vec3 min, max;
  int64_t count = 0;
};

// Collective: the bounding box and number of every rank's particles.
Bounds global_bounds(MPI_Comm comm, const std::vector<Vec3>& positions) {
  double low[6] = {HUGE_VAL, HUGE_VAL, HUGE_VAL, HUGE_VAL, HUGE_VAL, HUGE_VAL};
  for (const Vec3& x : positions)
    for (int a = 0; a < 3; ++a) {
      low[a] = std::min(low[a], x[a]);
      low[3 + a] = std::min(low[3 + a], -x[a]);  // minus the maximum
    }
  MPI_Allreduce(MPI_IN_PLACE, low, 6, MPI_DOUBLE, MPI_MIN, comm);
  Bounds bounds;
  int64_t count = int64_t(positions.size());
  MPI_Allreduce(&count, &bounds.count, 1, MPI_INT64_T, MPI_SUM, comm);
  for (int a = 0; a < 3; ++a) {
    bounds.min[a] = low[a];
    bounds.max[a] = -low[3 + a];
  }
  return bounds;
}

// The same on every rank (the same numbers in): no agreement needed before throwing.
SlabLayout layout_for(const Bounds& bounds, const Scales& scales, const SurfaceOptions& options,
                      int ranks) {
  if (bounds.count == 0)
    throw std::runtime_error(
        options.material.empty()
            ? "no particles"
            : fmt::format("no particles of material '{}'", options.material));
  const std::array<double, 3> samples =
      grid_samples(bounds.min, bounds.max, scales.kernel_radius, scales.spacing);
  const double total = samples[0] * samples[1] * samples[2];
  const double longest = std::max({samples[0], samples[1], samples[2]});
  if (!(total <= options.max_samples) || !(longest <= INT_MAX))
    throw std::runtime_error(fmt::format(
        "its sample grid would have {:.3g} samples ({:.6g} x {:.6g} x {:.6g}, {} m apart), more "
        "than --max-samples {:.3g} (or than 2^31 - 1 along an axis): lower --resolution or "
        "raise --max-samples",
        total, samples[0], samples[1], samples[2], scales.spacing, options.max_samples));
  const SmoothingOptions smoothing;
  // Layers beyond the slab: one for the normals, and one per smoothing iteration, whose
  // values near the slab's ends are spoiled one layer further each time.
  const int ghosts = 1 + (options.smoothing && !options.blobby ? smoothing.iterations : 0);
  return make_slab_layout(bounds.min, bounds.max, scales.kernel_radius, scales.spacing, ranks,
                          ghosts);
}

// The particles' saturation at each vertex (their kernel-weighted mean there), as the point
// array "saturation": wet sand's surface shows how wet it is. A vertex's particles are all
// on the rank that makes it (the band), so its value does not depend on the rank count.
void add_vertex_saturation(vtkPolyData* mesh, const ParticleSurface& surface,
                           const std::vector<double>& saturation) {
  auto values = vtkSmartPointer<vtkDoubleArray>::New();
  values->SetName("saturation");
  values->SetNumberOfTuples(mesh->GetNumberOfPoints());
  for (vtkIdType v = 0; v < mesh->GetNumberOfPoints(); ++v) {
    double x[3];
    mesh->GetPoint(v, x);
    values->SetValue(v, surface.weighted_mean({x[0], x[1], x[2]}, saturation));
  }
  mesh->GetPointData()->AddArray(values);
}

// Seconds since `start` on the slowest rank (collective).
double slowest_since(MPI_Comm comm, double start) {
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

// This rank's slab of phi from the particles that reach it.
void sample_rank_slab(SlabPhi& phi, std::vector<Vec3> positions, int rank, const Scales& scales,
                      const SurfaceOptions& options) {
  if (!phi.layout.has_slab(rank)) return;
  const size_t count = positions.size();
  phi.surface.emplace(std::move(positions), std::vector<double>(count, scales.particle_radius),
                      scales.kernel_radius);
  const SampleBlock block = phi.layout.sampled_block(rank);
  if (options.blobby) {
    // Threshold k(r / R): a lone particle's blob is its sphere of radius r.
    phi.field = sample_blobby(*phi.surface, block,
                              surface_kernel(scales.particle_radius / scales.kernel_radius));
  } else {
    phi.field = sample_surface(*phi.surface, block);
    if (options.smoothing) smooth_near_surface(phi.field, SmoothingOptions{});
  }
}

// This rank's piece of the surface: its slab of samples contoured.
vtkSmartPointer<vtkPolyData> rank_piece(const SlabPhi& phi, int rank) {
  if (!phi.layout.has_slab(rank)) return empty_surface_mesh();
  vtkSmartPointer<vtkPolyData> mesh = zero_level_mesh(phi.field, phi.layout.slab_range(rank));
  if (phi.has_saturation) add_vertex_saturation(mesh, *phi.surface, phi.saturation);
  return mesh;
}

std::string output_path(const SurfaceOptions& options, const std::string& name) {
  return (fs::path(options.out) / name).string();
}

// Collective: every rank's piece, and rank 0's index of them.
void write_pieces(MPI_Comm comm, vtkPolyData* piece, const std::string& stem,
                  const SurfaceOptions& options) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::string piece_file = fmt::format("{}_{}.vtp", stem, rank);
  agree_across_ranks(comm, [&] { write_vtp(piece, output_path(options, piece_file)); });
  agree_across_ranks(comm, [&] {
    if (rank != 0) return;
    std::vector<std::string> pieces;
    for (int r = 0; r < ranks; ++r) pieces.push_back(fmt::format("{}_{}.vtp", stem, r));
    write_pvtp(pieces, output_path(options, stem + ".pvtp"));
  });
}

// Collective: the welded surface, written by rank 0.
void write_merged(MPI_Comm comm, vtkPolyData* piece, bool with_saturation,
                  const std::string& stem, const SurfaceOptions& options) {
  vtkSmartPointer<vtkPolyData> merged;
  agree_across_ranks(comm, [&] { merged = gather_and_weld(comm, piece, with_saturation); });
  agree_across_ranks(comm, [&] {
    if (!merged) return;  // ranks other than 0
    write_vtp(merged, output_path(options, stem + ".vtp"));
    write_ply(merged, output_path(options, stem + ".ply"));
  });
}

}  // namespace

SlabPhi sample_slab_phi(MPI_Comm comm, const std::string& frame, const SurfaceOptions& options,
                        bool allow_empty) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  SlabPhi phi;
  double start = MPI_Wtime();
  const FrameParticles particles = read_frame_particles(comm, frame, options.material);
  phi.read = slowest_since(comm, start);
  phi.material_names = particles.material_names;
  Scales scales{};
  run_agreed(comm, frame, [&] { scales = scales_of(particles, options); });
  phi.kernel_radius = scales.kernel_radius;
  const Bounds bounds = global_bounds(comm, particles.position);
  if (bounds.count == 0 && allow_empty) return phi;
  run_agreed(comm, frame, [&] { phi.layout = layout_for(bounds, scales, options, ranks); });
  phi.particles = bounds.count;
  // Every particle within R of a sample, and a margin of one sample spacing that keeps
  // rounding at the band's ends from deciding whether a particle that matters is there.
  SurfaceParticles mine;
  start = MPI_Wtime();
  run_agreed(comm, frame, [&] {
    const SurfaceParticles read{particles.position, particles.has_saturation,
                                particles.saturation};
    mine = exchange_particles(comm, read, phi.layout, scales.kernel_radius + scales.spacing);
  });
  phi.exchange = slowest_since(comm, start);
  phi.has_saturation = mine.has_values;
  phi.saturation = std::move(mine.value);
  start = MPI_Wtime();
  run_agreed(comm, frame,
             [&] { sample_rank_slab(phi, std::move(mine.position), rank, scales, options); });
  phi.phi = slowest_since(comm, start);
  return phi;
}

FrameSurface surface_of_frame(MPI_Comm comm, const std::string& frame,
                              const SurfaceOptions& options) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  FrameSurface result;
  const SlabPhi phi = sample_slab_phi(comm, frame, options, false);
  result.read = phi.read;
  result.exchange = phi.exchange;
  result.phi = phi.phi;
  vtkSmartPointer<vtkPolyData> piece;
  double start = MPI_Wtime();
  run_agreed(comm, frame, [&] { piece = rank_piece(phi, rank); });
  result.contour = slowest_since(comm, start);
  const std::string stem = fs::path(frame).stem().string();
  start = MPI_Wtime();
  run_agreed(comm, frame, [&] {
    write_pieces(comm, piece, stem, options);
    if (options.merge) write_merged(comm, piece, phi.has_saturation, stem, options);
    if (options.vdb)
      write_frame_level_sets(comm, frame, options, phi, output_path(options, stem + ".vdb"));
  });
  result.write = slowest_since(comm, start);
  result.particles = phi.particles;
  int64_t triangles = piece->GetNumberOfPolys();
  MPI_Allreduce(&triangles, &result.triangles, 1, MPI_INT64_T, MPI_SUM, comm);
  return result;
}

}  // namespace dunesim
