#include "src/sand/wall_friction.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace dunesim {

namespace {

Index3 shifted(Index3 p, int axis, int by) {
  p[axis] += by;
  return p;
}

// mu |u_n| for the solid next to cell `c` at side s along a, or 0.
double cell_friction_budget(const MacGrid& g, const Array3<float>& wall_mu,
                            const WallFaceValues& normal_speed, const Index3& c, int a, int s) {
  const Index3 wall = shifted(c, a, s);
  const Box& cells = g.cell_type.box();
  if (cells.contains(wall[0], wall[1], wall[2]) &&
      g.cell_type(wall[0], wall[1], wall[2]) != kSolid)
    return 0.0;
  const Index3 n = s < 0 ? c : wall;  // the a-face between c and the wall
  return double(wall_mu(wall[0], wall[1], wall[2])) *
         normal_speed.value_or_zero(a, g.vel[a].offset(n[0], n[1], n[2]));
}

// The owned tangential faces that wall friction may change, as sorted offsets into
// grid.vel[b]: the b-faces (b != a) of each non-solid cell with a solid beside it along a,
// with sand on one side. Walked from the walls' faces, so the sand's inside is not swept.
std::array<std::vector<int64_t>, 3> tangential_faces_near_walls(const Topology& topo,
                                                                const MacGrid& g,
                                                                const Array3<uint8_t>& sand_cells,
                                                                const SolidBoundaryFaces& walls) {
  const Array3<uint8_t>& type = g.cell_type;
  const Box& cells = type.box();
  std::array<Box, 3> owned_faces;
  for (int b = 0; b < 3; ++b)
    owned_faces[b] = topo.owned(face_stagger(b)).intersect(topo.global(face_stagger(b)));
  const Box search = topo.owned_cells(topo.rank())
                         .grown(1)
                         .intersect(cells.grown(-1))
                         .intersect(neighbourhood(nonzero_bounding_box(sand_cells), 1, cells));
  auto is_sand = [&](const Index3& n) { return sand_cells(n[0], n[1], n[2]) != 0; };
  std::array<std::vector<int64_t>, 3> faces;
  for (int a = 0; a < 3; ++a)
    for (const int64_t wall_face : walls[a]) {
      const Index3 hi = g.vel[a].index_of(wall_face), lo = shifted(hi, a, -1);
      for (const Index3& c : {lo, hi}) {  // the face's non-solid cell, if it is searched
        if (!search.contains(c[0], c[1], c[2]) || type(c[0], c[1], c[2]) == kSolid) continue;
        for (int b = 0; b < 3; ++b) {
          if (b == a) continue;
          for (int side = 0; side < 2; ++side) {
            const Index3 f = shifted(c, b, side);  // between c and c + (2 side - 1) e_b
            if (!is_sand(c) && !is_sand(shifted(c, b, 2 * side - 1))) continue;
            if (owned_faces[b].contains(f[0], f[1], f[2]))
              faces[b].push_back(g.vel[b].offset(f[0], f[1], f[2]));
          }
        }
      }
    }
  for (std::vector<int64_t>& list : faces) {  // a face can be found from several walls
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return faces;
}

}  // namespace

// The face's budget: the mean of its two cells', or the one cell's where the other is air,
// since a face on the free surface carries only its fluid cell's material.
double wall_friction_budget(const MacGrid& g, const Array3<float>& wall_mu,
                            const WallFaceValues& normal_speed, const Index3& L, const Index3& R,
                            int a, int s) {
  const Array3<uint8_t>& type = g.cell_type;
  const bool air_l = type(L[0], L[1], L[2]) == kAir, air_r = type(R[0], R[1], R[2]) == kAir;
  if (air_l) return cell_friction_budget(g, wall_mu, normal_speed, R, a, s);
  if (air_r) return cell_friction_budget(g, wall_mu, normal_speed, L, a, s);
  return 0.5 * (cell_friction_budget(g, wall_mu, normal_speed, L, a, s) +
                cell_friction_budget(g, wall_mu, normal_speed, R, a, s));
}

void apply_wall_friction(const Topology& topo, Halo& halo, MacGrid& g,
                         const Array3<uint8_t>& sand_cells, const Array3<float>& wall_mu,
                         const WallFaceValues& normal_speed, const SolidBoundaryFaces& walls,
                         const Array3<uint8_t>* rigid_cells) {
  const Array3<uint8_t>& type = g.cell_type;
  const Box& cells = type.box();
  auto solid = [&](const Index3& c) {
    return !cells.contains(c[0], c[1], c[2]) || type(c[0], c[1], c[2]) == kSolid;
  };
  auto face_budget = [&](const Index3& L, const Index3& R, int a, int s) {
    return wall_friction_budget(g, wall_mu, normal_speed, L, R, a, s);
  };
  const std::array<std::vector<int64_t>, 3> candidates =
      tangential_faces_near_walls(topo, g, sand_cells, walls);

  // Every factor reads the velocities as enforcement left them: the new values are computed
  // first and written afterwards.
  std::array<std::vector<std::pair<int64_t, double>>, 3> updates;
  for (int b = 0; b < 3; ++b) {
    const Array3<double>& v = g.vel[b];
    for (int64_t offset : candidates[b]) {
      const Index3 R = v.index_of(offset);
      const Index3 L = shifted(R, b, -1);
      if (solid(L) || solid(R)) continue;
      if (!sand_cells(L[0], L[1], L[2]) && !sand_cells(R[0], R[1], R[2])) continue;
      if (rigid_cells && ((*rigid_cells)(L[0], L[1], L[2]) || (*rigid_cells)(R[0], R[1], R[2])))
        continue;
      const double u_b = v.data()[offset];
      double factor = 1.0;
      for (int a = 0; a < 3; ++a) {
        if (a == b) continue;
        const int c = 3 - a - b;
        const Array3<double>& u_c = g.vel[c];
        const Index3 Lc = shifted(L, c, 1), Rc = shifted(R, c, 1);
        const double u_c_here = 0.25 * (u_c(L[0], L[1], L[2]) + u_c(Lc[0], Lc[1], Lc[2]) +
                                        u_c(R[0], R[1], R[2]) + u_c(Rc[0], Rc[1], Rc[2]));
        const double tangential_speed = std::hypot(u_b, u_c_here);
        for (int s : {-1, 1}) {
          const double budget = face_budget(L, R, a, s);
          if (budget == 0.0 || tangential_speed == 0.0) continue;
          factor *= std::max(0.0, 1.0 - budget / tangential_speed);
        }
      }
      if (factor != 1.0) updates[b].emplace_back(offset, factor * u_b);
    }
  }
  for (int b = 0; b < 3; ++b)
    for (const auto& [offset, value] : updates[b]) g.vel[b].data()[offset] = value;
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
}

namespace {

// Calls f(face, fluid cell, s) for every face of component a in `faces` with a solid on
// exactly one side and a fluid cell on the other, s the side of the solid as seen from the
// fluid. Such faces are among the walls' faces.
template <class F>
void for_each_normal_face(const MacGrid& g, int a, const Box& faces,
                          const SolidBoundaryFaces& walls, F&& f) {
  const Array3<uint8_t>& type = g.cell_type;
  const Box& cells = type.box();
  for (const int64_t wall_face : walls[a]) {
    const Index3 hi = g.vel[a].index_of(wall_face), lo = shifted(hi, a, -1);
    if (!faces.contains(hi[0], hi[1], hi[2])) continue;
    if (!cells.contains(lo[0], lo[1], lo[2]) || !cells.contains(hi[0], hi[1], hi[2])) continue;
    const uint8_t t_lo = type(lo[0], lo[1], lo[2]), t_hi = type(hi[0], hi[1], hi[2]);
    if (t_lo == kSolid && t_hi == kFluid) f(hi, hi, -1);
    if (t_hi == kSolid && t_lo == kFluid) f(hi, lo, +1);
  }
}

}  // namespace

void normal_speed_removed_by_enforcement(const MacGrid& g,
                                         const std::array<Array3<double>, 3>& before,
                                         WallFaceValues& normal_speed) {
  const SolidBoundaryFaces walls = find_solid_boundary_faces(g);
  normal_speed.clear();
  for (int a = 0; a < 3; ++a)
    for_each_normal_face(g, a, g.vel[a].box(), walls, [&](const Index3& f, const Index3&, int s) {
      const double removed = before[a](f[0], f[1], f[2]) - g.vel[a](f[0], f[1], f[2]);
      normal_speed.add(a, g.vel[a].offset(f[0], f[1], f[2]), float(std::max(0.0, s * removed)));
    });
}

double wall_normal_speed(double normal_stress, double density, double dx, double dt,
                         double gravity_towards_wall) {
  const double from_stress = std::max(0.0, normal_stress) * dt / (density * dx);
  return std::max(from_stress, std::max(0.0, gravity_towards_wall) * dt);
}

void normal_speed_from_wall_pressure(const MacGrid& g, double dt, const Vec3& gravity,
                                     const Box& cells, const SolidBoundaryFaces& walls,
                                     WallFaceValues& normal_speed) {
  normal_speed.clear();
  for (int a = 0; a < 3; ++a) {
    const Box faces = faces_of_cells(cells, a).intersect(g.vel[a].box());
    for_each_normal_face(g, a, faces, walls, [&](const Index3& f, const Index3& c, int s) {
      normal_speed.add(a, g.vel[a].offset(f[0], f[1], f[2]),
                       float(wall_normal_speed(g.pressure(c[0], c[1], c[2]),
                                               g.density(c[0], c[1], c[2]), g.dx, dt,
                                               s * gravity[a])));
    });
  }
}

}  // namespace dunesim
