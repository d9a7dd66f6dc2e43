#include "src/sand/surface_rest.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace dunesim {

namespace {

// The fill (0 in air, else 1) of the cell at `offset` from (i,j,k). A solid between the
// cell and the offset along a horizontal axis is a side wall, which the surface meets at a
// right angle (walls are symmetry planes or slip): the cell reads the mirror image across
// itself instead, so a flat surface along a wall reads flat. Solids below (floors) are
// filled: they hold the sand up.
double fill_at(const Array3<uint8_t>& type, int i, int j, int k, Index3 offset, int vertical) {
  const Index3 centre{i, j, k};
  for (int a = 0; a < 3; ++a) {
    if (a == vertical || offset[a] == 0) continue;
    const int side = offset[a] > 0 ? 1 : -1;
    for (int step = 1; step <= side * offset[a]; ++step) {
      Index3 beside = centre;
      beside[a] += side * step;
      if (type(beside[0], beside[1], beside[2]) == kSolid) {
        offset[a] = -offset[a];
        break;
      }
    }
  }
  return type(i + offset[0], j + offset[1], k + offset[2]) == kAir ? 0.0 : 1.0;
}

// A smoothed gradient of the fill around the cell, `reach` cells each way: binomial smoothing
// across each axis ([1 2 1], or [1 4 6 4 1] for reach 2) and the matching difference along
// it ([-1 0 1], or [-1 -2 0 2 1]); reach 1 is the 3x3x3 Sobel operator. It points into the
// material.
Vec3 fill_gradient(const Array3<uint8_t>& type, int i, int j, int k, int vertical, int reach) {
  static constexpr int kSmooth[2][5] = {{0, 1, 2, 1, 0}, {1, 4, 6, 4, 1}};
  static constexpr int kDifference[2][5] = {{0, -1, 0, 1, 0}, {-1, -2, 0, 2, 1}};
  const int* w = kSmooth[reach - 1];
  const int* d = kDifference[reach - 1];
  Vec3 grad{0, 0, 0};
  for (int dk = -reach; dk <= reach; ++dk)
    for (int dj = -reach; dj <= reach; ++dj)
      for (int di = -reach; di <= reach; ++di) {
        const double fill = fill_at(type, i, j, k, {di, dj, dk}, vertical);
        grad[0] += d[di + 2] * w[dj + 2] * w[dk + 2] * fill;
        grad[1] += d[dj + 2] * w[di + 2] * w[dk + 2] * fill;
        grad[2] += d[dk + 2] * w[di + 2] * w[dj + 2] * fill;
      }
  return grad;
}

// The speed at the cell's centre, from the means of its two faces along each axis.
double centre_speed(const std::array<Array3<float>, 3>& faces, int i, int j, int k) {
  double sum = 0;
  for (int a = 0; a < 3; ++a) {
    const float* lo = &faces[a](i, j, k);
    const double v = 0.5 * (double(lo[0]) + double(lo[faces[a].stride(a)]));
    sum += v * v;
  }
  return std::sqrt(sum);
}

// Coulomb friction mu on a plane whose normal makes cos_theta with the upward direction
// stops a cell sliding at `speed` within this step.
bool stops_within_a_step(double speed, double mu, double cos_theta, const SurfaceRest& rest) {
  if (cos_theta <= 0) return false;
  const double sin_theta = std::sqrt(std::max(0.0, 1 - cos_theta * cos_theta));
  return speed < rest.gravity * rest.dt * (mu * cos_theta - sin_theta);
}

// The cosine of the angle between the outward normal -into and the upward direction (1 flat,
// 0 a vertical face, below 0 an overhang), or nothing where `into` vanishes.
std::optional<double> upward_cosine(const Vec3& into, const SurfaceRest& rest) {
  const double norm = std::sqrt(into[0] * into[0] + into[1] * into[1] + into[2] * into[2]);
  if (norm == 0) return std::nullopt;
  return (into[0] * rest.down[0] + into[1] * rest.down[1] + into[2] * rest.down[2]) / norm;
}

// The cosine of the surface's slope at the cell: the flatter of its readings over 3 and 5
// cells (see the header), or nothing where neither has a gradient.
std::optional<double> slope_cosine(const MacGrid& grid, int i, int j, int k,
                                   const SurfaceRest& rest) {
  const std::optional<double> near =
      upward_cosine(fill_gradient(grid.cell_type, i, j, k, rest.vertical, 1), rest);
  const std::optional<double> wide =
      upward_cosine(fill_gradient(grid.cell_type, i, j, k, rest.vertical, 2), rest);
  if (!near || !wide) return near ? near : wide;
  return std::max(*near, *wide);
}

// The surface's own slope, against the sand's friction.
bool rests_on_its_slope(const MacGrid& grid, int i, int j, int k, double mu, double speed,
                        const SurfaceRest& rest) {
  const std::optional<double> cos_theta = slope_cosine(grid, i, j, k, rest);
  return cos_theta && stops_within_a_step(speed, mu, *cos_theta, rest);
}

// The cell under (i,j,k) along gravity's axis.
Index3 cell_below(int i, int j, int k, const SurfaceRest& rest) {
  Index3 below{i, j, k};
  below[rest.vertical] += rest.down[rest.vertical] > 0 ? 1 : -1;
  return below;
}

// True when a wall lies under the cell (a floor).
bool on_a_floor(const MacGrid& grid, int i, int j, int k, const SurfaceRest& rest) {
  const Index3 below = cell_below(i, j, k, rest);
  return grid.cell_type(below[0], below[1], below[2]) == kSolid;
}

// A wall below the cell (a floor), against the wall's friction.
bool rests_on_a_floor(const MacGrid& grid, int i, int j, int k, double speed,
                      const SurfaceRest& rest) {
  if (!on_a_floor(grid, i, j, k, rest)) return false;
  const Index3 below = cell_below(i, j, k, rest);
  const double mu = grid.wall_mu(below[0], below[1], below[2]);
  return stops_within_a_step(speed, mu, std::abs(rest.down[rest.vertical]), rest);
}

}  // namespace

SurfaceRest surface_rest(const Vec3& gravity, double dt) {
  SurfaceRest rest;
  rest.gravity =
      std::sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  if (rest.gravity > 0)
    for (int a = 0; a < 3; ++a) rest.down[a] = gravity[a] / rest.gravity;
  rest.dt = dt;
  rest.vertical = 0;
  for (int a = 1; a < 3; ++a)
    if (std::abs(rest.down[a]) > std::abs(rest.down[rest.vertical])) rest.vertical = a;
  return rest;
}

bool surface_cell_stays_at_rest(const MacGrid& grid, int i, int j, int k, double mu,
                                const SurfaceRest& rest) {
  if (rest.gravity <= 0 || !has_air_neighbour(grid.cell_type, i, j, k)) return false;
  const double speed = centre_speed(grid.vel_saved, i, j, k);
  return rests_on_its_slope(grid, i, j, k, mu, speed, rest) ||
         rests_on_a_floor(grid, i, j, k, speed, rest);
}

bool surface_cell_too_steep(const MacGrid& grid, int i, int j, int k, double mu, double cohesion,
                            double density, const SurfaceRest& rest) {
  if (rest.gravity <= 0 || !has_air_neighbour(grid.cell_type, i, j, k)) return false;
  if (on_a_floor(grid, i, j, k, rest)) return false;
  const std::optional<double> cos_theta = slope_cosine(grid, i, j, k, rest);
  if (!cos_theta) return false;
  const double sin_theta = std::sqrt(std::max(0.0, 1 - *cos_theta * *cos_theta));
  const double weight = density * rest.gravity * grid.dx;  // of a column one cell deep
  return weight * (sin_theta - mu * *cos_theta) > cohesion;
}

}  // namespace dunesim
