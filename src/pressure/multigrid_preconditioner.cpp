#include "src/pressure/multigrid_preconditioner.hpp"

#include <algorithm>
#include <cstring>

#include "decomposition/reductions.hpp"
#include "src/pressure/pressure_solver.hpp"

namespace dunesim {

namespace {

// Smoothing sweeps (each a red and a black half-sweep) before and after the coarse
// correction on the finest level, on the levels below it, and on the coarsest level (there
// in each direction). A level costs an eighth of the one above, so the coarse levels' sweeps
// are cheap, and with 4 there CG needs 7.0 iterations on the 1e8 dune against 8.0 with 2
// (the 1M dam break 7.0 against 7.9; more than 4 gain nothing; docs/findings/pressure_solve.md,
// "More sweeps on the coarse levels").
constexpr int kSmoothingSweeps = 2;
constexpr int kCoarseSmoothingSweeps = 4;
constexpr int kCoarsestSweeps = 10;
// Coarsening stops before any rank's block would be thinner than this many cells.
constexpr int kMinimumBlockCells = 2;
constexpr int kMaximumLevels = 12;
// A coarsest level up to this size is gathered onto every rank and swept there whole.
constexpr int64_t kMaximumGatheredCells = 32768;
// Work overlapped with a halo fill lets MPI move the messages on after this many runs of
// cells (a few microseconds).
constexpr size_t kRunsPerPoll = 64;

int ceil_half(int n) { return (n + 1) / 2; }

// Fluid cells stay this many cells inside a level's window, so that every stencil, the
// restriction and the prolongation read inside it. kWindowSlack more on each side when the
// window is refitted, so that moving water refits it only every few steps.
constexpr int kWindowMargin = 2;
constexpr int kWindowSlack = 4;

// The next level's window: the coarse cells with a child in `fine`, and one more layer
// (prolongation reads a parent's neighbour), cut to the coarse grid and its ghost layer.
Box coarse_window(const Box& fine, const Topology& coarse) {
  if (fine.empty()) return Box{};
  Box c;
  for (int a = 0; a < 3; ++a) {
    c.lo[a] = (fine.lo[a] >> 1) - 1;      // floor, also below zero
    c.hi[a] = -((-fine.hi[a]) >> 1) + 1;  // ceil
  }
  return overlap(c, coarse.global(Stagger::Cell).grown(1));
}

// Adds cell (i, j, k) to runs visited in for_each_index order.
template <class Run>
void append_to_runs(std::vector<Run>& runs, int i, int j, int k, int64_t offset) {
  if (!runs.empty() && runs.back().j == j && runs.back().k == k &&
      runs.back().i + runs.back().length == i)
    ++runs.back().length;
  else
    runs.push_back({i, j, k, 1, offset});
}

}  // namespace

// One level of the hierarchy. Arrays cover the rank's block plus one ghost layer, cut to the
// level's window around the fluid; a face coefficient is stored at the cell above the face
// (stencil(c).coeff[a] couples c - e_a and c).
struct MultigridPreconditioner::Level {
  std::unique_ptr<Topology> topo;
  std::unique_ptr<Halo> halo;
  Box owned;  // the rank's cells inside the domain and the window
  // The fluid cells (those with inv_diag != 0) as runs along x: every loop of the cycle
  // visits these only, so its work follows the fluid, not the block or its bounding box.
  std::vector<Run> runs;
  // runs[plane_first[k - owned.lo[2]]] is the first run of plane k (runs go up in k).
  std::vector<size_t> plane_first;
  Array3<uint8_t> type;  // kAir / kFluid / kSolid
  // Per cell, interleaved so one cache line serves the smoother's reads of a cell: the
  // coefficients of its three lower faces (1 / face density; 0 where a side is solid) and
  // 1 / diagonal (0 for cells that are not unknowns).
  struct Stencil {
    float coeff[3];
    float inv_diag;
  };
  Array3<Stencil> stencil;
  Array3<double> x, b;            // correction, right-hand side
  bool vectors_released = false;  // x and b freed until make_vectors()
  // Level 0 holds no b: its right-hand side is CG's residual, read in place (unknown order,
  // through each run's rhs_shift) instead of copied into a grid array every cycle, which
  // also saves the array's 8 bytes a cell of the window.
  const bool rhs_in_place;
  const double* residual = nullptr;  // CG's residual while apply() runs (rhs_in_place)

  Box window;  // global, the same on every rank

  explicit Level(std::unique_ptr<Topology> t, const Box& w = Box::everywhere(),
                 bool rhs_in_place_ = false)
      : topo(std::move(t)), rhs_in_place(rhs_in_place_) {
    halo = std::make_unique<Halo>(*topo);
    cover(w);
  }

  // The right-hand side as the runs address it (see Run::rhs_shift).
  const double* rhs() const { return rhs_in_place ? residual : b.data(); }

  // Arrays over the block's part of window w. Cells outside the domain are walls: solid,
  // with zero coefficients, never written.
  void cover(const Box& w) {
    window = w;
    owned = overlap(topo->owned_cells(topo->rank()), w);
    const Box block = topo->local(Stagger::Cell);
    type.reset_within(block, w, Stagger::Cell, kSolid);
    stencil.reset_within(block, w, Stagger::Cell, Stencil{{0.0f, 0.0f, 0.0f}, 0.0f});
    x.reset_within(block, w, Stagger::Cell, 0.0);
    if (!rhs_in_place) b.reset_within(block, w, Stagger::Cell, 0.0);
    vectors_released = false;
  }

  // x and b are a solve's scratch: freed for the particle sort (they are mapped, so the
  // memory goes back to the system meanwhile) and made again by setup().
  void release_vectors() {
    x = {};
    b = {};
    vectors_released = true;
  }
  void make_vectors() {
    if (!vectors_released) return;
    const Box block = topo->local(Stagger::Cell);
    x.reset_within(block, window, Stagger::Cell, 0.0);
    if (!rhs_in_place) b.reset_within(block, window, Stagger::Cell, 0.0);
    vectors_released = false;
  }

  size_t bytes() const {
    return type.size() * sizeof(uint8_t) + stencil.size() * sizeof(Stencil) +
           (x.size() + b.size()) * sizeof(double);
  }

  // Type and coefficients as the whole block would hold them: outside the window there is
  // no fluid, and kWindowMargin keeps every coefficient a fluid row uses inside it.
  uint8_t type_at(int i, int j, int k) const {
    return type.box().contains(i, j, k) ? type(i, j, k) : uint8_t(kSolid);
  }
  float coefficient_at(int i, int j, int k, int a) const {
    return stencil.box().contains(i, j, k) ? stencil(i, j, k).coeff[a] : 0.0f;
  }

  // Diagonal from the face coefficients, and the runs of fluid cells.
  void finish_operator() {
    runs.clear();
    const int64_t sy = stencil.stride(1), sz = stencil.stride(2);
    for_each_row(owned, [&](int i0, int j, int k, int length) {
      const uint8_t* t = &type(i0, j, k);
      Stencil* s = &stencil(i0, j, k);
      for (int n = 0; n < length; ++n) {
        float inverse = 0.0f;
        if (t[n] == kFluid) {
          const float* c = s[n].coeff;
          const float diag =
              c[0] + s[n + 1].coeff[0] + c[1] + s[n + sy].coeff[1] + c[2] + s[n + sz].coeff[2];
          if (diag > 0.0f) inverse = 1.0f / diag;
        }
        s[n].inv_diag = inverse;
        if (inverse != 0.0f) append_to_runs(runs, i0 + n, j, k, x.offset(i0 + n, j, k));
      }
    });
    plane_first.assign(size_t(std::max(owned.hi[2] - owned.lo[2], 0)) + 1, runs.size());
    for (size_t r = runs.size(); r-- > 0;) plane_first[runs[r].k - owned.lo[2]] = r;
    for (size_t q = plane_first.size() - 1; q-- > 0;)  // planes without fluid
      plane_first[q] = std::min(plane_first[q], plane_first[q + 1]);
  }
};

MultigridPreconditioner::MultigridPreconditioner(const Topology& fine) : fine_topo_(fine) {}
MultigridPreconditioner::~MultigridPreconditioner() = default;

// Level 0 takes the fine layout with one ghost layer; each next level halves the cuts until
// a block would get thinner than kMinimumBlockCells.
void MultigridPreconditioner::build_levels() {
  levels_.clear();
  built_for_starts_ = fine_topo_.starts();
  Index3 cells = fine_topo_.global_cells();
  std::array<std::vector<int>, 3> starts = fine_topo_.starts();
  // Without arrays until fit_windows() covers them: whole blocks would raise the peak.
  levels_.push_back(
      std::make_unique<Level>(std::make_unique<Topology>(fine_topo_.comm(), cells, 1, starts),
                              Box{}, /*rhs_in_place=*/true));
  while (int(levels_.size()) < kMaximumLevels) {
    bool thick_enough = true;
    for (int a = 0; a < 3; ++a) {
      for (int& s : starts[a]) s = ceil_half(s);
      cells[a] = ceil_half(cells[a]);
      for (size_t q = 0; q + 1 < starts[a].size(); ++q)
        thick_enough = thick_enough && starts[a][q + 1] - starts[a][q] >= kMinimumBlockCells;
    }
    if (!thick_enough) break;
    levels_.push_back(
        std::make_unique<Level>(std::make_unique<Topology>(fine_topo_.comm(), cells, 1, starts),
                                Box{}));
  }
}

// Level 0's window holds the fluid cells of all ranks with kWindowMargin cells around them;
// each coarser level's follows from it. Kept while the fluid stays inside it.
void MultigridPreconditioner::fit_windows(const MacGrid& g) {
  const Box fluid =
      global_bounding_box(fine_topo_, bounding_box_where(g.cell_type, [](uint8_t t) {
                                        return t == kFluid;
                                      }).intersect(fine_topo_.owned_cells(fine_topo_.rank())));
  Box window = refit_window(levels_[0]->window, fluid, kWindowMargin, kWindowSlack,
                            fine_topo_.global(Stagger::Cell).grown(1));
  if (window == levels_[0]->window) return;
  for (size_t l = 0; l < levels_.size(); ++l) {
    if (l > 0) window = coarse_window(window, *levels_[l]->topo);
    levels_[l]->cover(window);
  }
}

void MultigridPreconditioner::release_vectors() {
  for (auto& level : levels_) level->release_vectors();
}

size_t MultigridPreconditioner::bytes() const {
  size_t total = 0;
  for (const auto& level : levels_) total += level->bytes();
  return total;
}

void MultigridPreconditioner::setup(const MacGrid& g) {
  if (levels_.empty() || built_for_starts_ != fine_topo_.starts()) build_levels();
  fit_windows(g);
  for (auto& level : levels_) level->make_vectors();

  // Level 0: the assembled system's cell types and coefficients. Faces are needed up to
  // the block's upper ghost layer (the coarser level reads them there).
  // Row by row: the window is most of a large block, and these run every step.
  Level& top = *levels_[0];
  for_each_row(top.type.box(), [&](int i, int j, int k, int length) {
    std::memcpy(&top.type(i, j, k), &g.cell_type(i, j, k), size_t(length));
  });
  Box faces = top.owned;
  for (int a = 0; a < 3; ++a) faces.hi[a] += 1;
  faces = overlap(faces, top.stencil.box());
  for (int a = 0; a < 3; ++a) {
    const int64_t to_lower_cell = g.cell_type.stride(a);
    for_each_row(faces, [&](int i, int j, int k, int length) {
      const int64_t upper = g.cell_type.offset(i, j, k);
      Level::Stencil* stencil = &top.stencil(i, j, k);
      for (int n = 0; n < length; ++n)
        stencil[n].coeff[a] = float(face_coefficient(g, upper + n - to_lower_cell, upper + n));
    });
  }
  top.finish_operator();

  for (size_t l = 1; l < levels_.size(); ++l) coarsen(*levels_[l - 1], *levels_[l]);
  gather_coarsest_operator();
  for (auto& level : levels_) level->x.fill(0.0);

  unknown_runs_.clear();
  for_each_index(top.owned, [&](int i, int j, int k) {
    if (g.cell_type(i, j, k) == kFluid)
      append_to_runs(unknown_runs_, i, j, k, top.x.offset(i, j, k));
  });
  map_level0_rhs();
}

// Level 0's runs are fluid cells with a diagonal, in the same order as the unknowns (fluid
// cells), so each lies inside one unknown run: both lists are walked together.
void MultigridPreconditioner::map_level0_rhs() {
  int64_t first_unknown = 0;  // of unknown_runs_[u]
  size_t u = 0;
  for (Run& run : levels_[0]->runs) {
    while (unknown_runs_[u].offset + unknown_runs_[u].length <= run.offset)
      first_unknown += unknown_runs_[u++].length;
    run.rhs_shift = first_unknown - unknown_runs_[u].offset;
  }
}

// Coarse cell I covers fine cells 2I and 2I+1 on each axis. A child outside the fine
// domain is a wall (the fine arrays hold kSolid and zero coefficients there).
void MultigridPreconditioner::coarsen(const Level& fine, Level& coarse) {
  for_each_index(coarse.owned, [&](int I, int J, int K) {
    bool any_air = false, any_fluid = false;
    for (int dk = 0; dk < 2; ++dk)
      for (int dj = 0; dj < 2; ++dj)
        for (int di = 0; di < 2; ++di) {
          const uint8_t t = fine.type_at(2 * I + di, 2 * J + dj, 2 * K + dk);
          any_air = any_air || t == kAir;
          any_fluid = any_fluid || t == kFluid;
        }
    coarse.type(I, J, K) = any_air ? kAir : any_fluid ? kFluid : kSolid;
    // The coarse face's coefficient is the mean of the four fine faces it covers (a finite
    // volume flux over twice the area and twice the distance, in the fine rows' scaling).
    for (int a = 0; a < 3; ++a) {
      const int b = (a + 1) % 3, c = (a + 2) % 3;
      float sum = 0.0f;
      for (int e = 0; e < 2; ++e)
        for (int f = 0; f < 2; ++f) {
          Index3 n{2 * I, 2 * J, 2 * K};
          n[b] += e;
          n[c] += f;
          sum += fine.coefficient_at(n[0], n[1], n[2], a);
        }
      coarse.stencil(I, J, K).coeff[a] = 0.25f * sum;
    }
  });
  coarse.halo->fill<uint8_t, Level::Stencil>({&coarse.type}, {&coarse.stencil});
  coarse.finish_operator();
}

// Red-black Gauss-Seidel: a cell's colour is (i + j + k) % 2 in global indices, so the
// result does not depend on the layout. Cells of one colour do not read each other. Non-fluid
// cells have inv_diag = 0 and stay 0.

// The cells of colour `colour` among the run's cells from..to - 1 (counted from its start).
void MultigridPreconditioner::smooth_cells(Level& L, int colour, const Run& run, int from,
                                           int to) {
  double* x = L.x.data();
  const double* b = L.rhs() + run.rhs_shift;
  const Level::Stencil* s = L.stencil.data();
  const int64_t sy = L.x.stride(1), sz = L.x.stride(2);
  const int skip = (run.i + from + run.j + run.k + colour) & 1;
  for (int64_t o = run.offset + from + skip, end = run.offset + to; o < end; o += 2) {
    const float* c = s[o].coeff;
    x[o] = s[o].inv_diag *
           (b[o] + c[0] * x[o - 1] + s[o + 1].coeff[0] * x[o + 1] + c[1] * x[o - sy] +
            s[o + sy].coeff[1] * x[o + sy] + c[2] * x[o - sz] + s[o + sz].coeff[2] * x[o + sz]);
  }
}

// A half-sweep of one colour over the cells outside `inner` (all of them for an empty box).
void MultigridPreconditioner::smooth_outside(Level& L, int colour, const Box& inner) {
  for (const Run& run : L.runs) {
    const auto [a, e] = inside_span(run, inner);
    smooth_cells(L, colour, run, 0, a);
    smooth_cells(L, colour, run, e, run.length);
  }
}

// `count` sweeps, each colour `first` and then the other, with the same result to the last
// bit as their 2 count half-sweeps one after the other, but streaming the level's arrays
// once instead of 2 count times. With I_d the cells at least d layers inside the block from
// every neighbouring block (cells_needing_no_ghosts(d)), half-sweep h (1 to H = 2 count) of
// a cell in I_h reads only cells of this block that half-sweep h - 1 has already made, so:
//   1. while the ghosts are filled, half-sweep h runs on I_h, a plane behind half-sweep h - 1
//      (a cell reads the other colour of its own plane and of the planes beside it: those of
//      half-sweep h - 1 are new, and half-sweep h + 1, a plane further behind, has not yet
//      touched them);
//   2. then for each h in turn the cells it left, outermost last: those outside I_1 read the
//      ghosts of half-sweep h - 1, so each round's ghosts are filled while the round's cells
//      inside I_1 are swept.
// With `prolong_from`, the coarse level's correction is added first (prolong_cells), the
// cells outside I_1 before the ghosts are filled and the rest a plane ahead of half-sweep 1.
void MultigridPreconditioner::sweep(Level& L, int first, int count, const Level* prolong_from) {
  const int half_sweeps = 2 * count;
  std::vector<Box> inner(half_sweeps + 1);  // inner[d] = I_d
  for (int d = 1; d <= half_sweeps; ++d) inner[d] = L.topo->cells_needing_no_ghosts(d);
  auto colour = [&](int h) { return (first + h - 1) & 1; };
  // Half-sweep h over the cells of `run` in inner[from] but not in inner[to] (to > from).
  auto cells_between = [&](int h, const Run& run, int from, int to) {
    const auto [a, e] = inside_span(run, inner[from]);
    const auto [a2, e2] = inside_span(run, inner[to]);
    if (e2 > a2) {
      smooth_cells(L, colour(h), run, a, a2);
      smooth_cells(L, colour(h), run, e2, e);
    } else {
      smooth_cells(L, colour(h), run, a, e);
    }
  };
  const int first_stage = prolong_from ? 0 : 1;  // stage 0: the prolongation
  if (prolong_from)
    for (const Run& run : L.runs) {
      const auto [a, e] = inside_span(run, inner[1]);
      prolong_cells(*prolong_from, L, run, 0, a);
      prolong_cells(*prolong_from, L, run, e, run.length);
    }
  const int lo = L.owned.lo[2], hi = L.owned.hi[2];
  L.halo->fill_during<double>(
      [&](const auto& poll) {
        size_t visited = 0;
        for (int k = lo; k < hi + half_sweeps - first_stage; ++k)
          for (int h = first_stage; h <= half_sweeps; ++h) {
            const int plane = k - (h - first_stage);
            if (plane < lo || plane >= hi) continue;
            for (size_t r = L.plane_first[plane - lo]; r < L.plane_first[plane - lo + 1]; ++r) {
              if (++visited % kRunsPerPoll == 0) poll();
              const auto [a, e] = inside_span(L.runs[r], inner[std::max(h, 1)]);
              if (h == 0)
                prolong_cells(*prolong_from, L, L.runs[r], a, e);
              else
                smooth_cells(L, colour(h), L.runs[r], a, e);
            }
          }
      },
      {&L.x});
  for (int h = 1; h <= half_sweeps; ++h) {
    if (h > 1)
      L.halo->fill_during<double>(
          [&](const auto& poll) {
            size_t visited = 0;
            for (const Run& run : L.runs) {
              if (++visited % kRunsPerPoll == 0) poll();
              cells_between(h, run, 1, h);
            }
          },
          {&L.x});
    smooth_outside(L, colour(h), inner[1]);
  }
}

std::pair<int, int> MultigridPreconditioner::inside_span(const Run& run, const Box& inner) {
  if (run.j < inner.lo[1] || run.j >= inner.hi[1] || run.k < inner.lo[2] || run.k >= inner.hi[2])
    return {0, 0};
  const int a = std::clamp(inner.lo[0] - run.i, 0, run.length);
  return {a, std::clamp(inner.hi[0] - run.i, a, run.length)};
}

// (b - A x) at the fluid cell at offset o. Ghosts of x must be current.
double MultigridPreconditioner::residual_at(const Level& L, const double* b, int64_t o) {
  const double* x = L.x.data();
  const Level::Stencil* s = L.stencil.data();
  const int64_t sy = L.x.stride(1), sz = L.x.stride(2);
  const float* c = s[o].coeff;
  const double up_x = s[o + 1].coeff[0], up_y = s[o + sy].coeff[1], up_z = s[o + sz].coeff[2];
  // The smoother's diagonal, not the coefficients' sum again: the two differ by float
  // rounding, and the cycle is symmetric only if smoother and residual use one operator.
  const double diag = 1.0 / double(s[o].inv_diag);
  return b[o] - diag * x[o] + c[0] * x[o - 1] + up_x * x[o + 1] + c[1] * x[o - sy] +
         up_y * x[o + sy] + c[2] * x[o - sz] + up_z * x[o + sz];
}

namespace {

// Trilinear weights between a fine cell i and the coarse cells around it: its parent i/2
// (3/4) and the parent's neighbour on i's side (1/4).
inline void parents(int i, int& first, int& second) {
  first = i >> 1;  // floor, also for the ghost layer at -1
  second = (i & 1) ? first + 1 : first - 1;
}

}  // namespace

// The trilinear weights of fine cell (i, j, k)'s 8 coarse cells, with solid ones left out and
// the rest scaled to sum to 1: a wall is a Neumann boundary, and a correction read as 0
// beyond it would pull the fine cells next to it toward 0 as if it were air.
struct MultigridPreconditioner::ParentWeights {
  double w[8];
  int64_t offset[8];
  ParentWeights(const Level& coarse, int i, int j, int k) {
    int p[3][2];
    parents(i, p[0][0], p[0][1]);
    parents(j, p[1][0], p[1][1]);
    parents(k, p[2][0], p[2][1]);
    constexpr double base[2] = {0.75, 0.25};
    double total = 0.0;
    for (int c = 0, n = 0; c < 2; ++c)
      for (int bq = 0; bq < 2; ++bq)
        for (int a = 0; a < 2; ++a, ++n) {
          offset[n] = coarse.x.offset(p[0][a], p[1][bq], p[2][c]);
          const bool solid = coarse.type.data()[offset[n]] == kSolid;
          w[n] = solid ? 0.0 : base[a] * base[bq] * base[c];
          total += w[n];
        }
    if (total > 0.0 && total != 1.0)  // 1 exactly where no parent is solid (dyadic weights)
      for (double& v : w) v /= total;
  }
};

// b_coarse = 1/2 P^T (b - A x): each fine fluid cell pushes its residual to its 8 coarse
// cells with the prolongation's weights, and ghost contributions are summed into their
// owners. The factor 1/2 is the coarse rows' scaling (twice the cell size; see coarsen()).
// Ghosts of the fine x must be current.
void MultigridPreconditioner::restrict_residual(const Level& fine, Level& coarse) {
  coarse.b.fill(0.0);
  for (const Run& run : fine.runs) {
    const double* b = fine.rhs() + run.rhs_shift;
    for (int l = 0; l < run.length; ++l) {
      const double value = 0.5 * residual_at(fine, b, run.offset + l);
      ParentWeights pw(coarse, run.i + l, run.j, run.k);
      for (int n = 0; n < 8; ++n)
        if (pw.w[n] != 0.0) coarse.b.data()[pw.offset[n]] += pw.w[n] * value;
    }
  }
  coarse.halo->sum<double>({&coarse.b});
}

// x_fine += P x_coarse on the run's cells from..to - 1 (counted from its start). Ghosts of
// x_coarse must be current.
void MultigridPreconditioner::prolong_cells(const Level& coarse, Level& fine, const Run& run,
                                            int from, int to) {
  for (int l = from; l < to; ++l) {
    const ParentWeights pw(coarse, run.i + l, run.j, run.k);
    double sum = 0.0;
    for (int n = 0; n < 8; ++n) sum += pw.w[n] * coarse.x.data()[pw.offset[n]];
    fine.x.data()[run.offset + l] += sum;
  }
}

void MultigridPreconditioner::v_cycle(size_t l) {
  Level& L = *levels_[l];
  // Only fluid cells are ever written: the rest of x is already 0. apply() has cleared
  // level 0's fluid cells with the unknowns, which include them.
  if (l > 0)
    for (const Run& run : L.runs) std::fill_n(L.x.data() + run.offset, run.length, 0.0);
  if (l + 1 == levels_.size()) {
    if (gathered_) {
      solve_coarsest();
    } else {
      sweep(L, 0, kCoarsestSweeps);
      sweep(L, 1, kCoarsestSweeps);
    }
    L.halo->fill<double>({&L.x});
    return;
  }
  const int sweeps = l == 0 ? kSmoothingSweeps : kCoarseSmoothingSweeps;
  sweep(L, 0, sweeps);
  L.halo->fill<double>({&L.x});
  Level& C = *levels_[l + 1];
  restrict_residual(L, C);
  v_cycle(l + 1);           // leaves C.x halo-filled
  sweep(L, 1, sweeps, &C);  // after adding C's correction
  L.halo->fill<double>({&L.x});
}

namespace {

// Over a gathered level's cells, in its own (global) indices: each rank writes the cells it
// owns and leaves the rest 0, so a sum over the ranks assembles the whole level.
template <class F>
void for_each_owned_in_gathered(const Box& owned, const Index3& cells, F&& f) {
  for_each_index(owned, [&](int i, int j, int k) {
    f(i, j, k, (int64_t(k) * cells[1] + j) * cells[0] + i);
  });
}

}  // namespace

// Every rank gets the coarsest level's cell types and face coefficients (summed over the
// ranks: each cell has one owner), then its diagonal and runs as any level. Only where that
// is cheap: several ranks and a small coarsest level.
void MultigridPreconditioner::gather_coarsest_operator() {
  const Level& C = *levels_.back();
  const Index3 cells = C.topo->global_cells();
  if (C.topo->size() == 1 || int64_t(cells[0]) * cells[1] * cells[2] > kMaximumGatheredCells) {
    gathered_.reset();
    return;
  }
  if (!gathered_ || gathered_->topo->global_cells() != cells)
    gathered_ = std::make_unique<Level>(Topology::on_this_rank_alone(cells, 1));
  const int64_t count = int64_t(cells[0]) * cells[1] * cells[2];
  std::vector<double> values(size_t(4 * count), 0.0);  // type, then 3 coefficients
  for_each_owned_in_gathered(C.owned, cells, [&](int i, int j, int k, int64_t n) {
    values[size_t(4 * n)] = C.type(i, j, k);
    for (int a = 0; a < 3; ++a) values[size_t(4 * n + 1 + a)] = C.stencil(i, j, k).coeff[a];
  });
  global_sum_in_place(*C.topo, values.data(), int(values.size()));
  Level& G = *gathered_;
  for_each_owned_in_gathered(G.owned, cells, [&](int i, int j, int k, int64_t n) {
    G.type(i, j, k) = uint8_t(values[size_t(4 * n)]);
    for (int a = 0; a < 3; ++a)
      G.stencil(i, j, k).coeff[a] = float(values[size_t(4 * n + 1 + a)]);
  });
  G.finish_operator();
  gather_buffer_.assign(size_t(count), 0.0);
}

// The coarsest level's right-hand side gathered onto every rank, the sweeps run there on the
// whole level, and each rank's cells of the result copied back (ghosts not filled).
void MultigridPreconditioner::solve_coarsest() {
  Level& C = *levels_.back();
  Level& G = *gathered_;
  const Index3 cells = G.topo->global_cells();
  // Only cells with a diagonal: the sweeps leave the others' x at 0, whatever their b.
  std::fill(gather_buffer_.begin(), gather_buffer_.end(), 0.0);
  for (const Run& run : C.runs) {
    const double* b = C.rhs() + run.rhs_shift;
    for (int l = 0; l < run.length; ++l)
      gather_buffer_[size_t((int64_t(run.k) * cells[1] + run.j) * cells[0] + run.i + l)] =
          b[run.offset + l];
  }
  global_sum_in_place(*C.topo, gather_buffer_.data(), int(gather_buffer_.size()));
  for_each_owned_in_gathered(G.owned, cells, [&](int i, int j, int k, int64_t n) {
    G.b(i, j, k) = gather_buffer_[size_t(n)];
    G.x(i, j, k) = 0.0;
  });
  for (int s = 0; s < kCoarsestSweeps; ++s) {
    smooth_outside(G, 0, Box{});
    smooth_outside(G, 1, Box{});
  }
  for (int s = 0; s < kCoarsestSweeps; ++s) {
    smooth_outside(G, 1, Box{});
    smooth_outside(G, 0, Box{});
  }
  for_each_index(C.owned, [&](int i, int j, int k) { C.x(i, j, k) = G.x(i, j, k); });
}

void MultigridPreconditioner::apply(const double* r, double* z) {
  Level& top = *levels_[0];
  top.residual = r;
  double* x0 = top.x.data();
  // multiply() leaves p here; v_cycle clears only cells with a diagonal, and a fluid cell
  // walled in on all six sides has none.
  for (const Run& run : unknown_runs_) std::fill_n(x0 + run.offset, run.length, 0.0);
  v_cycle(0);
  top.residual = nullptr;
  const double* x = top.x.data();
  for (const Run& run : unknown_runs_) {
    std::copy_n(x + run.offset, run.length, z);
    z += run.length;
  }
}

// Uses the finest level's x as the ghosted copy of p. Between cycles x is 0 outside fluid
// cells (v_cycle writes only those), which is the p = 0 of air cells; apply() resets the
// fluid cells before each cycle. The rows of cells whose six neighbours are in the block
// need no ghost of p: they are computed while the halo travels, the rest after it.
void MultigridPreconditioner::multiply(const double* p, double* Ap) {
  Level& top = *levels_[0];
  double* x = top.x.data();
  const double* in = p;
  for (const Run& run : unknown_runs_) {
    std::copy_n(in, run.length, x + run.offset);
    in += run.length;
  }
  const Box inner = fine_topo_.cells_needing_no_ghosts(1);
  top.halo->fill_during<double>([&](const auto& poll) { multiply_rows(Ap, inner, true, poll); },
                                {&top.x});
  multiply_rows(Ap, inner, false, [] {});
}

// The rows of A p (in unknown order) of the cells inside `inner`, or of those outside it;
// poll() every kRunsPerPoll runs.
void MultigridPreconditioner::multiply_rows(double* Ap, const Box& inner, bool inside,
                                            const std::function<void()>& poll) const {
  const Level& top = *levels_[0];
  const double* x = top.x.data();
  const Level::Stencil* s = top.stencil.data();
  const int64_t sy = top.x.stride(1), sz = top.x.stride(2);
  const int64_t x_step[6] = {-1, 1, -sy, sy, -sz, sz};
  // out points at the run's first unknown. The faces at -x, +x, -y, +y, -z, +z: a cell's
  // stencil holds its lower faces' coefficients, the cells above hold its upper faces'.
  auto rows = [&](const Run& run, double* out, int from, int to) {
    for (int u = from; u < to; ++u) {
      const int64_t o = run.offset + u;
      const float* lower = s[o].coeff;
      const double coeff[6] = {lower[0],           s[o + 1].coeff[0], lower[1],
                               s[o + sy].coeff[1], lower[2],          s[o + sz].coeff[2]};
      const double x_c = x[o];
      double sum = 0.0;
      for (int f = 0; f < 6; ++f) sum += coeff[f] * (x_c - x[o + x_step[f]]);
      out[u] = sum;
    }
  };
  size_t visited = 0;
  for (const Run& run : unknown_runs_) {
    if (++visited % kRunsPerPoll == 0) poll();
    const auto [a, b] = inside_span(run, inner);
    if (inside) {
      rows(run, Ap, a, b);
    } else {
      rows(run, Ap, 0, a);
      rows(run, Ap, b, run.length);
    }
    Ap += run.length;
  }
}

}  // namespace dunesim
