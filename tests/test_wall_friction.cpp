// Coulomb wall friction (eq. 4) after the no-through-flow condition, at the floor, a side
// wall and a collider, on a 4x4x4 box of sand with solid walls all round.
#include <gtest/gtest.h>

#include <cmath>

#include "src/boundaries.hpp"
#include "src/wall_friction.hpp"

using namespace dunesim;

namespace {

struct WallScene {
  Topology topo{MPI_COMM_WORLD, {4, 4, 4}, 2};
  Halo halo{topo};
  MacGrid grid;
  Array3<uint8_t> sand;
  Array3<double> wall_mu;
  std::array<Array3<double>, 3> before;

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
    grid.cell_type(i, j, k) = kSolid;
    sand(i, j, k) = 0;
    wall_mu(i, j, k) = mu;
  }
  // Component a takes value(i, j, k) on every face.
  template <class F>
  void set(int a, F value) {
    for_each_index(grid.vel[a].box(), [&](int i, int j, int k) { grid.vel[a](i, j, k) = value(i, j, k); });
  }
  // What the step does: keep the velocities, remove flow into solids, apply friction.
  void enforce_with_friction() {
    before = grid.vel;
    enforce_solid_velocity(grid);
    std::array<Array3<double>, 3> normal_speed = before;
    normal_speed_removed_by_enforcement(grid, before, normal_speed);
    apply_wall_friction(topo, halo, grid, sand, wall_mu, normal_speed);
  }
};

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
      EXPECT_EQ(s.grid.vel[0](i, j, 0), 0.0) << i << " " << j;
      for (int k = 1; k < 4; ++k) EXPECT_EQ(s.grid.vel[0](i, j, k), 0.3);
    }
}

// |u_t| = 2 > mu |u_n| = 0.5: the bottom layer slides on at 2 - 0.5 = 1.5 m/s, in either
// direction.
TEST(WallFriction, FloorSlidingLosesMuTimesNormalSpeed) {
  for (double U : {2.0, -2.0}) {
    WallScene s(0.5);
    slide_on_floor(s, 1.0, U);
    for (int i = 1; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        EXPECT_NEAR(s.grid.vel[0](i, j, 0), std::copysign(1.5, U), 1e-14) << i << " " << j;
        EXPECT_EQ(s.grid.vel[0](i, j, 1), U);
      }
  }
}

// Sand moving away from the floor is not pressed against it: no friction.
TEST(WallFriction, SeparatingFlowFeelsNoFriction) {
  WallScene s(0.5);
  slide_on_floor(s, -1.0, 0.3);
  for (int i = 1; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(s.grid.vel[0](i, j, 0), 0.3);
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
      EXPECT_NEAR(s.grid.vel[0](m, n, 0), expected, 1e-14);
      EXPECT_NEAR(s.grid.vel[1](n, m, 0), expected, 1e-14);
    }
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
        EXPECT_NEAR(s.grid.vel[2](0, j, k), expected, 1e-14) << V << " " << j << " " << k;
        EXPECT_EQ(s.grid.vel[2](1, j, k), V);
      }
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
    EXPECT_NEAR(s.grid.vel[0](3, j, 2), 0.8, 1e-14) << j;
    EXPECT_NEAR(s.grid.vel[0](2, j, 2), 0.9, 1e-14) << j;
    EXPECT_EQ(s.grid.vel[0](1, j, 0), 1.0) << j;  // open floor: no normal speed removed
    EXPECT_EQ(s.grid.vel[0](3, j, 3), 1.0) << j;
  }
}

// Water keeps free slip: without sand next to a face, friction leaves it alone.
TEST(WallFriction, WaterIsFreeSlip) {
  WallScene s(0.5);
  s.sand.fill(0);
  s.set(2, [&](int, int, int k) { return k == 0 ? -1.0 : 0.0; });
  s.set(0, [&](int, int, int) { return 0.3; });
  s.enforce_with_friction();
  for (int i = 1; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(s.grid.vel[0](i, j, 0), 0.3);
}
