#include "src/wall_friction.hpp"

#include <algorithm>
#include <cmath>

namespace dunesim {

namespace {

Index3 shifted(Index3 p, int axis, int by) {
  p[axis] += by;
  return p;
}

}  // namespace

void apply_wall_friction(const Topology& topo, Halo& halo, MacGrid& g,
                         const Array3<uint8_t>& sand_cells, const Array3<double>& wall_mu,
                         const std::array<Array3<double>, 3>& normal_speed) {
  const Array3<uint8_t>& type = g.cell_type;
  auto solid = [&](const Index3& c) { return type(c[0], c[1], c[2]) == kSolid; };
  // Every factor reads the velocities as enforcement left them, not as friction changes them.
  const std::array<Array3<double>, 3> enforced = g.vel;

  // mu |u_n| for the solid next to cell `c` at side s along a, or 0.
  auto friction_budget = [&](const Index3& c, int a, int s) {
    const Index3 wall = shifted(c, a, s);
    if (!solid(wall)) return 0.0;
    const Index3 n = s < 0 ? c : wall;  // the a-face between c and the wall
    return wall_mu(wall[0], wall[1], wall[2]) * normal_speed[a](n[0], n[1], n[2]);
  };

  for (int b = 0; b < 3; ++b) {
    Array3<double>& v = g.vel[b];
    const Box faces = topo.owned(face_stagger(b)).intersect(topo.global(face_stagger(b)));
    for_each_index(faces, [&](int i, int j, int k) {
      const Index3 R{i, j, k}, L = shifted(R, b, -1);
      if (solid(L) || solid(R)) return;
      if (!sand_cells(L[0], L[1], L[2]) && !sand_cells(i, j, k)) return;
      const double u_b = enforced[b](i, j, k);
      double factor = 1.0;
      for (int a = 0; a < 3; ++a) {
        if (a == b) continue;
        const int c = 3 - a - b;
        const Array3<double>& u_c = enforced[c];
        const Index3 Lc = shifted(L, c, 1), Rc = shifted(R, c, 1);
        const double u_c_here = 0.25 * (u_c(L[0], L[1], L[2]) + u_c(Lc[0], Lc[1], Lc[2]) +
                                        u_c(R[0], R[1], R[2]) + u_c(Rc[0], Rc[1], Rc[2]));
        const double tangential_speed = std::hypot(u_b, u_c_here);
        for (int s : {-1, 1}) {
          const double budget = 0.5 * (friction_budget(L, a, s) + friction_budget(R, a, s));
          if (budget == 0.0 || tangential_speed == 0.0) continue;
          factor *= std::max(0.0, 1.0 - budget / tangential_speed);
        }
      }
      v(i, j, k) = factor * u_b;
    });
  }
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
}

namespace {

// Calls f(a, face, fluid cell, s) for every face of component a with a solid on exactly
// one side and a fluid cell on the other, s the side of the solid as seen from the fluid.
template <class F>
void for_each_normal_face(const MacGrid& g, int a, const Box& faces, F&& f) {
  const Array3<uint8_t>& type = g.cell_type;
  const Box& cells = type.box();
  for_each_index(faces, [&](int i, int j, int k) {
    const Index3 hi{i, j, k}, lo = shifted(hi, a, -1);
    if (!cells.contains(lo[0], lo[1], lo[2]) || !cells.contains(i, j, k)) return;
    const uint8_t t_lo = type(lo[0], lo[1], lo[2]), t_hi = type(i, j, k);
    if (t_lo == kSolid && t_hi == kFluid) f(hi, hi, -1);
    if (t_hi == kSolid && t_lo == kFluid) f(hi, lo, +1);
  });
}

}  // namespace

void normal_speed_removed_by_enforcement(const MacGrid& g,
                                         const std::array<Array3<double>, 3>& before,
                                         std::array<Array3<double>, 3>& normal_speed) {
  for (int a = 0; a < 3; ++a) {
    normal_speed[a].fill(0.0);
    for_each_normal_face(g, a, g.vel[a].box(), [&](const Index3& f, const Index3&, int s) {
      const double removed = before[a](f[0], f[1], f[2]) - g.vel[a](f[0], f[1], f[2]);
      normal_speed[a](f[0], f[1], f[2]) = std::max(0.0, s * removed);
    });
  }
}

void normal_speed_from_wall_pressure(const MacGrid& g, double dt,
                                     std::array<Array3<double>, 3>& normal_speed) {
  for (int a = 0; a < 3; ++a) {
    normal_speed[a].fill(0.0);
    for_each_normal_face(g, a, g.vel[a].box(), [&](const Index3& f, const Index3& c, int) {
      const double p = std::max(0.0, g.pressure(c[0], c[1], c[2]));
      normal_speed[a](f[0], f[1], f[2]) = p * dt / (g.density(c[0], c[1], c[2]) * g.dx);
    });
  }
}

}  // namespace dunesim
