// Trilinear weights of a point on one MAC velocity component (shared by P2G, G2P, advection).
#pragma once
#include <cmath>

#include "decomposition/array3.hpp"

namespace dunesim {

// The 2x2x2 block of entries of an Array3 around a point, and their trilinear weights.
struct Stencil {
  int64_t base = 0;  // offset of the lowest corner in the array
  double w[8];       // weight of corner (di + 2 dj + 4 dk)
  int64_t off[8];    // offset of each corner relative to base
  double frac[3];    // the point's place in the block along each axis, 0 to 1, in cells
};

// A point in grid units, computed once and shared by the three MAC components: along its
// own axis a component's entry n sits at n*dx ("node"), along the others at (n+1/2)*dx
// ("centre").
struct GridPoint {
  int node[3], centre[3];
  double node_frac[3], centre_frac[3];

  GridPoint(double x, double y, double z, double inv_dx) {
    const double g[3] = {x * inv_dx, y * inv_dx, z * inv_dx};
    for (int d = 0; d < 3; ++d) {
      double n = std::floor(g[d]), c = std::floor(g[d] - 0.5);
      node[d] = int(n);
      node_frac[d] = g[d] - n;
      centre[d] = int(c);
      centre_frac[d] = g[d] - 0.5 - c;
    }
  }
};

// Stencil of component `a` (-1: cell-centred data) at point pt. A point whose stencil would
// leave the array is clamped to its edge, so lookups never leave it.
template <class T>
inline Stencil make_stencil(const Array3<T>& arr, int a, const GridPoint& pt) {
  const Box& b = arr.box();
  int base[3];
  double f[3];
  for (int d = 0; d < 3; ++d) {
    base[d] = d == a ? pt.node[d] : pt.centre[d];
    f[d] = d == a ? pt.node_frac[d] : pt.centre_frac[d];
    if (base[d] < b.lo[d]) {
      base[d] = b.lo[d];
      f[d] = 0.0;
    }
    if (base[d] > b.hi[d] - 2) {
      base[d] = b.hi[d] - 2;
      f[d] = 1.0;
    }
  }
  Stencil s;
  for (int d = 0; d < 3; ++d) s.frac[d] = f[d];
  s.base = arr.offset(base[0], base[1], base[2]);
  const int64_t sx = arr.stride(0), sy = arr.stride(1), sz = arr.stride(2);
  const double gx[2] = {1 - f[0], f[0]}, gy[2] = {1 - f[1], f[1]}, gz[2] = {1 - f[2], f[2]};
  for (int c = 0; c < 8; ++c) {
    int di = c & 1, dj = (c >> 1) & 1, dk = (c >> 2) & 1;
    s.w[c] = gx[di] * gy[dj] * gz[dk];
    s.off[c] = di * sx + dj * sy + dk * sz;
  }
  return s;
}

// Convenience for a single lookup at a position in metres.
template <class T>
inline Stencil make_stencil(const Array3<T>& arr, int a, double dx, double x, double y,
                            double z) {
  return make_stencil(arr, a, GridPoint(x, y, z, 1.0 / dx));
}

template <class T>
inline double interpolate(const Array3<T>& arr, const Stencil& s) {
  const T* d = arr.data() + s.base;
  double v = 0;
  for (int c = 0; c < 8; ++c) v += s.w[c] * d[s.off[c]];
  return v;
}

// Offset of corner c of a stencil's block from its point, in cells (multiply by dx for m).
inline void corner_offset(const Stencil& s, int c, double r[3]) {
  for (int d = 0; d < 3; ++d) r[d] = double((c >> d) & 1) - s.frac[d];
}

// Gradient of the trilinear interpolant of a stencil's block at its point, per cell (divide
// by dx for per metre): sum over the corners of grad(w_c) v_c.
template <class T>
inline void interpolate_gradient(const Array3<T>& arr, const Stencil& s, double grad[3]) {
  const T* d = arr.data() + s.base;
  const double* f = s.frac;
  grad[0] = grad[1] = grad[2] = 0.0;
  for (int c = 0; c < 8; ++c) {
    const int bit[3] = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
    double g1[3], dg[3];  // each axis' 1D weight, and its derivative
    for (int a = 0; a < 3; ++a) {
      g1[a] = bit[a] ? f[a] : 1.0 - f[a];
      dg[a] = bit[a] ? 1.0 : -1.0;
    }
    const double v = d[s.off[c]];
    grad[0] += dg[0] * g1[1] * g1[2] * v;
    grad[1] += g1[0] * dg[1] * g1[2] * v;
    grad[2] += g1[0] * g1[1] * dg[2] * v;
  }
}

}  // namespace dunesim
