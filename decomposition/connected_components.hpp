// Connected groups of marked cells across ranks, and sums of per-group quantities.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"

namespace dunesim {

// Global linear index of a cell: i + nx*(j + ny*k).
inline int64_t global_cell_index(const Topology& topo, int i, int j, int k) {
  const Index3& n = topo.global_cells();
  return i + int64_t(n[0]) * (j + int64_t(n[1]) * k);
}

// The cell whose global linear index is `index`.
inline Index3 cell_of_global_index(const Topology& topo, int64_t index) {
  const Index3& n = topo.global_cells();
  const int64_t nx = n[0], ny = n[1];
  return {int(index % nx), int(index / nx % ny), int(index / (nx * ny))};
}

// Component labels of a rank's cells. They are kept between calls so that a call clears
// only the box the previous one labelled, not the whole block.
struct ComponentLabels {
  Array3<int64_t> of_cell;  // over the mask's box; -1 for cells in no component
  Box labelled;             // of_cell is -1 outside this box

  int64_t operator()(int i, int j, int k) const { return of_cell(i, j, k); }
};

// Labels the 6-connected components of the in-domain cells with mask != 0. Each cell of a
// component gets the smallest global linear index of the component's cells, so labels do
// not depend on the rank layout; other cells get -1. `mask` must be halo-consistent and cover
// the local cell box, or its part in a window; the labels come back over the mask's box,
// halo-consistent. The work grows with the
// bounding box of the marked cells, not with the block. Collective.
void label_components(const Topology& topo, Halo& halo, const Array3<uint8_t>& mask,
                      ComponentLabels& labels);

// Per-cluster sums over all ranks. `sums` maps a cluster label to this rank's partial sums
// (`width` doubles each, the same width on every rank); on return each entry holds the sum
// over all ranks. Every rank learns the sorted list of all labels (8 bytes each), then one
// sum over a dense [clusters x width] array combines them, so the cost grows with the
// global number of clusters. Returns the number of distinct labels over all ranks.
// Collective.
int64_t sum_per_cluster(const Topology& topo, int width,
                        std::map<int64_t, std::vector<double>>& sums);

}  // namespace dunesim
