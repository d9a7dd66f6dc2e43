// Which sand cells stay rigid and which yield, and the stress each takes: Zhu & Bridson's
// yield test (sigma_rigid against the strength at the projection's pressure, own weight for a
// resting cell, a resting loose grain's own sand) and the rules that follow it (the surface's
// rest, steep surfaces, Culmann's wedges), cell by cell or, for dry sand of one strength, a
// row at a time.
#pragma once
#include <cstdint>

#include "decomposition/array3.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/culmann_wedges.hpp"
#include "src/sand/resting_grains.hpp"
#include "src/sand/sand_plasticity.hpp"
#include "src/sand/sand_rheology.hpp"
#include "src/sand/sand_strength.hpp"
#include "src/sand/strain_rate_rows.hpp"
#include "src/sand/surface_rest.hpp"
#include "src/sand/wet_sand.hpp"

namespace dunesim {

// What the cells' sand is: the case's sand material (its water model and its rheology's
// settings), each cell's strength, and whether the pores hold water in this run.
struct CellSand {
  const MaterialSpec& material;
  const SandStrengths& strengths;
  bool wet;
};

// What the rheology needs of cell (i,j,k) with strain rate `d`, from the grid as it stands.
SandCellState sand_cell_state(const MacGrid& g, const CellSand& sand, int i, int j, int k,
                              double dt, const SymTensor& d);

// The yield test of each sand cell and the rules after it: the cell's stress, sigma_rigid or
// its flowing stress, into grid.stress and its flag into grid.rigid or grid.yielding. Dry
// sand of one strength under a law with a row form takes the test's numbers a row at a time
// (dry_row_yield_test), the rules cell by cell: the same results to the last bit.
class SandClassifier {
 public:
  // `wedges` may be null (culmann_wedges_yield off); counts go to `stats`.
  SandClassifier(MacGrid& g, const Array3<uint8_t>& sand_cells, const CellSand& sand,
                 const FrictionLaw& friction, const SurfaceRest& rest,
                 const CulmannWedges* wedges, double dt, SandPlasticityStats& stats);

  // The cells of `row`, whose strain rates are `d`.
  void classify(const CellRow& row, const RowStrainRates& d);

 private:
  void classify_cell(int i, int j, int k, const SymTensor& strain_rate);
  void classify_dry_row(const CellRow& row, const RowStrainRates& d);
  bool rigid_after_rules(int i, int j, int k, bool is_rigid, double tan_phi,
                         const WetSandProperties& wet, double density, bool held) const;
  // The cell's stress (component n is sigma_of(n)) and its flag.
  template <class Sigma>
  void store(int i, int j, int k, bool is_rigid, const Sigma& sigma_of);

  MacGrid& g_;
  const Array3<uint8_t>& sand_cells_;
  const CellSand& sand_;
  const FrictionLaw& friction_;
  const SurfaceRest& rest_;
  const CulmannWedges* wedges_;
  double dt_;
  SandPlasticityStats& stats_;
  bool weigh_own_weight_, dry_rows_;
  DryRowYieldTest test_;  // the row's numbers (dry rows)
  RestingGrains resting_;
};

}  // namespace dunesim
