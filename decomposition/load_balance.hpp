// Choosing block cuts from measured work, so each rank gets a similar share.
//
// Work is a per-cell cost (particles plus a small constant for the grid). A Cartesian
// layout cuts each axis independently, so the cuts balance the work summed over planes
// (the marginal histograms); the layout (px, py, pz) is then chosen by the actual work of
// its most loaded block, which every rank helps compute from the cells it owns.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"

namespace dunesim {

using BlockCuts = std::array<std::vector<int>, 3>;

// Cut positions that split `work[n]` (work of plane n along one axis) into `blocks` parts
// of nearly equal sum, each at least `min_thickness` planes thick.
std::vector<int> balanced_cuts(const std::vector<double>& work, int blocks, int min_thickness);

struct BalancedLayout {
  BlockCuts cuts;
  double max_block_work = 0;  // work of the most loaded block
  double mean_block_work = 0;
  double imbalance() const { return mean_block_work > 0 ? max_block_work / mean_block_work : 1; }
};

// Collective over topo: `cell_work` holds the work of this rank's owned cells (in-domain
// block). Returns the layout over topo.size() ranks with the smallest maximum block work
// (ties: smallest halo surface), with blocks at least topo.ghost() cells thick.
BalancedLayout choose_balanced_layout(const Topology& topo, const Array3<double>& cell_work);

// Work of the most loaded block for the given cuts (collective), and the mean.
BalancedLayout evaluate_layout(const Topology& topo, const Array3<double>& cell_work,
                               const BlockCuts& cuts);

// One load-balance check of a run (the same on every rank).
struct ImbalanceCheck {
  int64_t step = 0;
  double before = 1, after = 1;  // max / mean work per rank (the balancer's measure)
};

}  // namespace dunesim
