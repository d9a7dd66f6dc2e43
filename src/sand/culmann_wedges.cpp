#include "src/sand/culmann_wedges.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "decomposition/reductions.hpp"
#include "src/sand/cohesive_wedges.hpp"

namespace dunesim {

namespace {

// Height of the bottom of each column's lowest open cell (neither sand nor solid) among
// this rank's owned cells, m; infinity where the rank owns none.
std::vector<float> owned_column_surfaces(const Topology& topo, const MacGrid& grid,
                                         const Array3<uint8_t>& sand_cells, const Box& columns) {
  const int nj = columns.hi[1] - columns.lo[1];
  std::vector<float> surface(size_t(columns.hi[0] - columns.lo[0]) * nj,
                             std::numeric_limits<float>::infinity());
  const Box owned = topo.owned_cells(topo.rank());
  for (int i = owned.lo[0]; i < owned.hi[0]; ++i)
    for (int j = owned.lo[1]; j < owned.hi[1]; ++j)
      for (int k = owned.lo[2]; k < owned.hi[2]; ++k)
        if (!holds_sand(sand_cells, i, j, k) && grid.cell_type(i, j, k) != kSolid) {
          surface[size_t(i - columns.lo[0]) * nj + (j - columns.lo[1])] = float(k * grid.dx);
          break;
        }
  return surface;
}

// One direction d = (di, dj) of the planes: lowest_d(x) = min(top(x), lowest_d(x + d) +
// step), swept so that x + d is done before x; beyond the last column is a wall, which no
// plane daylights through. Folds lowest_d into `lowest` (the minimum over directions);
// `reach` is scratch of top's size, shared by the directions.
void sweep_direction(const std::vector<float>& top, int ni, int nj, int di, int dj, float step,
                     std::vector<float>& reach, std::vector<float>& lowest) {
  auto visit = [&](int a, int b) {
    float r = top[size_t(a) * nj + b];
    const int na = a + di, nb = b + dj;
    if (na >= 0 && na < ni && nb >= 0 && nb < nj)
      r = std::min(r, reach[size_t(na) * nj + nb] + step);
    reach[size_t(a) * nj + b] = r;
  };
  if (di != 0) {
    for (int s = 0; s < ni; ++s)
      for (int b = 0; b < nj; ++b) visit(di > 0 ? ni - 1 - s : s, b);
  } else {
    for (int s = 0; s < nj; ++s)
      for (int a = 0; a < ni; ++a) visit(a, dj > 0 ? nj - 1 - s : s);
  }
  for (size_t n = 0; n < lowest.size(); ++n) lowest[n] = std::min(lowest[n], reach[n]);
}

// The layers of cells that hold sand on any rank, [lo, hi) along z: one reduction (a minimum
// of lo and of -hi).
std::array<int, 2> sand_layers(const Topology& topo, const Array3<uint8_t>& sand_cells) {
  const Box owned = topo.owned_cells(topo.rank()).intersect(nonzero_bounding_box(sand_cells));
  const bool any = owned.lo[2] < owned.hi[2];
  constexpr float kNone = 1e9f;
  float bounds[2] = {any ? float(owned.lo[2]) : kNone, any ? -float(owned.hi[2]) : kNone};
  global_min_in_place(topo, bounds, 2);
  const int lo = int(bounds[0]), hi = int(-bounds[1]);
  return {lo, std::max(lo, hi)};
}

// This rank's owned cells of the layers [k0, k1) as runs of one strength down each of
// `columns` (no cohesion where the sand shears; without sand, none and the dry sand's
// friction), and each column's heaviest sand, its density negated, into `heaviest`.
std::vector<ColumnRun> owned_strength_runs(const Topology& topo,
                                           const Array3<uint8_t>& sand_cells, const Box& columns,
                                           int k0, int k1, double dry_tan_phi,
                                           const CellWedgeStrength& strength,
                                           std::vector<float>& heaviest) {
  const size_t nj = size_t(columns.hi[1] - columns.lo[1]);
  std::vector<ColumnRun> runs;
  Box owned = topo.owned_cells(topo.rank());  // the sand's window may cover less of it
  owned.lo[2] = std::max(owned.lo[2], k0);
  owned.hi[2] = std::min(owned.hi[2], k1);
  for (int i = owned.lo[0]; i < owned.hi[0]; ++i)
    for (int j = owned.lo[1]; j < owned.hi[1]; ++j) {
      const size_t column = size_t(i - columns.lo[0]) * nj + size_t(j - columns.lo[1]);
      for (int k = owned.lo[2]; k < owned.hi[2]; ++k) {
        StrengthRun cell{0, 0.0f, float(dry_tan_phi), 0};
        if (holds_sand(sand_cells, i, j, k)) {
          const WedgeStrength s = strength(i, j, k);
          cell = {0, s.shearing ? 0.0f : float(s.cohesion), float(s.tan_phi), 1};
          heaviest[column] = std::min(heaviest[column], float(-s.density));
        }
        extend_runs(runs, column, k + 1, cell);
      }
    }
  return runs;
}

// Every cell's strength in the sand's layers and every column's heaviest density, from all
// ranks: the ranks' owned runs gathered everywhere (strength_runs.hpp) and the densities in
// one reduction (a minimum of the density negated).
WedgeColumns gather_strengths(const Topology& topo, const Array3<uint8_t>& sand_cells,
                              const Box& columns, double dry_tan_phi,
                              const CellWedgeStrength& strength) {
  WedgeColumns c;
  c.ni = columns.hi[0] - columns.lo[0];
  c.nj = columns.hi[1] - columns.lo[1];
  const auto [k0, k1] = sand_layers(topo, sand_cells);
  c.k0 = k0;
  c.nk = k1 - k0;
  const size_t n = size_t(c.ni) * size_t(c.nj);
  std::vector<float> heaviest(n, std::numeric_limits<float>::infinity());
  const std::vector<ColumnRun> owned =
      owned_strength_runs(topo, sand_cells, columns, k0, k1, dry_tan_phi, strength, heaviest);
  global_min_in_place(topo, heaviest.data(), int64_t(n));
  c.strengths = ColumnStrengths(n, k0, c.nk, all_gathered(topo, owned));
  c.density.resize(n);
  for (size_t m = 0; m < n; ++m)  // a column without sand weighs nothing
    c.density[m] = std::isfinite(heaviest[m]) ? -heaviest[m] : 0.0f;
  return c;
}

}  // namespace

CulmannWedges::CulmannWedges(const Topology& topo, const MacGrid& grid,
                             const Array3<uint8_t>& sand_cells, double tan_phi)
    : columns_(topo.global(Stagger::Cell)), dx_(grid.dx) {
  // The lowest open cell of a column is the lowest of its ranks' lowest open cells.
  top_ = owned_column_surfaces(topo, grid, sand_cells, columns_);
  global_min_in_place(topo, top_.data(), int64_t(top_.size()));
  const float closed_column = float(columns_.hi[2] * dx_);  // sand or solid to the top
  for (float& t : top_) t = std::min(t, closed_column);
  const int ni = columns_.hi[0] - columns_.lo[0], nj = columns_.hi[1] - columns_.lo[1];
  lowest_.assign(top_.size(), std::numeric_limits<float>::infinity());
  std::vector<float> reach(top_.size());
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj)
      if (di != 0 || dj != 0)
        sweep_direction(top_, ni, nj, di, dj, float(std::hypot(di, dj) * dx_ * tan_phi), reach,
                        lowest_);
}

CulmannWedges::CulmannWedges(const Topology& topo, const MacGrid& grid,
                             const Array3<uint8_t>& sand_cells, double tan_phi,
                             const CellWedgeStrength& strength, double gravity, bool layered,
                             const SymmetryWalls& symmetry, WedgeSearchMemo* memo)
    : CulmannWedges(topo, grid, sand_cells, tan_phi) {
  WedgeColumns c = gather_strengths(topo, sand_cells, columns_, tan_phi, strength);
  c.layered = layered;
  c.symmetry = symmetry;
  c.dx = dx_;
  c.gravity = gravity;
  c.top = top_;
  if (memo && memo->valid && same_columns(memo->columns, c)) {
    sliding_ = memo->sliding;
    return;
  }
  WedgeSearchShare share{topo.rank(), topo.size(), [&](float* heights, size_t count) {
                           global_min_in_place(topo, heights, int64_t(count));
                         }};
  sliding_ = lowest_sliding_planes(c, share);
  if (!memo) return;
  c.strengths.drop_lookup();  // the memo only compares them
  // Copied into the memo's own arrays, which keep their place in the heap from step to step.
  memo->valid = true;
  memo->columns = c;
  memo->sliding = sliding_;
}

bool CulmannWedges::above_daylighting_plane(int i, int j, int k) const {
  if (i < columns_.lo[0] || i >= columns_.hi[0] || j < columns_.lo[1] || j >= columns_.hi[1])
    return false;
  return (k + 0.5) * dx_ > lowest_[column(i, j)];
}

bool CulmannWedges::above_sliding_plane(int i, int j, int k) const {
  if (sliding_.empty() || i < columns_.lo[0] || i >= columns_.hi[0] || j < columns_.lo[1] ||
      j >= columns_.hi[1])
    return false;
  return (k + 0.5) * dx_ > sliding_[column(i, j)];
}

}  // namespace dunesim
