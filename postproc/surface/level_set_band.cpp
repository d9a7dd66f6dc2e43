#include "postproc/surface/level_set_band.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "postproc/surface/rank_gather.hpp"

namespace dunesim {

namespace {

// Whether sample (i, j, k) has a 6-neighbour in the block on the other side of zero.
bool next_to_crossing(const SampledField& field, int i, int j, int k) {
  const bool inside = field.phi[field.index(i, j, k)] < 0;
  const std::array<int, 3> at{i, j, k};
  for (int a = 0; a < 3; ++a)
    for (int step : {-1, 1}) {
      std::array<int, 3> next = at;
      next[a] += step;
      if (next[a] < 0 || next[a] >= field.samples[a]) continue;
      if ((field.phi[field.index(next[0], next[1], next[2])] < 0) != inside) return true;
    }
  return false;
}

int32_t vdb_coordinate(int64_t lattice_index) {
  if (lattice_index < INT32_MIN || lattice_index > INT32_MAX)
    throw std::runtime_error(
        "a sample's lattice index does not fit OpenVDB's 32-bit voxel coordinates");
  return int32_t(lattice_index);
}

}  // namespace

LevelSetBand crossing_band(const SampledField& field, const SlabLayout& layout, int rank) {
  LevelSetBand band;
  if (!layout.has_slab(rank)) return band;
  SampleRange owned = layout.slab_range(rank);
  const int axis = layout.axis;
  if (layout.cuts[rank + 1] < layout.hi[axis]) owned.hi[axis] -= 1;
  for (int k = owned.lo[2]; k <= owned.hi[2]; ++k)
    for (int j = owned.lo[1]; j <= owned.hi[1]; ++j)
      for (int i = owned.lo[0]; i <= owned.hi[0]; ++i) {
        if (!next_to_crossing(field, i, j, k)) continue;
        band.index.insert(band.index.end(),
                          {vdb_coordinate(field.first[0] + i), vdb_coordinate(field.first[1] + j),
                           vdb_coordinate(field.first[2] + k)});
        band.phi.push_back(float(field.phi[field.index(i, j, k)]));
      }
  return band;
}

LevelSetBand gather_band(MPI_Comm comm, const LevelSetBand& band) {
  LevelSetBand all;
  all.index = gather_on_rank_0(comm, band.index, MPI_INT32_T, "the level set's band");
  all.phi = gather_on_rank_0(comm, band.phi, MPI_FLOAT, "the level set's band");
  return all;
}

}  // namespace dunesim
