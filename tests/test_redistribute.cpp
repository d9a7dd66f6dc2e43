// Redistribution sends every particle, with all its attributes, to the owner of its cell from
// any rank to any rank, loses and duplicates none, and keeps the order of those that stay.
// Migration does the same for particles that moved into a neighbouring block.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "decomposition/migration.hpp"
#include "decomposition/redistribute.hpp"
#include "decomposition/reductions.hpp"
#include "tests/particle_ids.hpp"

using namespace dunesim;

namespace {

constexpr double kDx = 0.1;
const Index3 kCells{12, 7, 5};

// Attribute values derived from the id, so a particle's attributes can be checked after it
// travelled.
void set_particle(Particles& p, size_t n, int64_t id, std::mt19937& random) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  p.x[n] = unit(random) * kCells[0] * kDx;
  p.y[n] = unit(random) * kCells[1] * kDx;
  p.z[n] = unit(random) * kCells[2] * kDx;
  p.vx[n] = 0.5 * double(id);
  p.vy[n] = -1.0 * double(id);
  p.vz[n] = 2.0 * double(id) + 0.25;
  p.id[n] = id;
  p.material[n] = uint8_t(id % 3);
}

// Every particle of this rank lies in one of its owned cells and keeps the attributes
// set_particle gave its id, and the ids 0 .. total - 1 are each held once over all ranks.
void expect_on_owners_with_their_attributes(const Topology& topo, const Particles& p,
                                            int64_t total) {
  const Box owned = topo.owned_cells(topo.rank());
  for (size_t n = 0; n < p.size(); ++n) {
    const int64_t id = p.id[n];
    EXPECT_TRUE(owned.contains(int(std::floor(p.x[n] / kDx)), int(std::floor(p.y[n] / kDx)),
                               int(std::floor(p.z[n] / kDx))))
        << "particle " << id << " is not on its owner";
    EXPECT_EQ(p.vx[n], 0.5 * double(id));
    EXPECT_EQ(p.vy[n], -1.0 * double(id));
    EXPECT_EQ(p.vz[n], 2.0 * double(id) + 0.25);
    EXPECT_EQ(p.material[n], uint8_t(id % 3));
  }
  const std::vector<int64_t> all = test::all_ids_sorted(topo, p);
  ASSERT_EQ(int64_t(all.size()), total);
  for (int64_t n = 0; n < total; ++n) ASSERT_EQ(all[size_t(n)], n);
}

}  // namespace

TEST(Redistribute, EveryParticleReachesItsOwnerWithItsAttributes) {
  Topology topo(MPI_COMM_WORLD, kCells, 1);
  const int rank = topo.rank();
  // Rank r starts with 50 (r + 1) particles anywhere in the domain (ids rank-major).
  const int64_t count = 50 * (rank + 1);
  const int64_t first = exclusive_prefix_sum(topo, count);
  const int64_t total = global_sum(topo, count);
  Particles p;
  p.resize(size_t(count));
  std::mt19937 random(1234 + rank);
  for (int64_t n = 0; n < count; ++n) set_particle(p, size_t(n), first + n, random);
  // Those that stay keep their order, ahead of those that arrive.
  std::vector<int64_t> staying;
  for (size_t n = 0; n < p.size(); ++n)
    if (topo.owner_of_cell(int(p.x[n] / kDx), int(p.y[n] / kDx), int(p.z[n] / kDx)) == rank)
      staying.push_back(p.id[n]);

  redistribute_particles(topo, kDx, p);

  ASSERT_EQ(global_sum(topo, int64_t(p.size())), total);
  // (EXPECT, not ASSERT: a rank that returned alone would leave the others in the gather.)
  EXPECT_TRUE(p.size() >= staying.size() &&
              std::equal(staying.begin(), staying.end(), p.id.begin()));
  expect_on_owners_with_their_attributes(topo, p, total);
}

// After a step some particles have crossed into neighbouring blocks: the first and the last
// of a rank's array, a run of consecutive ones, and every third. Each reaches its owner with
// its attributes, none is lost or doubled, and the stayers are the ones that stayed.
TEST(Migration, LeaversReachTheirNeighboursAndStayersStay) {
  Topology topo(MPI_COMM_WORLD, kCells, 1);
  const int rank = topo.rank();
  const Box owned = topo.owned_cells(rank);
  const std::vector<int>& neighbours = topo.neighbours();
  const int64_t count = 40 + 9 * rank;
  const int64_t first = exclusive_prefix_sum(topo, count);
  const int64_t total = global_sum(topo, count);
  Particles p;
  p.resize(size_t(count));
  std::mt19937 random(99 + rank);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto inside = [&](const Box& box, int a) {
    return (box.lo[a] + unit(random) * (box.hi[a] - box.lo[a])) * kDx;
  };
  std::vector<int64_t> staying;
  for (int64_t n = 0; n < count; ++n) {
    set_particle(p, size_t(n), first + n, random);
    const bool leaves =
        !neighbours.empty() && (n == 0 || n + 1 == count || (n >= 10 && n < 15) || n % 3 == 0);
    const Box target =
        leaves ? topo.owned_cells(neighbours[size_t(n) % neighbours.size()]) : owned;
    p.x[size_t(n)] = inside(target, 0);
    p.y[size_t(n)] = inside(target, 1);
    p.z[size_t(n)] = inside(target, 2);
    if (!leaves) staying.push_back(first + n);
  }

  const MigrationStats stats = migrate_particles(topo, kDx, p);

  EXPECT_EQ(stats.sent, count - int64_t(staying.size()));
  ASSERT_EQ(global_sum(topo, int64_t(p.size())), total);
  std::vector<int64_t> held(p.id.begin(), p.id.end());
  std::sort(held.begin(), held.end());
  EXPECT_TRUE(std::includes(held.begin(), held.end(), staying.begin(), staying.end()))
      << "a particle that stayed in the block is gone from it";
  expect_on_owners_with_their_attributes(topo, p, total);
}

TEST(Redistribute, AllParticlesOnOneRankSpreadOverAll) {
  Topology topo(MPI_COMM_WORLD, kCells, 1);
  Particles p;
  std::mt19937 random(99);
  if (topo.rank() == 0) {
    p.resize(1000);
    for (size_t n = 0; n < p.size(); ++n) set_particle(p, n, int64_t(n), random);
  }
  redistribute_particles(topo, kDx, p);
  EXPECT_EQ(global_sum(topo, int64_t(p.size())), 1000);
  const Box owned = topo.owned_cells(topo.rank());
  EXPECT_GT(p.size(), 0u) << "uniformly spread particles should reach every block";
  for (size_t n = 0; n < p.size(); ++n)
    EXPECT_TRUE(owned.contains(int(std::floor(p.x[n] / kDx)), int(std::floor(p.y[n] / kDx)),
                               int(std::floor(p.z[n] / kDx))));
}

// The message format migration and redistribution share: particles packed in any order and
// appended behind others come back with every attribute.
TEST(Particles, PackedParticlesAppendWithEveryAttribute) {
  std::mt19937 random(5);
  Particles from;
  from.resize(3);
  for (size_t n = 0; n < from.size(); ++n) set_particle(from, n, int64_t(10 + n), random);
  const size_t order[] = {2, 0, 1};
  std::vector<char> message(3 * from.packed_bytes());
  char* end = message.data();
  for (size_t n : order) end = from.pack(n, end);
  EXPECT_EQ(end, message.data() + message.size());

  Particles to;
  to.resize(1);
  set_particle(to, 0, 99, random);
  to.append_packed(message.data(), 3);
  ASSERT_EQ(to.size(), 4u);
  EXPECT_EQ(to.id[0], 99);
  for (size_t k = 0; k < 3; ++k) {
    const size_t n = order[k], m = 1 + k;
    EXPECT_EQ(to.x[m], from.x[n]);
    EXPECT_EQ(to.y[m], from.y[n]);
    EXPECT_EQ(to.z[m], from.z[n]);
    EXPECT_EQ(to.vx[m], from.vx[n]);
    EXPECT_EQ(to.vy[m], from.vy[n]);
    EXPECT_EQ(to.vz[m], from.vz[n]);
    EXPECT_EQ(to.id[m], from.id[n]);
    EXPECT_EQ(to.material[m], from.material[n]);
  }
}
