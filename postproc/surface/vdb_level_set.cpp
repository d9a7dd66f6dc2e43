#include "postproc/surface/vdb_level_set.hpp"

#include <fmt/format.h>
#include <openvdb/tools/ChangeBackground.h>
#include <openvdb/tools/FastSweeping.h>
#include <openvdb/tools/SignedFloodFill.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "postproc/surface/mesh_files.hpp"

namespace dunesim {

int level_set_half_width(double kernel_radius, double spacing) {
  return std::max(kLevelSetHalfWidth, int(std::floor(kernel_radius / spacing)) + 1);
}

openvdb::FloatGrid::Ptr level_set_grid(const LevelSetBand& band, double spacing, int half_width,
                                       const std::string& name) {
  openvdb::initialize();
  // Not below the half-width in voxels once rounded to float (OpenVDB's checkLevelSet).
  float background = float(half_width * spacing);
  if (double(background) < half_width * spacing)
    background = std::nextafter(background, HUGE_VALF);
  auto grid = openvdb::FloatGrid::create(background);
  grid->setTransform(openvdb::math::Transform::createLinearTransform(spacing));
  grid->setGridClass(openvdb::GRID_LEVEL_SET);
  auto voxels = grid->getAccessor();
  for (size_t v = 0; v < band.size(); ++v)
    voxels.setValueOn(openvdb::Coord(band.index[3 * v], band.index[3 * v + 1],
                                     band.index[3 * v + 2]),
                      band.phi[v]);
  if (band.size() > 0) grid = openvdb::tools::dilateSdf(*grid, half_width - 1);
  // The sweep sets a background of its own and may reach beyond the half-width: keep the
  // band within it, with OpenVDB's symmetric background outside.
  std::vector<openvdb::Coord> beyond;
  for (auto voxel = grid->cbeginValueOn(); voxel; ++voxel)
    if (std::abs(*voxel) >= background) beyond.push_back(voxel.getCoord());
  for (const openvdb::Coord& voxel : beyond) grid->tree().setValueOff(voxel);
  openvdb::tools::changeLevelSetBackground(grid->tree(), background);
  openvdb::tools::signedFloodFill(grid->tree());
  grid->setName(name);
  return grid;
}

void write_vdb(const openvdb::GridPtrVec& grids, const std::string& path) {
  refuse_non_regular(path, "the level sets");
  openvdb::initialize();
  try {
    openvdb::io::File file(path);
    file.write(grids);
    file.close();
  } catch (const openvdb::Exception& e) {
    throw std::runtime_error(
        fmt::format("{}: could not write the level sets ({})", path, e.what()));
  }
  require_written(path, "the level sets");
}

}  // namespace dunesim
