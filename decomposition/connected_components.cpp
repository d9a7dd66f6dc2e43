#include "decomposition/connected_components.hpp"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "decomposition/reductions.hpp"

namespace dunesim {

namespace {

// Indices within one rank's box: 32 bits halve the scratch of a large labelling (a rank's
// box holds far fewer than 2^31 cells: that many would need over 100 GB of grid).
using LocalIndex = int32_t;

LocalIndex find_root(std::vector<LocalIndex>& parent, LocalIndex x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];  // path halving
    x = parent[x];
  }
  return x;
}

void unite(std::vector<LocalIndex>& parent, LocalIndex a, LocalIndex b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a != b) parent[std::max(a, b)] = std::min(a, b);
}

}  // namespace

void label_components(const Topology& topo, Halo& halo, const Array3<uint8_t>& mask,
                      ComponentLabels& labels) {
  const Box box = mask.box();
  Array3<int64_t>& label_of = labels.of_cell;
  if (label_of.box() == box && label_of.window() == mask.window())
    label_of.fill(labels.labelled, -1);
  else
    label_of.reset_within(topo.local(Stagger::Cell), mask.window(), Stagger::Cell, -1);
  // Ghosts included. The halo fills below bring labels only to cells the mask marks here
  // too, so every label stays inside this box.
  const Box marked =
      nonzero_bounding_box(mask).intersect(box).intersect(topo.global(Stagger::Cell));
  labels.labelled = marked;

  // Components of the marked cells this rank can see (owned and ghost). They stay fixed
  // while labels travel between ranks, so union-find runs once, over the marked box only.
  const Index3 extent{marked.hi[0] - marked.lo[0], marked.hi[1] - marked.lo[1],
                      marked.hi[2] - marked.lo[2]};
  if (box.volume() > std::numeric_limits<LocalIndex>::max())
    throw std::length_error("label_components: a rank's block has 2^31 cells or more");
  auto node = [&](int i, int j, int k) {
    return LocalIndex((i - marked.lo[0]) + extent[0] * (int64_t(j - marked.lo[1]) +
                                                        extent[1] * int64_t(k - marked.lo[2])));
  };
  // One pass: each marked cell joins the components of the marked neighbours before it
  // (along x, y and z). Rows along x at a time, by offset.
  std::vector<LocalIndex> parent(size_t(marked.volume()), -1);
  const int row_length = extent[0];
  const int64_t mask_step[3] = {1, mask.stride(1), mask.stride(2)};
  const LocalIndex node_step[3] = {1, LocalIndex(extent[0]), LocalIndex(extent[0] * extent[1])};
  for (int k = marked.lo[2]; k < marked.hi[2]; ++k)
    for (int j = marked.lo[1]; j < marked.hi[1]; ++j) {
      const uint8_t* m = &mask(marked.lo[0], j, k);
      const LocalIndex first = node(marked.lo[0], j, k);
      const bool has_before[3] = {false, j > marked.lo[1], k > marked.lo[2]};
      for (int x = 0; x < row_length; ++x) {
        if (!m[x]) continue;
        const LocalIndex n = first + x;
        parent[n] = n;
        for (int a = 0; a < 3; ++a)
          if ((a == 0 ? x > 0 : has_before[a]) && m[x - mask_step[a]])
            unite(parent, n - node_step[a], n);
      }
    }

  // Marked cells (offsets in label_of) with a dense id of their local component, and which
  // of them are ghosts. A component's root is its first cell in this order (unite keeps the
  // smaller root), so its smallest global index is its root's: every cell starts with that.
  const Box owned = topo.owned_cells(topo.rank());
  std::vector<LocalIndex> cells, component, component_of_root(parent.size(), -1);
  std::vector<size_t> ghosts;  // positions in `cells`
  std::vector<int64_t> label_of_component;
  int64_t* label = label_of.data();
  for (int k = marked.lo[2]; k < marked.hi[2]; ++k)
    for (int j = marked.lo[1]; j < marked.hi[1]; ++j) {
      const LocalIndex first = node(marked.lo[0], j, k);
      const int64_t first_label = label_of.offset(marked.lo[0], j, k);
      const bool ghost_row =
          j < owned.lo[1] || j >= owned.hi[1] || k < owned.lo[2] || k >= owned.hi[2];
      for (int x = 0; x < row_length; ++x) {
        const LocalIndex n = first + x;
        if (parent[n] < 0) continue;
        const int i = marked.lo[0] + x;
        const LocalIndex root = find_root(parent, n);
        if (component_of_root[root] < 0) {
          component_of_root[root] = LocalIndex(label_of_component.size());
          label_of_component.push_back(global_cell_index(topo, i, j, k));  // n is the root
        }
        const LocalIndex c = component_of_root[root];
        if (ghost_row || i < owned.lo[0] || i >= owned.hi[0]) ghosts.push_back(cells.size());
        cells.push_back(LocalIndex(first_label + x));
        component.push_back(c);
        label[first_label + x] = label_of_component[c];
      }
    }
  parent = {};
  component_of_root = {};

  // A fill writes only ghosts: a ghost whose owner disagrees brings news from the neighbour
  // (or takes back what this rank spread into it), and its component takes the smallest
  // label it sees. When no ghost changes anywhere, every component is uniform.
  std::vector<char> lowered(label_of_component.size(), 0);
  for (;;) {
    halo.fill<int64_t>({&label_of});
    bool changed = false, any_lowered = false;
    for (const size_t n : ghosts) {
      const int64_t brought = label[cells[n]];
      int64_t& mine = label_of_component[size_t(component[n])];
      changed = changed || brought != mine;
      if (brought < mine) {
        mine = brought;
        lowered[size_t(component[n])] = 1;
        any_lowered = true;
      }
    }
    if (!any_rank(topo, changed)) break;
    if (!any_lowered) continue;
    for (size_t n = 0; n < cells.size(); ++n)
      if (lowered[size_t(component[n])])
        label[cells[n]] = label_of_component[size_t(component[n])];
    std::fill(lowered.begin(), lowered.end(), 0);
  }
}

int64_t sum_per_cluster(const Topology& topo, int width,
                        std::map<int64_t, std::vector<double>>& sums) {
  std::vector<int64_t> mine;
  mine.reserve(sums.size());
  for (const auto& [label, values] : sums) {
    if (int(values.size()) != width)
      throw std::invalid_argument("sum_per_cluster: every cluster needs `width` values");
    mine.push_back(label);
  }

  const int ranks = topo.size();
  int count = int(mine.size());
  std::vector<int> counts(ranks), displacements(ranks, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, topo.comm());
  std::partial_sum(counts.begin(), counts.end() - 1, displacements.begin() + 1);
  std::vector<int64_t> labels(size_t(displacements.back()) + counts.back());
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, labels.data(), counts.data(),
                 displacements.data(), MPI_INT64_T, topo.comm());
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());

  const int64_t entries = int64_t(labels.size()) * width;
  if (entries > std::numeric_limits<int>::max())
    throw std::runtime_error("sum_per_cluster: too many clusters for one reduction");
  std::vector<double> dense(size_t(entries), 0.0);
  auto row_of = [&](int64_t label) {
    return size_t(std::lower_bound(labels.begin(), labels.end(), label) - labels.begin()) * width;
  };
  for (const auto& [label, values] : sums)
    std::copy(values.begin(), values.end(), dense.begin() + row_of(label));
  global_sum_in_place(topo, dense.data(), int(entries));
  for (auto& [label, values] : sums)
    std::copy_n(dense.begin() + row_of(label), width, values.begin());
  return int64_t(labels.size());
}

}  // namespace dunesim
