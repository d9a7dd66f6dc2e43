// Coulomb wall friction (eq. 4) after the no-through-flow condition, at the floor, a side
// wall and a collider, on a 4x4x4 box of sand with solid walls all round, on 1, 2 and 4
// ranks. The blocks are cut across the sliding sand (see cuts_across_the_sliding_sand), so
// faces next to a cut take their neighbours' cells and normal speeds from the halo.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/grid/boundaries.hpp"
#include "src/sand/wall_friction.hpp"

using namespace dunesim;

namespace {

constexpr int kCells = 4;

// Cuts at the middle of the box (the ghost width 2 allows two blocks an axis): along x, the
// direction the sand slides on the floor and on the collider step, whose edge lies on the
// cut, then along z, which crosses the column sliding down the side wall; 1, 2, 4 or 8 ranks.
std::array<std::vector<int>, 3> cuts_across_the_sliding_sand() {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::vector<int> whole{0, kCells}, halves{0, kCells / 2, kCells};
  return {ranks >= 2 ? halves : whole, ranks >= 8 ? halves : whole, ranks >= 4 ? halves : whole};
}

struct WallScene {
  Topology topo{MPI_COMM_WORLD, {kCells, kCells, kCells}, 2, cuts_across_the_sliding_sand()};
  Halo halo{topo};
  MacGrid grid;
  Array3<uint8_t> sand;
  Array3<float> wall_mu;
  std::array<Array3<double>, 3> before;
  int64_t faces_checked = 0, faces_wrong = 0;

  explicit WallScene(double box_mu) {
    grid.allocate(topo, 0.1);
    const Box local = topo.local(Stagger::Cell);
    sand.reset(local, Stagger::Cell, 0);
    wall_mu.reset(local, Stagger::Cell, box_mu);
    const Box domain = topo.global(Stagger::Cell);
    for_each_index(local, [&](int i, int j, int k) {
      const bool inside = domain.contains(i, j, k);
      grid.cell_type(i, j, k) = inside ? kFluid : kSolid;
      grid.density(i, j, k) = inside ? 1600 : 0;
      sand(i, j, k) = inside ? 1 : 0;
    });
  }
  void make_solid(int i, int j, int k, double mu) {
    if (!grid.cell_type.box().contains(i, j, k)) return;  // beyond this rank's ghosts
    grid.cell_type(i, j, k) = kSolid;
    sand(i, j, k) = 0;
    wall_mu(i, j, k) = mu;
  }
  // Component a takes value(i, j, k) on every face.
  template <class F>
  void set(int a, F value) {
    for_each_index(grid.vel[a].box(),
                   [&](int i, int j, int k) { grid.vel[a](i, j, k) = value(i, j, k); });
  }
  // What the step does: keep the velocities, remove flow into solids, apply friction.
  void enforce_with_friction() {
    before = grid.vel;
    enforce_solid_velocity(grid);
    WallFaceValues normal_speed;
    normal_speed_removed_by_enforcement(grid, before, normal_speed);
    apply_wall_friction(topo, halo, grid, sand, wall_mu, normal_speed,
                        find_solid_boundary_faces(grid));
  }
  // Expects component a at face (i, j, k) within `tolerance` of `expected`, on the rank that
  // owns the face, so each face is checked once. Only rank 0's GoogleTest output is shown:
  // the owner prints a wrong face itself, and counts it for expect_faces_right.
  void expect_face(int a, int i, int j, int k, double expected, double tolerance = 0.0) {
    if (!topo.owned(face_stagger(a)).contains(i, j, k)) return;
    ++faces_checked;
    const double u = grid.vel[a](i, j, k);
    if (std::abs(u - expected) <= tolerance) return;
    ++faces_wrong;
    std::fprintf(stderr, "rank %d: velocity %d at face (%d, %d, %d) is %.17g, expected %.17g\n",
                 topo.rank(), a, i, j, k, u, expected);
  }
  // Every face the test named was checked by some rank, and none was wrong (collective).
  void expect_faces_right(int64_t named) const {
    EXPECT_EQ(global_sum(topo, faces_checked), named) << "faces checked over all ranks";
    EXPECT_EQ(global_sum(topo, faces_wrong), 0) << "wrong faces over all ranks (listed above)";
  }
};

// Walls keep their mu in single precision, off by up to 2^-24 of it: a face that loses
// mu |u_n| (up to 1 m/s in these tests) may be off by 2^-24 m/s, plus double round-off.
const double kStoredMuTolerance = std::ldexp(1.0, -24) + 1e-14;

// Sand pressed into the floor (u_z = -w on the floor faces) sliding along x with speed U.
void slide_on_floor(WallScene& s, double w, double U) {
  s.set(2, [&](int, int, int k) { return k == 0 ? -w : 0.0; });
  s.set(0, [&](int, int, int) { return U; });
  s.enforce_with_friction();
}

}  // namespace

// |u_t| = 0.3 <= mu |u_n| = 0.5 * 1: static friction stops the bottom layer; layers above
// do not touch the floor and keep their speed.
TEST(WallFriction, FloorStaticFrictionStopsSliding) {
  WallScene s(0.5);
  slide_on_floor(s, 1.0, 0.3);
  for (int i = 1; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      s.expect_face(0, i, j, 0, 0.0);
      for (int k = 1; k < 4; ++k) s.expect_face(0, i, j, k, 0.3);
    }
  s.expect_faces_right(3 * 4 * 4);
}

// |u_t| = 2 > mu |u_n| = 0.5: the bottom layer slides on at 2 - 0.5 = 1.5 m/s, in either
// direction.
TEST(WallFriction, FloorSlidingLosesMuTimesNormalSpeed) {
  for (double U : {2.0, -2.0}) {
    WallScene s(0.5);
    slide_on_floor(s, 1.0, U);
    for (int i = 1; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        s.expect_face(0, i, j, 0, std::copysign(1.5, U), kStoredMuTolerance);
        s.expect_face(0, i, j, 1, U);
      }
    s.expect_faces_right(3 * 4 * 2);
  }
}

// A lone sand cell on the floor, air all round: its projection pressure is a fifth of its
// weight, rho g dx / 5 (the pressure holds the cell up through five open faces), but it rests
// on the floor with all of it, so each of its x-faces, both on the free surface, loses the
// whole mu g dt. With the pressure alone, and the budget halved at faces beside air, they
// lost a tenth of that, and lone grains slid at 1 m/s for seconds.
TEST(WallFriction, LoneCellOnTheFloorBearsItsWholeWeight) {
  WallScene s(0.5);
  const double dx = 0.1, dt = 0.01, g = 9.81, rho = 1600;
  const Box domain = s.topo.global(Stagger::Cell);
  for_each_index(s.topo.local(Stagger::Cell), [&](int i, int j, int k) {
    if (!domain.contains(i, j, k)) return;
    const bool lone = i == 1 && j == 1 && k == 0;
    s.grid.cell_type(i, j, k) = lone ? kFluid : kAir;
    s.grid.density(i, j, k) = lone ? rho : 0;
    s.grid.pressure(i, j, k) = lone ? rho * g * dx / 5 : 0;
    s.sand(i, j, k) = lone ? 1 : 0;
  });
  s.set(0, [](int, int, int) { return 2.0; });
  WallFaceValues normal_speed;
  const SolidBoundaryFaces walls = find_solid_boundary_faces(s.grid);
  normal_speed_from_wall_pressure(s.grid, dt, {0, 0, -g}, s.topo.local(Stagger::Cell), walls,
                                  normal_speed);
  apply_wall_friction(s.topo, s.halo, s.grid, s.sand, s.wall_mu, normal_speed, walls);
  // The normal speed is stored in single precision: g dt to 2^-24 of it.
  const double expected = 2.0 - 0.5 * g * dt;
  for (int i : {1, 2}) s.expect_face(0, i, 1, 0, expected, 1e-8);
  s.expect_faces_right(2);
}

// A frictionless box wall is a symmetry plane: sand pressed into the x- wall slides up it
// freely, while at the x+ wall (the case's wall_friction, 0.5) |u_t| = 0.3 <= 0.5 * 1 stops.
TEST(WallFriction, FrictionlessWallIsASymmetryPlane) {
  WallScene s(0.0);
  CaseConfig config;
  config.cells = {kCells, kCells, kCells};
  config.cell_size = 0.1;
  config.wall_friction = 0.5;
  config.frictionless_wall[wall_index("x-")] = true;
  mark_wall_friction(config, s.wall_mu);
  s.set(0, [&](int i, int, int) { return i == 0 ? -1.0 : i == kCells ? 1.0 : 0.0; });
  s.set(2, [&](int, int, int) { return 0.3; });
  s.enforce_with_friction();
  for (int j = 0; j < kCells; ++j)
    for (int k = 1; k < kCells; ++k) {
      s.expect_face(2, 0, j, k, 0.3);           // beside x-: free slip
      s.expect_face(2, kCells - 1, j, k, 0.0);  // beside x+: static friction
    }
  s.expect_faces_right(2 * kCells * (kCells - 1));
}

// Sand moving away from the floor is not pressed against it: no friction.
TEST(WallFriction, SeparatingFlowFeelsNoFriction) {
  WallScene s(0.5);
  slide_on_floor(s, -1.0, 0.3);
  for (int i = 1; i < 4; ++i)
    for (int j = 0; j < 4; ++j) s.expect_face(0, i, j, 0, 0.3);
  s.expect_faces_right(3 * 4);
}

// Diagonal sliding: eq. 4 scales the tangential VECTOR, so both components keep their ratio
// and the speed drops by mu |u_n|: (1, 1) with mu |u_n| = 0.5 becomes (1, 1) (1 - 0.5/sqrt 2).
// Faces away from the side walls only (the walls' normal faces are 0 after enforcement).
TEST(WallFriction, FloorSlidingReducesTheTangentialVector) {
  WallScene s(0.5);
  s.set(2, [&](int, int, int k) { return k == 0 ? -1.0 : 0.0; });
  s.set(0, [&](int, int, int) { return 1.0; });
  s.set(1, [&](int, int, int) { return 1.0; });
  s.enforce_with_friction();
  const double expected = 1.0 - 0.5 / std::sqrt(2.0);
  for (int n = 1; n < 3; ++n)
    for (int m = 1; m < 3; ++m) {
      s.expect_face(0, m, n, 0, expected, kStoredMuTolerance);
      s.expect_face(1, n, m, 0, expected, kStoredMuTolerance);
    }
  s.expect_faces_right(2 * 2 * 2);
}

// The -x wall: sand pushed into it (u_x = -w on the faces at x = 0) while sliding down
// along z. Interior z-faces of the column next to the wall lose mu w (sliding) or stop
// (static); the next column is untouched.
TEST(WallFriction, SideWallStaticAndSliding) {
  for (double V : {-3.0, -0.15}) {
    WallScene s(0.4);
    s.set(0, [&](int i, int, int) { return i == 0 ? -0.5 : 0.0; });
    s.set(2, [&](int, int, int) { return V; });
    s.enforce_with_friction();
    const double expected = std::abs(V) > 0.4 * 0.5 ? V + 0.2 : 0.0;
    for (int j = 0; j < 4; ++j)
      for (int k = 1; k < 4; ++k) {
        s.expect_face(2, 0, j, k, expected, kStoredMuTolerance);
        s.expect_face(2, 1, j, k, V);
      }
    s.expect_faces_right(4 * 3 * 2);
  }
}

// A collider step (cells x >= 2, z <= 1) with its own mu = 0.2 under a box of mu = 0.9.
// Sand on the step presses down at w = 1 and slides at U = 1 along x: the face between two
// cells on the step loses 0.2; the face at the step's edge (one cell on the step, one over
// the open floor) gets half the budget and loses 0.1.
TEST(WallFriction, ColliderUsesItsOwnMu) {
  WallScene s(0.9);
  for (int i = 2; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k) s.make_solid(i, j, k, 0.2);
  s.set(2, [&](int i, int, int k) { return (i >= 2 && k == 2) ? -1.0 : 0.0; });
  s.set(0, [&](int, int, int) { return 1.0; });
  s.enforce_with_friction();
  for (int j = 0; j < 4; ++j) {
    s.expect_face(0, 3, j, 2, 0.8, kStoredMuTolerance);
    s.expect_face(0, 2, j, 2, 0.9, kStoredMuTolerance);
    s.expect_face(0, 1, j, 0, 1.0);  // open floor: no normal speed removed
    s.expect_face(0, 3, j, 3, 1.0);
  }
  s.expect_faces_right(4 * 4);
}

// Water keeps free slip: without sand next to a face, friction leaves it alone.
TEST(WallFriction, WaterIsFreeSlip) {
  WallScene s(0.5);
  s.sand.fill(0);
  s.set(2, [&](int, int, int k) { return k == 0 ? -1.0 : 0.0; });
  s.set(0, [&](int, int, int) { return 0.3; });
  s.enforce_with_friction();
  for (int i = 1; i < 4; ++i)
    for (int j = 0; j < 4; ++j) s.expect_face(0, i, j, 0, 0.3);
  s.expect_faces_right(3 * 4);
}
