// Integer index boxes on the global MAC grid, and the four grid staggerings.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

namespace dunesim {

using Index3 = std::array<int, 3>;

// Where a grid quantity lives: cell centres, or the x/y/z faces of the MAC grid.
// A FaceX array has one more entry than cells along x (face i sits at x = i*dx).
enum class Stagger : int { Cell = 0, FaceX = 1, FaceY = 2, FaceZ = 3 };

// Axis along which a staggering has its extra entry, or -1 for cells.
inline int face_axis(Stagger s) { return static_cast<int>(s) - 1; }
inline Stagger face_stagger(int axis) { return static_cast<Stagger>(axis + 1); }

// Half-open box [lo, hi) of global indices.
struct Box {
  Index3 lo{0, 0, 0};
  Index3 hi{0, 0, 0};

  bool empty() const { return hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]; }
  int64_t volume() const {
    if (empty()) return 0;
    return int64_t(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  }
  bool contains(int i, int j, int k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
  Box intersect(const Box& o) const {
    Box r;
    for (int a = 0; a < 3; ++a) {
      r.lo[a] = std::max(lo[a], o.lo[a]);
      r.hi[a] = std::min(hi[a], o.hi[a]);
    }
    return r;
  }
  Box grown(int g) const {
    Box r = *this;
    for (int a = 0; a < 3; ++a) {
      r.lo[a] -= g;
      r.hi[a] += g;
    }
    return r;
  }
  bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }

  // A box larger than any grid: arrays cut to it cover their whole block.
  static Box everywhere() { return Box{{-kFar, -kFar, -kFar}, {kFar, kFar, kFar}}; }
  static constexpr int kFar = 1 << 29;
};

// The common part of two boxes; Box{} when they do not overlap, so that every rank names an
// empty part the same way.
inline Box overlap(const Box& a, const Box& b) {
  const Box r = a.intersect(b);
  return r.empty() ? Box{} : r;
}

// The smallest box holding both a and b (the other one when either is empty).
inline Box hull(const Box& a, const Box& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  Box r;
  for (int k = 0; k < 3; ++k) {
    r.lo[k] = std::min(a.lo[k], b.lo[k]);
    r.hi[k] = std::max(a.hi[k], b.hi[k]);
  }
  return r;
}

// A window around `contents` within `limit`, for arrays that cover only part of the grid:
// `current` while it holds contents grown by `reach`, else contents grown by reach + slack,
// so that moving contents refit it only every few steps. Box{} when contents is empty.
inline Box refit_window(const Box& current, const Box& contents, int reach, int slack,
                        const Box& limit) {
  if (contents.empty()) return Box{};
  const Box needed = overlap(contents.grown(reach), limit);
  if (overlap(current, needed) == needed) return current;
  return overlap(contents.grown(reach + slack), limit);
}

// The cells within `reach` of box b, clipped to `limit`; empty when b is.
inline Box neighbourhood(const Box& b, int reach, const Box& limit) {
  return b.empty() ? Box{} : b.grown(reach).intersect(limit);
}

// The faces of component `axis` that bound at least one cell of the cell box b.
inline Box faces_of_cells(const Box& b, int axis) {
  if (b.empty()) return Box{};
  Box faces = b;
  faces.hi[axis] += 1;
  return faces;
}

// Calls f(i, j, k) for every index of the box, k outermost so memory is walked in order.
template <class F>
inline void for_each_index(const Box& b, F&& f) {
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j)
      for (int i = b.lo[0]; i < b.hi[0]; ++i) f(i, j, k);
}

// Calls f(i, j, k, length) for every row of the box along x, starting at (i, j, k), in
// for_each_index order: a row's entries are consecutive in an Array3 that holds them.
template <class F>
inline void for_each_row(const Box& b, F&& f) {
  if (b.hi[0] <= b.lo[0]) return;
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j) f(b.lo[0], j, k, b.hi[0] - b.lo[0]);
}

}  // namespace dunesim
