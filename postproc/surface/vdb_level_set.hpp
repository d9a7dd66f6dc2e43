// OpenVDB level sets from a narrow band of phi (dunesim_surface --vdb).
#pragma once
#include <openvdb/openvdb.h>

#include <string>

#include "postproc/surface/level_set_band.hpp"

namespace dunesim {

// OpenVDB's usual half-width in voxels (openvdb::LEVEL_SET_HALF_WIDTH): the least background,
// and how far the band reaches on either side of the surface.
constexpr int kLevelSetHalfWidth = 3;

// The half-width in voxels for phi of kernel radius R: |phi| <= R everywhere (R where no
// particle is within R), so with more than R / spacing voxels no voxel of the band (phi
// kept as it is) reaches the background.
int level_set_half_width(double kernel_radius, double spacing);

// A FloatGrid of class GRID_LEVEL_SET named `name`, voxel (i, j, k) at (i, j, k) * spacing:
// the band's voxels keep phi (as float), so the zero crossing is the surface's; around them
// the band is widened to `half_width` voxels with distances from OpenVDB's fast sweeping
// (phi inside a particle surface is no distance: it levels off near -r), and the inactive
// voxels hold -+ half_width voxels (inside, outside).
openvdb::FloatGrid::Ptr level_set_grid(const LevelSetBand& band, double spacing, int half_width,
                                       const std::string& name);

// Writes the grids to the .vdb file `path`; throws std::runtime_error naming it when it
// cannot (a directory there, a write that fails or leaves no file).
void write_vdb(const openvdb::GridPtrVec& grids, const std::string& path);

}  // namespace dunesim
