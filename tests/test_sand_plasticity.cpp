// The frictional-plasticity stage: strain rate, yield test, frictional stress, the stress
// divergence on the MAC faces, and agreement between decompositions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/sand/culmann_wedges.hpp"
#include "src/sand/resting_grains.hpp"
#include "src/sand/sand_plasticity.hpp"
#include "src/sand/sand_rheology.hpp"
#include "src/sand/strain_rate_rows.hpp"
#include "src/sand/stress_divergence.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

// Without gravity no surface cell is held by its slope (src/sand/surface_rest.hpp): the tests
// of the stresses alone use it.
const Vec3 kNoGravity{0, 0, 0};
const Vec3 kGravity{0, 0, -9.81};

// A box of `cells` with solid walls outside it and every in-domain cell air; the caller
// marks fluid and fills velocities.
struct TestGrid {
  Topology topo;
  Halo halo;
  MacGrid grid;
  Array3<uint8_t> sand;

  TestGrid(MPI_Comm comm, Index3 cells, double dx) : topo(comm, cells, 2), halo(topo) {
    grid.allocate(topo, dx);
    grid.allocate_sand(topo);  // wall_mu 0: frictionless walls
    sand.reset(topo.local(Stagger::Cell), Stagger::Cell, 0);
    const Box domain = topo.global(Stagger::Cell);
    for_each_index(grid.cell_type.box(), [&](int i, int j, int k) {
      grid.cell_type(i, j, k) = domain.contains(i, j, k) ? kAir : kSolid;
    });
  }
  void make_sand(int i, int j, int k, double density) {
    grid.cell_type(i, j, k) = kFluid;
    grid.density(i, j, k) = density;
    sand(i, j, k) = 1;
  }
};

MaterialSpec sand_material(double friction_angle_deg, double cohesion) {
  MaterialSpec m;
  m.name = "sand";
  m.kind = MaterialKind::Sand;
  m.density = 1600;
  m.friction_angle_deg = friction_angle_deg;
  m.cohesion = cohesion;
  return m;
}

// The sand stage under Zhu & Bridson's friction law, the default model's.
SandPlasticityStats zhu_bridson_plasticity(const Topology& topo, Halo& halo, MacGrid& grid,
                                           const Array3<uint8_t>& sand_cells,
                                           const MaterialSpec& sand, double dt,
                                           const Vec3& gravity) {
  return apply_sand_plasticity(topo, halo, grid, sand_cells, sand, ZhuBridsonFriction(sand),
                               SandStrengths(sand), dt, gravity, SymmetryWalls{});
}

SymTensor tensor(double xx, double yy, double zz, double xy, double xz, double yz) {
  SymTensor t;
  t.c = {xx, yy, zz, xy, xz, yz};
  return t;
}

// A reproducible value in [0, 1) from integer coordinates, the same on every rank.
double hash01(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
               (c + 0x85157AF5ull) * 0x94D049BB133111EBull ^ (d + 17) * 0xD6E8FEB86659FD93ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return double(x >> 11) * 0x1.0p-53;
}

// The grid stores the stress in single precision: each stored value is off by up to 2^-24
// of the largest stress. The update u -= dt/rho div(sigma) differences 2 of them along a
// and 2 x 4 along each other axis (over 4 dx), 6 / dx in all; so a face is off by up to
// dt / rho * 6 * 2^-24 * max_stress / dx, and by double round-off (1e-12) besides.
double stored_stress_tolerance(double max_stress, double dx, double dt, double rho) {
  return dt / rho * 6 * std::ldexp(max_stress, -24) / dx + 1e-12;
}

}  // namespace

// sigma_bar = |sigma - sigma_m I|_F / sqrt(2).
TEST(SandPlasticity, VonMisesEquivalentByHand) {
  // Uniaxial stress s: deviator s*diag(2/3, -1/3, -1/3), |dev|_F^2 = (6/9) s^2, so
  // sigma_bar = s / sqrt(3) and sqrt(3) sigma_bar = s.
  EXPECT_NEAR(std::sqrt(3.0) * von_mises_equivalent(tensor(250, 0, 0, 0, 0, 0)), 250.0, 1e-12);
  // diag(1,2,3) with xy = 4: mean 2, deviator diag(-1,0,1) plus xy = yx = 4,
  // |dev|_F^2 = 1 + 0 + 1 + 16 + 16 = 34, sigma_bar = sqrt(17).
  EXPECT_NEAR(von_mises_equivalent(tensor(1, 2, 3, 4, 0, 0)), std::sqrt(17.0), 1e-12);
  // A pure pressure has no shear.
  EXPECT_NEAR(von_mises_equivalent(tensor(-7, -7, -7, 0, 0, 0)), 0.0, 1e-12);
}

// Hand cell: rho = 1600 kg/m^3, dx = 0.01 m, dt = 1e-3 s, pure shear du_x/dy = 1/s, so
// D_xy = 0.5/s and sigma_rigid_xy = -1600 * 1e-4 / 1e-3 * 0.5 = -80 Pa. Its deviator is
// itself: |dev|_F = 80 sqrt(2), sigma_bar = 80 Pa, sqrt(3) sigma_bar = 138.56 Pa.
// phi = 30 degrees: sin(phi) = 0.5.
TEST(SandPlasticity, YieldTestByHand) {
  const SymTensor d = tensor(0, 0, 0, 0.5, 0, 0);
  const SymTensor sigma_rigid = rigid_stress(d, 1600, 0.01, 1e-3);
  EXPECT_NEAR(sigma_rigid(0, 1), -80.0, 1e-12);
  EXPECT_NEAR(sigma_rigid(1, 0), -80.0, 1e-12);
  EXPECT_NEAR(sigma_rigid(0, 0), 0.0, 1e-12);
  const double sin_phi = 0.5;
  // Small pressure: 0.5 * 100 = 50 Pa < 138.56 Pa: the cell yields.
  EXPECT_FALSE(stays_rigid(sigma_rigid, 100, sin_phi, 0));
  // High pressure: 0.5 * 400 = 200 Pa > 138.56 Pa: rigid.
  EXPECT_TRUE(stays_rigid(sigma_rigid, 400, sin_phi, 0));
  // Zero pressure: cohesion alone decides. 150 Pa holds it, 100 Pa does not.
  EXPECT_TRUE(stays_rigid(sigma_rigid, 0, sin_phi, 150));
  EXPECT_FALSE(stays_rigid(sigma_rigid, 0, sin_phi, 100));
  EXPECT_FALSE(stays_rigid(sigma_rigid, 0, sin_phi, 0));
  // Tension eats into cohesion: -50 + 150 = 100 Pa yields, -50 + 200 = 150 Pa holds.
  EXPECT_FALSE(stays_rigid(sigma_rigid, -100, sin_phi, 150));
  EXPECT_TRUE(stays_rigid(sigma_rigid, -100, sin_phi, 200));
}

// D = [[0.1, 0.2, 0], [0.2, -0.1, 0], [0, 0, 0]]: |D|_F = sqrt(0.01 + 0.01 + 2*0.04) =
// sqrt(0.1). p = 1000 Pa, sin(phi) = 0.5: scale = -500 / (sqrt(1/3) sqrt(0.1)) = -2738.613.
TEST(SandPlasticity, FrictionalStressByHand) {
  const SymTensor d = tensor(0.1, -0.1, 0, 0.2, 0, 0);
  const SymTensor s = frictional_stress(d, 1000, 0.5);
  EXPECT_NEAR(s(0, 0), -273.8613, 1e-4);
  EXPECT_NEAR(s(1, 1), 273.8613, 1e-4);
  EXPECT_NEAR(s(0, 1), -547.7226, 1e-4);
  EXPECT_NEAR(s(2, 2), 0.0, 1e-12);
  EXPECT_NEAR(s(0, 2), 0.0, 1e-12);
  // |sigma_f|_F = sqrt(3) sin(phi) p whatever the direction of D.
  EXPECT_NEAR(s.frobenius_norm(), std::sqrt(3.0) * 500, 1e-9);
  // No frictional stress in tension.
  EXPECT_EQ(frictional_stress(d, -300, 0.5).frobenius_norm(), 0.0);
}

// Central and one-sided differences are exact for u = b + A x; the sand block touches the
// floor and the -x wall and has air above and beside it, so every fallback is exercised.
TEST(SandPlasticity, StrainRateOfLinearFieldIsExact) {
  TestGrid t(MPI_COMM_WORLD, {8, 6, 7}, 0.1);
  const double A[3][3] = {{0.3, -1.2, 0.7}, {2.1, -0.5, 0.4}, {-0.8, 1.5, 0.9}};
  const double b[3] = {0.2, -0.1, 0.05};
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (i < 6 && j >= 1 && j < 5 && k < 4 && t.grid.cell_type(i, j, k) != kSolid)
      t.make_sand(i, j, k, 1600);
  });
  for (int a = 0; a < 3; ++a)
    for_each_index(t.grid.vel[a].box(), [&](int i, int j, int k) {
      const auto x = t.grid.face_position(a, i, j, k);
      t.grid.vel[a](i, j, k) = b[a] + A[a][0] * x[0] + A[a][1] * x[1] + A[a][2] * x[2];
    });
  int checked = 0;
  for_each_index(t.topo.owned_cells(t.topo.rank()), [&](int i, int j, int k) {
    if (t.grid.cell_type(i, j, k) != kFluid) return;
    const SymTensor d = strain_rate(t.grid, i, j, k);
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        ASSERT_NEAR(d(p, q), 0.5 * (A[p][q] + A[q][p]), 1e-12) << i << " " << j << " " << k;
    ++checked;
  });
  EXPECT_EQ(global_sum(t.topo, int64_t(checked)), int64_t(6 * 4 * 4));
}

// The friction substeps take the strain rates a row at a time (src/sand/strain_rate_rows.hpp):
// on a random field, over interior rows and lone boundary cells, they must be strain_rate()'s
// to the last bit, or the substeps would no longer give the classification's stress.
TEST(SandPlasticity, RowStrainRatesAreStrainRatesToTheLastBit) {
  TestGrid t(MPI_COMM_WORLD, {12, 7, 6}, 0.1);
  std::vector<Index3> cells;
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (i < 10 && j < 6 && k < 5 && t.grid.cell_type(i, j, k) != kSolid)
      t.make_sand(i, j, k, 1600);
  });
  for (int a = 0; a < 3; ++a)
    for_each_index(t.grid.vel[a].box(), [&](int i, int j, int k) {
      t.grid.vel[a](i, j, k) = hash01(a, i + 40, j + 40, k + 40) - 0.5;
    });
  for_each_index(t.topo.owned_cells(t.topo.rank()), [&](int i, int j, int k) {
    if (t.grid.cell_type(i, j, k) == kFluid) cells.push_back({i, j, k});
  });
  const std::vector<CellRow> rows =
      rows_of_marked_fluid_cells(t.grid, t.sand, t.topo.owned_cells(t.topo.rank()));
  int64_t checked = 0, interior = 0;
  for (const CellRow& row : rows) {
    RowStrainRates d;
    row_strain_rates(t.grid, row, d);
    for (int m = 0; m < row.length; ++m) {
      const SymTensor expected = strain_rate(t.grid, row.i + m, row.j, row.k);
      for (int n = 0; n < 6; ++n) ASSERT_EQ(d.c[n][m], expected.c[n]) << row.i + m;
      ++checked;
      interior += row.interior;
    }
  }
  EXPECT_EQ(checked, int64_t(cells.size()));
  // The 8 x 4 x 3 cells inside the block (at 4 ranks each rank holds some) run in rows.
  EXPECT_EQ(global_sum(t.topo, interior), int64_t(8 * 4 * 3));
}

// sigma_ab = S_ab + G_ab . x in every cell of an all-sand box: on faces whose stencil stays
// inside the box the update is u_a -= dt/rho * sum_b G_abb, exact but for the stress's
// single-precision storage.
TEST(SandPlasticity, StressDivergenceOfLinearFieldIsExact) {
  const double dx = 0.1, dt = 0.01, rho = 1600;
  TestGrid t(MPI_COMM_WORLD, {8, 6, 6}, dx);
  const Box domain = t.topo.global(Stagger::Cell);
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (domain.contains(i, j, k)) t.make_sand(i, j, k, rho);
  });
  double gradient[6][3];  // d sigma_n / dx_c, Pa/m
  double offset[6];
  for (int n = 0; n < 6; ++n) {
    offset[n] = 100.0 * (n + 1);
    for (int c = 0; c < 3; ++c) gradient[n][c] = 37.0 * (n + 1) - 53.0 * c + 11.0 * n * c;
  }
  StressField stress;
  Array3<uint8_t> yielding(t.topo.local(Stagger::Cell), Stagger::Cell, 0);
  for (int n = 0; n < 6; ++n) stress[n].reset(t.topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  for_each_index(domain.intersect(yielding.box()), [&](int i, int j, int k) {
    yielding(i, j, k) = 1;
    const auto x = t.grid.cell_centre(i, j, k);
    for (int n = 0; n < 6; ++n)
      stress[n](i, j, k) =
          offset[n] + gradient[n][0] * x[0] + gradient[n][1] * x[1] + gradient[n][2] * x[2];
  });
  apply_stress_divergence(t.topo, t.grid, stress, yielding, yielding.box(), dt);
  double max_stress = 0;
  for (int n = 0; n < 6; ++n)
    for_each_index(stress[n].box(), [&](int i, int j, int k) {
      max_stress = std::max(max_stress, std::abs(double(stress[n](i, j, k))));
    });
  const double tolerance = stored_stress_tolerance(max_stress, dx, dt, rho);

  int checked = 0;
  for (int a = 0; a < 3; ++a) {
    double div = 0;
    for (int b = 0; b < 3; ++b) div += gradient[SymTensor::index(a, b)][b];
    // Faces with L, R and their neighbours along b != a inside the box.
    Box interior_faces;
    for (int c = 0; c < 3; ++c) {
      interior_faces.lo[c] = 1;
      interior_faces.hi[c] = c == a ? domain.hi[c] : domain.hi[c] - 1;
    }
    const Box faces = t.topo.owned(face_stagger(a)).intersect(interior_faces);
    for_each_index(faces, [&](int i, int j, int k) {
      ASSERT_NEAR(t.grid.vel[a](i, j, k), -dt / rho * div, tolerance)
          << a << " " << i << " " << j << " " << k;
      ++checked;
    });
  }
  EXPECT_GT(global_sum(t.topo, int64_t(checked)), 0);
}

// A yielding layer (k >= 3) on a rigid bed (k < 3), both at rest, with the frictional shear
// stress sigma_xz = -0.5 p in the layer and p linear in z, after one stress divergence; or
// with the pressure p(k, z) and the layer's sigma_xz(p) given, and the layer made of mud
// (S = 0.9 above S' = 0.4).
struct LayerOnRigidBed {
  static constexpr double dx = 0.1, dt = 0.01, rho = 1600, p0 = 1000, gradient = -500;
  TestGrid t{MPI_COMM_WORLD, {8, 4, 8}, dx};
  Box domain = t.topo.global(Stagger::Cell);

  LayerOnRigidBed()
      : LayerOnRigidBed([](int, double z) { return p0 + gradient * z; },
                        [](double p) { return -0.5 * p; }, false) {}

  LayerOnRigidBed(const std::function<double(int k, double z)>& pressure,
                  const std::function<double(double p)>& layer_shear, bool mud) {
    t.grid.allocate_sand(t.topo);
    StressField stress;
    Array3<uint8_t> yielding(t.topo.local(Stagger::Cell), Stagger::Cell, 0);
    for (int n = 0; n < 6; ++n) stress[n].reset(t.topo.local(Stagger::Cell), Stagger::Cell, 0.0);
    for_each_index(domain.intersect(yielding.box()), [&](int i, int j, int k) {
      t.make_sand(i, j, k, rho);
      const double p = pressure(k, t.grid.cell_centre(i, j, k)[2]);
      t.grid.pressure(i, j, k) = p;
      if (k >= 3) {
        yielding(i, j, k) = 1;
        stress[SymTensor::index(0, 2)](i, j, k) = float(layer_shear(p));
      } else {
        t.grid.rigid(i, j, k) = 1;
      }
    });
    MudCells mud_cells;
    if (mud) {
      t.grid.allocate_pore_water(t.topo);
      t.grid.saturation.fill(0.9f);
      mud_cells = {t.grid.saturation.data(), 0.4};
    }
    StressDivergence(t.topo, t.grid, stress, yielding, yielding.box(), mud_cells)
        .apply(t.grid, dt);
  }

  // Calls check(i, j, k) on the owned x-faces of rows k in [k_lo, k_hi) away from the side
  // walls, and returns how many there are on all ranks.
  template <class F>
  int64_t for_each_x_face(int k_lo, int k_hi, F&& check) {
    int64_t checked = 0;
    Box faces = t.topo.owned(face_stagger(0)).intersect(t.topo.global(face_stagger(0)));
    faces.lo[0] = std::max(faces.lo[0], 1);
    faces.hi[0] = std::min(faces.hi[0], domain.hi[0]);
    faces.lo[2] = std::max(faces.lo[2], k_lo);
    faces.hi[2] = std::min(faces.hi[2], k_hi);
    for_each_index(faces, [&](int i, int j, int k) {
      check(i, j, k);
      ++checked;
    });
    return global_sum(t.topo, checked);
  }
};

// The bed cells' own stress (here 0) is ignored, and the lowest yielding row feels the
// frictional stress at the bed's pressure, so its x-faces get the exact
// u_x -= dt/rho d(sigma_xz)/dz, as inside the layer (but for the stored stress's round-off;
// p <= p0 here).
TEST(SandPlasticity, RigidBedPassesTheFlowsFrictionalStress) {
  using L = LayerOnRigidBed;
  L scene;
  const int64_t checked = scene.for_each_x_face(3, 4, [&](int i, int j, int k) {
    EXPECT_NEAR(scene.t.grid.vel[0](i, j, k), -L::dt / L::rho * (-0.5 * L::gradient),
                stored_stress_tolerance(0.5 * L::p0, L::dx, L::dt, L::rho))
        << i << " " << j << " " << k;
  });
  EXPECT_EQ(checked, int64_t(7 * 4));
}

// The bed takes the opposite of the friction the flow gets across their interface, so the
// rigid fit that follows gives a cluster the drag of the flow over it (a plug riding a
// sheared layer is braked by it). The x-faces of the bed's top row get
// u_x = +dt/(rho dx) 0.5 p at the interface; the rows under it, inside the body, get nothing.
TEST(SandPlasticity, RigidBedTakesTheReactionOfTheFlowsFriction) {
  using L = LayerOnRigidBed;
  L scene;
  const double p_interface = L::p0 + L::gradient * 3 * L::dx;
  const int64_t checked = scene.for_each_x_face(0, 3, [&](int i, int j, int k) {
    const double expected = k == 2 ? L::dt / (L::rho * L::dx) * 0.5 * p_interface : 0.0;
    EXPECT_NEAR(scene.t.grid.vel[0](i, j, k), expected,
                stored_stress_tolerance(0.5 * L::p0, L::dx, L::dt, L::rho))
        << i << " " << j << " " << k;
  });
  EXPECT_EQ(checked, int64_t(7 * 4 * 3));
}

// Mud's viscous stress does not go as the pressure: a yielding layer of mud (k >= 3, S = 0.9
// above S' = 0.4, sigma_xz = 100 Pa in every cell) whose lowest row is at next to no pressure
// (1 mPa) on a rigid bed under 1 kPa. The bed stands in with at most twice the row's stress
// (kMudStandInRatio): the edge below the row holds (S + S + 2 S + 2 S) / 4 = 1.5 S, the
// one above S, so the row's x-faces get u_x = -dt/rho (S - 1.5 S) / dx. Scaled by the
// pressure ratio (1e6) the stand-in made it about a million times larger, and the friction
// substeps grew such faces without bound.
TEST(SandPlasticity, RigidBedStandsInForMudWithABoundedStress) {
  using L = LayerOnRigidBed;
  constexpr double S = 100;
  L scene([](int k, double) { return k >= 3 ? 1e-3 : 1000.0; }, [](double) { return S; }, true);
  const int64_t checked = scene.for_each_x_face(3, 4, [&](int i, int j, int k) {
    EXPECT_NEAR(scene.t.grid.vel[0](i, j, k), L::dt / (L::rho * L::dx) * 0.5 * S, 1e-9)
        << i << " " << j << " " << k;
  });
  EXPECT_EQ(checked, int64_t(7 * 4));
}

// A 6 x 4 x nz grid of 5 cm cells with sand in its lowest `depth` rows and u_x = profile(k)
// on every x-face, for one step of the sand stage (phi = 30, no gravity).
struct ShearedSand {
  static constexpr double dx = 0.05, dt = 0.01, rho = 1600;
  TestGrid t;
  int depth;

  template <class Profile>
  ShearedSand(int nz, int sand_depth, Profile profile)
      : t(MPI_COMM_WORLD, {6, 4, nz}, dx), depth(sand_depth) {
    const Box domain = t.topo.global(Stagger::Cell);
    for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
      if (domain.contains(i, j, k) && k < depth) t.make_sand(i, j, k, rho);
    });
    for_each_index(t.grid.vel[0].box(),
                   [&](int i, int j, int k) { t.grid.vel[0](i, j, k) = profile(k); });
  }

  SandPlasticityStats step() {
    return zhu_bridson_plasticity(t.topo, t.halo, t.grid, t.sand, sand_material(30, 0), dt,
                                  kNoGravity);
  }

  // Calls f(u) on this rank's x-faces between two sand cells (the wall faces at x = 0 and
  // x = 6 dx are not updated).
  template <class F>
  void for_each_inner_speed(F&& f) const {
    const Box between_cells{{1, 0, 0}, {6, 4, depth}};
    for_each_index(t.topo.owned(Stagger::FaceX).intersect(between_cells),
                   [&](int i, int j, int k) { f(t.grid.vel[0](i, j, k)); });
  }
};

// A sand layer sheared as u_x = U sin(2 pi z / H) at low pressure yields everywhere, and its
// frictional stress must take speed out of the flow: the fastest faces slow down and the
// kinetic energy drops. (With the opposite sign of the update it would grow.)
// The stress inside the sand passes momentum between faces and creates none: every flux a
// face takes across an edge, another face takes with the opposite sign, the rigid faces
// beside yielding ones included. A body at rest (every cell rigid, each with its own
// stress) with a few yielding cells scattered inside it, as a resting heap's surface yields
// here and there, stays with no net momentum after one stress divergence. Faces that the
// update missed beside a yielding cell (a reaction not taken) leave a net momentum of the
// order of one flux, rho dt/rho sigma/dx, here about 5 kg/(m^2 s); what the faces' updates
// may leave is the stored stress' single-precision round-off (stored_stress_tolerance) on
// each face that moved, about 1e-3 in all.
TEST(SandPlasticity, ScatteredYieldingCellsCreateNoMomentum) {
  const double dx = 0.1, dt = 0.01, rho = 1600;
  TestGrid t(MPI_COMM_WORLD, {12, 12, 12}, dx);
  const Box domain = t.topo.global(Stagger::Cell);
  const Index3 scattered[] = {{3, 3, 3}, {8, 4, 5}, {5, 8, 8}, {4, 6, 4}, {8, 8, 3}};
  StressField stress;
  Array3<uint8_t> yielding(t.topo.local(Stagger::Cell), Stagger::Cell, 0);
  for (int n = 0; n < 6; ++n) stress[n].reset(t.topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  for_each_index(domain.intersect(yielding.box()), [&](int i, int j, int k) {
    t.make_sand(i, j, k, rho);
    t.grid.pressure(i, j, k) = 1000.0 * (1 + hash01(i, j, k, 7));
    t.grid.rigid(i, j, k) = 1;
    for (int n = 0; n < 6; ++n) stress[n](i, j, k) = float(200 * (hash01(i, j, k, n) - 0.5));
  });
  for (const Index3& c : scattered)
    if (yielding.box().contains(c[0], c[1], c[2])) {
      yielding(c[0], c[1], c[2]) = 1;
      t.grid.rigid(c[0], c[1], c[2]) = 0;
    }
  StressDivergence(t.topo, t.grid, stress, yielding, yielding.box()).apply(t.grid, dt);

  double momentum[3] = {0, 0, 0}, faces_moved[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for_each_index(t.topo.owned(face_stagger(a)), [&](int i, int j, int k) {
      momentum[a] += rho * t.grid.vel[a](i, j, k);
      faces_moved[a] += t.grid.vel[a](i, j, k) != 0.0 ? 1 : 0;
    });
  global_sum_in_place(t.topo, momentum, 3);
  global_sum_in_place(t.topo, faces_moved, 3);
  for (int a = 0; a < 3; ++a) {
    EXPECT_GT(faces_moved[a], 0.0) << a;
    EXPECT_NEAR(momentum[a], 0.0,
                faces_moved[a] * rho * stored_stress_tolerance(100, dx, dt, rho))
        << a;
  }
}

TEST(SandPlasticity, FrictionalUpdateResistsShear) {
  const int nz = 8;
  ShearedSand layer(nz, nz, [](int k) { return std::sin(2 * M_PI * (k + 0.5) / nz); });
  layer.t.grid.pressure.fill(200.0);
  auto energy_and_peak = [&](double& energy, double& peak) {
    energy = 0;
    peak = 0;
    layer.for_each_inner_speed([&](double u) {
      energy += 0.5 * ShearedSand::rho * u * u;
      peak = std::max(peak, std::abs(u));
    });
    energy = global_sum(layer.t.topo, energy);
    peak = global_max(layer.t.topo, peak);
  };
  double energy_before, peak_before, energy_after, peak_after;
  energy_and_peak(energy_before, peak_before);
  const SandPlasticityStats stats = layer.step();
  energy_and_peak(energy_after, peak_after);
  EXPECT_EQ(global_sum(layer.t.topo, stats.yielding_cells), int64_t(6 * 4 * nz));
  EXPECT_EQ(global_sum(layer.t.topo, stats.rigid_cells), 0);
  EXPECT_LT(energy_after, energy_before);
  EXPECT_LT(peak_after, peak_before);
}

// Friction inside the sand moves momentum between its rows; only the walls' friction (a
// stage of its own) takes it out. A layer 4 cells deep on a floor, air above, sheared as
// u_x = U (k + 1/2) / 4 under the pressure of its weight, yields everywhere: its fastest
// faces slow down, its slowest speed up, and its x momentum stays. When the edges at the
// floor and at the free surface took the mean of their four cells, half the bottom row's
// stress braked the layer as a second floor friction: it lost 4.5% of its momentum in this
// one step. The tolerance, 1e-5 of the momentum, is far above the stored stress' single
// precision (6e-8 of each value) and far below that loss.
TEST(SandPlasticity, FrictionInsideTheSandKeepsTheLayersMomentum) {
  const int depth = 4;
  const double rho = ShearedSand::rho, dx = ShearedSand::dx;
  ShearedSand layer(8, depth, [](int k) { return k < depth ? (k + 0.5) / depth : 0.0; });
  for_each_index(layer.t.grid.pressure.box(), [&](int i, int j, int k) {
    layer.t.grid.pressure(i, j, k) = k < depth ? rho * 9.81 * dx * (depth - k - 0.5) : 0.0;
  });
  auto momentum_and_spread = [&](double& momentum, double& spread) {
    double sum = 0, lo = 1e300, hi = -1e300;
    layer.for_each_inner_speed([&](double u) {
      sum += rho * dx * dx * dx * u;
      lo = std::min(lo, u);
      hi = std::max(hi, u);
    });
    momentum = global_sum(layer.t.topo, sum);
    spread = global_max(layer.t.topo, hi) + global_max(layer.t.topo, -lo);
  };
  double momentum_before, spread_before, momentum_after, spread_after;
  momentum_and_spread(momentum_before, spread_before);
  const SandPlasticityStats stats = layer.step();
  momentum_and_spread(momentum_after, spread_after);
  EXPECT_EQ(global_sum(layer.t.topo, stats.yielding_cells), int64_t(6 * 4 * depth));
  EXPECT_LT(spread_after, 0.9 * spread_before);
  EXPECT_NEAR(momentum_after, momentum_before, 1e-5 * momentum_before);
}

// Sand at rest under pressure has D = 0: every cell is rigid and nothing moves.
TEST(SandPlasticity, SandAtRestStaysRigid) {
  TestGrid t(MPI_COMM_WORLD, {6, 4, 6}, 0.05);
  const Box domain = t.topo.global(Stagger::Cell);
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (domain.contains(i, j, k) && k < 4) t.make_sand(i, j, k, 1600);
    t.grid.pressure(i, j, k) = k < 4 ? 1600 * 9.81 * 0.05 * (4 - k - 0.5) : 0.0;
  });
  SandPlasticityStats stats = zhu_bridson_plasticity(t.topo, t.halo, t.grid, t.sand,
                                                     sand_material(30, 0), 0.01, kNoGravity);
  const Array3<uint8_t>& rigid = t.grid.rigid;
  EXPECT_EQ(global_sum(t.topo, stats.sand_cells), int64_t(6 * 4 * 4));
  EXPECT_EQ(global_sum(t.topo, stats.rigid_cells), int64_t(6 * 4 * 4));
  EXPECT_EQ(global_sum(t.topo, stats.yielding_cells), 0);
  for (int a = 0; a < 3; ++a)
    for_each_index(t.grid.vel[a].box(),
                   [&](int i, int j, int k) { ASSERT_EQ(t.grid.vel[a](i, j, k), 0.0); });
  for_each_index(rigid.box(), [&](int i, int j, int k) {
    ASSERT_EQ(rigid(i, j, k), (domain.contains(i, j, k) && k < 4) ? 1 : 0)
        << i << " " << j << " " << k;
  });
}

namespace {

// Sand at rest in columns of cells along x, column i holding height(i) cells from the floor,
// two cells across y between walls.
template <class Height>
void fill_columns(TestGrid& t, Height height) {
  const Box domain = t.topo.global(Stagger::Cell);
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (domain.contains(i, j, k) && k < height(i)) t.make_sand(i, j, k, 1600);
  });
}

// The cells that yield in one step of the sand stage, counted over all ranks.
int64_t yielding_cells(TestGrid& t, const MaterialSpec& sand) {
  return global_sum(t.topo,
                    zhu_bridson_plasticity(t.topo, t.halo, t.grid, t.sand, sand, 0.01, kGravity)
                        .yielding_cells);
}

// Sand at rest on a 45-degree staircase of 5 cm cells (column i holds 7 - i cells): the
// cells that yield.
int64_t yielding_on_a_45_degree_slope(double friction_angle_deg, double cohesion,
                                      bool steep_surface_yields) {
  TestGrid t(MPI_COMM_WORLD, {8, 2, 8}, 0.05);
  fill_columns(t, [](int i) { return std::max(1, 7 - i); });
  MaterialSpec sand = sand_material(friction_angle_deg, cohesion);
  sand.rheology.steep_surface_yields = steep_surface_yields;
  return yielding_cells(t, sand);
}

}  // namespace

// Sand at rest is rigid in Zhu & Bridson's test whatever its slope (sigma_rigid is zero).
// With steep_surface_yields the surface cells of a slope steeper than phi yield: the top
// cells of the staircase's risers, two across y, but not the one at the mirror wall (it
// reads flat) nor those on the floor. A friction angle above the slope, or a cohesion above
// rho g dx (sin 45 - tan(phi) cos 45) = 235 Pa, holds them.
TEST(SandPlasticity, SteepSurfaceYieldsAtRest) {
  EXPECT_EQ(yielding_on_a_45_degree_slope(30, 0, false), 0);
  const int64_t steep = yielding_on_a_45_degree_slope(30, 0, true);
  EXPECT_GE(steep, 3 * 2);
  EXPECT_LE(steep, 5 * 2);
  EXPECT_EQ(yielding_on_a_45_degree_slope(50, 0, true), 0);
  EXPECT_EQ(yielding_on_a_45_degree_slope(30, 300, true), 0);
  EXPECT_EQ(yielding_on_a_45_degree_slope(30, 150, true), steep);
}

namespace {

// A block of dry sand at rest, 6 columns of 8 cells of 5 cm against the x- wall, its face at
// x = 6 cells open to air, in a 16 x 2 x 10 grid.
// Rankine's critical cohesion of the 0.4 m face below (8 cells of 5 cm; rho = 1600, phi = 30):
// rho g H / (4 tan(60)).
const double kBlockCriticalCohesion = 1600 * 9.81 * 0.4 / (4 * std::sqrt(3.0));

void fill_sand_block_with_a_vertical_face(TestGrid& t) {
  fill_columns(t, [](int i) { return i < 6 ? 8 : 0; });
}

}  // namespace

// Culmann's planes on every rank: from column i of the block the plane dipping at phi
// toward the face daylights at its foot, (6 - i) dx tan(phi) up (the x- wall and the y
// walls are no free surface; the diagonals reach the face further away).
TEST(SandPlasticity, CulmannPlanesDaylightAtTheFace) {
  TestGrid t(MPI_COMM_WORLD, {16, 2, 10}, 0.05);
  fill_sand_block_with_a_vertical_face(t);
  const double tan_phi = std::tan(30 * M_PI / 180);
  const CulmannWedges wedges(t.topo, t.grid, t.sand, tan_phi);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(wedges.lowest_daylight(i, j), (6 - i) * 0.05 * tan_phi, 1e-6) << i << " " << j;
  EXPECT_NEAR(wedges.lowest_daylight(7, 0), 0.0, 1e-12);  // open floor
  EXPECT_FALSE(wedges.above_daylighting_plane(0, 0, 2));  // 0.125 m < 0.173 m
  EXPECT_TRUE(wedges.above_daylighting_plane(0, 0, 3));   // 0.175 m
}

// With culmann_wedges_yield the sand above those planes yields at rest, where Zhu & Bridson's
// test keeps it all rigid. The planes dip at the friction a block sliding on them meets under
// the flow law, sqrt(3/2) sin(30) = 0.612, not below tan(30) = 0.577: per row across y, (k +
// 1/2) > (6 - i) 0.612 holds for 7, 7, 6, 6, 5 and 4 cells of columns 5 down to 0 (at tan(30)
// the back column's fourth cell, 3.5 > 3.46, would yield too). Sand with twice the cohesion
// Rankine's critical height asks of this 0.4 m face (next test) stands whole.
TEST(SandPlasticity, CulmannWedgesYieldAtRest) {
  MaterialSpec sand = sand_material(30, 0);
  TestGrid plain(MPI_COMM_WORLD, {16, 2, 10}, 0.05);
  fill_sand_block_with_a_vertical_face(plain);
  EXPECT_EQ(yielding_cells(plain, sand), 0);
  sand.rheology.culmann_wedges_yield = true;
  TestGrid culmann(MPI_COMM_WORLD, {16, 2, 10}, 0.05);
  fill_sand_block_with_a_vertical_face(culmann);
  EXPECT_EQ(yielding_cells(culmann, sand), 2 * (7 + 7 + 6 + 6 + 5 + 4));
  MaterialSpec cohesive = sand_material(30, 2 * kBlockCriticalCohesion);
  cohesive.rheology.culmann_wedges_yield = true;
  TestGrid held(MPI_COMM_WORLD, {16, 2, 10}, 0.05);
  fill_sand_block_with_a_vertical_face(held);
  EXPECT_EQ(yielding_cells(held, cohesive), 0);
}

namespace {

// The cells of the 0.4 m block that yield with `ratio` times Rankine's critical cohesion, its
// sand shearing when the step began (row k moving along x at `speed` (k + 1) / 8: every row
// moves, the lowest sliding on the floor), on 5 cm cells 10 columns deep (the critical wedge,
// 0.4 tan(30) = 23 cm wide, fits).
int64_t cohesive_block_yielding(double ratio, float speed, int64_t* back_top_yields = nullptr) {
  TestGrid t(MPI_COMM_WORLD, {16, 2, 10}, 0.05);
  fill_columns(t, [](int i) { return i < 10 ? 8 : 0; });
  Array3<float>& u = t.grid.vel_saved[0];
  for_each_index(u.box(), [&](int i, int j, int k) { u(i, j, k) = speed * float(k + 1) / 8; });
  MaterialSpec sand = sand_material(30, ratio * kBlockCriticalCohesion);
  sand.rheology.culmann_wedges_yield = true;
  const int64_t yielding = yielding_cells(t, sand);
  if (back_top_yields) {
    const bool owned = t.topo.owned_cells(t.topo.rank()).contains(0, 0, 7);
    *back_top_yields = global_sum(t.topo, int64_t(owned && t.grid.yielding(0, 0, 7)));
  }
  return yielding;
}

}  // namespace

// Culmann's wedge with cohesion: a block above a plane through the face's foot slides when
// its weight beats the plane's friction and cohesion, which for a vertical face happens below
// Rankine's c_crit = rho g H / (4 tan(45 + phi / 2)) (906 Pa for this 0.4 m face). The
// 8-cell face's columns put the discrete critical cohesion within a few percent of it: at
// 1.15 c_crit the block stands, at 0.85 c_crit the wedge in front of the plane yields and the
// sand behind it (the block's back column) does not. Sand that was shearing when the step
// began has broken its cohesion (a residual strength, cohesive_wedges.hpp): at 1.15 c_crit a
// shearing block keeps sliding, one moving as a whole does not. On 1, 2 and 4 ranks: the columns'
// strengths come from every rank.
TEST(SandPlasticity, CohesiveWedgesSlideBelowRankinesCohesion) {
  int64_t back_top_yields = -1;
  EXPECT_EQ(cohesive_block_yielding(1.15, 0.0f), 0);
  EXPECT_GT(cohesive_block_yielding(0.85, 0.0f, &back_top_yields), 2 * 8);
  EXPECT_EQ(back_top_yields, 0);
  EXPECT_GT(cohesive_block_yielding(1.15, 0.1f), 2 * 8);
  TestGrid pushed(MPI_COMM_WORLD, {16, 2, 10}, 0.05);
  fill_columns(pushed, [](int i) { return i < 10 ? 8 : 0; });
  pushed.grid.vel_saved[0].fill(pushed.grid.vel_saved[0].box(), 0.1f);
  MaterialSpec sand = sand_material(30, 1.15 * kBlockCriticalCohesion);
  sand.rheology.culmann_wedges_yield = true;
  EXPECT_EQ(yielding_cells(pushed, sand), 0);
}

namespace {

// Sand at rest in terraces of random heights, 0 to 9 of 10 cells of 5 cm (the same on every
// rank: the heights come from global indices).
void fill_random_terraces(TestGrid& t) {
  const Box domain = t.topo.global(Stagger::Cell);
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    const int height = int(10 * hash01(11, uint64_t(i / 2), uint64_t(j / 2), 0));
    if (domain.contains(i, j, k) && k < height) t.make_sand(i, j, k, 1600);
  });
}

}  // namespace

// The ranks share the cohesive wedges' search for sliding planes, each testing a run of the
// faces and all of them combining the sliding heights: the yielding cells are those of one
// rank searching the whole grid, cell for cell. The terraces' faces drop 1 to 9 cells; at half
// the cohesion a 0.4 m cut needs, some slide and some stand (220 of the 980 sand cells yield).
TEST(SandPlasticity, RanksSharingTheCohesiveWedgesFindTheWholeGridsSlidingBlocks) {
  SKIP_IN_A_ONE_RANK_JOB();
  const Index3 cells{16, 14, 10};
  TestGrid split(MPI_COMM_WORLD, cells, 0.05), whole(MPI_COMM_SELF, cells, 0.05);
  fill_random_terraces(split);
  fill_random_terraces(whole);
  MaterialSpec sand = sand_material(30, 0.5 * kBlockCriticalCohesion);
  sand.rheology.culmann_wedges_yield = true;
  const int64_t split_yielding = yielding_cells(split, sand);
  const int64_t whole_yielding = yielding_cells(whole, sand);
  EXPECT_EQ(split_yielding, whole_yielding);
  EXPECT_GT(whole_yielding, 50);
  int64_t sand_cells = 0;
  for_each_index(whole.topo.owned_cells(0),
                 [&](int i, int j, int k) { sand_cells += whole.sand(i, j, k); });
  EXPECT_LT(whole_yielding, sand_cells / 2);
  const Box owned = split.topo.owned_cells(split.topo.rank());
  for_each_index(owned, [&](int i, int j, int k) {
    ASSERT_EQ(split.grid.yielding(i, j, k), whole.grid.yielding(i, j, k))
        << i << " " << j << " " << k;
  });
}

namespace {

// Sand at rest on a staircase of 5 cm cells two columns per step (26.6 degrees), 8 cells
// high at the x- wall: the cells that yield.
int64_t yielding_on_a_gentle_slope(double friction_angle_deg, bool culmann_wedges_yield) {
  TestGrid t(MPI_COMM_WORLD, {20, 2, 10}, 0.05);
  fill_columns(t, [](int i) { return 8 - i / 2; });
  MaterialSpec sand = sand_material(friction_angle_deg, 0);
  sand.rheology.culmann_wedges_yield = culmann_wedges_yield;
  return yielding_cells(t, sand);
}

}  // namespace

// A slope gentler than phi has no daylighting plane steeper than phi, a steeper one has.
TEST(SandPlasticity, CulmannWedgesLeaveGentleSlopesAtRest) {
  EXPECT_EQ(yielding_on_a_gentle_slope(30, true), 0);
  EXPECT_GT(yielding_on_a_gentle_slope(20, true), 0);
  EXPECT_EQ(yielding_on_a_gentle_slope(20, false), 0);
}

namespace {

// A random scene defined by global indices, so every decomposition builds the same one:
// interior solids, air, water and sand cells, random velocities and pressures.
void fill_random_scene(TestGrid& t) {
  const Box domain = t.topo.global(Stagger::Cell);
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (!domain.contains(i, j, k)) return;
    const double r = hash01(7, i, j, k);
    if (r < 0.05) {
      t.grid.cell_type(i, j, k) = kSolid;
    } else if (r < 0.15) {
      t.grid.cell_type(i, j, k) = kAir;
    } else if (r < 0.3) {
      t.grid.cell_type(i, j, k) = kFluid;
      t.grid.density(i, j, k) = 1000;
    } else {
      t.make_sand(i, j, k, 1600);
    }
    if (t.grid.cell_type(i, j, k) == kFluid)
      t.grid.pressure(i, j, k) = 60000 * hash01(8, i, j, k);
  });
  for (int a = 0; a < 3; ++a)
    for_each_index(t.grid.vel[a].box(), [&](int i, int j, int k) {
      t.grid.vel[a](i, j, k) = 2 * hash01(a, i + 100, j + 100, k + 100) - 1;
      // Slow or fast before this step's forces, so surfaces both rest and slide.
      t.grid.vel_saved[a](i, j, k) = float(0.2 * hash01(a, i + 200, j + 200, k + 200) - 0.1);
    });
}

// The stage on this communicator gives bit-identical velocities and rigid masks to the same
// scene on one rank holding the whole grid.
void expect_decomposition_changes_nothing(const MaterialSpec& sand) {
  const Index3 cells{12, 10, 8};
  const double dx = 0.05, dt = 0.01;
  TestGrid split(MPI_COMM_WORLD, cells, dx), whole(MPI_COMM_SELF, cells, dx);
  fill_random_scene(split);
  fill_random_scene(whole);
  SandPlasticityStats s_split =
      zhu_bridson_plasticity(split.topo, split.halo, split.grid, split.sand, sand, dt, kGravity);
  SandPlasticityStats s_whole =
      zhu_bridson_plasticity(whole.topo, whole.halo, whole.grid, whole.sand, sand, dt, kGravity);
  const Array3<uint8_t>& rigid_split = split.grid.rigid;
  const Array3<uint8_t>& rigid_whole = whole.grid.rigid;

  EXPECT_EQ(global_sum(split.topo, s_split.sand_cells), s_whole.sand_cells);
  EXPECT_EQ(global_sum(split.topo, s_split.rigid_cells), s_whole.rigid_cells);
  EXPECT_EQ(global_sum(split.topo, s_split.yielding_cells), s_whole.yielding_cells);
  EXPECT_GT(s_whole.rigid_cells, 20);
  EXPECT_GT(s_whole.yielding_cells, 20);
  for (int a = 0; a < 3; ++a)
    for_each_index(split.grid.vel[a].box(), [&](int i, int j, int k) {
      ASSERT_EQ(split.grid.vel[a](i, j, k), whole.grid.vel[a](i, j, k))
          << a << " " << i << " " << j << " " << k;
    });
  for_each_index(rigid_split.box(), [&](int i, int j, int k) {
    ASSERT_EQ(rigid_split(i, j, k), rigid_whole(i, j, k)) << i << " " << j << " " << k;
  });
}

}  // namespace

// Zhu & Bridson's single application of the frictional stress.
TEST(SandPlasticity, DecompositionDoesNotChangeResults) {
  SKIP_IN_A_ONE_RANK_JOB();
  expect_decomposition_changes_nothing(sand_material(35, 50));
}

namespace {

// Dry sand of the default model, with its 8 friction substeps.
MaterialSpec default_model_sand() {
  MaterialSpec sand = sand_material(35, 0);
  sand.transfer = Transfer::Apic;
  const SandModelDefaults model = sand_model_defaults(true, false, kGravity);
  sand.rheology.rigid_cells_own_velocity = model.rigid_cells_own_velocity;
  sand.rheology.culmann_wedges_yield = model.culmann_wedges_yield;
  sand.rheology.resting_grains_hold = model.resting_grains_hold;
  return sand;
}

}  // namespace

// The default model's friction substeps: each rank re-reads the stress of the yielding cells
// beside its block itself and exchanges only the sand window's velocities between substeps.
TEST(SandPlasticity, DecompositionDoesNotChangeTheSubstepsResults) {
  SKIP_IN_A_ONE_RANK_JOB();
  const MaterialSpec sand = default_model_sand();
  ASSERT_EQ(friction_substeps(sand), 8);
  expect_decomposition_changes_nothing(sand);
}

// Sand that can hold water but holds none moves as dry sand, to the last bit. The two take
// different paths through the substeps: the wet one restresses all its yielding cells, fills
// the stress halo and then applies the divergence; the dry one restresses and applies layer
// by layer up the grid, which must read every stress and velocity as the whole sweeps would.
TEST(SandPlasticity, SandHoldingNoWaterMovesAsDrySand) {
  const MaterialSpec dry = default_model_sand();
  MaterialSpec holds_water = dry;
  holds_water.wet.porosity = 0.4;
  holds_water.wet.ideal_saturation = 0.3;
  holds_water.wet.cohesion_wet = 900;
  holds_water.wet.mud_viscosity = 50;
  const Index3 cells{12, 10, 8};
  const double dx = 0.05, dt = 0.01;
  TestGrid dry_grid(MPI_COMM_WORLD, cells, dx), wet_grid(MPI_COMM_WORLD, cells, dx);
  fill_random_scene(dry_grid);
  fill_random_scene(wet_grid);
  wet_grid.grid.allocate_pore_water(wet_grid.topo);  // saturation 0 everywhere
  const SandPlasticityStats s_dry =
      zhu_bridson_plasticity(dry_grid.topo, dry_grid.halo, dry_grid.grid, dry_grid.sand, dry, dt,
                             kGravity);
  const SandPlasticityStats s_wet =
      zhu_bridson_plasticity(wet_grid.topo, wet_grid.halo, wet_grid.grid, wet_grid.sand,
                             holds_water, dt, kGravity);
  EXPECT_GT(global_sum(dry_grid.topo, s_dry.yielding_cells), 20);
  EXPECT_EQ(s_wet.yielding_cells, s_dry.yielding_cells);
  for (int a = 0; a < 3; ++a)
    for_each_index(dry_grid.topo.owned(face_stagger(a)), [&](int i, int j, int k) {
      ASSERT_EQ(wet_grid.grid.vel[a](i, j, k), dry_grid.grid.vel[a](i, j, k))
          << a << " " << i << " " << j << " " << k;
    });
}

namespace {

// A staircase of sand on the floor, rising along x by one cell every `tread` cells, in a slab
// between two walls along y; `speed` is every x face's velocity before this step's forces.
// Returns the number of riser cells (sand with air beside it along x) that stay rigid, and
// counts them in `risers`.
int64_t risers_held(double friction_angle_deg, int tread, float speed, int64_t& risers) {
  TestGrid t(MPI_COMM_WORLD, {12, 2, 8}, 0.01);
  auto height = [&](int i) { return std::clamp(i, 0, 11) / tread + 1; };
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (t.grid.cell_type(i, j, k) != kSolid && k < height(i)) t.make_sand(i, j, k, 1600);
    t.grid.pressure(i, j, k) = 1600 * 9.81 * 0.01 * std::max(height(i) - k - 0.5, 0.0);
  });
  t.grid.vel_saved[0].fill(t.grid.vel_saved[0].box(), speed);
  // Each riser pushed outward along -x as the projection pushes it (its low x face).
  for_each_index(t.topo.owned_cells(t.topo.rank()), [&](int i, int j, int k) {
    if (k == height(i) - 1 && height(i - 1) < height(i)) t.grid.vel[0](i, j, k) = -0.05;
  });
  t.halo.fill<double>({&t.grid.vel[0]});
  zhu_bridson_plasticity(t.topo, t.halo, t.grid, t.sand, sand_material(friction_angle_deg, 0),
                         0.01, kGravity);
  int64_t held = 0, count = 0;
  for_each_index(t.topo.owned_cells(t.topo.rank()), [&](int i, int j, int k) {
    if (i == 0 || k != height(i) - 1 || height(i - 1) >= height(i)) return;
    ++count;
    held += t.grid.rigid(i, j, k);
  });
  risers = global_sum(t.topo, count);
  return global_sum(t.topo, held);
}

}  // namespace

// The risers of a staircase yield under the paper's test (a free vertical face) and stay
// rigid when the staircase's slope is below the friction angle and they were at rest
// (src/sand/surface_rest.hpp): single steps three cells wide read 26.6 degrees on the 3x3x3
// Sobel normal and 20.6 over 5 cells (their slope is 18.4).
TEST(SurfaceRest, RisersOfAGentleStaircaseStayAtRest) {
  int64_t risers = 0;
  EXPECT_EQ(risers_held(30, 3, 0.0f, risers), risers);
  EXPECT_EQ(risers, 3 * 2);
  // Steeper than the friction angle as both read it: 20.6 and 26.6 degrees against 20.
  EXPECT_EQ(risers_held(20, 3, 0.0f, risers), 0);
  // A staircase of 45 degrees (steps one cell wide) against 30.
  EXPECT_EQ(risers_held(30, 1, 0.0f, risers), 0);
  EXPECT_EQ(risers, 7 * 2);
  // Sliding faster than friction stops in a step on the flatter reading: g dt (tan 30
  // cos 20.6 - sin 20.6) = 0.0184 m/s at dt = 0.01 s (0.0068 on the Sobel normal's 26.6).
  EXPECT_EQ(risers_held(30, 3, 0.0175f, risers), risers);
  EXPECT_EQ(risers_held(30, 3, 0.0195f, risers), 0);
}

namespace {

// A sheet of sand one cell thick on the floor for x < 6 cells, in a slab between two walls
// along y, its edge pushed outward as the projection pushes it; the floor's Coulomb
// coefficient is `floor_mu` and every x face moved at `speed` before this step's forces.
// `submerged`: soaked sand (2000 kg/m^3) below the water table, its friction on the effective
// stress (the pore water's head positive in every cell). Returns how many of the edge's cells
// stay rigid (of 2).
int64_t sheet_edge_held(double floor_mu, float speed, bool submerged = false) {
  TestGrid t(MPI_COMM_WORLD, {12, 2, 4}, 0.01);
  const double density = submerged ? 2000 : 1600;
  MaterialSpec sand = sand_material(20, 0);
  if (submerged) {
    sand.wet.soaked_friction = SoakedFriction::EffectiveStress;
    sand.wet.pore_water_density = 1000;
    t.grid.allocate_pore_head(t.topo);
    t.grid.pore_head.fill(t.grid.pore_head.box(), 0.05);
  }
  for_each_index(t.grid.cell_type.box(), [&](int i, int j, int k) {
    if (t.grid.cell_type(i, j, k) != kSolid && k == 0 && i < 6) t.make_sand(i, j, k, density);
    if (k < 0) t.grid.wall_mu(i, j, k) = float(floor_mu);
    t.grid.pressure(i, j, k) =
        k == 0 && i < 6 ? (density - 1000 * submerged) * 9.81 * 0.005 : 0.0;
  });
  t.grid.vel_saved[0].fill(t.grid.vel_saved[0].box(), speed);
  const Box owned = t.topo.owned_cells(t.topo.rank());
  for_each_index(owned, [&](int i, int j, int k) {
    if (i == 6 && k == 0) t.grid.vel[0](i, j, k) = 0.05;
  });
  t.halo.fill<double>({&t.grid.vel[0]});
  // phi = 20: steeper than the sheet edge's 26.6 degrees, so only the floor can hold it.
  zhu_bridson_plasticity(t.topo, t.halo, t.grid, t.sand, sand, 0.01, kGravity);
  int64_t held = 0;
  for_each_index(owned, [&](int i, int j, int k) {
    if (i == 5 && k == 0) held += t.grid.rigid(i, j, k);
  });
  return global_sum(t.topo, held);
}

}  // namespace

// The edge of a sheet resting on a rough floor stays at rest by the floor's friction, as a
// block on a floor does, when it is slower than mu g dt (0.059 m/s for mu = 0.6 at dt =
// 0.01 s); on a frictionless floor, or faster, it yields.
TEST(SurfaceRest, SheetEdgeRestsOnARoughFloor) {
  EXPECT_EQ(sheet_edge_held(0.6, 0.0f), 2);
  EXPECT_EQ(sheet_edge_held(0.6, 0.05f), 2);
  EXPECT_EQ(sheet_edge_held(0.6, 0.07f), 0);
  EXPECT_EQ(sheet_edge_held(0.0, 0.0f), 0);
}

// Below the water table the floor holds the soaked sheet's buoyant weight only: friction
// decelerates it by mu g (1 - rho_w / rho), half of mu g for soaked sand of 2000 kg/m^3, and
// stops it within a step below 0.029 m/s. At 0.05 m/s, which a sheet in air stops in a step,
// the submerged edge yields; at 0.02 it rests.
TEST(SurfaceRest, SubmergedSheetEdgeRestsOnItsBuoyantWeight) {
  EXPECT_EQ(sheet_edge_held(0.6, 0.02f, true), 2);
  EXPECT_EQ(sheet_edge_held(0.6, 0.05f, true), 0);
}

// A loose cell (two particles) on a rough floor that stays slower than friction stops within
// a step holds once it has rested sqrt(2 dx / g) = 0.045 s, 5 steps of 0.01 s at dx = 1 cm:
// its yield test then weighs a quarter of a full cell's stopping stress. A packed cell (8
// particles) keeps the full stress however long it rests; a step faster than g dt tan(phi) =
// 0.057 m/s, or its sand leaving, starts the loose cell's rest again.
TEST(RestingGrains, LooseSandHoldsAfterRestingForTheSettlingTime) {
  TestGrid t(MPI_COMM_WORLD, {4, 2, 4}, 0.01);
  t.grid.allocate_sand_rest_steps(t.topo);
  for_each_index(t.grid.wall_mu.box(), [&](int i, int j, int k) {
    if (k < 0) t.grid.wall_mu(i, j, k) = 0.6f;
  });
  const Box owned = t.topo.owned_cells(t.topo.rank());
  const Index3 loose{1, 0, 0}, packed{2, 0, 0};
  for (const Index3& c : {loose, packed}) {
    if (!owned.contains(c[0], c[1], c[2])) continue;
    t.make_sand(c[0], c[1], c[2], 1600);
    t.grid.sand_count(c[0], c[1], c[2]) = c == loose ? 2.0f : 8.0f;
  }
  const SurfaceRest rest = surface_rest(kGravity, 0.01);
  const double mu = std::tan(30 * M_PI / 180);
  EXPECT_NEAR(settling_time(0.01, 9.81), 0.0452, 1e-4);
  // The shares each cell's test reads over `steps` steps at rest, after them.
  auto rest_for = [&](int steps, const Index3& c) {
    double share = 1.0;
    for (int n = 0; n < steps; ++n) {
      RestingGrains resting(t.grid, rest);
      share = resting.stopping_share(c[0], c[1], c[2]);
      resting.record(c[0], c[1], c[2], mu);
    }
    return share;
  };
  if (owned.contains(loose[0], loose[1], loose[2])) {
    EXPECT_EQ(rest_for(5, loose), 1.0) << "not yet rested 0.045 s";
    EXPECT_EQ(rest_for(1, loose), 0.25);
    t.grid.vel_saved[0](loose[0], loose[1], loose[2]) = 0.12f;  // a centre speed of 0.06 m/s
    EXPECT_EQ(rest_for(1, loose), 0.25) << "read before the step is counted";
    t.grid.vel_saved[0](loose[0], loose[1], loose[2]) = 0.0f;
    EXPECT_EQ(rest_for(5, loose), 1.0) << "moved: rests again from the start";
    EXPECT_EQ(rest_for(1, loose), 0.25);
    t.sand(loose[0], loose[1], loose[2]) = 0;
    RestingGrains::forget_cells_without_sand(t.grid, t.sand, owned);
    t.sand(loose[0], loose[1], loose[2]) = 1;
    EXPECT_EQ(rest_for(1, loose), 1.0) << "its sand left";
  }
  if (owned.contains(packed[0], packed[1], packed[2])) EXPECT_EQ(rest_for(20, packed), 1.0);
}
