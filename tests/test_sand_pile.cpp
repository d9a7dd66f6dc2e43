// Dry sand poured from a nozzle onto a rough floor (a 2D heap: a slab 4 cells thick with
// frictionless sides), with the cases' transfer (95% PIC, PourSpec's default), comes to rest
// with its flanks within 3 degrees of the angle the model predicts, steeper for the larger
// friction angle, with every poured particle still there.
//
// The prediction: a body at rest is rigid in this model (the yield test's sigma_rigid
// vanishes when nothing moves), so a slumping block freezes wherever its flow stops, up to
// 15 degrees steeper than phi; a poured heap is built instead by a surface flow, which stops
// where the yielding layer's frictional stress balances gravity. In simple shear eq. 2 gives
// a shear stress of sqrt(3/2) sin(phi) p, so tan(theta) = sqrt(3/2) sin(phi): 31.5 degrees
// for phi = 30 and 38.2 for phi = 40 (src/README.md, "Sand", rounds it to 38).
//
// The resolution: PIC's damping, a viscosity of order dx^2/dt, props the flanks up, so the
// angle depends on how many cells span the heap. At 1 cm cells this heap stands at 40.3 and
// 43.7 degrees (seeds 1 to 4, 2 ranks; 34.1 and 43.3 when the interface rule of
// src/README.md came in), too steep by 9 and 5; at 0.5 cm cells the damping is half (dt,
// bound by the CFL number, halves with dx). So the test pours the same physical heap at
// 0.5 cm: shrinking the heap with the cells would keep the damping's share and the flanks.
//
// The pour: the angle depends on it. This one feeds each flank 0.01 m^2/s; the flowing layer
// that carries it drains once the feed stops, lowering the flanks, and PIC's damping props
// them up. Poured at an eighth of the feed (a 1 cm nozzle at 0.25 m/s for 8 s, seed 1, 2
// ranks) these heaps stand at 40.7 and 44.0 degrees, so the agreement below holds for this
// pour (postproc/column_collapse_findings.md, "Poured heaps: the feed's flowing layer
// drains").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "tests/poured_heap.hpp"

using namespace dunesim;

namespace {

constexpr double kCell = 0.005;  // m

// The angle at which a flank's surface flow stops (see the top of this file), degrees.
double predicted_angle_deg(double friction_angle_deg) {
  const double sin_phi = std::sin(friction_angle_deg * M_PI / 180.0);
  return std::atan(std::sqrt(1.5) * sin_phi) * 180.0 / M_PI;
}

// Seeds of the heaps each figure averages, chosen before the test was first run: single
// heaps scatter with the seeding's jitter (avalanches run down one flank or the other).
// Three, the seeds of the 0.5 cm measurement that led to this test (src/README.md), because a
// 0.5 cm heap costs about eight 1 cm ones (the test takes about 45 s on 2 ranks).
constexpr uint64_t kSeeds[] = {1, 2, 3};

struct PouredHeaps {
  double slope_deg = 0;       // the mean of both flanks of every heap
  double top = 1e9;           // m, the lowest heap's top
  double max_speed = 0;       // m/s, over the heaps
  double surface_change = 0;  // m, the largest mean surface change over the heaps
  bool all_particles_present = true;
};

// 2 s of pouring at 0.5 m/s through a 4 cm nozzle 0.2 m above a 0.8 m floor, then 1 s to
// settle: the heap of the 1 cm measurements, at 0.5 cm cells.
test::PourSpec heap_spec(double friction_angle, uint64_t seed) {
  test::PourSpec spec;
  spec.friction_angle = friction_angle;
  spec.cell = kCell;
  spec.length = 0.8;
  spec.nozzle_width = 0.04;
  spec.nozzle_height = 0.2;
  spec.nozzle_speed = 0.5;
  spec.pour_time = 2.0;
  spec.settle_time = 1.0;
  spec.seed = seed;
  return spec;  // flip_ratio: the default, 0.05 (95% PIC)
}

void record(const std::string& name, const test::HeapShape& heap) {
  auto pair = [](double a, double b) { return std::to_string(a) + " " + std::to_string(b); };
  ::testing::Test::RecordProperty(name + "_slopes_deg",
                                  pair(heap.left_slope_deg, heap.right_slope_deg));
  ::testing::Test::RecordProperty(name + "_top", std::to_string(heap.top));
  ::testing::Test::RecordProperty(name + "_max_speed", std::to_string(heap.max_speed));
  ::testing::Test::RecordProperty(name + "_surface_change",
                                  pair(heap.surface_change, heap.mean_surface_change));
}

PouredHeaps pour(double friction_angle) {
  PouredHeaps heaps;
  const double share = 1.0 / double(std::size(kSeeds));
  for (uint64_t seed : kSeeds) {
    const test::HeapShape heap = test::pour_heap(heap_spec(friction_angle, seed), MPI_COMM_WORLD);
    record("phi" + std::to_string(int(friction_angle)) + "_seed" + std::to_string(seed), heap);
    heaps.slope_deg += share * heap.mean_slope_deg();
    heaps.top = std::min(heaps.top, heap.top);
    heaps.max_speed = std::max(heaps.max_speed, heap.max_speed);
    heaps.surface_change = std::max(heaps.surface_change, heap.mean_surface_change);
    heaps.all_particles_present = heaps.all_particles_present && heap.particles == heap.created;
  }
  return heaps;
}

}  // namespace

TEST(SandPile, PouredHeapStandsAtThePredictedAngle) {
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
  // Measured (mm, each heap's mean over its columns): 0.8, 0.9, 1.0 for phi = 30 and 0.7,
  // 1.0, 0.7 for phi = 40; single columns near the apex moved 5.1 to 10.2 mm. The largest
  // particle speed (recorded: 0.17 and 0.18 m/s) is no test of rest: a grain on the surface
  // gets a step's fall, g dt, before friction and the rigid fit stop it again.
  EXPECT_LT(loose.surface_change, 0.5 * kCell);
  EXPECT_LT(rough.surface_change, 0.5 * kCell);
  // Within 3 degrees of the prediction, and steeper for the larger phi. The 3 degrees are the
  // requirement's; single heaps scatter by more than that with the seed, so the check is on
  // the mean of three. Measured (2 ranks, seeds 1, 2, 3): mean 31.8 for phi = 30 and 37.6
  // for phi = 40 (flanks 31.8 33.6, 34.5 30.2, 30.0 30.5; 36.1 36.1, 39.4 37.0, 37.4 39.5).
  // The history, each change's means before it (src/README.md, "Sand"):
  // - faces of rigid cells get no face-by-face wall friction (src/wall_friction.hpp): 32.5
  //   and 39.2, tops 0.160 to 0.171 m and 0.171 to 0.180 m (33.1 and 40.5 with the same
  //   rule summed in another order: round-off moves the avalanches);
  // - edges on the sand's boundary carry no flux (src/sand_plasticity.cpp): 32.8 and 38.9
  //   (flanks 28.7 34.7, 29.1 33.4, 35.1 35.6; 36.0 40.8, 37.7 44.3, 35.7 38.9);
  // - rigid cells take the reaction of the friction of the flow beside them
  //   (src/sand_plasticity.cpp): 32.2 and 36.7 (flanks 27.1 to 38.0 and 34.9 to 38.2);
  // - faces beside air take their sand cell's whole wall friction and lone cells their whole
  //   weight (src/wall_friction.hpp): 32.5 and 35.9; seeds 1 to 8 gave 32.0 and 35.5, with
  //   seeds 6 to 8 alone at 34.8 for phi = 40, so a mean of three could leave the 3 degrees
  //   on round-off then;
  // - the surface's static friction (src/surface_rest.hpp): 33.2 and 37.1 (seeds 1 to 8:
  //   32.9 and 37.8).
  EXPECT_NEAR(loose.slope_deg, predicted_angle_deg(30.0), 3.0);
  EXPECT_NEAR(rough.slope_deg, predicted_angle_deg(40.0), 3.0);
  EXPECT_GT(rough.slope_deg, loose.slope_deg + 2.0);
}

// Rigid-plastic sand (src/rigid_plastic_sand.hpp) with the cases' transfer: its yield stress
// in simple shear is tan(phi) p, so the flank of a heap at rest, an infinite slope at the
// limit of equilibrium, stands at phi itself (src/README.md, "Rigid-plastic sand"). The
// stress carries the weight at rest, so the heap needs no damping to stand and 1 cm cells
// suffice: one heap per angle (seed 1; the measurement that led to this test poured it on
// 1 rank: 31.0 / 31.3 and 39.7 / 39.5 degrees).
TEST(SandPile, RigidPlasticHeapStandsAtItsFrictionAngle) {
  for (double phi : {30.0, 40.0}) {
    test::PourSpec spec = heap_spec(phi, 1);
    spec.cell = 0.01;
    spec.rheology = SandRheology::Kind::RigidPlastic;
    const test::HeapShape heap = test::pour_heap(spec, MPI_COMM_WORLD);
    record("rigid_plastic_phi" + std::to_string(int(phi)), heap);
    EXPECT_EQ(heap.particles, heap.created);
    EXPECT_GT(heap.top, 0.1);
    EXPECT_LT(heap.mean_surface_change, 0.5 * spec.cell);
    // 3 degrees: the requirement's, for each flank of a single heap.
    EXPECT_NEAR(heap.left_slope_deg, phi, 3.0) << "phi = " << phi;
    EXPECT_NEAR(heap.right_slope_deg, phi, 3.0) << "phi = " << phi;
  }
}
