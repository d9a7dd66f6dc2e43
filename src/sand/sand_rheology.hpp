// What one sand cell does after the projection: stay rigid, or slide under a frictional
// stress. Two rheologies, chosen per material (`rheology` in the case):
//
//  - Zhu & Bridson 2005 (eqs. 1-3): rigid while sqrt(3) sigma_bar(sigma_rigid) < sin(phi) p + c,
//    else sigma_f = -sin(phi) p D / (sqrt(1/3) |D|_F). In simple shear the yield test lets
//    go at a shear stress of sin(phi) p / sqrt(3) while sigma_f resists with
//    sqrt(3/2) sin(phi) p, 2.1 times more: a sliding cell is braked harder than the stress
//    that released it, and harder than the stress that would stop it within a step whenever
//    sigma_rigid lies between the two.
//  - mu(I) (Jop, Forterre & Pouliquen 2006, Nature 441): one friction coefficient for the
//    yield test and the flow, mu(I) = mu_s + (mu_2 - mu_s) / (I0 / I + 1), with the inertial
//    number I = gamma_dot d / sqrt(p / rho_grain), gamma_dot = sqrt(2) |D|_F. Rigid while
//    sigma_bar(sigma_rigid) < mu_s p + c; sliding cells carry sigma_bar = mu(I) p (Jop's
//    tau_ij = mu P gamma_dot_ij / |gamma_dot|), but never more than sigma_bar(sigma_rigid):
//    friction stops a cell within one step at most, it never drives it backwards. In
//    simple shear the shear stress is mu(I) p, so a heap's flanks stop at atan(mu_s), the
//    friction angle (docs/findings/sand.md).
//
// Zhu & Bridson's cone (Drucker-Prager) has one strength for every direction of strain. With
// `yield_surface = "mohr_coulomb"` both its stresses take Mohr-Coulomb's dependence on the
// intermediate principal stress instead (mohr_coulomb_scale below): unchanged in plane strain,
// where eq. 2 puts heaps at 31.5 degrees for phi = 30, and stronger in axisymmetric
// compression, the state of a collapsing column's core (2 sqrt(3) / (3 - sin(phi_mc)) times,
// 1.45 for phi = 30).
//
// Stresses are compression positive (see sand_plasticity.hpp).
#pragma once
#include "io/case_config.hpp"
#include "src/sand/sand_plasticity.hpp"
#include "src/sand/strain_rate_rows.hpp"
#include "src/sand/sand_strength.hpp"
#include "src/sand/wet_sand.hpp"

namespace dunesim {

// The state of one sand cell after the projection.
struct SandCellState {
  SymTensor strain_rate;  // D, 1/s
  double pressure = 0;    // p, Pa
  double density = 0;     // rho of the cell, kg/m^3
  double dx = 0, dt = 0;
  SandStrength strength;  // the dry sand's friction (the law's tests read it) and cohesion
  WetSandProperties wet;  // cohesion, friction scale and mud viscosity at the cell's S
};

struct SandCellStress {
  SymTensor sigma;
  bool rigid = false;
};

// How a sand cell the projection left deforming decides whether it stays rigid, and the
// stress it flows with if not: one law a rheology (Zhu & Bridson's, mu(I)). The cell brings
// its friction (SandCellState::strength: its material's, or its mix of materials), computed
// once per material, not per cell; the sand model that owns the law builds it
// (src/sand/sand_model.hpp).
class FrictionLaw {
 public:
  virtual ~FrictionLaw() = default;
  // The friction (shear over normal stress) that holds a block of resting sand of friction
  // angle atan(tan_phi) on a plane, which Culmann's wedges weigh: at least tan(phi), and at
  // least what this law's flowing stress resists the same block sliding with, since sand at
  // rest is no weaker than the same sand flowing (findings: culmann_wedges_yield.md).
  virtual double resting_block_friction(double tan_phi) const = 0;
  // The dry material's resting_block_friction: the friction of Culmann's daylighting planes.
  double static_friction() const { return resting_block_friction(material_tan_phi_); }
  // The yield test, for a cell whose strain is above round-off.
  virtual bool stays_rigid(const SandCellState& cell, const SymTensor& sigma_rigid) const = 0;
  // The flowing stress of a cell whose strain is above round-off.
  virtual SymTensor flowing_stress(const SandCellState& cell) const = 0;
  // Whether yielding_stress_of_dry_row gives yielding_stress() of dry sand under this law
  // (false: the friction substeps restress cell by cell).
  virtual bool has_dry_row_yielding_stress() const { return false; }
  // sin(phi) of a dry row's stress (has_dry_row_yielding_stress only).
  virtual double dry_row_sin_phi() const { return 0; }

 protected:
  explicit FrictionLaw(const MaterialSpec& sand);

 private:
  double material_tan_phi_;  // tan(friction_angle) of the material
};

// Zhu & Bridson's rheology, on the Drucker-Prager cone or Mohr-Coulomb's pyramid.
class ZhuBridsonFriction final : public FrictionLaw {
 public:
  explicit ZhuBridsonFriction(const MaterialSpec& sand);
  // The flowing stress resists a block sliding on a plane (simple shear, whose normal stress is
  // p on the plane) with sqrt(3/2) sin(phi) p: above tan(phi) for phi below 35.26 degrees.
  double resting_block_friction(double tan_phi) const override;
  bool stays_rigid(const SandCellState& cell, const SymTensor& sigma_rigid) const override;
  SymTensor flowing_stress(const SandCellState& cell) const override;
  bool has_dry_row_yielding_stress() const override { return !mohr_coulomb_; }
  double dry_row_sin_phi() const override { return sin_phi_; }

 private:
  double sin_phi(const SandCellState& cell) const;
  double sin_phi_ = 0;         // sin(friction_angle) of the material (dry rows)
  bool mohr_coulomb_ = false;  // yield_surface = "mohr_coulomb"
};

// mu(I) of Jop, Forterre & Pouliquen 2006.
class MuOfIFriction final : public FrictionLaw {
 public:
  explicit MuOfIFriction(const MaterialSpec& sand);
  // mu(I) is mu_s = tan(phi) at rest and above it flowing: tan(phi).
  double resting_block_friction(double tan_phi) const override { return tan_phi; }
  bool stays_rigid(const SandCellState& cell, const SymTensor& sigma_rigid) const override;
  SymTensor flowing_stress(const SandCellState& cell) const override;
  // mu(I) for inertial number I > 0 (infinite I gives mu_2), from mu_s = mu_static.
  double mu_of_inertial_number(double inertial_number, double mu_static) const;

 private:
  double mu_limit_ = 0;  // tan(friction_angle_dynamic)
  double i0_ = 0, grain_diameter_ = 0, grain_density_ = 0;
};

// The strength of Mohr-Coulomb's surface along the deviatoric direction of `strain_rate`,
// over its strength in plane strain (1 there and in simple shear). The surface is the one
// through Zhu & Bridson's flowing stress in plane strain, whose largest obliquity is
// sin(phi_mc) = sqrt(3/2) sin_phi: for stress codirectional with the strain rate's deviator n
// (principal values n1 >= n2 >= n3, |n| = 1), Mohr-Coulomb's (s1 - s3) / 2 = (p + s2 / 2)
// sin(phi_mc) gives the stress's size as p sin(phi_mc) / ((n1 - n3) / 2 - n2 sin(phi_mc) / 2).
double mohr_coulomb_scale(const SymTensor& strain_rate, double sin_phi);

// cos(acos(x) / 3) for x in [-1, 1], within 2.1e-10 (mohr_coulomb_scale's Lode angle).
double cos_third_of_arccos(double x);

// The cell's stress by the sand's rheology: sigma_rigid if it stays rigid, else its flowing
// stress (plus mud's viscous stress, capped as in flowing_stress).
SandCellStress sand_cell_stress(const FrictionLaw& law, const SandCellState& cell);

// The flowing stress of a cell already found yielding, for its present strain rate (zero
// where that rate is round-off): what the friction substeps re-evaluate.
SymTensor yielding_stress(const FrictionLaw& law, const SandCellState& cell);

// The cells of one row along x for yielding_stress_of_dry_row: strain rate component n of
// cell m at strain_rate[n][m], pressure and density from cell 0 on, stress written likewise.
struct DrySandRow {
  int length = 0;
  const double* const* strain_rate;
  const double* pressure;
  const float* density;
  float* const* stress;
};

// yielding_stress() of each cell of a row of dry sand, stored in single precision, to the
// last bit: the same operations in plain loops over the row, so that they vectorise (the
// friction substeps restress every yielding cell seven times a step).
// law.has_dry_row_yielding_stress() must hold.
void yielding_stress_of_dry_row(const FrictionLaw& law, double dx, double dt,
                                const DrySandRow& row);

// What the yield test weighs for each cell of a row of dry sand of one strength, and both
// stresses it can give (law.has_dry_row_yielding_stress() must hold): to the last bit
// sand_cell_stress()'s and yielding_stress()'s numbers, in plain loops over the row.
struct DryRowYieldTest {
  double rigid[6][kMaxRowLength];    // sigma_rigid
  double flowing[6][kMaxRowLength];  // yielding_stress() at the row's pressure
  // sqrt(3) sigma_bar(sigma_rigid): the cell stays rigid where this is below sin(phi) p + c.
  double needed_strength[kMaxRowLength];
  bool negligible[kMaxRowLength];  // strain below round-off: rigid, whatever the test
};
void dry_row_yield_test(const FrictionLaw& law, double dx, double dt, const DrySandRow& row,
                        DryRowYieldTest& out);

}  // namespace dunesim
