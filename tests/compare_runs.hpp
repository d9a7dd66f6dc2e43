// Comparing a distributed run with a one-rank reference run of the same case, and a run with
// its continuation after a restart.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"

namespace dunesim::test {

// How far (in cells) a particle of a run on another number of ranks may end up from the same
// particle of a one-rank run. Ranks differ only in summation order and in the unknowns'
// numbering, which changes the preconditioner. With velocities in double, the dam break's
// positions after 200 steps agreed to 2e-11 m; particle velocities are single precision,
// so a last-digit difference can round a velocity to the neighbouring float (1e-7 m/s)
// and the splash amplifies it: measured 1.7e-7 m on 2 ranks and 3.4e-7 m on 4 (2e-5
// cells, test_dam_break). The bound leaves a fiftyfold margin for other compilers and MPI
// builds while still catching any halo or ownership error, which shows up as a sizeable
// fraction of a cell within a few steps.
constexpr double kRankCountToleranceCells = 1e-3;

// How far a particle's water content (in particle volumes: 1 for a whole water particle, n S
// <= n for sand) may end up from the same particle's on another number of ranks. Water moves
// between particles at rates set by the cells' saturations around them, a field that varies
// by at most its whole range (1 particle volume) across a cell; a particle within
// kRankCountToleranceCells of its place sees it within that fraction of its range, and so
// ends within that fraction of a particle volume. A restart or a migration that drops,
// misplaces or mixes up a particle's water changes it by the water itself (0.01 to 1 mid-soak).
constexpr double kRankCountToleranceWater = kRankCountToleranceCells;

// How a run differs from a one-rank reference run of the same case. Every figure is global
// (the same on every rank of the run), so every rank reaches the same verdict.
struct RunComparison {
  int64_t particles = 0;            // held by the run, over all its ranks
  int64_t reference_particles = 0;  // in the reference run
  bool references_agree = true;     // every rank's reference run has that many particles
  int64_t unknown = 0;              // particles of the run whose id the reference does not have
  int64_t missing = 0;              // reference particles that no rank of the run holds
  int64_t duplicated = 0;           // reference particles that the run holds more than once
  int64_t other_material = 0;       // matched particles of another material than the reference's
  double position = 0;  // largest difference in a coordinate, over matched particles (m)
  double velocity = 0;  // largest difference in a velocity component (m/s)
  double affine = 0;    // largest difference in an affine velocity component (APIC, 1/s)
  double water = 0;     // largest difference in water content (particle volumes)
};

namespace detail {

// This rank's share of the comparison: unknown ids, the largest differences, and in
// held[q] how many of its particles are reference particle q.
inline RunComparison compare_local(const Particles& p, const Particles& r,
                                   std::vector<int>& held) {
  std::unordered_map<int64_t, size_t> where;
  for (size_t n = 0; n < r.size(); ++n) where[r.id[n]] = n;
  RunComparison c;
  for (size_t n = 0; n < p.size(); ++n) {
    const auto found = where.find(p.id[n]);
    if (found == where.end()) {
      ++c.unknown;
      continue;
    }
    const size_t q = found->second;
    ++held[q];
    c.other_material += p.material[n] != r.material[q];
    c.water = std::max(c.water, std::abs(p.water_of(n) - r.water_of(q)));
    c.position = std::max({c.position, std::abs(p.x[n] - r.x[q]), std::abs(p.y[n] - r.y[q]),
                           std::abs(p.z[n] - r.z[q])});
    c.velocity =
        std::max({c.velocity, double(std::abs(p.vx[n] - r.vx[q])),
                  double(std::abs(p.vy[n] - r.vy[q])), double(std::abs(p.vz[n] - r.vz[q]))});
    if (p.carries_affine && r.carries_affine)
      for (int m = 0; m < 9; ++m)
        c.affine = std::max(c.affine, double(std::abs(p.affine[n][m] - r.affine[q][m])));
  }
  return c;
}

}  // namespace detail

// Collective on `comm`: every rank gets a copy of the particles that rank 0 passes (the
// others pass anything), every array that rank 0's carry. `ok` is rank 0's word that its
// particles exist: false on rank 0 makes every rank throw, so none waits for the rest.
inline Particles broadcast_particles(const Particles& on_rank_zero, bool ok, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int64_t header[5] = {ok ? int64_t(on_rank_zero.size()) : -1, on_rank_zero.carries_stress,
                       on_rank_zero.carries_affine, on_rank_zero.carries_water,
                       int64_t(on_rank_zero.water_when_not_carried.size())};
  MPI_Bcast(header, 5, MPI_INT64_T, 0, comm);
  if (header[0] < 0) throw std::runtime_error("the one-rank reference run failed on rank 0");
  std::vector<double> water_by_material = on_rank_zero.water_when_not_carried;
  water_by_material.resize(size_t(header[4]));
  MPI_Bcast(water_by_material.data(), int(header[4]), MPI_DOUBLE, 0, comm);
  Particles whole;
  if (rank == 0) {
    whole = on_rank_zero;
  } else {
    whole.carry_stress(header[1] != 0);
    whole.carry_affine(header[2] != 0);
    whole.carry_water(header[3] != 0, water_by_material);
    whole.resize(size_t(header[0]));
  }
  whole.for_each_array([&](auto& array) {
    MPI_Bcast(array.data(), int(array.size() * sizeof(array[0])), MPI_BYTE, 0, comm);
  });
  return whole;
}

// A barrier that waits without spinning: the ranks that wait for another rank's reference
// run sleep instead of polling, which on oversubscribed cores would take the CPU it needs.
inline void barrier_without_spinning(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

// The particles of a one-rank run of `config` (on MPI_COMM_SELF) after `advance(run)`, made
// once, by rank 0 of MPI_COMM_WORLD, and sent to every rank: the ranks of a test share one
// reference run instead of each repeating it (4 oversubscribed ranks on 2 cores would take
// twice as long as one).
template <class Advance>
Particles one_rank_reference(const CaseConfig& config, Advance&& advance) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Particles particles;
  bool ok = rank != 0;
  if (rank == 0) {
    try {
      Simulation reference(config, MPI_COMM_SELF);
      advance(reference);
      particles = reference.particles();
      ok = true;
    } catch (const std::exception& error) {
      ADD_FAILURE() << "the one-rank reference run failed: " << error.what();
    }
  }
  barrier_without_spinning(MPI_COMM_WORLD);
  return broadcast_particles(particles, ok, MPI_COMM_WORLD);
}

// Compares the particles of `sim` with the particles of the same id in `reference`, the
// particles of a run that every rank holds whole (one_rank_reference). Collective on sim's
// ranks; nothing here throws or returns early on one rank only.
inline RunComparison compare_with_reference(const Simulation& sim, const Particles& r) {
  const Topology& topo = sim.topology();
  const double reference_size = double(r.size());
  const double largest_reference = global_max(topo, reference_size);
  // Sized alike on every rank, so that the sum below is well formed even if references differ.
  std::vector<int> held(size_t(largest_reference), 0);
  RunComparison c = detail::compare_local(sim.particles(), r, held);
  MPI_Allreduce(MPI_IN_PLACE, held.data(), int(held.size()), MPI_INT, MPI_SUM, topo.comm());
  c.references_agree = global_min(topo, reference_size) == largest_reference;
  c.reference_particles = int64_t(largest_reference);
  c.particles = global_sum(topo, int64_t(sim.particles().size()));
  c.unknown = global_sum(topo, c.unknown);
  for (int h : held) {
    c.missing += h == 0;
    c.duplicated += h > 1;
  }
  c.position = global_max(topo, c.position);
  c.velocity = global_max(topo, c.velocity);
  c.affine = global_max(topo, c.affine);
  c.water = global_max(topo, c.water);
  c.other_material = global_sum(topo, c.other_material);
  return c;
}

// The same against a one-rank run that every rank holds whole (on MPI_COMM_SELF).
inline RunComparison compare_with_reference(const Simulation& sim, const Simulation& reference) {
  return compare_with_reference(sim, reference.particles());
}

// The run holds exactly the reference's particles, each once.
inline void expect_same_particles(const RunComparison& c) {
  EXPECT_TRUE(c.references_agree) << "the ranks' one-rank reference runs differ in size";
  EXPECT_EQ(c.particles, c.reference_particles) << "particles in the run and in the reference";
  EXPECT_EQ(c.unknown, 0) << "particles whose id the reference does not have";
  EXPECT_EQ(c.missing, 0) << "reference particles that no rank holds";
  EXPECT_EQ(c.duplicated, 0) << "reference particles held more than once";
}

// How many attribute values of this rank's particles differ between `a` and `b`, which hold
// the same particles in the same order (a run and its continuation after a restart on the
// same ranks): every attribute, in for_each_array's order, compared exactly.
inline int64_t differing_attribute_values(Particles& a, Particles& b) {
  std::vector<const void*> arrays_of_b;
  b.for_each_array([&](auto& array) { arrays_of_b.push_back(&array); });
  int64_t differing = 0;
  size_t attribute = 0;
  a.for_each_array([&](auto& array) {
    const auto& other =
        *static_cast<const std::decay_t<decltype(array)>*>(arrays_of_b[attribute++]);
    for (size_t n = 0; n < array.size(); ++n) differing += !(array[n] == other[n]);
  });
  return differing;
}

}  // namespace dunesim::test
