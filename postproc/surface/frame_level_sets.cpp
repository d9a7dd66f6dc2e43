#include "postproc/surface/frame_level_sets.hpp"

#include <vector>

#include "io/rank_agreement.hpp"
#include "postproc/surface/level_set_band.hpp"
#include "postproc/surface/vdb_level_set.hpp"

namespace dunesim {

namespace {

// A material's band of phi, gathered on rank 0 (collective).
LevelSetBand gathered_band(MPI_Comm comm, const std::string& frame, const SlabPhi& phi) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  LevelSetBand band;
  run_agreed(comm, frame, [&] {
    if (phi.particles > 0) band = crossing_band(phi.field, phi.layout, rank);
  });
  LevelSetBand all;
  run_agreed(comm, frame, [&] { all = gather_band(comm, band); });
  return all;
}

// The grid of one material, on rank 0 (nullptr elsewhere).
openvdb::FloatGrid::Ptr material_grid(MPI_Comm comm, const std::string& frame, const SlabPhi& phi,
                                      const std::string& name) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const LevelSetBand band = gathered_band(comm, frame, phi);
  openvdb::FloatGrid::Ptr grid;
  run_agreed(comm, frame, [&] {
    if (rank != 0) return;
    const double spacing = phi.layout.spacing;
    grid = level_set_grid(band, spacing, level_set_half_width(phi.kernel_radius, spacing), name);
  });
  return grid;
}

}  // namespace

void write_frame_level_sets(MPI_Comm comm, const std::string& frame,
                            const SurfaceOptions& options, const SlabPhi& phi,
                            const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  openvdb::GridPtrVec grids;
  const std::vector<std::string>& names = phi.material_names;
  if (!options.material.empty() || names.size() <= 1) {
    const std::string name = !options.material.empty() ? options.material
                             : names.empty()           ? "particles"
                                                       : names[0];
    grids.push_back(material_grid(comm, frame, phi, name));
  } else {
    for (const std::string& name : names) {
      SurfaceOptions one = options;
      one.material = name;
      const SlabPhi material_phi = sample_slab_phi(comm, frame, one, true);
      if (material_phi.particles > 0)
        grids.push_back(material_grid(comm, frame, material_phi, name));
    }
  }
  run_agreed(comm, path, [&] {
    if (rank == 0) write_vdb(grids, path);
  });
}

}  // namespace dunesim
