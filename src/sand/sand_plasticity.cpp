#include "src/sand/sand_plasticity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "src/sand/culmann_wedges.hpp"
#include "src/sand/sand_classification.hpp"
#include "src/pressure/pressure_solver.hpp"
#include "src/sand/sand_rheology.hpp"
#include "src/sand/strain_rate_rows.hpp"
#include "src/sand/stress_divergence.hpp"
#include "src/sand/surface_rest.hpp"
#include "src/sand/wet_sand.hpp"

namespace dunesim {

namespace {

// The neighbourhood of one face of component a, walked with strides: this runs a dozen
// times for every sand cell of every step.
struct FaceStencil {
  const double* u;            // the face's velocity
  int64_t u_step;             // to the next a-face along b
  const uint8_t* upper_cell;  // type of the cell above the face along a
  int64_t cell_step_a, cell_step_b;
};

// A face carries a fluid velocity when one of its two cells is fluid; faces between air or
// solid cells hold no value that belongs to the fluid yet (extrapolation comes later in the
// step).
bool touches_fluid(const uint8_t* upper_cell, int64_t cell_step_a) {
  return upper_cell[0] == kFluid || upper_cell[-cell_step_a] == kFluid;
}

// du_a/dx_b at the face: central difference over the neighbouring a-faces along b,
// one-sided where one of them carries no fluid velocity, 0 where neither does.
double face_gradient(const FaceStencil& f, double dx) {
  const bool has_up = touches_fluid(f.upper_cell + f.cell_step_b, f.cell_step_a);
  const bool has_down = touches_fluid(f.upper_cell - f.cell_step_b, f.cell_step_a);
  const double here = f.u[0], up = f.u[f.u_step], down = f.u[-f.u_step];
  if (has_up && has_down) return (up - down) / (2 * dx);
  if (has_up) return (up - here) / dx;
  if (has_down) return (here - down) / dx;
  return 0.0;
}

}  // namespace

double SymTensor::frobenius_norm() const {
  return std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] +
                   2 * (c[3] * c[3] + c[4] * c[4] + c[5] * c[5]));
}

// Diagonal: D_aa = (u_a(c + e_a) - u_a(c)) / dx, the cell's own two a-faces.
// Off-diagonal: du_a/dx_b lives naturally on the four edges around the cell parallel to the
// third axis, at the corners of the two a-faces of the cell; their mean telescopes to the
// mean over the cell's two a-faces of (u_a(f + e_b) - u_a(f - e_b)) / (2 dx). Both stencils
// are exact for linear velocity fields, and so is the one-sided fallback in face_gradient.
// A cell whose six neighbours are fluid has fluid on every face its stencil reads (each
// face_gradient test includes one of those neighbours), so all its differences are central:
// most sand cells, and the friction substeps evaluate them eight times a step.
SymTensor strain_rate(const MacGrid& g, int i, int j, int k) {
  const Array3<uint8_t>& type = g.cell_type;
  const uint8_t* cell = &type(i, j, k);
  const bool interior = interior_cell(type, cell);
  SymTensor d;
  double grad[3][3];  // grad[a][b] = du_a/dx_b at the cell centre
  for (int a = 0; a < 3; ++a) {
    const Array3<double>& u = g.vel[a];
    const double* lo_face = &u(i, j, k);
    const double* hi_face = lo_face + u.stride(a);
    grad[a][a] = (*hi_face - *lo_face) / g.dx;
    for (int b = 0; b < 3; ++b) {
      if (b == a) continue;
      const int64_t step = u.stride(b);
      if (interior) {
        grad[a][b] = 0.5 * ((lo_face[step] - lo_face[-step]) / (2 * g.dx) +
                            (hi_face[step] - hi_face[-step]) / (2 * g.dx));
        continue;
      }
      const FaceStencil lo{lo_face, step, cell, type.stride(a), type.stride(b)};
      const FaceStencil hi{hi_face, step, cell + type.stride(a), type.stride(a), type.stride(b)};
      grad[a][b] = 0.5 * (face_gradient(lo, g.dx) + face_gradient(hi, g.dx));
    }
  }
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) d(a, b) = 0.5 * (grad[a][b] + grad[b][a]);
  return d;
}

SymTensor deviatoric_part(const SymTensor& t) {
  SymTensor deviator = t;
  const double mean = t.trace() / 3;
  for (int a = 0; a < 3; ++a) deviator(a, a) -= mean;
  return deviator;
}

double von_mises_equivalent(const SymTensor& sigma) {
  return deviatoric_part(sigma).frobenius_norm() / std::sqrt(2.0);
}

SymTensor rigid_stress(const SymTensor& strain_rate, double density, double dx, double dt) {
  SymTensor s;
  const double scale = -density * dx * dx / dt;
  for (int n = 0; n < 6; ++n) s.c[n] = scale * strain_rate.c[n];
  return s;
}

bool stays_rigid(const SymTensor& sigma_rigid, double pressure, double sin_phi, double cohesion) {
  return std::sqrt(3.0) * von_mises_equivalent(sigma_rigid) < sin_phi * pressure + cohesion;
}

SymTensor frictional_stress(const SymTensor& strain_rate, double pressure, double sin_phi) {
  SymTensor s;
  const double scale =
      -sin_phi * std::max(pressure, 0.0) / (std::sqrt(1.0 / 3.0) * strain_rate.frobenius_norm());
  for (int n = 0; n < 6; ++n) s.c[n] = scale * strain_rate.c[n];
  return s;
}

SymTensor flowing_stress(const SymTensor& strain_rate, double pressure, double sin_phi,
                         double viscosity, double density, double dx, double dt) {
  SymTensor s = frictional_stress(strain_rate, pressure, sin_phi);
  add_viscous_stress(s, strain_rate, viscosity, density, dx, dt);
  return s;
}

void add_viscous_stress(SymTensor& sigma, const SymTensor& strain_rate, double viscosity,
                        double density, double dx, double dt) {
  const double mu = std::min(viscosity, density * dx * dx / (2 * dt));
  for (int n = 0; n < 6; ++n) sigma.c[n] -= 2 * mu * strain_rate.c[n];
}

namespace {

// The velocity of cell (i, j, k)'s sand when the step began (the particles' velocity on the
// grid, ghosts filled), from the means of its opposite faces.
Vec3 saved_cell_velocity(const MacGrid& g, int i, int j, int k) {
  const Index3 next[3] = {{i + 1, j, k}, {i, j + 1, k}, {i, j, k + 1}};
  Vec3 v;
  for (int a = 0; a < 3; ++a)
    v[a] = 0.5 * (g.vel_saved[a](i, j, k) + g.vel_saved[a](next[a][0], next[a][1], next[a][2]));
  return v;
}

// How fast cell (i, j, k)'s sand was shearing when the step began: the largest speed of the
// sand in a face-neighbour cell relative to its own; 0 for sand at rest (moving no faster than
// `resting`). A body moving as a whole does not shear, and sand at rest keeps its cohesion
// when sand beside it moves past: an overhang that breaks off a face and falls shears the
// plane between them, not the face, which would otherwise lose its cohesion cell by cell
// behind it (docs/findings/culmann_wedges_yield.md, "Overhangs").
double saved_shear_speed(const MacGrid& g, const Array3<uint8_t>& sand_cells, int i, int j, int k,
                         double resting) {
  const Vec3 here = saved_cell_velocity(g, i, j, k);
  if (std::hypot(here[0], here[1], here[2]) <= resting) return 0;
  double most = 0;
  for (int a = 0; a < 3; ++a)
    for (int side : {-1, 1}) {
      Index3 n{i, j, k};
      n[a] += side;
      if (!holds_sand(sand_cells, n[0], n[1], n[2])) continue;
      const Vec3 there = saved_cell_velocity(g, n[0], n[1], n[2]);
      most =
          std::max(most, std::hypot(there[0] - here[0], there[1] - here[1], there[2] - here[2]));
    }
  return most;
}

// How fast cell (i, j, k)'s sand was deforming when the step began, as the speed it moved a
// face-neighbour's sand against its own (sqrt(2) |D|_F dx, simple shear's relative speed), D
// from the cells' velocities differenced across the neighbours that hold sand; 0 for sand at
// rest (moving no faster than `resting`). A body turning as a whole does not deform (D of a
// rotation is 0), where its neighbours' relative speed would call it shearing: the rule for
// layered sand, where a weak layer's push turns a strong one's rigid cluster.
double saved_deformation_speed(const MacGrid& g, const Array3<uint8_t>& sand_cells, int i, int j,
                               int k, double resting) {
  const Vec3 here = saved_cell_velocity(g, i, j, k);
  if (std::hypot(here[0], here[1], here[2]) <= resting) return 0;
  auto sand_velocity = [&](int b, int side, Vec3& v) {
    Index3 n{i, j, k};
    n[b] += side;
    if (!holds_sand(sand_cells, n[0], n[1], n[2])) return false;
    v = saved_cell_velocity(g, n[0], n[1], n[2]);
    return true;
  };
  double gradient[3][3] = {};  // gradient[a][b] = dv_a/dx_b, times dx
  for (int b = 0; b < 3; ++b) {
    Vec3 below = here, above = here;
    const bool has_below = sand_velocity(b, -1, below), has_above = sand_velocity(b, 1, above);
    const double span = has_below && has_above ? 2.0 : 1.0;
    for (int a = 0; a < 3; ++a) gradient[a][b] = (above[a] - below[a]) / span;
  }
  double norm2 = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      const double d = 0.5 * (gradient[a][b] + gradient[b][a]);
      norm2 += d * d;
    }
  return std::sqrt(2 * norm2);
}

// Whether the sand can hold a face by cohesion or a wet friction anywhere (dry cohesion, pore
// water, which brings c_wet and scales the friction, or materials of different strengths):
// then Culmann's test weighs whole blocks. The same on every rank (it decides a collective).
bool can_be_cohesive(const CellSand& sand) {
  return sand.material.cohesion > 0 || sand.wet || !sand.strengths.uniform();
}

// The wedges of this step: cohesionless planes always, sliding blocks when the sand can hold
// a face (`memo`: the last search, WedgeSearchMemo). Collective.
CulmannWedges culmann_wedges(const Topology& topo, const MacGrid& g,
                             const Array3<uint8_t>& sand_cells, const CellSand& sand,
                             const FrictionLaw& friction, double dt, const Vec3& gravity,
                             const SymmetryWalls& symmetry, WedgeSearchMemo* memo) {
  const double tan_phi = friction.static_friction();
  if (!can_be_cohesive(sand)) return CulmannWedges(topo, g, sand_cells, tan_phi);
  // Sand shearing faster than a hundredth of sqrt(g dx) across a cell when the step began has
  // broken its cohesion; sand at rest, or moving as one body, does not shear.
  const bool layered = !sand.strengths.uniform();
  const double broken_speed = 0.01 * std::sqrt(-gravity[2] * g.dx);
  auto strength = [&](int i, int j, int k) {
    const SandCellState cell = sand_cell_state(g, sand, i, j, k, dt, SymTensor{});
    const WetSandProperties& w = cell.wet;
    const double dry_tan_phi = cell.strength.tan_phi;
    const double sin_phi = dry_tan_phi / std::sqrt(1 + dry_tan_phi * dry_tan_phi);
    const double s = std::min(sin_phi * w.friction_scale, 0.999);
    const double shear_speed = layered
                                   ? saved_deformation_speed(g, sand_cells, i, j, k, broken_speed)
                                   : saved_shear_speed(g, sand_cells, i, j, k, broken_speed);
    return WedgeStrength{w.cohesion, friction.resting_block_friction(s / std::sqrt(1 - s * s)),
                         double(g.density(i, j, k)), shear_speed > broken_speed};
  };
  return CulmannWedges(topo, g, sand_cells, tan_phi, strength, -gravity[2], layered, symmetry,
                       memo);
}

// The cells whose stress a substep re-reads: the owned yielding cells and, for dry sand, the
// yielding ghost cells next to them, whose stress the owned faces' divergence reads. Each rank
// works those out itself from the filled velocities rather than exchanging the stress: the
// same inputs through the same code give the owner's numbers, and a halo exchange a substep
// is saved. Wet sand's saturation is not filled in the ghosts, so its stress is exchanged.
Box restressed_cells(const MacGrid& g, const Box& owned_sand, bool wet) {
  return wet ? owned_sand : owned_sand.grown(1).intersect(g.sand_region);
}

// The yielding cells' frictional stress (grid.stress) for the velocities as they stand.
void restress(MacGrid& g, const FrictionLaw& friction, const CellSand& sand, const CellRow& row,
              double dt) {
  RowStrainRates d;
  row_strain_rates(g, row, d);
  if (!sand.wet && sand.strengths.uniform() && friction.has_dry_row_yielding_stress()) {
    const double* strain_rate[6];
    float* stress[6];
    for (int n = 0; n < 6; ++n) {
      strain_rate[n] = d.c[n];
      stress[n] = &g.stress[n](row.i, row.j, row.k);
    }
    yielding_stress_of_dry_row(friction, g.dx, dt,
                               {row.length, strain_rate, &g.pressure(row.i, row.j, row.k),
                                &g.density(row.i, row.j, row.k), stress});
    return;
  }
  for (int m = 0; m < row.length; ++m) {
    const int i = row.i + m, j = row.j, k = row.k;
    const SymTensor sigma =
        yielding_stress(friction, sand_cell_state(g, sand, i, j, k, dt, d.at(m)));
    for (int n = 0; n < 6; ++n) g.stress[n](i, j, k) = float(sigma.c[n]);
  }
}

// A dry substep after the first: the `restressed` cells (in for_each_index order) take the
// stress of the velocities as they stand, then the faces take its divergence. Layer by layer
// up the grid, the cells of layer k just before the faces below it: a face of layer k - 1
// reads the stress of layers up to k and a cell of layer k the velocities of layers k - 1
// and up, so every read sees what the whole sweeps would give, while the layers' arrays are
// still in the cache (at a million particles they far exceed it).
void restress_and_apply_by_layer(MacGrid& g, const FrictionLaw& friction, const CellSand& sand,
                                 const std::vector<CellRow>& restressed,
                                 const StressDivergence& divergence, double dt, double sub_dt,
                                 StressDivergence::RigidReaction& rigid_reaction) {
  StressDivergence::Progress progress;
  for (size_t next = 0; next < restressed.size();) {
    const int layer = restressed[next].k;
    for (; next < restressed.size() && restressed[next].k == layer; ++next)
      restress(g, friction, sand, restressed[next], dt);
    divergence.apply_below(g, sub_dt, &rigid_reaction, layer, progress);
  }
  divergence.apply_below(g, sub_dt, &rigid_reaction, std::numeric_limits<int>::max(), progress);
}

// The stress divergence of the classified cells in friction_substeps(sand) substeps of
// dt / n. Each substep after the first re-reads the yielding cells' strain rate, so a stress
// that stopped a grid-scale motion stops pushing it the other way; the rigid cells'
// sigma_rigid and the classification hold for the whole step. The rigid faces' reaction is
// gathered aside and added after the last substep: the rigid fit turns it into the
// cluster's motion, and until then the flow must shear against the bed as it stands. Added
// at once, it moved the bed's top row of faces along with the flow within the step, the
// shear between them vanished and the friction with it: an APIC layer sliding on a sand bed
// 10 degrees below phi never stopped. grid.stress, grid.yielding, grid.rigid and the
// velocities are halo-filled on entry; the velocities' ghosts are stale on return.
void apply_friction_in_substeps(const Topology& topo, Halo& halo, MacGrid& g,
                                const Box& owned_sand, const FrictionLaw& friction,
                                const CellSand& sand, double dt) {
  StressField& stress = g.stress;
  const bool wet = sand.wet;
  const int substeps = friction_substeps(sand.material);
  // Mud's viscous stress does not scale with the pressure as friction does (stress_divergence);
  // the faces beside the block read the ghost cells' saturation.
  if (wet) halo.fill<float>({&g.saturation});
  const MudCells mud =
      wet ? MudCells{g.saturation.data(), sand.material.wet.ideal_saturation} : MudCells{};
  const StressDivergence divergence(topo, g, stress, g.yielding, g.sand_region, mud);
  // With one substep the rigid faces take the flow's reaction directly, as the paper's step.
  StressDivergence::RigidReaction rigid_reaction =
      substeps > 1 ? divergence.no_rigid_reaction() : StressDivergence::RigidReaction{};
  const std::vector<CellRow> restressed =
      substeps > 1
          ? rows_of_marked_fluid_cells(g, g.yielding, restressed_cells(g, owned_sand, wet))
          : std::vector<CellRow>{};
  divergence.apply(g, dt / substeps, substeps > 1 ? &rigid_reaction : nullptr);
  for (int substep = 1; substep < substeps; ++substep) {
    // Only the faces of the sand's cells moved since the last fill (the projection's).
    halo.fill_within<double>(g.sand_window, {&g.vel[0], &g.vel[1], &g.vel[2]});
    if (wet) {  // whole sweeps: the ghost cells' stress comes from their owners
      for (const CellRow& row : restressed) restress(g, friction, sand, row, dt);
      halo.fill<float>({&stress[0], &stress[1], &stress[2], &stress[3], &stress[4], &stress[5]});
      divergence.apply(g, dt / substeps, &rigid_reaction);
    } else {
      restress_and_apply_by_layer(g, friction, sand, restressed, divergence, dt, dt / substeps,
                                  rigid_reaction);
    }
  }
  if (substeps > 1) divergence.add_rigid_reaction(rigid_reaction, g);
}

}  // namespace

SandPlasticityStats apply_sand_plasticity(const Topology& topo, Halo& halo, MacGrid& g,
                                          const Array3<uint8_t>& sand_cells,
                                          const MaterialSpec& sand, const FrictionLaw& friction,
                                          const SandStrengths& strengths, double dt,
                                          const Vec3& gravity, const SymmetryWalls& symmetry,
                                          WedgeSearchMemo* wedge_memo) {
  const Box local = topo.local(Stagger::Cell);
  // The grid keeps these arrays between steps and they are zero outside the last step's
  // sand region: allocating or clearing them whole each step cost more than the plasticity
  // itself on large, mostly empty grids. They cover what the sand cells' array covers.
  auto clear = [&](auto& array, auto zero) {
    if (array.box() == sand_cells.box() && array.window() == sand_cells.window())
      array.fill(g.sand_region, zero);
    else
      array.reset_within(local, sand_cells.window(), Stagger::Cell, zero);
  };
  StressField& stress = g.stress;
  for (Array3<float>& s : stress) clear(s, 0.0f);
  clear(g.yielding, uint8_t(0));
  clear(g.rigid, uint8_t(0));
  RestingGrains::forget_cells_without_sand(g, sand_cells, g.sand_region);
  // Ghost cells included: the halo fills below write only where the owner has sand.
  g.sand_region = nonzero_bounding_box(sand_cells).intersect(local);

  SandPlasticityStats stats;
  const Box owned_sand = topo.owned_cells(topo.rank()).intersect(g.sand_region);
  const CellSand cell_sand{sand, strengths, sand.wet.holds_water() && g.has_pore_water()};
  SurfaceRest rest = surface_rest(gravity, dt);
  if (sand.wet.soaked_friction == SoakedFriction::EffectiveStress) {
    rest.sand_cells = &sand_cells;
    rest.pore_head = &g.pore_head;
    rest.pore_water_density = sand.wet.pore_water_density;
  }
  // Collective: built on every rank, sand or not.
  std::optional<CulmannWedges> wedges;
  if (sand.rheology.culmann_wedges_yield)
    wedges.emplace(culmann_wedges(topo, g, sand_cells, cell_sand, friction, dt, gravity, symmetry,
                                  wedge_memo));
  SandClassifier classifier(g, sand_cells, cell_sand, friction, rest, wedges ? &*wedges : nullptr,
                            dt, stats);
  // The strain rates a row at a time, as the substeps take them (the same numbers).
  RowStrainRates d;
  for (const CellRow& row : rows_of_marked_fluid_cells(g, sand_cells, owned_sand)) {
    row_strain_rates(g, row, d);
    classifier.classify(row, d);
  }

  halo.fill<float, uint8_t>({&stress[0], &stress[1], &stress[2], &stress[3], &stress[4],
                             &stress[5]},
                            {&g.yielding, &g.rigid});
  apply_friction_in_substeps(topo, halo, g, owned_sand, friction, cell_sand, dt);
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
  return stats;
}

}  // namespace dunesim
