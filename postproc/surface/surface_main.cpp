// dunesim_surface: surface meshes from dunesim's frames, on all ranks of an MPI job.
//   mpiexec -n P dunesim_surface FRAME.h5 [FRAME2.h5 ...] --out DIR [options]
// Frames are done one after the other, each by all ranks. A frame that fails (missing,
// truncated, not a frame, too large) is reported and skipped; the exit status is then 3.
#include <fmt/format.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "io/command_line.hpp"
#include "io/rank_agreement.hpp"
#include "postproc/surface/frame_surface.hpp"

namespace {

constexpr int kExitFrameFailed = 3;  // some frame (or the output directory) failed

const CLI::Validator kPositiveFinite =
    dunesim::positive_finite_number("a finite number > 0", "NUMBER>0");

void add_options(CLI::App& app, std::vector<std::string>& frames, dunesim::SurfaceOptions& o) {
  app.add_option("frames", frames, "dunesim frames (.h5)")->required();
  app.add_option("--out", o.out, "output directory (created if missing)")->required();
  app.add_option("--resolution", o.resolution, "samples per cell size (default 2)")
      ->check(kPositiveFinite);
  app.add_option("--kernel-radius-factor", o.kernel_radius_factor,
                 "kernel radius R in particle spacings (default 2)")
      ->check(kPositiveFinite);
  app.add_option("--material", o.material, "only the particles of this material");
  app.add_flag(
      "--no-smoothing", [&](int64_t) { o.smoothing = false; },
      "skip Zhu & Bridson's smoothing pass");
  CLI::Option* blobby =
      app.add_flag("--blobby", o.blobby, "the classic blobby field instead (no smoothing)");
  app.add_flag("--merge", o.merge, "also one welded DIR/<frame>.vtp and .ply from rank 0");
  app.add_option("--cell-size", o.cell_size,
                 "the simulation's cell size in m: overrides the frame's own (/run @cell_size, "
                 "or /grid @cell_size in frames written before /run)")
      ->check(kPositiveFinite);
  app.add_option("--max-samples", o.max_samples,
                 "refuse sample grids larger than this, all ranks together (default 2e9)")
      ->check(kPositiveFinite);
  app.add_flag("--vdb", o.vdb, "also DIR/<frame>.vdb: an OpenVDB level set per material")
      ->excludes(blobby);  // the blobby field is no distance
}

// Collective: creates the output directory on rank 0; false, with a message, on failure.
bool make_output_directory(const std::string& out, int rank) {
  try {
    dunesim::run_agreed(MPI_COMM_WORLD, out, [&] {
      if (rank != 0) return;
      std::error_code error;
      std::filesystem::create_directories(out, error);
      if (error)
        throw std::runtime_error("cannot create the output directory: " + error.message());
    });
  } catch (const dunesim::AgreedError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s\n", e.what());
    return false;
  }
  return true;
}

// Collective: one frame; false, with a message on rank 0, when it failed.
bool surface_one_frame(const std::string& frame, const dunesim::SurfaceOptions& options,
                       int rank) {
  const double start = MPI_Wtime();
  try {
    const dunesim::FrameSurface result =
        dunesim::surface_of_frame(MPI_COMM_WORLD, frame, options);
    if (rank == 0)
      fmt::print(
          "{}: {} particles, {} triangles, {:.2f} s (read {:.2f}, exchange {:.2f}, phi {:.2f}, "
          "contour {:.2f}, write {:.2f})\n",
          frame, result.particles, result.triangles, MPI_Wtime() - start, result.read,
          result.exchange, result.phi, result.contour, result.write);
    std::fflush(stdout);
    return true;
  } catch (const dunesim::AgreedError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s; frame skipped\n", e.what());
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dunesim_surface: surface meshes (Zhu & Bridson 2005) from dunesim frames"};
  std::vector<std::string> frames;
  dunesim::SurfaceOptions options;
  add_options(app, frames, options);

  if (const std::optional<int> status = dunesim::start_mpi_command(app, argc, argv))
    return *status;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool all_done = make_output_directory(options.out, rank);
  if (all_done)
    for (const std::string& frame : frames)
      if (!surface_one_frame(frame, options, rank)) all_done = false;
  MPI_Finalize();
  return all_done ? 0 : kExitFrameFailed;
}
