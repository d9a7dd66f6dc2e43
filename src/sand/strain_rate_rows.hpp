// The strain rate of rows of cells at once, for the yield test of every sand cell and the
// friction substeps, which need that of every yielding cell eight times a step. The cells of a
// row along x read neighbouring faces, so the differences of a row are taken together, in vector
// registers: central ones for a row of interior cells, each chosen central or one-sided by
// selects for the others.
#pragma once
#include <vector>

#include "decomposition/array3.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/sand_plasticity.hpp"

namespace dunesim {

// Whether the six neighbours of the cell at `cell` (a pointer into `type`) are fluid, so that
// strain_rate() takes only central differences there.
bool interior_cell(const Array3<uint8_t>& type, const uint8_t* cell);

// Consecutive cells along x from (i, j, k), all interior or all not. An interior row's cells
// have six fluid neighbours, so strain_rate() takes only central differences for them.
struct CellRow {
  int i, j, k, length;
  bool interior;
};

// Rows are cut at this length (a row's strain rates live on the stack).
constexpr int kMaxRowLength = 64;

// The fluid cells of `box` that `marked` marks, as rows in for_each_index order: runs of
// consecutive cells along x that are all interior or all not. Whether a cell is interior
// depends on the cell types alone, so the rows hold while the types do.
std::vector<CellRow> rows_of_marked_fluid_cells(const MacGrid& grid,
                                                const Array3<uint8_t>& marked, const Box& box);

// The strain rates of a row's cells, component n of cell m at c[n][m].
struct RowStrainRates {
  double c[6][kMaxRowLength];
  SymTensor at(int m) const;
};

// strain_rate() of each cell of `row`, to the last bit.
void row_strain_rates(const MacGrid& grid, const CellRow& row, RowStrainRates& out);

}  // namespace dunesim
