#include "src/pressure/projection.hpp"

namespace dunesim {

namespace {

// The fluid cells' bounding box: fluid often fills a small part of the block, and outside
// this box the divergence is 0 and no face velocity changes.
Box fluid_bounding_box(const MacGrid& g) {
  return bounding_box_where(g.cell_type, [](uint8_t c) { return c == kFluid; });
}

// compute_divergence's values in the fluid cells of `cells`, leaving the others as they are.
void divergence_within(const MacGrid& g, const Box& cells, Array3<double>& div) {
  const double inv_dx = 1.0 / g.dx;
  for_each_index(cells, [&](int i, int j, int k) {
    if (g.cell_type(i, j, k) != kFluid) return;
    div(i, j, k) = (g.vel[0](i + 1, j, k) - g.vel[0](i, j, k) + g.vel[1](i, j + 1, k) -
                    g.vel[1](i, j, k) + g.vel[2](i, j, k + 1) - g.vel[2](i, j, k)) *
                   inv_dx;
  });
}

// With coefficients 1/rho_f the solved p is the physical pressure when the right-hand
// side is -dx^2/dt times the divergence (see pressure_solver.hpp). The solver reads it at
// the owned fluid cells alone, so the other cells keep what they held (a block-wide fill
// would be 200 MB a rank at 1e8 particles).
void divergence_right_hand_side(MacGrid& g, double dt, const Box& owned, const Box& fluid) {
  Array3<double>& rhs = g.cell_scratch;
  const Box cells = owned.intersect(fluid);
  divergence_within(g, cells, rhs);
  const double scale = -g.dx * g.dx / dt;
  for_each_index(cells, [&](int i, int j, int k) { rhs(i, j, k) *= scale; });
}

// u <- u - dt/dx face_coefficient (p_hi - p_lo), 1/rho_f the coefficient, on owned in-domain
// faces between non-solid cells next to fluid, all among the faces of `fluid`, its bounding box;
// then the halo is filled. A row of faces along x at a time, walking the arrays by offset: the
// face, its two cells and their pressures each step by one.
void subtract_pressure_gradient(MacGrid& g, const Array3<double>& p, double dt,
                                const Topology& topo, const Box& fluid, Halo& halo) {
  const Array3<uint8_t>& type = g.cell_type;
  const uint8_t* t = type.data();
  const double* pd = p.data();
  const double dt_over_dx = dt / g.dx;
  for (int a = 0; a < 3; ++a) {
    Array3<double>& v = g.vel[a];
    // Faces inside the domain only: wall faces outside it always touch a solid.
    const Box faces = topo.owned(face_stagger(a))
                          .intersect(topo.global(face_stagger(a)))
                          .intersect(faces_of_cells(fluid, a));
    const int64_t type_below = type.stride(a), p_below = p.stride(a);
    const int length = faces.hi[0] - faces.lo[0];
    for (int k = faces.lo[2]; k < faces.hi[2]; ++k)
      for (int j = faces.lo[1]; j < faces.hi[1]; ++j) {
        double* face = &v(faces.lo[0], j, k);
        const int64_t hi = type.offset(faces.lo[0], j, k), p_hi = p.offset(faces.lo[0], j, k);
        for (int n = 0; n < length; ++n) {
          const int64_t c_hi = hi + n, c_lo = c_hi - type_below;
          if (t[c_lo] == kSolid || t[c_hi] == kSolid) continue;
          if (t[c_lo] != kFluid && t[c_hi] != kFluid) continue;
          face[n] -= dt_over_dx * face_coefficient(g, c_lo, c_hi) *
                     (pd[p_hi + n] - pd[p_hi + n - p_below]);
        }
      }
  }
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
}

}  // namespace

void compute_divergence(const MacGrid& g, const Box& owned, Array3<double>& div) {
  div.fill(0.0);
  divergence_within(g, owned.intersect(fluid_bounding_box(g)), div);
}

PressureSolveStats project_pressure(MacGrid& g, double dt, const Topology& topo,
                                    PressureSolver& solver, Halo& halo, double rtol) {
  const Box owned = topo.owned_cells(topo.rank());
  const Box fluid = fluid_bounding_box(g);
  divergence_right_hand_side(g, dt, owned, fluid);
  PressureSolveStats stats = solver.solve(g, g.cell_scratch, g.pressure, halo, rtol);
  subtract_pressure_gradient(g, g.pressure, dt, topo, fluid, halo);
  return stats;
}

PressureSolveStats reproject_pressure(MacGrid& g, double dt, const Topology& topo,
                                      PressureSolver& solver, Halo& halo) {
  const Box owned = topo.owned_cells(topo.rank());
  const Box fluid = fluid_bounding_box(g);
  divergence_right_hand_side(g, dt, owned, fluid);
  Array3<double>& right_hand_side_then_correction = g.cell_scratch;
  PressureSolveStats stats =
      solver.solve_again(right_hand_side_then_correction, halo, kReprojectionTolerance);
  subtract_pressure_gradient(g, right_hand_side_then_correction, dt, topo, fluid, halo);
  return stats;
}

}  // namespace dunesim
