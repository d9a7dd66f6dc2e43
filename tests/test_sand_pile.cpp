// Dry sand poured from a nozzle onto a rough floor (a 2D heap: a slab 4 cells thick with
// frictionless sides) comes to rest with its flanks at the angle of repose: within 5
// degrees of the friction angle for phi = 30 and 40 degrees, steeper for the larger angle,
// with every poured particle still there.
//
// Why a poured heap: a body at rest is rigid in this model (the yield test's sigma_rigid
// vanishes when nothing moves), so a slumping block freezes wherever its flow stops, up to
// 15 degrees steeper than phi. Sand fed down a flank stops where the yielding layer's
// frictional stress balances gravity: for simple shear eq. 2 gives a shear stress of
// sin(phi) p sqrt(3/2), an angle of 31.5 degrees for phi = 30 and 38 for phi = 40.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "tests/poured_heap.hpp"

using namespace dunesim;

namespace {

// The slope of one heap varies by a few degrees with the seeding's jitter (avalanches run
// down one flank or the other): each figure is the mean of the flanks of four heaps.
struct PouredHeaps {
  double slope_deg = 0;
  double top = 0, max_speed = 0;  // m, m/s: the smaller and the larger of the two
  double surface_change = 0;      // m, the larger mean surface change of the two
  bool all_particles_present = true;
};

// Seeds of the heaps each figure averages: single heaps scatter by several degrees.
constexpr uint64_t kSeeds[] = {1, 2, 3, 4};

// 2 s of pouring at 0.5 m/s through a 4 cm nozzle 0.2 m above the floor (about 16k
// particles), then 1 s to settle, at 1 cm cells, with four seeds.
//
// The transfer is half FLIP, not the cases' 95% PIC: at 1 cm cells PIC's damping, a
// viscosity of order dx^2/dt, props the flanks up about 5 degrees above the model's angle
// (with 95% PIC: 34.1 and 43.3 degrees on 2 ranks, 35.6 and 43.0 on 1, over these seeds).
// Halving the damping gives about the angles of the finer grid, where damping is smaller:
// 0.5 cm cells with 95% PIC give 29.0 and 37.2 (seeds 1 to 3, 2 ranks).
PouredHeaps pour(double friction_angle) {
  PouredHeaps heaps;
  heaps.top = 1e9;
  const double share = 1.0 / double(std::size(kSeeds));
  for (uint64_t seed : kSeeds) {
    test::PourSpec spec;
    spec.friction_angle = friction_angle;
    spec.flip_ratio = 0.5;
    spec.length = 0.8;
    spec.pour_time = 2.0;
    spec.settle_time = 1.0;
    spec.seed = seed;
    const test::HeapShape heap = test::pour_heap(spec, MPI_COMM_WORLD);
    const std::string name =
        "phi" + std::to_string(int(friction_angle)) + "_seed" + std::to_string(seed);
    ::testing::Test::RecordProperty(name + "_slopes_deg",
                                    std::to_string(heap.left_slope_deg) + " " +
                                        std::to_string(heap.right_slope_deg));
    heaps.slope_deg += share * heap.mean_slope_deg();
    heaps.top = std::min(heaps.top, heap.top);
    ::testing::Test::RecordProperty(name + "_max_speed", std::to_string(heap.max_speed));
    ::testing::Test::RecordProperty(name + "_surface_change",
                                    std::to_string(heap.surface_change) + " " +
                                        std::to_string(heap.mean_surface_change));
    heaps.max_speed = std::max(heaps.max_speed, heap.max_speed);
    heaps.surface_change = std::max(heaps.surface_change, heap.mean_surface_change);
    heaps.all_particles_present = heaps.all_particles_present && heap.particles == heap.created;
  }
  return heaps;
}

}  // namespace

TEST(SandPile, PouredHeapStandsAtTheFrictionAngle) {
  const PouredHeaps loose = pour(30.0), rough = pour(40.0);
  RecordProperty("slope_phi30_deg", std::to_string(loose.slope_deg));
  RecordProperty("slope_phi40_deg", std::to_string(rough.slope_deg));
  RecordProperty("max_speed_mps",
                 std::to_string(loose.max_speed) + " " + std::to_string(rough.max_speed));
  // Every particle poured is still there, and the heap is a heap (not a puddle).
  EXPECT_TRUE(loose.all_particles_present);
  EXPECT_TRUE(rough.all_particles_present);
  EXPECT_GT(loose.top, 0.1);
  EXPECT_GT(rough.top, 0.1);
  // At rest: over the last 0.5 s the surface moves by less than half a cell on average.
  // The largest particle speed (recorded) is no test of rest: a grain on the surface gets a
  // step's fall, g dt ~ 0.1 m/s, before friction and the rigid fit stop it again, so heaps
  // whose shape no longer changes show 0.05 to 0.23 m/s, while one still slumping (0.5 s
  // after the pour) can show 0.09 m/s. Measured at 1 cm: 1.3 to 2.7 mm at rest, 14 to 16 mm
  // over the slump right after the pour.
  EXPECT_LT(loose.surface_change, 0.5 * 0.01);
  EXPECT_LT(rough.surface_change, 0.5 * 0.01);
  // Within 5 degrees of phi, steeper for the larger phi. Measured when this was written:
  // 29.5 and 39.4 degrees on 2 ranks (heaps 28.6, 29.4, 32.8, 27.3; 36.8, 38.7, 42.0,
  // 40.1), 30.3 and 40.8 on 1 rank (30.1, 31.2, 30.9, 28.9; 47.5, 39.8, 37.0, 38.9), near
  // the continuum's 31.5 and 38 (see the top of this file).
  EXPECT_NEAR(loose.slope_deg, 30.0, 5.0);
  EXPECT_NEAR(rough.slope_deg, 40.0, 5.0);
  EXPECT_GT(rough.slope_deg, loose.slope_deg + 2.0);
}
