#include "src/sand/sand_classification.hpp"

namespace dunesim {

namespace {

// The cell's stress by the yield test, its strength weighed with at least its own weight as
// its pressure (`own_weight()`, own_weight_pressure in surface_rest.hpp, asked only of a cell
// the projection's pressure lets yield): sigma_rigid where that holds it, else the flowing
// stress of the projection's pressure, which drives the friction.
template <class OwnWeight>
SandCellStress tested_with_own_weight(const FrictionLaw& friction, const SandCellState& cell,
                                      OwnWeight own_weight) {
  const SandCellStress tested = sand_cell_stress(friction, cell);
  if (tested.rigid) return tested;
  SandCellState weighed = cell;
  weighed.pressure = own_weight();
  if (weighed.pressure <= cell.pressure) return tested;
  const SandCellStress weighed_test = sand_cell_stress(friction, weighed);
  return weighed_test.rigid ? weighed_test : tested;
}

// Culmann's test: dry cohesionless sand of the material's phi fails above a daylighting
// plane; sand with cohesion, a wet friction or a mix of materials fails in a block whose
// weight beats its plane's strength (cohesive_wedges.hpp).
bool cell_fails_on_culmann_wedge(const CulmannWedges& wedges, const WetSandProperties& wet,
                                 bool uniform_strength, int i, int j, int k) {
  if (uniform_strength && wet.cohesion <= 0 && wet.friction_scale == 1.0)
    return wedges.above_daylighting_plane(i, j, k);
  return wedges.above_sliding_plane(i, j, k);
}

}  // namespace

SandCellState sand_cell_state(const MacGrid& g, const CellSand& sand, int i, int j, int k,
                              double dt, const SymTensor& d) {
  SandCellState cell;
  cell.strain_rate = d;
  cell.pressure = g.pressure(i, j, k);
  cell.density = g.density(i, j, k);
  cell.dx = g.dx;
  cell.dt = dt;
  cell.strength = sand.strengths.at(i, j, k);
  const SandStrength& s = cell.strength;
  cell.wet = sand.wet ? wet_sand_properties(s.cohesion, s.cohesion_wet, sand.material.wet,
                                            g.saturation(i, j, k))
                      : WetSandProperties{s.cohesion};
  return cell;
}

SandClassifier::SandClassifier(MacGrid& g, const Array3<uint8_t>& sand_cells,
                               const CellSand& sand, const FrictionLaw& friction,
                               const SurfaceRest& rest, const CulmannWedges* wedges, double dt,
                               SandPlasticityStats& stats)
    : g_(g),
      sand_cells_(sand_cells),
      sand_(sand),
      friction_(friction),
      rest_(rest),
      wedges_(wedges),
      dt_(dt),
      stats_(stats),
      // Where Culmann's wedges decide which sand at rest fails (a free face, a slope steeper
      // than phi), the yield test weighs a resting cell with its own weight; without them
      // the projection's push on a face's cells is what fails it.
      weigh_own_weight_(sand.material.rheology.culmann_wedges_yield),
      dry_rows_(!sand.wet && sand.strengths.uniform() && friction.has_dry_row_yielding_stress()),
      resting_(g, rest) {}

template <class Sigma>
void SandClassifier::store(int i, int j, int k, bool is_rigid, const Sigma& sigma_of) {
  for (int n = 0; n < 6; ++n) g_.stress[n](i, j, k) = float(sigma_of(n));
  ++stats_.sand_cells;
  if (is_rigid) {
    g_.rigid(i, j, k) = 1;
    ++stats_.rigid_cells;
  } else {
    g_.yielding(i, j, k) = 1;
    ++stats_.yielding_cells;
  }
}

void SandClassifier::classify(const CellRow& row, const RowStrainRates& d) {
  if (dry_rows_) {
    classify_dry_row(row, d);
    return;
  }
  for (int m = 0; m < row.length; ++m) classify_cell(row.i + m, row.j, row.k, d.at(m));
}

void SandClassifier::classify_cell(int i, int j, int k, const SymTensor& strain_rate) {
  const SandCellState cell = sand_cell_state(g_, sand_, i, j, k, dt_, strain_rate);
  const double tan_phi = cell.strength.tan_phi * cell.wet.friction_scale;
  auto own_weight = [&] { return own_weight_pressure(g_, sand_cells_, i, j, k, rest_); };
  // A resting loose grain is tested for stopping its own sand: sigma_rigid is linear in the
  // strain rate, so the test reads the strain rate scaled by the share.
  const double share = resting_.stopping_share(i, j, k);
  SandCellState tested_cell = cell;
  for (double& component : tested_cell.strain_rate.c) component *= share;
  const auto [tested, tested_rigid] =
      weigh_own_weight_ ? tested_with_own_weight(friction_, tested_cell, own_weight)
                        : sand_cell_stress(friction_, tested_cell);
  const bool held = share < 1.0;
  const bool is_rigid =
      rigid_after_rules(i, j, k, tested_rigid, tan_phi, cell.wet, cell.density, held);
  resting_.record(i, j, k, tan_phi);
  const SymTensor sigma = is_rigid == tested_rigid && !held ? tested
                          : is_rigid ? rigid_stress(cell.strain_rate, cell.density, g_.dx, dt_)
                                     : yielding_stress(friction_, cell);
  store(i, j, k, is_rigid, [&](int n) { return sigma.c[n]; });
}

// classify_cell()'s tests with the row's numbers: sand_cell_stress() and
// tested_with_own_weight() compare the same needed strength with sin(phi) p + c.
void SandClassifier::classify_dry_row(const CellRow& row, const RowStrainRates& d) {
  const double* strain_rate[6];
  for (int n = 0; n < 6; ++n) strain_rate[n] = d.c[n];
  const double* pressure = &g_.pressure(row.i, row.j, row.k);
  const float* density = &g_.density(row.i, row.j, row.k);
  dry_row_yield_test(friction_, g_.dx, dt_, {row.length, strain_rate, pressure, density, nullptr},
                     test_);
  const SandStrength& s = sand_.strengths.at(row.i, row.j, row.k);
  const WetSandProperties dry{s.cohesion};
  const double tan_phi = s.tan_phi * dry.friction_scale;
  const double sin_phi = s.sin_phi * dry.friction_scale;
  for (int m = 0; m < row.length; ++m) {
    const int i = row.i + m, j = row.j, k = row.k;
    const double share = resting_.stopping_share(i, j, k);
    auto holds = [&](double p) {
      return test_.needed_strength[m] * share < sin_phi * p + dry.cohesion;
    };
    bool tested_rigid = test_.negligible[m] || holds(pressure[m]);
    if (!tested_rigid && weigh_own_weight_) {
      const double weight = own_weight_pressure(g_, sand_cells_, i, j, k, rest_);
      tested_rigid = weight > pressure[m] && holds(weight);
    }
    const bool is_rigid =
        rigid_after_rules(i, j, k, tested_rigid, tan_phi, dry, density[m], share < 1.0);
    resting_.record(i, j, k, tan_phi);
    const double(*sigma)[kMaxRowLength] = is_rigid ? test_.rigid : test_.flowing;
    store(i, j, k, is_rigid, [&](int n) { return sigma[n][m]; });
  }
}

// The rules after the yield test, in their order: a surface cell slower than friction
// stops rests; a surface too steep, or a block above a daylighting plane, yields (a resting
// loose grain, `held`, is no block).
bool SandClassifier::rigid_after_rules(int i, int j, int k, bool is_rigid, double tan_phi,
                                       const WetSandProperties& wet, double density,
                                       bool held) const {
  const SandRheology& rheology = sand_.material.rheology;
  if (!is_rigid && rheology.surface_static_friction &&
      surface_cell_stays_at_rest(g_, i, j, k, tan_phi, rest_))
    is_rigid = true;
  if (is_rigid && rheology.steep_surface_yields &&
      surface_cell_too_steep(g_, i, j, k, tan_phi, wet.cohesion, density, rest_))
    is_rigid = false;
  if (is_rigid && wedges_ && !held &&
      cell_fails_on_culmann_wedge(*wedges_, wet, sand_.strengths.uniform(), i, j, k))
    is_rigid = false;
  return is_rigid;
}

}  // namespace dunesim
