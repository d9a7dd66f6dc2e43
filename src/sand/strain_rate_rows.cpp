#include "src/sand/strain_rate_rows.hpp"

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

// face_gradient() (sand_plasticity.cpp) as selects: the difference between the faces up and
// down along b where each carries a fluid velocity, else the face itself, over the distance
// between them: central, one-sided, or here - here = +0 where neither does.
inline double selected_face_gradient(double here, double up, double down, bool has_up,
                                     bool has_down, double dx) {
  const double upper = has_up ? up : here, lower = has_down ? down : here;
  return (upper - lower) / (has_up & has_down ? 2 * dx : dx);
}

inline bool fluid(uint8_t type) { return type == kFluid; }

// strain_rate()'s stencil for cells that are not interior, along a row: each face's
// difference central, one-sided or 0 as face_gradient() decides it (from the cell types
// beside the face along b), by selects in plain loops over the row so that they vectorise.
// The same operations in the same order as strain_rate().
void boundary_gradients(const MacGrid& g, const CellRow& row,
                        double (&grad)[3][3][kMaxRowLength]) {
  const int n = row.length;
  const uint8_t* cell = &g.cell_type(row.i, row.j, row.k);
  for (int a = 0; a < 3; ++a) {
    const Array3<double>& u = g.vel[a];
    const double* lo = &u(row.i, row.j, row.k);
    const int64_t up_a = u.stride(a), ta = g.cell_type.stride(a);
    double* diagonal = grad[a][a];
    for (int m = 0; m < n; ++m) diagonal[m] = (lo[m + up_a] - lo[m]) / g.dx;
    for (int b = 0; b < 3; ++b) {
      if (b == a) continue;
      const int64_t s = u.stride(b), tb = g.cell_type.stride(b);
      double* out = grad[a][b];
      for (int m = 0; m < n; ++m) {
        // The cell's lower a-face lies between cells m - ta and m, its upper one between m
        // and m + ta; a face along b carries fluid where one of its two cells is fluid (both
        // read: `|`, not `||`, so that the loop has no branch).
        const double lower_face =
            selected_face_gradient(lo[m], lo[m + s], lo[m - s],
                                   fluid(cell[m + tb]) | fluid(cell[m + tb - ta]),
                                   fluid(cell[m - tb]) | fluid(cell[m - tb - ta]), g.dx);
        const double upper_face =
            selected_face_gradient(lo[m + up_a], lo[m + up_a + s], lo[m + up_a - s],
                                   fluid(cell[m + ta + tb]) | fluid(cell[m + tb]),
                                   fluid(cell[m + ta - tb]) | fluid(cell[m - tb]), g.dx);
        out[m] = 0.5 * (lower_face + upper_face);
      }
    }
  }
}

}  // namespace

bool interior_cell(const Array3<uint8_t>& type, const uint8_t* cell) {
  for (int a = 0; a < 3; ++a)
    if (cell[type.stride(a)] != kFluid || cell[-type.stride(a)] != kFluid) return false;
  return true;
}

namespace {

// Adds cell c to the last of `rows` where it continues it, else as a row of its own.
void append_to_rows(std::vector<CellRow>& rows, const MacGrid& g, const Index3& c) {
  const bool interior = interior_cell(g.cell_type, &g.cell_type(c[0], c[1], c[2]));
  if (!rows.empty()) {
    CellRow& last = rows.back();
    if (interior == last.interior && last.j == c[1] && last.k == c[2] &&
        last.i + last.length == c[0] && last.length < kMaxRowLength) {
      ++last.length;
      return;
    }
  }
  rows.push_back({c[0], c[1], c[2], 1, interior});
}

}  // namespace

std::vector<CellRow> rows_of_marked_fluid_cells(const MacGrid& g, const Array3<uint8_t>& marked,
                                                const Box& box) {
  std::vector<CellRow> rows;
  for_each_index(box, [&](int i, int j, int k) {
    if (marked(i, j, k) && g.cell_type(i, j, k) == kFluid) append_to_rows(rows, g, {i, j, k});
  });
  return rows;
}

SymTensor RowStrainRates::at(int m) const {
  SymTensor d;
  for (int n = 0; n < 6; ++n) d.c[n] = c[n][m];
  return d;
}

void row_strain_rates(const MacGrid& g, const CellRow& row, RowStrainRates& out) {
  double grad[3][3][kMaxRowLength];
  if (row.interior)
    interior_gradients(g, row, grad);
  else
    boundary_gradients(g, row, grad);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      double* d = out.c[SymTensor::index(a, b)];
      for (int m = 0; m < row.length; ++m) d[m] = 0.5 * (grad[a][b][m] + grad[b][a][m]);
    }
}

}  // namespace dunesim
