#include "src/sand/cohesive_wedges.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
// of its width) weighs and holds. A plane that meets a wall before it reaches the surface
// holds: the slice along d cannot weigh what the wall's side of the block does (along a
// slab's side wall, a diagonal slice would cut a sliver whose sides the sand beside it holds).
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
    const size_t cell = c.cell(n, int(std::floor((z0 + 0.5 * rise) / c.dx)));
    return {c.cohesion[cell], c.tan_phi[cell]};
  }
  PlaneStrength s;
  for (int k = first; k <= last; ++k) {
    const double share = (std::min(z1, (k + 1) * c.dx) - std::max(z0, k * c.dx)) / (z1 - z0);
    const size_t cell = c.cell(n, k);
    s.cohesion += share * c.cohesion[cell];
    s.tan_phi += share * c.tan_phi[cell];
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
    if (i < 0 || i >= c.ni || j < 0 || j >= c.nj) return {};  // a wall holds the block
    const size_t n = c.at(i, j);
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
                    std::vector<float>& lowest) {
  const double rise = std::hypot(e.di, e.dj) * c.dx * std::tan(angle * M_PI / 180);
  for (int s = 0; s < crossed; ++s) {
    const size_t n = c.at(e.i - s * e.di, e.j - s * e.dj);
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

// Every plane leaving column (i, j) toward (di, dj), at each cell height of its drop, from the
// top down; every sliding exit fails. In layered sand a sliding exit fails only when it is no
// safer than every sliding exit above it (to rounding: a face of one cohesionless sand is
// equally unsafe at every exit). A safer exit under a less safe one is not a failure
// surface: its block holds the less safe block, which slides away on its own plane and so
// does not load it (a weak layer slumping off a strong one; limit-equilibrium analysis takes
// the least safe surface as the critical one).
void test_planes_from(const WedgeColumns& c, int i, int j, int di, int dj, double first_angle,
                      std::vector<float>& lowest) {
  const int fi = i + di, fj = j + dj;
  if (fi < 0 || fi >= c.ni || fj < 0 || fj >= c.nj) return;  // a wall: nothing daylights
  // The tops are whole cells, so the drop is a whole number of cells: counted, not compared.
  // A top is a float and an exit a double; stepping exits up while below the face's top once
  // gave an exit a rounding under it, whose sliver of a block held nothing and slid, and
  // failed every cell above a gap in a round body's rim (docs/findings/
  // culmann_wedges_yield.md, "The round columns' failure was a rounding in the exits").
  const double drop_top = c.top[c.at(fi, fj)];
  const long drop_cells = std::lround((c.top[c.at(i, j)] - drop_top) / c.dx);
  std::vector<double> exits;
  for (long n = 0; n < drop_cells; ++n) exits.push_back(drop_top + n * c.dx);
  double least_safe_above = std::numeric_limits<double>::infinity();
  for (auto exit = exits.rbegin(); exit != exits.rend(); ++exit) {
    const PlaneExit e{i, j, di, dj, *exit};
    const ExitSlide s = test_planes_leaving(c, e, first_angle);
    if (!s.slides || (c.layered && s.safety > least_safe_above * (1 + 1e-9))) continue;
    least_safe_above = std::min(least_safe_above, s.safety);
    lower_to_plane(c, e, s.angle, s.crossed, lowest);
  }
}

}  // namespace

std::vector<float> lowest_sliding_planes(const WedgeColumns& c) {
  std::vector<float> lowest(c.top.size(), std::numeric_limits<float>::infinity());
  if (c.nk == 0) return lowest;  // no sand
  // No plane flatter than the weakest sand's phi slides.
  const float weakest = *std::min_element(c.tan_phi.begin(), c.tan_phi.end());
  const double first_angle = std::max(1.0, std::atan(double(weakest)) * 180 / M_PI);
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj)
      if (di != 0 || dj != 0)
        for (int i = 0; i < c.ni; ++i)
          for (int j = 0; j < c.nj; ++j) test_planes_from(c, i, j, di, dj, first_angle, lowest);
  return lowest;
}

}  // namespace dunesim
