// Where a staggered sand stress lives and how its pieces are found, shared by the sand
// rheologies that carry a stress between steps (elastic_plastic_sand, rigid_plastic_sand).
//
// A symmetric stress's diagonal sits at cell centres and each shear component (xy, xz, yz)
// on the cell edges along the third axis, as in seismic codes. Edge (i,j,k) of a pair (a, b)
// runs through the corner of cell (i,j,k) at its low a and b sides. With the strain rate
// laid out the same way the stress force is the exact negative transpose of the strain
// rate, so a stress proportional to the strain rate only dissipates.
#pragma once
#include "decomposition/array3.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim::staggered {

// The two axes of a shear component (3: xy, 4: xz, 5: yz).
struct ShearPair {
  int a, b;
};
constexpr ShearPair kPairs[3] = {{0, 1}, {0, 2}, {1, 2}};

inline Index3 shifted(Index3 c, int axis, int by) {
  c[axis] += by;
  return c;
}

template <class T>
double at(const Array3<T>& a, const Index3& c) {
  return a(c[0], c[1], c[2]);
}
template <class T>
T& at(Array3<T>& a, const Index3& c) {
  return a(c[0], c[1], c[2]);
}

// Cell c acts as sand: a fluid cell whose particles are mostly sand.
inline bool sand_at(const MacGrid& g, const Array3<uint8_t>& sand, const Index3& c) {
  return sand(c[0], c[1], c[2]) && g.cell_type(c[0], c[1], c[2]) == kFluid;
}

// An edge carries shear stress when all four cells around it are sand: an edge beside air is
// a free surface (no traction), one beside a wall leaves the wall's shear to the Coulomb
// wall friction.
inline bool edge_active(const MacGrid& g, const Array3<uint8_t>& sand, const Index3& e,
                        ShearPair p) {
  return sand_at(g, sand, e) && sand_at(g, sand, shifted(e, p.a, -1)) &&
         sand_at(g, sand, shifted(e, p.b, -1)) &&
         sand_at(g, sand, shifted(shifted(e, p.a, -1), p.b, -1));
}

// The four cells around edge e of pair p, and the four edges of pair p around cell c.
template <class F>
void cells_around_edge(const Index3& e, ShearPair p, F&& f) {
  for (int da : {-1, 0})
    for (int db : {-1, 0}) f(shifted(shifted(e, p.a, da), p.b, db));
}
template <class F>
void edges_around_cell(const Index3& c, ShearPair p, F&& f) {
  for (int da : {0, 1})
    for (int db : {0, 1}) f(shifted(shifted(c, p.a, da), p.b, db));
}

// du_a/dx_b at edge e of a pair containing a and b (a != b), and D_aa at cell c, of the
// face field u.
inline double edge_gradient(const std::array<Array3<double>, 3>& u, double dx, const Index3& e,
                            int a, int b) {
  const Index3 below = shifted(e, b, -1);
  return (at(u[a], e) - at(u[a], below)) / dx;
}
inline double cell_stretch(const std::array<Array3<double>, 3>& u, double dx, const Index3& c,
                           int a) {
  return (at(u[a], shifted(c, a, 1)) - at(u[a], c)) / dx;
}
// D_ab at edge e of pair p.
inline double edge_shear_rate(const std::array<Array3<double>, 3>& u, double dx, const Index3& e,
                              ShearPair p) {
  return 0.5 * (edge_gradient(u, dx, e, p.a, p.b) + edge_gradient(u, dx, e, p.b, p.a));
}

// (div sigma)_a at the a-face of cell r (its low side) for a staggered stress: the
// diagonal from the two cells beside the face, the shears from the four edges around it.
// `normal_at(c)` gives sigma_aa at cell c (zero where it carries none); sigma's shear
// arrays are read as they are (zero on inactive edges).
template <class T, class Normal>
double face_divergence(const std::array<Array3<T>, 6>& sigma, Normal&& normal_at, double dx,
                       int a, const Index3& r) {
  double div = normal_at(r) - normal_at(shifted(r, a, -1));
  for (int b = 0; b < 3; ++b) {
    if (b == a) continue;
    const int n = a + b - 1;  // (0,1) -> 0, (0,2) -> 1, (1,2) -> 2
    div += at(sigma[3 + n], shifted(r, b, 1)) - at(sigma[3 + n], r);
  }
  return div / dx;
}

}  // namespace dunesim::staggered
