#include "src/sand/cohesive_wedges.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "src/sand/overhangs.hpp"

namespace dunesim {

namespace {

constexpr double kSteepestAngle = 89.0;  // degrees
constexpr double kCoarseStep = 6.0;      // degrees: the first search over the angles
constexpr int kRefinements = 3;          // halvings of the step around the best angle: 0.75
constexpr int kBisections = 5;           // of the shallowest sliding angle: within 0.2 degrees

// A plane leaving the face of column (i, j) toward (di, dj) at height `exit`.
struct PlaneExit {
  int i, j;     // the column at the face
  int di, dj;   // toward the face
  double exit;  // m, the plane's height at the face
};

// What the block above a plane leaving `e` at `angle` degrees does: the columns it crosses
// and by how much its weight's pull beats what the plane holds (N per m of width; <= 0
// holds). Columns are crossed at midpoints: in column s the plane rises from z at its
// face-side edge by `rise`, and the sand in the column's share under the top (a fraction f
// of its width) weighs and holds. A plane goes on through a symmetry wall into the sand's
// mirror image; one that meets another wall before it reaches the surface holds: the slice along
// d cannot weigh what the wall's side of the block does (along a slab's side wall, a diagonal
// slice would cut a sliver whose sides the sand beside it holds).
struct Block {
  int crossed = 0;
  double margin = -std::numeric_limits<double>::infinity();
  double safety = std::numeric_limits<double>::infinity();  // hold / drive
};
// The strength of column n's cells along a plane that rises through it from z0 by `rise`:
// that of the cell at its midpoint, or in layered sand their cohesion and friction weighted
// by the plane's length in each (a steep plane that crosses several layers in one column
// takes each its share).
struct PlaneStrength {
  double cohesion = 0, tan_phi = 0;
};
PlaneStrength strength_along(const WedgeColumns& c, size_t n, double z0, double rise) {
  const double z1 = z0 + rise;
  const int first = int(std::floor(z0 / c.dx)), last = int(std::floor(z1 / c.dx));
  if (!c.layered || last <= first) {
    const StrengthRun& cell = c.cell(n, int(std::floor((z0 + 0.5 * rise) / c.dx)));
    return {cell.cohesion, cell.tan_phi};
  }
  PlaneStrength s;
  for (int k = first; k <= last; ++k) {
    const double share = (std::min(z1, (k + 1) * c.dx) - std::max(z0, k * c.dx)) / (z1 - z0);
    const StrengthRun& cell = c.cell(n, k);
    s.cohesion += share * cell.cohesion;
    s.tan_phi += share * cell.tan_phi;
  }
  return s;
}

Block block_above(const WedgeColumns& c, const PlaneExit& e, double angle) {
  const double beta = angle * M_PI / 180, tan_beta = std::tan(beta);
  const double cos_beta = std::cos(beta), sin_beta = std::sin(beta);
  const double width = std::hypot(e.di, e.dj) * c.dx, rise = width * tan_beta;
  double drive = 0, hold = 0, z = e.exit;
  int crossed = 0;
  for (int i = e.i, j = e.j;; i -= e.di, j -= e.dj) {
    const long folded = c.folded(i, j);
    if (folded < 0) return {};  // a wall holds the block
    const size_t n = size_t(folded);
    const double f = std::clamp((c.top[n] - z) / rise, 0.0, 1.0);
    if (f <= 0) break;
    const double weight = c.density[n] * c.gravity * f * width * (c.top[n] - z - 0.5 * f * rise);
    const PlaneStrength s = strength_along(c, n, z, f * rise);
    drive += weight * sin_beta;
    hold += weight * cos_beta * s.tan_phi + s.cohesion * f * width / cos_beta;
    ++crossed;
    z += rise;
    if (f < 1) break;
  }
  return {crossed, drive - hold,
          drive > 0 ? hold / drive : std::numeric_limits<double>::infinity()};
}

void lower_to_plane(const WedgeColumns& c, const PlaneExit& e, double angle, int crossed,
                    float* lowest) {
  const double rise = std::hypot(e.di, e.dj) * c.dx * std::tan(angle * M_PI / 180);
  for (int s = 0; s < crossed; ++s) {
    const size_t n = size_t(c.folded(e.i - s * e.di, e.j - s * e.dj));  // block_above met it
    lowest[n] = std::min(lowest[n], float(e.exit + (s + 0.5) * rise));
  }
}

// What the planes leaving one exit do: whether one slides, and if so the shallowest that
// does (its angle and the columns it crosses) and the factor of safety (hold over drive) of
// the one that slides most.
struct ExitSlide {
  bool slides = false;
  double angle = 0, safety = 0;
  int crossed = 0;
};

// The planes leaving `e`: the angle whose block slides most, found on a coarse grid and
// refined around the best; if that block slides, the shallowest angle that still slides
// (bisected between phi and it), whose plane lies under every steeper one from `e` and so
// bounds the sand they move.
ExitSlide test_planes_leaving(const WedgeColumns& c, const PlaneExit& e, double first_angle) {
  double best = first_angle;
  Block most = block_above(c, e, best);
  auto consider = [&](double angle) {
    if (angle < first_angle || angle > kSteepestAngle) return;
    const Block b = block_above(c, e, angle);
    if (b.margin > most.margin) {
      most = b;
      best = angle;
    }
  };
  for (double angle = first_angle + kCoarseStep; angle <= kSteepestAngle; angle += kCoarseStep)
    consider(angle);
  for (double step = kCoarseStep / 2; step >= kCoarseStep / (1 << kRefinements); step /= 2) {
    const double around = best;
    consider(around - step);
    consider(around + step);
  }
  if (most.margin <= 0) return {};
  const double safety = most.safety;
  double holds = first_angle, slides = best;
  if (const Block b = block_above(c, e, holds); b.margin > 0) {
    slides = holds;
    most = b;
  }
  for (int n = 0; n < kBisections && slides > holds; ++n) {
    const double mid = 0.5 * (holds + slides);
    if (const Block b = block_above(c, e, mid); b.margin > 0) {
      slides = mid;
      most = b;
    } else {
      holds = mid;
    }
  }
  return {true, slides, safety, most.crossed};
}

// Whether the block above a plane leaving `e` at `angle`, crossing `crossed` columns, is free
// at its sides: in each column it crosses, the cell beside it (one column across d on either
// side) at the plane's height holds no sand with unbroken cohesion (or lies outside the
// domain), or its column slides toward d too (`sliding`: the last round's sliding heights of
// the planes toward d, finite where a column slides). A slice is a column wide; in three
// dimensions its block is joined along its sides to the sand beside it, which holds it unless
// that sand slides with it or has broken. A straight face's slices slide together; a short
// chord of a round body's rim, which a slice weighs as a free-standing wall, is held by the
// longer chord behind it.
bool free_at_its_sides(const WedgeColumns& c, const PlaneExit& e, double angle, int crossed,
                       const float* sliding) {
  const double rise = std::hypot(e.di, e.dj) * c.dx * std::tan(angle * M_PI / 180);
  for (int s = 0; s < crossed; ++s) {
    const int i = e.i - s * e.di, j = e.j - s * e.dj;
    const double centre = (std::floor((e.exit + (s + 0.5) * rise) / c.dx) + 0.5) * c.dx;
    for (int side : {-1, 1}) {
      const long beside = c.folded(i - side * e.dj, j + side * e.di);
      if (beside < 0) continue;
      const size_t n = size_t(beside);
      const bool holds = c.top[n] > centre && c.cell(n, int(centre / c.dx)).cohesion > 0;
      if (holds && !std::isfinite(sliding[n])) return false;
    }
  }
  return true;
}

// A plane whose block slides when weighed alone: where it leaves, and what it does.
struct SlidingPlane {
  PlaneExit exit;
  ExitSlide slide;
};

// How many exits the face of column (i, j) toward (di, dj) has: one at each cell height of its
// drop to the next column (none where that is a wall, which no plane daylights through).
// The tops are whole cells, so the drop is a whole number of cells: counted, not compared. A
// top is a float and an exit a double; stepping exits up while below the face's top once gave
// an exit a rounding under it, whose sliver of a block held nothing and slid, and failed every
// cell above a gap in a round body's rim (docs/findings/culmann_wedges_yield.md, "The round
// columns' failure was a rounding in the exits").
long exits_of_face(const WedgeColumns& c, int i, int j, int di, int dj) {
  const int fi = i + di, fj = j + dj;
  if (fi < 0 || fi >= c.ni || fj < 0 || fj >= c.nj) return 0;
  return std::max(0L, std::lround((c.top[c.at(i, j)] - c.top[c.at(fi, fj)]) / c.dx));
}

// The planes leaving column (i, j) toward (di, dj), at each of its face's exits, whose blocks
// slide weighed alone (the shallowest such from each exit), from the top down.
std::vector<SlidingPlane> planes_sliding_from(const WedgeColumns& c, int i, int j, int di, int dj,
                                              double first_angle) {
  const double drop_top = c.top[c.at(i + di, j + dj)];
  std::vector<SlidingPlane> planes;
  for (long n = exits_of_face(c, i, j, di, dj) - 1; n >= 0; --n) {
    const PlaneExit e{i, j, di, dj, drop_top + n * c.dx};
    const ExitSlide s = test_planes_leaving(c, e, first_angle);
    if (s.slides) planes.push_back({e, s});
  }
  return planes;
}

// A face's sliding planes (planes_sliding_from) fail, top down, lowering `lowest` to them.
// In layered sand a plane fails only when it is no safer than every failed plane above it
// (to rounding: a face of one cohesionless sand is equally unsafe at every exit). A safer
// exit under a less safe one is not a failure surface: its block holds the less safe block,
// which slides away on its own plane and so does not load it (a weak layer slumping off a
// strong one; limit-equilibrium analysis takes the least safe surface as the critical one).
// With `sliding` (the last round's sliding heights toward the face's direction) a plane fails
// only where its block is free at its sides. Returns whether a plane failed.
bool fail_planes(const WedgeColumns& c, const std::vector<SlidingPlane>& planes,
                 const float* sliding, float* lowest) {
  double least_safe_above = std::numeric_limits<double>::infinity();
  bool failed = false;
  for (const auto& [e, s] : planes) {
    if (c.layered && s.safety > least_safe_above * (1 + 1e-9)) continue;
    if (sliding && !free_at_its_sides(c, e, s.angle, s.crossed, sliding)) continue;
    least_safe_above = std::min(least_safe_above, s.safety);
    lower_to_plane(c, e, s.angle, s.crossed, lowest);
    failed = true;
  }
  return failed;
}

constexpr int kSideRounds = 8;  // rounds of the side test at most (each holds more blocks)

constexpr std::array<std::array<int, 2>, 8> kDirections = {
    {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}}};

// The sliding heights toward each direction, side by side: direction d's column n at
// d * columns + n, all ranks' planes combined.
struct SlidingByDirection {
  size_t columns = 0;
  std::vector<float> heights;
  float* toward(size_t d) { return heights.data() + d * columns; }
  bool any_slides(size_t d) const {
    const auto first = heights.begin() + std::ptrdiff_t(d * columns);
    return std::any_of(first, first + std::ptrdiff_t(columns),
                       [](float h) { return std::isfinite(h); });
  }
};

// The work of testing a face's exits: the plane from an exit n cells below the face's top
// crosses about n columns before it reaches the surface behind, so a face of n exits costs
// about n (n + 1) / 2 columns' weighing an angle.
int64_t face_work(long exits) { return int64_t(exits) * (exits + 1) / 2; }

// This rank's faces whose planes slide weighed alone, per direction, having failed them into
// `sliding`: every face of the domain in turn (by direction, then column), the run of them
// that falls to this part of the search (cut where the work is evenly shared).
std::array<std::vector<std::vector<SlidingPlane>>, 8> fail_own_faces(
    const WedgeColumns& c, const WedgeSearchShare& share, double first_angle,
    SlidingByDirection& sliding) {
  int64_t work = 0;
  for (const auto& [di, dj] : kDirections)
    for (int i = 0; i < c.ni; ++i)
      for (int j = 0; j < c.nj; ++j) work += face_work(exits_of_face(c, i, j, di, dj));
  std::array<std::vector<std::vector<SlidingPlane>>, 8> faces;
  int64_t before = 0;  // the work of the faces before this one
  for (size_t d = 0; d < kDirections.size(); ++d)
    for (int i = 0; i < c.ni; ++i)
      for (int j = 0; j < c.nj; ++j) {
        const auto [di, dj] = kDirections[d];
        const int64_t own = face_work(exits_of_face(c, i, j, di, dj));
        const bool ours = own > 0 && before * share.parts / work == share.part;
        before += own;
        if (!ours) continue;
        std::vector<SlidingPlane> planes = planes_sliding_from(c, i, j, di, dj, first_angle);
        if (fail_planes(c, planes, nullptr, sliding.toward(d)))
          faces[d].push_back(std::move(planes));
      }
  return faces;
}

// The sliding heights of the planes toward each direction: every face's sliding planes fail,
// then rounds follow in which a plane fails only where its block is free at its sides in the
// round before, until no more are held. Only the faces that failed in a round are weighed
// again, from the planes they slid on alone: the side test can only hold more. Each round
// combines the ranks' heights once, for every direction still changing.
SlidingByDirection sliding_by_direction(const WedgeColumns& c, const WedgeSearchShare& share,
                                        double first_angle) {
  const float none = std::numeric_limits<float>::infinity();
  SlidingByDirection sliding{c.top.size(), {}};
  sliding.heights.assign(kDirections.size() * sliding.columns, none);
  auto combine = [&](std::vector<float>& heights) {
    if (share.combine_min) share.combine_min(heights.data(), heights.size());
  };
  auto faces = fail_own_faces(c, share, first_angle, sliding);
  combine(sliding.heights);
  std::array<bool, 8> settled{};
  for (int round = 0; round < kSideRounds; ++round) {
    std::vector<size_t> active;  // the same on every rank: read from combined heights
    for (size_t d = 0; d < kDirections.size(); ++d)
      if (!settled[d] && sliding.any_slides(d)) active.push_back(d);
    if (active.empty()) break;
    SlidingByDirection held{sliding.columns, {}};  // the a-th active direction at toward(a)
    held.heights.assign(active.size() * held.columns, none);
    for (size_t a = 0; a < active.size(); ++a) {
      std::vector<std::vector<SlidingPlane>> still;
      for (std::vector<SlidingPlane>& planes : faces[active[a]])
        if (fail_planes(c, planes, sliding.toward(active[a]), held.toward(a)))
          still.push_back(std::move(planes));
      faces[active[a]].swap(still);
    }
    combine(held.heights);
    for (size_t a = 0; a < active.size(); ++a) {
      float* last = sliding.toward(active[a]);
      settled[active[a]] = std::equal(last, last + sliding.columns, held.toward(a));
      std::copy(held.toward(a), held.toward(a) + held.columns, last);
    }
  }
  return sliding;
}

}  // namespace

bool same_columns(const WedgeColumns& a, const WedgeColumns& b) {
  auto same = [](const std::vector<float>& x, const std::vector<float>& y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                      [](float p, float q) { return same_bits(p, q); });
  };
  return a.ni == b.ni && a.nj == b.nj && a.k0 == b.k0 && a.nk == b.nk && a.dx == b.dx &&
         a.gravity == b.gravity && a.layered == b.layered && a.symmetry == b.symmetry &&
         same(a.top, b.top) && same(a.density, b.density) && a.strengths == b.strengths;
}

std::vector<float> lowest_sliding_planes(const WedgeColumns& c, const WedgeSearchShare& share) {
  std::vector<float> lowest(c.top.size(), std::numeric_limits<float>::infinity());
  if (c.nk == 0) return lowest;  // no sand
  // No plane flatter than the weakest sand's phi slides.
  const float weakest = c.strengths.weakest_tan_phi();
  const double first_angle = std::max(1.0, std::atan(double(weakest)) * 180 / M_PI);
  SlidingByDirection sliding = sliding_by_direction(c, share, first_angle);
  for (size_t d = 0; d < kDirections.size(); ++d) {
    const float* toward = sliding.toward(d);
    for (size_t n = 0; n < lowest.size(); ++n) lowest[n] = std::min(lowest[n], toward[n]);
  }
  lower_to_falling_overhangs(c, lowest);
  return lowest;
}

}  // namespace dunesim
