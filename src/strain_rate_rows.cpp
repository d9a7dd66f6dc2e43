#include "src/strain_rate_rows.hpp"

namespace dunesim {

namespace {

// strain_rate()'s interior stencil along a row of `length` cells: du_a/dx_b at each cell
// centre, the same operations in the same order. Written as plain loops over the row so
// that they vectorise.
void interior_gradients(const MacGrid& g, const CellRow& row,
                        double (&grad)[3][3][kMaxRowLength]) {
  const int n = row.length;
  for (int a = 0; a < 3; ++a) {
    const Array3<double>& u = g.vel[a];
    const double* lo = &u(row.i, row.j, row.k);
    const int64_t up_a = u.stride(a);
    double* diagonal = grad[a][a];
    for (int m = 0; m < n; ++m) diagonal[m] = (lo[m + up_a] - lo[m]) / g.dx;
    for (int b = 0; b < 3; ++b) {
      if (b == a) continue;
      const int64_t s = u.stride(b);
      double* out = grad[a][b];
      for (int m = 0; m < n; ++m)
        out[m] = 0.5 * ((lo[m + s] - lo[m - s]) / (2 * g.dx) +
                        (lo[m + up_a + s] - lo[m + up_a - s]) / (2 * g.dx));
    }
  }
}

}  // namespace

bool interior_cell(const Array3<uint8_t>& type, const uint8_t* cell) {
  for (int a = 0; a < 3; ++a)
    if (cell[type.stride(a)] != kFluid || cell[-type.stride(a)] != kFluid) return false;
  return true;
}

std::vector<CellRow> rows_of_cells(const MacGrid& g, const std::vector<Index3>& cells) {
  std::vector<CellRow> rows;
  for (const Index3& c : cells) {
    const bool interior = interior_cell(g.cell_type, &g.cell_type(c[0], c[1], c[2]));
    if (!rows.empty()) {
      CellRow& last = rows.back();
      if (interior && last.interior && last.j == c[1] && last.k == c[2] &&
          last.i + last.length == c[0] && last.length < kMaxRowLength) {
        ++last.length;
        continue;
      }
    }
    rows.push_back({c[0], c[1], c[2], 1, interior});
  }
  return rows;
}

SymTensor RowStrainRates::at(int m) const {
  SymTensor d;
  for (int n = 0; n < 6; ++n) d.c[n] = c[n][m];
  return d;
}

void row_strain_rates(const MacGrid& g, const CellRow& row, RowStrainRates& out) {
  if (!row.interior) {
    for (int m = 0; m < row.length; ++m) {
      const SymTensor d = strain_rate(g, row.i + m, row.j, row.k);
      for (int n = 0; n < 6; ++n) out.c[n][m] = d.c[n];
    }
    return;
  }
  double grad[3][3][kMaxRowLength];
  interior_gradients(g, row, grad);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      double* d = out.c[SymTensor::index(a, b)];
      for (int m = 0; m < row.length; ++m) d[m] = 0.5 * (grad[a][b][m] + grad[b][a][m]);
    }
}

}  // namespace dunesim
