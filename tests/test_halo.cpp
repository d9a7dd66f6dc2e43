// Halo fill and halo sum on 1, 2 and 4 ranks against what one rank holding the whole grid
// would see: fill copies the owner's value into every ghost, sum adds every rank's
// contribution into the owner exactly once.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"

using namespace dunesim;

namespace {

double field_value(int s, int i, int j, int k) { return 1000.0 * s + i + 100.0 * j + 1e4 * k; }

// Owned entries get field_value and every other entry -1, as ghosts are before a fill.
void set_owned_only(const Topology& topo, std::vector<Array3<double>>& fields) {
  for (int s = 0; s < 4; ++s) {
    fields[s].fill(-1.0);
    for_each_index(topo.owned(static_cast<Stagger>(s)),
                   [&](int i, int j, int k) { fields[s](i, j, k) = field_value(s, i, j, k); });
  }
}

// One array per staggering over the topology's local boxes, set by set_owned_only.
std::vector<Array3<double>> owned_fields(const Topology& topo) {
  std::vector<Array3<double>> fields(4);
  for (int s = 0; s < 4; ++s)
    fields[s].reset(topo.local(static_cast<Stagger>(s)), static_cast<Stagger>(s));
  set_owned_only(topo, fields);
  return fields;
}

// All four staggerings in one fill, as the simulation batches its arrays.
void fill_all(Halo& halo, std::vector<Array3<double>>& f) {
  halo.fill<double>({&f[0], &f[1], &f[2], &f[3]});
}

// Every entry, ghosts and wall layers included, holds its owner's value.
void expect_owner_values(const std::vector<Array3<double>>& fields) {
  for (int s = 0; s < 4; ++s)
    for_each_index(fields[s].box(), [&](int i, int j, int k) {
      ASSERT_EQ(fields[s](i, j, k), field_value(s, i, j, k))
          << "stagger " << s << " at " << i << "," << j << "," << k;
    });
}

// Cuts that lay the ranks out along x with these block widths (y and z uncut).
std::array<std::vector<int>, 3> cuts_along_x(const Index3& cells,
                                             const std::vector<int>& widths) {
  std::array<std::vector<int>, 3> cuts{std::vector<int>{0}, {0, cells[1]}, {0, cells[2]}};
  for (int w : widths) cuts[0].push_back(cuts[0].back() + w);
  return cuts;
}

}  // namespace

TEST(Halo, FillMatchesOwnerValuesForEveryStaggering) {
  Topology topo(MPI_COMM_WORLD, {12, 10, 8}, 2);
  Halo halo(topo);
  for (int s = 0; s < 4; ++s) {
    Stagger st = static_cast<Stagger>(s);
    Array3<double> a(topo.local(st), st, -1.0);
    for_each_index(topo.owned(st),
                   [&](int i, int j, int k) { a(i, j, k) = field_value(s, i, j, k); });
    halo.fill<double>({&a});
    // Every entry, wall layers outside the domain included, has an owner.
    for_each_index(a.box(), [&](int i, int j, int k) {
      ASSERT_EQ(a(i, j, k), field_value(s, i, j, k))
          << "stagger " << s << " at " << i << "," << j << "," << k;
    });
  }
}

TEST(Halo, SumAddsEachRanksGhostContributionIntoTheOwner) {
  Topology topo(MPI_COMM_WORLD, {12, 10, 8}, 2);
  Halo halo(topo);
  for (int s = 0; s < 4; ++s) {
    Stagger st = static_cast<Stagger>(s);
    Array3<double> a(topo.local(st), st, 0.0);
    // Every rank deposits the same value on every entry of its array.
    for_each_index(a.box(), [&](int i, int j, int k) { a(i, j, k) = field_value(s, i, j, k); });
    halo.sum<double>({&a});
    for_each_index(topo.owned(st), [&](int i, int j, int k) {
      int holders = 0;  // ranks whose array covers this entry
      for (int r = 0; r < topo.size(); ++r) holders += topo.local(st, r).contains(i, j, k);
      ASSERT_DOUBLE_EQ(a(i, j, k), holders * field_value(s, i, j, k));
    });
  }
}

TEST(Halo, BatchedArraysOfDifferentStaggeringsAndTypes) {
  Topology topo(MPI_COMM_WORLD, {9, 7, 11}, 3);
  Halo halo(topo);
  Array3<int64_t> cells(topo.local(Stagger::Cell), Stagger::Cell, -1);
  Array3<int64_t> faces(topo.local(Stagger::FaceZ), Stagger::FaceZ, -1);
  for_each_index(topo.owned(Stagger::Cell),
                 [&](int i, int j, int k) { cells(i, j, k) = i + 10 * j + 100 * k; });
  for_each_index(topo.owned(Stagger::FaceZ),
                 [&](int i, int j, int k) { faces(i, j, k) = -(i + 10 * j + 100 * k) - 2; });
  halo.fill<int64_t>({&cells, &faces});
  for_each_index(cells.box(),
                 [&](int i, int j, int k) { ASSERT_EQ(cells(i, j, k), i + 10 * j + 100 * k); });
  for_each_index(faces.box(), [&](int i, int j, int k) {
    ASSERT_EQ(faces(i, j, k), -(i + 10 * j + 100 * k) - 2);
  });
}

// One exchange carrying arrays of several element types gives each array what an exchange
// of its own would.
TEST(Halo, MixedElementTypesInOneExchange) {
  Topology topo(MPI_COMM_WORLD, {9, 7, 11}, 3);
  Halo halo(topo);
  Array3<double> u(topo.local(Stagger::FaceX), Stagger::FaceX, 0.0);
  Array3<float> w(topo.local(Stagger::FaceX), Stagger::FaceX, 0.0f);
  Array3<uint8_t> mask(topo.local(Stagger::Cell), Stagger::Cell, 0);
  for_each_index(u.box(), [&](int i, int j, int k) {
    u(i, j, k) = field_value(0, i, j, k);
    w(i, j, k) = float(i + j + k);
  });
  halo.sum<double, float>({&u}, {&w});
  for_each_index(topo.owned(Stagger::FaceX), [&](int i, int j, int k) {
    int holders = 0;
    for (int r = 0; r < topo.size(); ++r)
      holders += topo.local(Stagger::FaceX, r).contains(i, j, k);
    ASSERT_DOUBLE_EQ(u(i, j, k), holders * field_value(0, i, j, k));
    ASSERT_EQ(w(i, j, k), float(holders * (i + j + k)));
  });
  for_each_index(topo.owned(Stagger::Cell), [&](int i, int j, int k) {
    mask(i, j, k) = uint8_t((i + 3 * j + 7 * k) % 251);
  });
  for_each_index(topo.owned(Stagger::FaceX),
                 [&](int i, int j, int k) { u(i, j, k) = -field_value(1, i, j, k); });
  halo.fill<double, uint8_t>({&u}, {&mask});
  for_each_index(mask.box(), [&](int i, int j, int k) {
    ASSERT_EQ(mask(i, j, k), uint8_t((i + 3 * j + 7 * k) % 251));
  });
  for_each_index(u.box(),
                 [&](int i, int j, int k) { ASSERT_EQ(u(i, j, k), -field_value(1, i, j, k)); });
}

// Arrays cut to a window (the sand's arrays) exchange what their neighbours' arrays cover,
// batched with whole-block arrays. The windows cross the cuts of 2 and 4 ranks; the second
// holds the low-x wall layers and misses the blocks far from it, whose arrays are empty.
TEST(Halo, ArraysCutToAWindowFillAndSumLikeWholeBlocks) {
  Topology topo(MPI_COMM_WORLD, {12, 10, 8}, 2);
  Halo halo(topo);
  for (const Box& window : {Box{{3, -1, 2}, {8, 6, 9}}, Box{{-2, -2, -2}, {2, 12, 10}}}) {
    for (int s = 0; s < 4; ++s) {
      const Stagger st = static_cast<Stagger>(s);
      Array3<double> cut, whole(topo.local(st), st, -1.0);
      cut.reset_within(topo.local(st), window, st, -1.0);
      ASSERT_TRUE(cut.box() == overlap(topo.local(st), window));
      for_each_index(topo.owned(st), [&](int i, int j, int k) {
        whole(i, j, k) = field_value(s, i, j, k);
        if (cut.box().contains(i, j, k)) cut(i, j, k) = -field_value(s, i, j, k);
      });
      halo.fill<double>({&cut, &whole});
      for_each_index(cut.box(), [&](int i, int j, int k) {
        ASSERT_EQ(cut(i, j, k), -field_value(s, i, j, k))
            << s << " " << i << "," << j << "," << k;
      });
      for_each_index(whole.box(), [&](int i, int j, int k) {
        ASSERT_EQ(whole(i, j, k), field_value(s, i, j, k))
            << s << " " << i << "," << j << "," << k;
      });

      for_each_index(cut.box(),
                     [&](int i, int j, int k) { cut(i, j, k) = field_value(s, i, j, k); });
      halo.sum<double>({&cut});
      for_each_index(topo.owned(st).intersect(cut.box()), [&](int i, int j, int k) {
        int holders = 0;  // ranks whose cut array covers this entry
        for (int r = 0; r < topo.size(); ++r)
          holders += overlap(topo.local(st, r), window).contains(i, j, k);
        ASSERT_DOUBLE_EQ(cut(i, j, k), holders * field_value(s, i, j, k));
      });
    }
  }
}

// Halo plans are worked out once per layout; a re-cut must replace them. At 2 ranks every
// block changes, so the array box in a plan's key alone keeps old plans out. At 4 ranks the
// last block keeps its box while the re-cut takes rank 1 out of its neighbours: only the
// layout version tells its halo that its plan is stale.
TEST(Halo, FillAfterARecutUsesTheNewLayout) {
  const Index3 cells{16, 6, 5};
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> before, after;
  if (ranks == 1) before = after = {16};
  if (ranks == 2) before = {6, 10}, after = {9, 7};
  if (ranks == 4) before = {3, 3, 2, 8}, after = {2, 3, 3, 8};
  if (before.empty()) GTEST_SKIP() << "no re-cut chosen for " << ranks << " ranks";
  Topology topo(MPI_COMM_WORLD, cells, 2, cuts_along_x(cells, before));
  Halo halo(topo);
  std::vector<Array3<double>> fields = owned_fields(topo);
  fill_all(halo, fields);  // plans for the first layout
  expect_owner_values(fields);
  const uint64_t version = topo.layout_version();
  topo.recut(cuts_along_x(cells, after));
  EXPECT_NE(topo.layout_version(), version);
  fields = owned_fields(topo);  // arrays are reallocated after a re-cut
  fill_all(halo, fields);
  expect_owner_values(fields);
}

// A fill with cached plans and kept buffers gives what the first fill gave, and sends as
// many bytes each time.
TEST(Halo, RepeatedFillsGiveTheFirstFillsResult) {
  Topology topo(MPI_COMM_WORLD, {12, 10, 8}, 2);
  Halo halo(topo);
  std::vector<Array3<double>> fields = owned_fields(topo);
  fill_all(halo, fields);
  expect_owner_values(fields);
  const int64_t first_bytes = halo.bytes_sent();
  for (int repeat = 1; repeat <= 3; ++repeat) {
    set_owned_only(topo, fields);  // the same arrays, their ghosts spoilt
    fill_all(halo, fields);
    expect_owner_values(fields);
    EXPECT_EQ(halo.bytes_sent(), (repeat + 1) * first_bytes);
  }
}

// fill_within brings the ghosts of its cells (and of their faces) up to their owners'
// values and leaves every other ghost as it was, so a fill after work confined to a region
// sends only that region.
TEST(Halo, FillWithinUpdatesTheRegionsGhostsAlone) {
  Topology topo(MPI_COMM_WORLD, {12, 10, 8}, 2);
  Halo halo(topo);
  std::vector<Array3<double>> fields = owned_fields(topo);
  fill_all(halo, fields);
  const Box cells{{2, 3, 1}, {9, 7, 5}};
  for (int s = 0; s < 4; ++s)  // owned entries change, everywhere
    for_each_index(topo.owned(static_cast<Stagger>(s)),
                   [&](int i, int j, int k) { fields[s](i, j, k) += 0.5; });
  halo.fill_within<double>(cells, {&fields[0], &fields[1], &fields[2], &fields[3]});
  for (int s = 0; s < 4; ++s) {
    const Stagger st = static_cast<Stagger>(s);
    const Box entries = s == 0 ? cells : faces_of_cells(cells, face_axis(st));
    for_each_index(fields[s].box(), [&](int i, int j, int k) {
      const bool updated = topo.owned(st).contains(i, j, k) || entries.contains(i, j, k);
      ASSERT_EQ(fields[s](i, j, k), field_value(s, i, j, k) + (updated ? 0.5 : 0.0))
          << "stagger " << s << " at " << i << "," << j << "," << k;
    });
  }
}

TEST(Topology, OwnershipCoversTheGridAndItsWallsExactlyOnce) {
  Topology topo(MPI_COMM_WORLD, {13, 6, 9}, 2);
  for (int s = 0; s < 4; ++s) {
    Stagger st = static_cast<Stagger>(s);
    int64_t total = 0;
    for (int r = 0; r < topo.size(); ++r) {
      total += topo.owned(st, r).volume();
      for (int q = 0; q < r; ++q)
        EXPECT_TRUE(topo.owned(st, r).intersect(topo.owned(st, q)).empty());
    }
    EXPECT_EQ(total, topo.extended(st).volume());
  }
  for_each_index(topo.global(Stagger::Cell), [&](int i, int j, int k) {
    int owner = topo.owner_of_cell(i, j, k);
    ASSERT_TRUE(topo.owned_cells(owner).contains(i, j, k));
  });
}
