#include "src/sand/overhangs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>

namespace dunesim {

namespace {

// The first cell of column n that can hang: its lowest open cell, whose bottom is its top.
int top_cell(const WedgeColumns& c, size_t n) {
  return std::max(c.k0, int(std::lround(c.top[n] / c.dx)));
}

// Cells [lo, hi] of a column's overhang: its lowest sand cell above its top and the sand
// contiguous above it; empty (lo > hi) where the column holds no sand above its top.
struct Band {
  int lo = 1, hi = 0;
};

Band overhang_band(const WedgeColumns& c, size_t n) {
  const int end = c.k0 + c.nk;
  for (int k = top_cell(c, n); k < end; ++k)
    if (c.cell(n, k).sand) {
      int hi = k;
      while (hi + 1 < end && c.cell(n, hi + 1).sand) ++hi;
      return {k, hi};
    }
  return {};
}

// The lowest cell of column n from `first` up (its overhang's lowest) that holds sand without
// unbroken cohesion, if any.
std::optional<int> lowest_broken_hanging_cell(const WedgeColumns& c, size_t n, int first) {
  for (int k = first; k < c.k0 + c.nk; ++k) {
    const StrengthRun& cell = c.cell(n, k);
    if (cell.sand && cell.cohesion <= 0) return k;
  }
  return std::nullopt;
}

// Column m stands up to the band: its sand (or a solid) from the floor reaches the band's
// lowest cell.
bool stands_up_to(const WedgeColumns& c, size_t m, const Band& b) {
  return c.top[m] > (b.lo + 0.5) * c.dx;
}

// The weight (N per m of the line's width) of column m's sand in the band's cells, the column
// `length` m long along the line.
double band_weight(const WedgeColumns& c, size_t m, const Band& b, double length) {
  int cells = 0;
  for (int k = b.lo; k <= b.hi; ++k) cells += c.cell(m, k).sand;
  return c.density[m] * c.gravity * length * cells * c.dx;
}

// What the vertical plane between overhang column a and standing column m holds over the
// band (N per m of width): the weaker cohesion of the two cells beside it, where both hold
// sand and m's stands.
double root_hold(const WedgeColumns& c, size_t a, size_t m, const Band& b) {
  double hold = 0;
  for (int k = b.lo; k <= b.hi; ++k) {
    const StrengthRun &ca = c.cell(a, k), &cm = c.cell(m, k);
    if (ca.sand && cm.sand && (k + 0.5) * c.dx < c.top[m])
      hold += std::min(ca.cohesion, cm.cohesion) * c.dx;
  }
  return hold;
}

// One way along a line from an overhanging column: the weight of the band's overhang met
// before its end, and the end's hold if it is a root.
struct StripEnd {
  double weight = 0, hold = 0;
  bool root = false;
  double distance = 0;  // m, from the column to its root
};

StripEnd follow_strip(const WedgeColumns& c, int i, int j, int di, int dj, const Band& b) {
  const double length = std::hypot(di, dj) * c.dx;
  StripEnd end;
  size_t last = c.at(i, j);
  const int longest = 2 * (c.ni + c.nj);  // a strip between two mirrors repeats after that
  for (int s = 1; s <= longest; ++s) {
    const long m = c.folded(i + s * di, j + s * dj);
    if (m < 0) return end;  // a wall that is no mirror: a free end
    if (stands_up_to(c, size_t(m), b)) {
      end.root = true;
      end.hold = root_hold(c, last, size_t(m), b);
      end.distance = s * length;
      return end;
    }
    const double weight = band_weight(c, size_t(m), b, length);
    if (weight <= 0) return end;  // air at the band's height: a free end
    end.weight += weight;
    last = size_t(m);
  }
  return end;
}

// Whether the band of overhanging column (i, j) falls: on the line through it whose root is
// nearest (a line that meets its root obliquely weighs a longer strip against a root plane of
// the same height: a diagonal line across a root along the grid would fail an overhang that the
// line straight to it holds), the strip's weight beats its roots' hold.
bool band_falls(const WedgeColumns& c, int i, int j, const Band& b) {
  constexpr std::array<std::array<int, 2>, 4> kLines{{{1, 0}, {0, 1}, {1, 1}, {1, -1}}};
  double nearest = std::numeric_limits<double>::infinity();
  bool falls = false;
  for (const auto& [di, dj] : kLines) {
    const StripEnd ahead = follow_strip(c, i, j, di, dj, b);
    const StripEnd behind = follow_strip(c, i, j, -di, -dj, b);
    if (!ahead.root && !behind.root) continue;  // no root along this line
    constexpr double kNone = std::numeric_limits<double>::infinity();
    const double distance =
        std::min(ahead.root ? ahead.distance : kNone, behind.root ? behind.distance : kNone);
    if (distance > nearest * (1 + 1e-9)) continue;
    const double weight =
        band_weight(c, c.at(i, j), b, std::hypot(di, dj) * c.dx) + ahead.weight + behind.weight;
    const bool line_fails = weight > ahead.hold + behind.hold;
    falls = distance < nearest * (1 - 1e-9) ? line_fails : falls || line_fails;
    nearest = std::min(nearest, distance);
  }
  return falls;
}

}  // namespace

void lower_to_falling_overhangs(const WedgeColumns& c, std::vector<float>& lowest) {
  for (int i = 0; i < c.ni; ++i)
    for (int j = 0; j < c.nj; ++j) {
      const size_t n = c.at(i, j);
      const Band band = overhang_band(c, n);
      if (band.lo > band.hi) continue;  // no sand above the column's top
      if (const std::optional<int> broken = lowest_broken_hanging_cell(c, n, band.lo))
        lowest[n] = std::min(lowest[n], float(*broken * c.dx));
      if (band_falls(c, i, j, band)) lowest[n] = std::min(lowest[n], float(band.lo * c.dx));
    }
}

}  // namespace dunesim
