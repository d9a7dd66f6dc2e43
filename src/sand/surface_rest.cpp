#include "src/sand/surface_rest.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "src/particles/seeding.hpp"

namespace dunesim {

namespace {

// Whether cell (i,j,k) is open: air, or with rest.sand_cells a fluid cell without sand.
bool is_open(const MacGrid& grid, const SurfaceRest& rest, int i, int j, int k) {
  const uint8_t type = grid.cell_type(i, j, k);
  if (type == kAir || !rest.sand_cells) return type == kAir;
  return type == kFluid && !holds_sand(*rest.sand_cells, i, j, k);
}

// True when one of the six cells around (i,j,k) is open.
bool has_open_neighbour(const MacGrid& grid, const SurfaceRest& rest, int i, int j, int k) {
  if (!rest.sand_cells) return has_air_neighbour(grid.cell_type, i, j, k);
  for (int a = 0; a < 3; ++a)
    for (int side : {-1, 1}) {
      Index3 n{i, j, k};
      n[a] += side;
      if (is_open(grid, rest, n[0], n[1], n[2])) return true;
    }
  return false;
}

// The fill (0 where open, else 1) of the 5 x 5 x 5 cells around (i,j,k), fill[dk+2][dj+2][di+2]
// for the cell at offset (di,dj,dk). A solid between the cell and an offset along a
// horizontal axis is a side wall, which the surface meets at a right angle (walls are
// symmetry planes or slip): the cell reads the mirror image across itself instead, so a flat
// surface along a wall reads flat. Solids below (floors) are filled: they hold the sand up.
// Whether an offset mirrors depends only on the cells along its own axis through (i,j,k), so
// each axis's five offsets are resolved once and the cube is read with them.
struct Neighbourhood {
  double fill[5][5][5];
};

Neighbourhood neighbourhood(const MacGrid& grid, const SurfaceRest& rest, int i, int j, int k) {
  const Array3<uint8_t>& type = grid.cell_type;
  const int vertical = rest.vertical;
  const Index3 centre{i, j, k};
  int read_at[3][5];  // read_at[a][o + 2]: the index along axis a that offset o reads
  for (int a = 0; a < 3; ++a)
    for (int o = -2; o <= 2; ++o) {
      int offset = o;
      const int side = o > 0 ? 1 : -1;
      for (int step = 1; a != vertical && step <= side * o; ++step) {
        Index3 beside = centre;
        beside[a] += side * step;
        if (type(beside[0], beside[1], beside[2]) == kSolid) {
          offset = -o;
          break;
        }
      }
      read_at[a][o + 2] = centre[a] + offset;
    }
  Neighbourhood n;
  for (int dk = 0; dk < 5; ++dk)
    for (int dj = 0; dj < 5; ++dj)
      for (int di = 0; di < 5; ++di) {
        const int ci = read_at[0][di], cj = read_at[1][dj], ck = read_at[2][dk];
        const bool open =
            rest.sand_cells ? is_open(grid, rest, ci, cj, ck) : type(ci, cj, ck) == kAir;
        n.fill[dk][dj][di] = open ? 0.0 : 1.0;
      }
  return n;
}

// A smoothed gradient of the fill, `reach` cells each way: binomial smoothing across each
// axis ([1 2 1], or [1 4 6 4 1] for reach 2) and the matching difference along it
// ([-1 0 1], or [-1 -2 0 2 1]); reach 1 is the 3x3x3 Sobel operator. It points into the
// material.
Vec3 fill_gradient(const Neighbourhood& around, int reach) {
  static constexpr int kSmooth[2][5] = {{0, 1, 2, 1, 0}, {1, 4, 6, 4, 1}};
  static constexpr int kDifference[2][5] = {{0, -1, 0, 1, 0}, {-1, -2, 0, 2, 1}};
  const int* w = kSmooth[reach - 1];
  const int* d = kDifference[reach - 1];
  Vec3 grad{0, 0, 0};
  for (int dk = 2 - reach; dk <= 2 + reach; ++dk)
    for (int dj = 2 - reach; dj <= 2 + reach; ++dj)
      for (int di = 2 - reach; di <= 2 + reach; ++di) {
        const double fill = around.fill[dk][dj][di];
        grad[0] += d[di] * w[dj] * w[dk] * fill;
        grad[1] += d[dj] * w[di] * w[dk] * fill;
        grad[2] += d[dk] * w[di] * w[dj] * fill;
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

// The gravity that drives cell (i,j,k) down a slope and presses it onto it: |g|, or below the
// water table |g| (1 - rho_w / rho), the buoyant weight's share (SurfaceRest::pore_head).
double effective_gravity(const MacGrid& grid, int i, int j, int k, const SurfaceRest& rest) {
  if (!rest.pore_head || (*rest.pore_head)(i, j, k) <= 0) return rest.gravity;
  const double density = grid.density(i, j, k);
  if (density <= rest.pore_water_density) return 0.0;
  return rest.gravity * (1.0 - rest.pore_water_density / density);
}

// Coulomb friction mu on a plane whose normal makes cos_theta with the upward direction
// stops a cell sliding at `speed` within this step, under gravity g.
bool stops_within_a_step(double speed, double mu, double cos_theta, double g,
                         const SurfaceRest& rest) {
  if (cos_theta <= 0) return false;
  const double sin_theta = std::sqrt(std::max(0.0, 1 - cos_theta * cos_theta));
  return speed < g * rest.dt * (mu * cos_theta - sin_theta);
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
  const Neighbourhood around = neighbourhood(grid, rest, i, j, k);
  const std::optional<double> near = upward_cosine(fill_gradient(around, 1), rest);
  const std::optional<double> wide = upward_cosine(fill_gradient(around, 2), rest);
  if (!near || !wide) return near ? near : wide;
  return std::max(*near, *wide);
}

// The surface's own slope, against the sand's friction. No slope stops a cell faster than
// g dt mu (mu cos - sin is largest on the flat), so a faster cell needs no slope reading.
bool rests_on_its_slope(const MacGrid& grid, int i, int j, int k, double mu, double speed,
                        double g, const SurfaceRest& rest) {
  if (!stops_within_a_step(speed, mu, 1.0, g, rest)) return false;
  const std::optional<double> cos_theta = slope_cosine(grid, i, j, k, rest);
  return cos_theta && stops_within_a_step(speed, mu, *cos_theta, g, rest);
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
bool rests_on_a_floor(const MacGrid& grid, int i, int j, int k, double speed, double g,
                      const SurfaceRest& rest) {
  if (!on_a_floor(grid, i, j, k, rest)) return false;
  const Index3 below = cell_below(i, j, k, rest);
  const double mu = grid.wall_mu(below[0], below[1], below[2]);
  return stops_within_a_step(speed, mu, std::abs(rest.down[rest.vertical]), g, rest);
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
  if (rest.gravity <= 0 || !has_open_neighbour(grid, rest, i, j, k)) return false;
  const double speed = centre_speed(grid.vel_saved, i, j, k);
  const double g = effective_gravity(grid, i, j, k, rest);
  return rests_on_its_slope(grid, i, j, k, mu, speed, g, rest) ||
         rests_on_a_floor(grid, i, j, k, speed, g, rest);
}

bool slower_than_friction_stops(const MacGrid& grid, int i, int j, int k, double mu,
                                const SurfaceRest& rest) {
  const double g = effective_gravity(grid, i, j, k, rest);
  return stops_within_a_step(centre_speed(grid.vel_saved, i, j, k), mu, 1.0, g, rest);
}

double own_weight_pressure(const MacGrid& grid, const Array3<uint8_t>& sand_cells, int i, int j,
                           int k, const SurfaceRest& rest) {
  if (rest.gravity <= 0) return 0.0;
  const Index3 below = cell_below(i, j, k, rest);
  const uint8_t type = grid.cell_type(below[0], below[1], below[2]);
  // Sand cells are fluid cells.
  const bool packed_sand = holds_sand(sand_cells, below[0], below[1], below[2]) &&
                           grid.sand_count.box().contains(below[0], below[1], below[2]) &&
                           grid.sand_count(below[0], below[1], below[2]) >= kPackedSandParticles;
  if (type != kSolid && !packed_sand) return 0.0;
  const double fill =
      std::min(double(grid.sand_count(i, j, k)), double(kParticlesPerCell)) / kParticlesPerCell;
  const double normal_gravity =
      effective_gravity(grid, i, j, k, rest) * std::abs(rest.down[rest.vertical]);
  return fill * grid.density(i, j, k) * normal_gravity * grid.dx;
}

bool surface_cell_too_steep(const MacGrid& grid, int i, int j, int k, double mu, double cohesion,
                            double density, const SurfaceRest& rest) {
  if (rest.gravity <= 0 || !has_open_neighbour(grid, rest, i, j, k)) return false;
  if (on_a_floor(grid, i, j, k, rest)) return false;
  const std::optional<double> cos_theta = slope_cosine(grid, i, j, k, rest);
  if (!cos_theta) return false;
  const double sin_theta = std::sqrt(std::max(0.0, 1 - *cos_theta * *cos_theta));
  // Of a column one cell deep; below the water table its buoyant weight.
  const double weight = density * effective_gravity(grid, i, j, k, rest) * grid.dx;
  return weight * (sin_theta - mu * *cos_theta) > cohesion;
}

}  // namespace dunesim
