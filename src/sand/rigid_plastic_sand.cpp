#include "src/sand/rigid_plastic_sand.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "decomposition/reductions.hpp"
#include "decomposition/vec3.hpp"
#include "src/pressure/pressure_solver.hpp"
#include "src/sand/staggered_stress.hpp"
#include "src/sand/wall_friction.hpp"
#include "src/sand/wet_sand.hpp"

namespace dunesim {

namespace {

using namespace staggered;
using FaceField = std::array<Array3<double>, 3>;
using TensorField = std::array<Array3<double>, 6>;

// ALG2 stops when a round changes the stress by less than this share of the yield stress
// (rms over the sand), or after kRigidPlasticMaxRounds.
constexpr double kRoundTolerance = 1e-3;
// Each round's linear solve: Jacobi-preconditioned CG to this residual reduction.
constexpr int kMaxSolverIterations = 400;
constexpr double kSolverTolerance = 1e-4;

// r = kStiffness rho dx^2 / dt: the augmented term then weighs as much as the inertia of
// a cell, which keeps the linear system's condition number near 10.
constexpr double kStiffness = 1.0;
// beta = kWallStiffness rho / dt for the walls' friction: the same balance at a wall face.
constexpr double kWallStiffness = 1.0;

struct Stage {
  const Topology& topo;
  Halo& halo;
  MacGrid& g;
  const Array3<uint8_t>& sand;
  double dt, r;
  Box stencil_cells;               // cells and edges whose stress the owned faces read
  Box owned_cells;                 // owned cells near the sand
  std::array<Box, 3> owned_faces;  // owned faces near the sand
  // The unknowns: owned faces beside a sand cell and no wall, in the order of owned_faces;
  // their indices, and their offsets into every face array of their axis (all share g.vel's
  // layout), for the solver's loops.
  std::array<std::vector<Index3>, 3> unknown_faces;
  std::array<std::vector<int64_t>, 3> unknown_offsets;
  FaceField inertia;   // rho / dt at the unknowns
  FaceField diagonal;  // the operator's diagonal at the unknowns
  // Coulomb friction of the walls on the unknowns that touch one: its largest force per
  // volume, rho / dt times the speed the wall may take away in a step (wall_friction.hpp),
  // the force it applies (the multiplier) and the slip velocity it lets through.
  FaceField wall_limit, wall_force, wall_slip;
  std::array<Array3<uint8_t>, 3> on_wall;  // unknowns beside a wall with friction
  Vec3 gravity{};
  // The linear solve's fields, allocated once a step: only the unknowns (and, by the halo
  // fill, the neighbours' unknowns) are ever written, so the rest stays zero.
  FaceField cg_residual, cg_change, cg_z, cg_p, cg_q;
  // The yield stress k = mu p + c of a sand cell: mu = tan(phi) (times wet sand's friction
  // scale), p the projection's pressure.
  Array3<double> friction, cohesion;

  Stage(const Topology& t, Halo& h, MacGrid& grid, const Array3<uint8_t>& sand_cells, double step,
        double stiffness)
      : topo(t), halo(h), g(grid), sand(sand_cells), dt(step), r(stiffness) {}

  // Per cell index, worked out once a step: bit 0 the cell is sand, bit 1 + n the edge of
  // pair n carries shear (edge_active).
  Array3<uint8_t> carries;
  std::vector<Index3> stencil_carriers;  // cells of stencil_cells with a bit of `carries` set
  void mark_carriers(const Box& box) {
    carries.reset(topo.local(Stagger::Cell), Stagger::Cell, 0);
    for_each_index(box, [&](int i, int j, int k) {
      const Index3 c{i, j, k};
      uint8_t bits = sand_at(g, sand, c) ? 1 : 0;
      for (int n = 0; n < 3; ++n)
        if (staggered::edge_active(g, sand, c, kPairs[n])) bits |= uint8_t(2 << n);
      carries(i, j, k) = bits;
    });
    stencil_carriers.clear();
    for_each_index(stencil_cells, [&](int i, int j, int k) {
      if (carries(i, j, k)) stencil_carriers.push_back({i, j, k});
    });
  }
  bool is_sand(const Index3& c) const { return carries(c[0], c[1], c[2]) & 1; }
  bool edge_active(const Index3& e, int n) const { return carries(e[0], e[1], e[2]) & (2 << n); }

  template <class F>
  void for_each_unknown(F&& f) const {
    for (int a = 0; a < 3; ++a)
      for (const Index3& face : unknown_faces[a]) f(a, face);
  }
  // f(a, offset) on every unknown, offset into the face arrays of axis a.
  template <class F>
  void for_each_unknown_offset(F&& f) const {
    for (int a = 0; a < 3; ++a)
      for (int64_t o : unknown_offsets[a]) f(a, o);
  }
  double dot(const FaceField& x, const FaceField& y) const {
    double sum = 0;
    for_each_unknown_offset([&](int a, int64_t o) { sum += x[a].data()[o] * y[a].data()[o]; });
    return global_sum(topo, sum);
  }

  // out = scale dev D(u) at the sand cells (diagonal) and active edges (shear) of `box`,
  // zero elsewhere in it; u must be halo-filled.
  void strain_rate(const FaceField& u, double scale, const Box& box, TensorField& out) const {
    for_each_index(box, [&](int i, int j, int k) { strain_rate_at({i, j, k}, u, scale, out); });
  }
  // The same on the stencil's carrier cells only (stencil_carriers), for an `out` that is
  // already zero on the rest of stencil_cells: the CG's products, most of whose box is air.
  void strain_rate_on_carriers(const FaceField& u, double scale, TensorField& out) const {
    for (const Index3& c : stencil_carriers) strain_rate_at(c, u, scale, out);
  }
  void strain_rate_at(const Index3& c, const FaceField& u, double scale, TensorField& out) const {
    const int i = c[0], j = c[1], k = c[2];
    if (is_sand(c)) {
      double stretch[3], trace = 0;
      for (int a = 0; a < 3; ++a) trace += stretch[a] = cell_stretch(u, g.dx, c, a);
      for (int a = 0; a < 3; ++a) out[a](i, j, k) = scale * (stretch[a] - trace / 3);
    } else {
      for (int a = 0; a < 3; ++a) out[a](i, j, k) = 0.0;
    }
    for (int n = 0; n < 3; ++n)
      out[3 + n](i, j, k) =
          edge_active(c, n) ? scale * edge_shear_rate(u, g.dx, c, kPairs[n]) : 0.0;
  }
  // (div t)_a at the a-face r, for a tension-positive t laid out as strain_rate's output.
  double divergence(const TensorField& t, int a, const Index3& r) const {
    return face_divergence(
        t, [&](const Index3& c) { return at(t[a], c); }, g.dx, a, r);
  }
};

FaceField face_field(const MacGrid& g) {
  FaceField f;
  for (int a = 0; a < 3; ++a) f[a].reset(g.vel[a].box(), face_stagger(a), 0.0);
  return f;
}
TensorField tensor_field(const Topology& topo) {
  TensorField t;
  for (Array3<double>& component : t)
    component.reset(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  return t;
}
void fill_halo(Halo& halo, TensorField& t) {
  halo.fill<double>({&t[0], &t[1], &t[2], &t[3], &t[4], &t[5]});
}

// The budget mu |u_n| of the a-face f (wall_friction.hpp), summed over the walls beside it.
double wall_budget(const MacGrid& g, int a, const Index3& f) {
  const Index3 lo = shifted(f, a, -1);
  double budget = 0;
  for (int b = 0; b < 3; ++b)
    if (b != a)
      for (int side : {-1, 1})
        budget += wall_friction_budget(g, g.wall_mu, g.wall_normal_speed, lo, f, b, side);
  return budget;
}

// The unknowns, their inertia and the operator's diagonal (Jacobi's preconditioner):
// rho/dt (twice on a face a wall's friction acts on) + r/dx^2 (2/3 per sand cell beside
// the face + 1/2 per active edge around it).
void set_up_unknowns(Stage& s) {
  const MacGrid& g = s.g;
  const Box near = neighbourhood(g.sand_region, 1, s.topo.local(Stagger::Cell).grown(-1));
  const double stiffness = s.r / (g.dx * g.dx);
  for (int a = 0; a < 3; ++a) {
    const Stagger st = face_stagger(a);
    s.on_wall[a].reset(g.vel[a].box(), st, 0);
    s.unknown_faces[a].clear();
    s.unknown_offsets[a].clear();
    s.owned_faces[a] =
        faces_of_cells(near, a).intersect(s.topo.global(st)).intersect(s.topo.owned(st));
    for_each_index(s.owned_faces[a], [&](int i, int j, int k) {
      const Index3 hi{i, j, k}, lo = shifted(hi, a, -1);
      const uint8_t type_lo = at(g.cell_type, lo), type_hi = at(g.cell_type, hi);
      if (type_lo == kSolid || type_hi == kSolid) return;
      const int sand_cells = int(s.is_sand(lo)) + int(s.is_sand(hi));
      if (sand_cells == 0) return;
      int edges = 0;
      for (int b = 0; b < 3; ++b) {
        if (b == a) continue;
        edges +=
            int(s.edge_active(hi, a + b - 1)) + int(s.edge_active(shifted(hi, b, 1), a + b - 1));
      }
      s.unknown_faces[a].push_back(hi);
      s.unknown_offsets[a].push_back(g.vel[a].offset(i, j, k));
      const double inertia =
          face_density(type_lo, at(g.density, lo), type_hi, at(g.density, hi)) / s.dt;
      const double budget = wall_budget(g, a, hi);
      s.inertia[a](i, j, k) = inertia;
      s.on_wall[a](i, j, k) = budget > 0;
      s.diagonal[a](i, j, k) = inertia * (budget > 0 ? 1 + kWallStiffness : 1) +
                               stiffness * (2.0 / 3 * sand_cells + 0.5 * edges);
    });
  }
}

// The walls press on the sand with the projection's pressure plus the stress's normal part
// along the wall's normal, p + s_nn (a block's weight rests on the floor through s_zz where
// the liquid-like projection alone spreads it sideways), and at least with the cell's own
// weight (wall_friction.hpp). Sets each wall face's friction limit from it, rho / dt times
// the budget mu |u_n| of wall_friction.hpp.
void update_wall_limits(Stage& s, const TensorField& stress) {
  MacGrid& g = s.g;
  for (int a = 0; a < 3; ++a) {
    const Array3<double>& faces = g.vel[a];
    for_each_index(s.stencil_cells, [&](int i, int j, int k) {
      const Index3 c{i, j, k};
      if (at(g.cell_type, c) != kFluid) return;
      for (int side : {-1, 1}) {
        const Index3 wall = shifted(c, a, side), face = side < 0 ? c : wall;
        if (at(g.cell_type, wall) != kSolid) continue;
        float* speed = g.wall_normal_speed.find(a, faces.offset(face[0], face[1], face[2]));
        if (!speed) continue;  // beyond the faces near the sand
        const double normal_stress = at(g.pressure, c) + (s.is_sand(c) ? at(stress[a], c) : 0.0);
        *speed = float(
            wall_normal_speed(normal_stress, at(g.density, c), g.dx, s.dt, side * s.gravity[a]));
      }
    });
  }
  s.for_each_unknown([&](int a, const Index3& f) {
    if (!at(s.on_wall[a], f)) return;
    at(s.wall_limit[a], f) = at(s.inertia[a], f) * wall_budget(g, a, f);
  });
}

void set_up_yield_stress(Stage& s, const MaterialSpec& material) {
  const bool wet = material.wet.holds_water() && s.g.has_pore_water();
  const double mu = std::tan(material.friction_angle_deg * M_PI / 180);
  s.friction.reset(s.topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  s.cohesion.reset(s.topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  for_each_index(s.stencil_cells, [&](int i, int j, int k) {
    if (!s.is_sand({i, j, k})) return;
    const WetSandProperties w = wet ? wet_sand_properties(material, s.g.saturation(i, j, k))
                                    : WetSandProperties{material.cohesion};
    s.friction(i, j, k) = mu * w.friction_scale;
    s.cohesion(i, j, k) = w.cohesion;
  });
}

// Solves A change = res by Jacobi-preconditioned CG, A = (rho/dt) (1 + kWallStiffness on the
// walls' faces) - r div dev D: the operator of step 1. `res` is overwritten; `scratch` holds
// the stress of the operator's product. Returns the iterations taken.
int conjugate_gradient(Stage& s, FaceField& res, FaceField& change, TensorField& scratch) {
  FaceField &z = s.cg_z, &p = s.cg_p, &q = s.cg_q;
  auto apply = [&](FaceField& x, FaceField& y) {
    s.halo.fill<double>({&x[0], &x[1], &x[2]});
    s.strain_rate_on_carriers(x, s.r, scratch);  // solve_velocity zeroed the rest
    s.for_each_unknown([&](int a, const Index3& f) {
      const double wall = at(s.on_wall[a], f) ? 1 + kWallStiffness : 1;
      at(y[a], f) = wall * at(s.inertia[a], f) * at(x[a], f) - s.divergence(scratch, a, f);
    });
  };
  auto precondition = [&] {
    s.for_each_unknown_offset(
        [&](int a, int64_t o) { z[a].data()[o] = res[a].data()[o] / s.diagonal[a].data()[o]; });
  };
  const double b_norm = std::sqrt(s.dot(res, res));
  if (b_norm == 0.0) return 0;
  precondition();
  for (int a = 0; a < 3; ++a) p[a] = z[a];
  double rz = s.dot(res, z);
  int iterations = 1;
  for (; iterations <= kMaxSolverIterations; ++iterations) {
    apply(p, q);
    const double alpha = rz / s.dot(p, q);
    s.for_each_unknown_offset([&](int a, int64_t o) {
      change[a].data()[o] += alpha * p[a].data()[o];
      res[a].data()[o] -= alpha * q[a].data()[o];
    });
    if (std::sqrt(s.dot(res, res)) < kSolverTolerance * b_norm) break;
    precondition();
    const double rz_next = s.dot(res, z), beta = rz_next / rz;
    rz = rz_next;
    s.for_each_unknown_offset(
        [&](int a, int64_t o) { p[a].data()[o] = z[a].data()[o] + beta * p[a].data()[o]; });
  }
  return std::min(iterations, kMaxSolverIterations);
}

// Step 1: solves (rho/dt) u - r div dev D(u) = (rho/dt) u* - div(s + r d) for u, from the
// current u, by CG on the change. Returns the iterations taken.
int solve_velocity(Stage& s, const FaceField& u_star, const TensorField& stress,
                   const TensorField& plastic_rate, TensorField& scratch) {
  MacGrid& g = s.g;
  // The residual at the current u: (rho/dt)(u* - u) + div(r dev D(u) - s - r d).
  s.strain_rate(g.vel, s.r, s.stencil_cells, scratch);
  for (int m = 0; m < 6; ++m)
    for_each_index(s.stencil_cells, [&](int i, int j, int k) {
      scratch[m](i, j, k) -= stress[m](i, j, k) + s.r * plastic_rate[m](i, j, k);
    });
  FaceField &res = s.cg_residual, &change = s.cg_change;
  s.for_each_unknown([&](int a, const Index3& f) {
    at(change[a], f) = 0.0;
    at(res[a], f) =
        at(s.inertia[a], f) * (at(u_star[a], f) - at(g.vel[a], f)) + s.divergence(scratch, a, f);
    if (at(s.on_wall[a], f))
      at(res[a], f) -= at(s.wall_force[a], f) + kWallStiffness * at(s.inertia[a], f) *
                                                    (at(g.vel[a], f) - at(s.wall_slip[a], f));
  });
  const int iterations = conjugate_gradient(s, res, change, scratch);
  s.for_each_unknown([&](int a, const Index3& f) { at(g.vel[a], f) += at(change[a], f); });
  s.halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
  return iterations;
}

// Steps 2 and 3 on the owned cells and edges, halo-filled: the trial stress returned to the
// yield surface, and the plastic rate it leaves. Returns sums over this rank of the squared
// stress change and yield stress, those of the walls' friction force, and the yielding
// cells.
struct ReturnSums {
  double change2 = 0, yield2 = 0;            // the stress's
  double wall_change2 = 0, wall_limit2 = 0;  // the walls' friction force's
  int64_t yielding = 0, sand = 0;
};
ReturnSums return_to_yield(Stage& s, TensorField& stress, TensorField& plastic_rate,
                           TensorField& trial, Array3<double>& scale) {
  MacGrid& g = s.g;
  s.strain_rate(g.vel, -s.r, s.owned_cells, trial);
  for (int m = 0; m < 6; ++m)
    for_each_index(s.owned_cells,
                   [&](int i, int j, int k) { trial[m](i, j, k) += stress[m](i, j, k); });
  s.halo.fill<double>({&trial[3], &trial[4], &trial[5]});
  ReturnSums sums;
  scale.fill(1.0);
  for_each_index(s.owned_cells, [&](int i, int j, int k) {
    const Index3 c{i, j, k};
    if (!s.is_sand(c)) return;
    double j2 = 0;  // the trial is deviatoric: dev D(u) and the stress it started from
    for (int a = 0; a < 3; ++a) j2 += 0.5 * trial[a](i, j, k) * trial[a](i, j, k);
    for (int n = 0; n < 3; ++n) {
      double sum = 0;
      edges_around_cell(c, kPairs[n], [&](const Index3& e) { sum += at(trial[3 + n], e); });
      j2 += (sum / 4) * (sum / 4);
    }
    const double limit =
        std::max(0.0, s.friction(i, j, k) * s.g.pressure(i, j, k) + s.cohesion(i, j, k));
    const double equivalent = std::sqrt(j2);
    ++sums.sand;
    sums.yield2 += limit * limit;
    if (equivalent <= limit) return;
    scale(i, j, k) = limit / equivalent;
    ++sums.yielding;
  });
  s.halo.fill<double>({&scale});
  for_each_index(s.owned_cells, [&](int i, int j, int k) {
    const Index3 c{i, j, k};
    for (int m = 0; m < 6; ++m) {
      double factor = scale(i, j, k);
      if (m >= 3) {  // an edge takes the smallest scale of its four cells
        factor = 1.0;
        cells_around_edge(c, kPairs[m - 3],
                          [&](const Index3& n) { factor = std::min(factor, at(scale, n)); });
      }
      const double returned = factor * trial[m](i, j, k);
      const double before = stress[m](i, j, k);
      // Off-diagonal entries count twice in s : s.
      sums.change2 += (m < 3 ? 1 : 2) * (returned - before) * (returned - before);
      stress[m](i, j, k) = returned;
      plastic_rate[m](i, j, k) = (returned - trial[m](i, j, k)) / s.r;
    }
  });
  fill_halo(s.halo, stress);
  fill_halo(s.halo, plastic_rate);
  // The walls' friction: F_trial = F + beta u, beta = rho / dt, returned to |F| <= limit.
  update_wall_limits(s, stress);
  s.for_each_unknown([&](int a, const Index3& f) {
    if (!at(s.on_wall[a], f)) return;
    const double limit = at(s.wall_limit[a], f);
    const double beta = kWallStiffness * at(s.inertia[a], f), before = at(s.wall_force[a], f);
    const double trial_force = before + beta * at(s.g.vel[a], f);
    const double force = std::clamp(trial_force, -limit, limit);
    at(s.wall_force[a], f) = force;
    at(s.wall_slip[a], f) = (trial_force - force) / beta;
    sums.wall_change2 += (force - before) * (force - before);
    sums.wall_limit2 += limit * limit;
  });
  return sums;
}

// Starts the walls' friction force from last step's (load), or keeps it for the next step;
// faces without a wall's friction keep none.
void exchange_wall_force(Stage& s, bool load) {
  for (int a = 0; a < 3; ++a) {
    Array3<double>& kept = s.g.wall_force[a];
    const Box kept_box = kept.box();
    for_each_index(s.owned_faces[a], [&](int i, int j, int k) {
      if (!kept_box.contains(i, j, k)) return;
      const double limit = s.wall_limit[a](i, j, k);
      if (load)
        s.wall_force[a](i, j, k) = std::clamp(kept(i, j, k), -limit, limit);
      else
        kept(i, j, k) = s.on_wall[a](i, j, k) ? s.wall_force[a](i, j, k) : 0.0;
    });
  }
}

}  // namespace

RigidPlasticStats apply_rigid_plastic_sand(const Topology& topo, Halo& halo, MacGrid& g,
                                           const Array3<uint8_t>& sand_cells,
                                           const MaterialSpec& material, double dt,
                                           const Vec3& gravity) {
  const Box local = topo.local(Stagger::Cell);
  const Box region = neighbourhood(g.sand_region, 1, local);
  g.yielding.fill(region, uint8_t(0));
  g.rigid.fill(region, uint8_t(0));
  Stage s(topo, halo, g, sand_cells, dt, kStiffness * material.density * g.dx * g.dx / dt);
  s.stencil_cells = neighbourhood(g.sand_region, 1, local.grown(-1));
  s.owned_cells = neighbourhood(g.sand_region, 1, topo.owned_cells(topo.rank()));
  s.inertia = face_field(g);
  s.diagonal = face_field(g);
  s.wall_limit = face_field(g);
  s.wall_force = face_field(g);
  s.wall_slip = face_field(g);
  for (FaceField* f : {&s.cg_residual, &s.cg_change, &s.cg_z, &s.cg_p, &s.cg_q})
    *f = face_field(g);
  s.gravity = gravity;
  s.mark_carriers(neighbourhood(g.sand_region, 2, local.grown(-1)));
  set_up_unknowns(s);
  set_up_yield_stress(s, material);

  TensorField stress = tensor_field(topo), plastic_rate = tensor_field(topo),
              trial = tensor_field(topo), scratch = tensor_field(topo);
  for (int m = 0; m < 6; ++m)
    for_each_index(s.stencil_cells,
                   [&](int i, int j, int k) { stress[m](i, j, k) = g.stress[m](i, j, k); });
  update_wall_limits(s, stress);
  exchange_wall_force(s, /*load=*/true);
  Array3<double> scale(local, Stagger::Cell, 1.0);
  const FaceField u_star = [&] {
    FaceField u = face_field(g);
    for (int a = 0; a < 3; ++a) u[a] = g.vel[a];
    return u;
  }();

  RigidPlasticStats stats;
  ReturnSums sums;
  for (stats.rounds = 1; stats.rounds <= kRigidPlasticMaxRounds; ++stats.rounds) {
    stats.solver_iterations += solve_velocity(s, u_star, stress, plastic_rate, scratch);
    sums = return_to_yield(s, stress, plastic_rate, trial, scale);
    double totals[4] = {sums.change2, sums.yield2, sums.wall_change2, sums.wall_limit2};
    global_sum_in_place(topo, totals, 4);
    auto relative = [](double change2, double limit2) {
      return limit2 > 0 ? std::sqrt(change2 / limit2) : 0.0;
    };
    stats.stress_change =
        std::max(relative(totals[0], totals[1]), relative(totals[2], totals[3]));
    stats.converged = stats.stress_change < kRoundTolerance;
    if (stats.converged) break;
  }
  stats.rounds = std::min(stats.rounds, kRigidPlasticMaxRounds);
  exchange_wall_force(s, /*load=*/false);
  for (int m = 0; m < 6; ++m)
    for_each_index(s.stencil_cells, [&](int i, int j, int k) {
      g.stress[m](i, j, k) = float(stress[m](i, j, k));
    });
  for_each_index(topo.owned_cells(topo.rank()).intersect(g.sand_region),
                 [&](int i, int j, int k) {
                   if (s.is_sand({i, j, k}) && scale(i, j, k) < 1.0) g.yielding(i, j, k) = 1;
                 });
  halo.fill<uint8_t>({&g.yielding});
  stats.cells.sand_cells = sums.sand;
  stats.cells.yielding_cells = sums.yielding;
  stats.cells.rigid_cells = sums.sand - sums.yielding;
  return stats;
}

}  // namespace dunesim
