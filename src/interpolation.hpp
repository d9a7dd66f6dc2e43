// Trilinear weights of a point on one MAC velocity component (shared by P2G, G2P, advection).
#pragma once
#include <cmath>

#include "decomposition/array3.hpp"

namespace dunesim {

// The 2x2x2 block of entries of an Array3 around a point, and their trilinear weights.
struct Stencil {
  int64_t base = 0;   // offset of the lowest corner in the array
  double w[8];        // weight of corner (di + 2 dj + 4 dk)
  int64_t off[8];     // offset of each corner relative to base
};

// Grid coordinates of position x (m) for component `a` (-1 for cell-centred data):
// the array's entry n sits at x = n*dx on the face axis and (n+1/2)*dx on the others.
// The point is clamped into the array's box so that lookups never leave it.
template <class T>
inline Stencil make_stencil(const Array3<T>& arr, int a, double dx, double x, double y,
                            double z) {
  const double pos[3] = {x, y, z};
  const Box& b = arr.box();
  int base[3];
  double f[3];
  for (int d = 0; d < 3; ++d) {
    double g = pos[d] / dx - (d == a ? 0.0 : 0.5);
    double lo = b.lo[d], hi = b.hi[d] - 1.000001;  // keep base+1 inside the box
    g = g < lo ? lo : (g > hi ? hi : g);
    double fl = std::floor(g);
    base[d] = int(fl);
    f[d] = g - fl;
  }
  Stencil s;
  s.base = arr.offset(base[0], base[1], base[2]);
  const int64_t sx = arr.stride(0), sy = arr.stride(1), sz = arr.stride(2);
  for (int c = 0; c < 8; ++c) {
    int di = c & 1, dj = (c >> 1) & 1, dk = (c >> 2) & 1;
    s.w[c] = (di ? f[0] : 1 - f[0]) * (dj ? f[1] : 1 - f[1]) * (dk ? f[2] : 1 - f[2]);
    s.off[c] = di * sx + dj * sy + dk * sz;
  }
  return s;
}

inline double interpolate(const Array3<double>& arr, const Stencil& s) {
  const double* d = arr.data() + s.base;
  double v = 0;
  for (int c = 0; c < 8; ++c) v += s.w[c] * d[s.off[c]];
  return v;
}

}  // namespace dunesim
