#include "src/projection.hpp"

namespace dunesim {

namespace {

// With coefficients 1/rho_f the solved p is the physical pressure when the right-hand
// side is -dx^2/dt times the divergence (see pressure_solver.hpp).
void divergence_right_hand_side(MacGrid& g, double dt, const Box& owned) {
  Array3<double>& rhs = g.cell_scratch;
  compute_divergence(g, owned, rhs);
  const double scale = -g.dx * g.dx / dt;
  for_each_index(owned, [&](int i, int j, int k) { rhs(i, j, k) *= scale; });
}

// u <- u - dt/(rho_f dx) (p_hi - p_lo) on owned in-domain faces between non-solid cells
// next to fluid; then the halo is filled.
void subtract_pressure_gradient(MacGrid& g, const Array3<double>& p, double dt,
                                const Topology& topo, Halo& halo) {
  const Array3<uint8_t>& type = g.cell_type;
  // Fluid often fills a small part of the block: only faces of its bounding box can change.
  const Box fluid = bounding_box_where(type, [](uint8_t t) { return t == kFluid; });
  for (int a = 0; a < 3; ++a) {
    Array3<double>& v = g.vel[a];
    // Faces inside the domain only: wall faces outside it always touch a solid.
    const Box faces = topo.owned(face_stagger(a))
                          .intersect(topo.global(face_stagger(a)))
                          .intersect(faces_of_cells(fluid, a));
    for_each_index(faces, [&](int i, int j, int k) {
      Index3 lo = lower_cell(a, i, j, k);
      uint8_t t_lo = type(lo[0], lo[1], lo[2]), t_hi = type(i, j, k);
      if (t_lo == kSolid || t_hi == kSolid) return;
      if (t_lo != kFluid && t_hi != kFluid) return;
      const double rho =
          face_density(g, g.cell_type.offset(lo[0], lo[1], lo[2]), g.cell_type.offset(i, j, k));
      v(i, j, k) -= dt / (rho * g.dx) * (p(i, j, k) - p(lo[0], lo[1], lo[2]));
    });
  }
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
}

}  // namespace

void compute_divergence(const MacGrid& g, const Box& owned, Array3<double>& div) {
  div.fill(0.0);
  const double inv_dx = 1.0 / g.dx;
  for_each_index(owned, [&](int i, int j, int k) {
    if (g.cell_type(i, j, k) != kFluid) return;
    div(i, j, k) = (g.vel[0](i + 1, j, k) - g.vel[0](i, j, k) + g.vel[1](i, j + 1, k) -
                    g.vel[1](i, j, k) + g.vel[2](i, j, k + 1) - g.vel[2](i, j, k)) *
                   inv_dx;
  });
}

PressureSolveStats project_pressure(MacGrid& g, double dt, const Topology& topo,
                                    PressureSolver& solver, Halo& halo) {
  const Box owned = topo.owned_cells(topo.rank());
  divergence_right_hand_side(g, dt, owned);
  PressureSolveStats stats = solver.solve(g, g.cell_scratch, g.pressure, halo);
  subtract_pressure_gradient(g, g.pressure, dt, topo, halo);
  return stats;
}

PressureSolveStats reproject_pressure(MacGrid& g, double dt, const Topology& topo,
                                      PressureSolver& solver, Halo& halo,
                                      Array3<double>& correction) {
  const Box owned = topo.owned_cells(topo.rank());
  divergence_right_hand_side(g, dt, owned);
  // The divergence left over is a small correction: removing 99.9% of it is plenty, and
  // costs a third of the iterations of the first solve.
  constexpr double kReprojectionTolerance = 1e-3;
  PressureSolveStats stats =
      solver.solve_again(g.cell_scratch, correction, halo, kReprojectionTolerance);
  subtract_pressure_gradient(g, correction, dt, topo, halo);
  return stats;
}

}  // namespace dunesim
