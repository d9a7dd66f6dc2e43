// Checkpoints: every particle attribute and grid field survives a write and a read, rotation
// keeps the newest files, and a restarted simulation (water, and the default sand model)
// continues bit for bit on the same number of ranks and within the rank-count bounds of
// compare_runs.hpp on another number.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <type_traits>

#include "decomposition/reductions.hpp"
#include "io/checkpoint.hpp"
#include "io/checkpoint_rank_table.hpp"
#include "src/driver/simulation.hpp"
#include "src/driver/simulation_checkpoint.hpp"
#include "tests/compare_runs.hpp"
#include "tests/scenes.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;
using test::world_rank;
using test::world_size;
namespace fs = std::filesystem;

namespace {

// An empty directory for one test of this file.
std::string fresh_directory(const std::string& test) {
  return test::fresh_directory("test_checkpoint", test);
}

// A value for attribute number `attribute` of the particle with global index g that differs
// between attributes and particles, whatever the element type (a row of values, as the
// affine velocity's nine, differs between its columns too).
template <class T>
T attribute_value(int64_t g, int attribute) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(0.25 * g + 1000.0 * attribute + 0.125);
  } else if constexpr (std::is_integral_v<T>) {
    return T((g * 7 + attribute * 13) % 100 + 1);
  } else {
    T row;
    for (size_t c = 0; c < row.size(); ++c)
      row[c] = attribute_value<typename T::value_type>(g, attribute) + 0.5f * float(c);
    return row;
  }
}

// This rank's particles: global indices [first, first + count), every attribute filled.
Particles numbered_particles(int64_t first, int64_t count) {
  Particles p;
  p.carry_stress(true);  // every attribute there is
  p.carry_affine(true);
  p.resize(size_t(count));
  int attribute = 0;
  p.for_each_array([&](auto& array) {
    using T = typename std::decay_t<decltype(array)>::value_type;
    for (int64_t i = 0; i < count; ++i)
      array[size_t(i)] = attribute_value<T>(first + i, attribute);
    ++attribute;
  });
  return p;
}

// True when every attribute of particle n of `p` holds global index g's values.
bool holds_particle(Particles& p, size_t n, int64_t g) {
  bool same = true;
  int attribute = 0;
  p.for_each_array([&](auto& array) {
    using T = typename std::decay_t<decltype(array)>::value_type;
    same = same && array[n] == attribute_value<T>(g, attribute++);
  });
  return same;
}

double pressure_value(int i, int j, int k) { return 1.5 * i - 0.25 * j + 100.0 * k + 0.5; }

// A water column collapsing while a jet pours in, so that restarts also continue emission.
CaseConfig small_dam_break() {
  CaseConfig c = test::water_box_case({0.4, 0.2, 0.3}, 0.02, {0, 0, 0}, {0.16, 0.2, 0.18}, 1.0);
  SourceSpec jet;
  jet.shape.min = {0.28, 0.06, 0.22};
  jet.shape.max = {0.32, 0.14, 0.26};
  jet.velocity = {0.0, 0.0, -0.5};
  jet.emit_until = 1.0;
  c.sources.push_back(jet);
  return c;
}

void run_steps(Simulation& sim, int steps) {
  for (int s = 0; s < steps; ++s) sim.step(sim.stable_dt());
}

constexpr int kStepsBefore = 15;  // crosses a particle sort (every 10 steps) on both sides
constexpr int kStepsAfter = 15;

// A restart on another rank count against the run it continues: the same particles, each
// once, of the same materials, and positions, velocities, affine velocities and water
// contents within the rank-count bounds (see Restart tests below).
void expect_same_run_within_rank_count_bounds(const Simulation& run, const Simulation& reference,
                                              double cell_size) {
  const test::RunComparison comparison = test::compare_with_reference(run, reference);
  test::expect_same_particles(comparison);
  ::testing::Test::RecordProperty("max_position_difference_m",
                                  std::to_string(comparison.position));
  EXPECT_LT(comparison.position, test::kRankCountToleranceCells * cell_size);
  EXPECT_LT(comparison.velocity, test::kRankCountToleranceCells * cell_size / 0.004);
  EXPECT_LT(comparison.affine, test::kRankCountToleranceCells / 0.004);
  EXPECT_LT(comparison.water, test::kRankCountToleranceWater);
  EXPECT_EQ(comparison.other_material, 0) << "particles of another material";
}

}  // namespace

TEST(CheckpointFile, RoundTripsEveryAttributeAndGridField) {
  const std::string dir = fresh_directory("round_trip");
  Topology topo(MPI_COMM_WORLD, {8, 6, 5}, 1);
  // Uneven counts, one rank possibly empty: rank r holds 3r + 1 particles, the last none.
  const int rank = world_rank(), size = world_size();
  const int64_t count = rank == size - 1 && size > 1 ? 0 : 3 * rank + 1;
  const int64_t first = exclusive_prefix_sum(topo, count);
  const int64_t total = global_sum(topo, count);
  Particles written = numbered_particles(first, count);
  Array3<double> pressure(topo.local(Stagger::Cell), Stagger::Cell, -1.0);
  for_each_index(topo.owned_cells(rank),
                 [&](int i, int j, int k) { pressure(i, j, k) = pressure_value(i, j, k); });

  CheckpointWriter writer(MPI_COMM_WORLD, dir, 3);
  const CheckpointCase source{"cases/x.toml", "x", "[case]\nname = \"x\"\n# \xc3\xa9\n"};
  const RunProgress progress{0.375, 42, 1.0 / 3.0, 7};
  const std::string path =
      writer.write(topo, source, progress, written, {{"pressure", &pressure}});
  EXPECT_EQ(path, (fs::path(dir) / "checkpoint_000000042.h5").string());

  CheckpointReader reader(MPI_COMM_WORLD, find_checkpoint(MPI_COMM_WORLD, dir, "latest"));
  EXPECT_EQ(reader.path(), path);
  EXPECT_EQ(reader.source().file, source.file);
  EXPECT_EQ(reader.source().name, source.name);
  EXPECT_EQ(reader.source().text, source.text);
  EXPECT_EQ(reader.progress().time, progress.time);
  EXPECT_EQ(reader.progress().steps, progress.steps);
  EXPECT_EQ(reader.progress().last_dt, progress.last_dt);
  EXPECT_EQ(reader.progress().frames_written, progress.frames_written);
  EXPECT_EQ(reader.ranks(), size);
  EXPECT_EQ(reader.cuts(), topo.starts());
  EXPECT_EQ(reader.cells(), topo.global_cells());
  EXPECT_EQ(reader.particle_count(), total);

  // Same rank count: exactly this rank's particles, in their order.
  Particles read = reader.read_particles();
  ASSERT_EQ(read.size(), written.size());
  for (size_t n = 0; n < read.size(); ++n)
    EXPECT_TRUE(holds_particle(read, n, first + int64_t(n))) << "particle " << first + int64_t(n);

  EXPECT_TRUE(reader.has_cell_field("pressure"));
  EXPECT_FALSE(reader.has_cell_field("wall_force_x"));  // a field this file was written without
  Array3<double> restored(topo.local(Stagger::Cell), Stagger::Cell, -1.0);
  reader.read_cell_field("pressure", topo.owned_cells(rank), restored);
  for_each_index(topo.owned_cells(rank), [&](int i, int j, int k) {
    EXPECT_EQ(restored(i, j, k), pressure_value(i, j, k)) << i << " " << j << " " << k;
  });

  // Another rank count (one): everything, in the order of the ranks that wrote it.
  CheckpointReader alone(MPI_COMM_SELF, path);
  Particles all = alone.read_particles();
  ASSERT_EQ(int64_t(all.size()), total);
  for (size_t n = 0; n < all.size(); ++n) EXPECT_TRUE(holds_particle(all, n, int64_t(n)));
  Array3<double> whole({{0, 0, 0}, {8, 6, 5}}, Stagger::Cell, -1.0);
  alone.read_cell_field("pressure", whole.box(), whole);
  for_each_index(whole.box(), [&](int i, int j, int k) {
    EXPECT_EQ(whole(i, j, k), pressure_value(i, j, k));
  });
}

// A checkpoint records the run in /run as frames do (the case's file and text from its
// source, the ranks that wrote it); one written before /run existed has none, and restores
// all the same.
TEST(CheckpointFile, RecordsTheRunAndRestoresWithoutIt) {
  const std::string dir = fresh_directory("run_group");
  Topology topo(MPI_COMM_WORLD, {8, 6, 5}, 1);
  const int rank = world_rank();
  const int64_t count = 2 * rank + 3;
  Particles written = numbered_particles(exclusive_prefix_sum(topo, count), count);
  Array3<double> pressure(topo.local(Stagger::Cell), Stagger::Cell, 2.0);
  CheckpointCase source{"cases/x.toml", "x", "[case]\nname = \"x\"\n", {}};
  source.run.dunesim_version = "9.8.7";
  source.run.cell_size = 0.1;
  source.run.cells = {8, 6, 5};
  source.run.domain_upper = {0.8, 0.6, 0.5};
  source.run.gravity = {0, 0, -9.81};
  source.run.material_names = {"water", "dune sand"};
  source.run.material_kinds = {"water", "sand"};
  CheckpointWriter writer(MPI_COMM_WORLD, dir, 1);
  const std::string path =
      writer.write(topo, source, {0.5, 7, 0.01, 1}, written, {{"pressure", &pressure}});
  if (rank == 0) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    std::optional<RunRecord> run;
    EXPECT_NO_THROW(run = read_run_group(file));
    EXPECT_TRUE(run.has_value());
    if (run) {
      EXPECT_EQ(run->dunesim_version, "9.8.7");
      EXPECT_EQ(run->ranks, world_size());
      EXPECT_EQ(run->case_file, source.file);
      EXPECT_EQ(run->case_text, source.text);
      EXPECT_EQ(run->cell_size, 0.1);
      EXPECT_EQ(run->cells, (std::array<int64_t, 3>{8, 6, 5}));
      EXPECT_EQ(run->domain_upper, source.run.domain_upper);
      EXPECT_EQ(run->gravity, source.run.gravity);
      EXPECT_EQ(run->material_names, source.run.material_names);
      EXPECT_EQ(run->material_kinds, source.run.material_kinds);
    }
    EXPECT_GE(H5Ldelete(file, "run", H5P_DEFAULT), 0);  // as written before /run
    H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CheckpointReader reader(MPI_COMM_WORLD, path);
  EXPECT_EQ(reader.read_particles().size(), written.size());
  Array3<double> restored(topo.local(Stagger::Cell), Stagger::Cell, -1.0);
  reader.read_cell_field("pressure", topo.owned_cells(rank), restored);
  for_each_index(topo.owned_cells(rank),
                 [&](int i, int j, int k) { EXPECT_EQ(restored(i, j, k), 2.0); });
}

// Counts held in bytes (the steps loose sand has rested) are stored as bytes and read back as
// they were; checkpoints that stored them as doubles read into the same bytes.
TEST(CheckpointFile, RoundTripsCountsInBytesAndReadsThemFromDoubles) {
  const std::string dir = fresh_directory("counts");
  Topology topo(MPI_COMM_WORLD, {8, 6, 5}, 1);
  const int rank = world_rank();
  auto count_of = [](int i, int j, int k) { return uint8_t((37 * i + 11 * j + 5 * k) % 256); };
  Array3<uint8_t> counts(topo.local(Stagger::Cell), Stagger::Cell, 0);
  Array3<double> as_doubles(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  for_each_index(topo.owned_cells(rank), [&](int i, int j, int k) {
    counts(i, j, k) = count_of(i, j, k);
    as_doubles(i, j, k) = count_of(i, j, k);
  });
  CheckpointWriter writer(MPI_COMM_WORLD, dir, 1);
  const std::string path =
      writer.write(topo, {"c.toml", "c", "text"}, {0.1, 1, 0.1, 0}, numbered_particles(0, 0),
                   {{"rest_bytes", &counts}, {"rest_doubles", &as_doubles}});
  CheckpointReader reader(MPI_COMM_WORLD, path);
  for (const char* name : {"rest_bytes", "rest_doubles"}) {
    Array3<uint8_t> restored(topo.local(Stagger::Cell), Stagger::Cell, 255);
    reader.read_cell_counts(name, topo.owned_cells(rank), restored);
    for_each_index(topo.owned_cells(rank), [&](int i, int j, int k) {
      EXPECT_EQ(restored(i, j, k), count_of(i, j, k)) << name << " " << i << " " << j << " " << k;
    });
  }
}

// Counts stored as doubles (older checkpoints) that are no byte are damage, named on every rank.
TEST(CheckpointFile, RefusesStoredCountsThatAreNoByte) {
  const std::string dir = fresh_directory("bad_counts");
  Topology topo(MPI_COMM_WORLD, {8, 6, 5}, 1);
  const int rank = world_rank();
  for (const double bad : {300.0, 2.5, -1.0, std::nan("")}) {
    Array3<double> as_doubles(topo.local(Stagger::Cell), Stagger::Cell, 3.0);
    if (topo.owned_cells(rank).contains(7, 5, 4)) as_doubles(7, 5, 4) = bad;
    CheckpointWriter writer(MPI_COMM_WORLD, dir, 1);
    const std::string path = writer.write(topo, {"c.toml", "c", "text"}, {0.1, 1, 0.1, 0},
                                          numbered_particles(0, 0), {{"rest", &as_doubles}});
    CheckpointReader reader(MPI_COMM_WORLD, path);
    Array3<uint8_t> restored(topo.local(Stagger::Cell), Stagger::Cell, 0);
    try {
      reader.read_cell_counts("rest", topo.owned_cells(rank), restored);
      ADD_FAILURE() << bad << " was read as a count";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("'grid/rest' holds"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
    }
  }
}

// The room a checkpoint asks for before it is written (checkpoint_file_bytes) against the
// file then written: never less, and at most 1.25 times it plus 64 KiB. Every chunk of a
// checksummed dataset is stored whole, the last one too, so a dataset just over one chunk
// takes two; a grid of 120 x 100 x 30 cells is stored in chunks of ten 96,000-byte z-slabs.
TEST(CheckpointFile, RoomAskedForIsATightUpperBoundOfTheFile) {
  struct Shape {
    int64_t particles;
    Index3 cells;
  };
  for (const Shape& shape : {Shape{2048, {8, 8, 8}}, Shape{150000, {120, 100, 30}}}) {
    const int64_t particles = shape.particles;
    const std::string dir = fresh_directory("room_" + std::to_string(particles));
    Topology topo(MPI_COMM_WORLD, shape.cells, 1);
    const int rank = world_rank(), size = world_size();
    const int64_t first = particles * rank / size;
    const int64_t count = particles * (rank + 1) / size - first;
    Particles written = numbered_particles(first, count);
    Array3<double> pressure(topo.local(Stagger::Cell), Stagger::Cell, 1.0);
    Array3<uint8_t> counts(topo.local(Stagger::Cell), Stagger::Cell, 3);  // stored as bytes
    const CheckpointCase source{"cases/x.toml", "x", std::string(3000, '#')};
    const std::vector<CellField> fields{{"pressure", &pressure}, {"counts", &counts}};
    CheckpointWriter writer(MPI_COMM_WORLD, dir, 1);
    const std::string path = writer.write(topo, source, {0.5, 7, 0.01, 1}, written, fields);
    const uint64_t asked = checkpoint_file_bytes(source, particles, written, topo, fields);
    if (rank != 0) continue;
    const uint64_t real = fs::file_size(path);
    RecordProperty("bytes_" + std::to_string(particles), std::to_string(real));
    RecordProperty("asked_bytes_" + std::to_string(particles), std::to_string(asked));
    EXPECT_GE(asked, real) << particles << " particles";
    EXPECT_LE(asked, real + real / 4 + (64 << 10)) << particles << " particles";
  }
}

TEST(CheckpointFile, KeepsTheNewestAndLatestNamesTheLast) {
  const std::string dir = fresh_directory("rotation");
  Topology topo(MPI_COMM_WORLD, {8, 6, 5}, 1);
  Particles particles = numbered_particles(10 * world_rank(), 10);
  Array3<double> pressure(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  if (world_rank() == 0) {
    // A later checkpoint of an abandoned run, and the leftover of a killed write.
    std::ofstream(fs::path(dir) / "checkpoint_000000900.h5") << "abandoned";
    std::ofstream(fs::path(dir) / "checkpoint_000000001.h5.tmp") << "interrupted";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CheckpointWriter writer(MPI_COMM_WORLD, dir, 2);
  for (int64_t step : {5, 10, 15, 20})
    writer.write(topo, {"c.toml", "c", "text"}, {0.1 * step, step, 0.1, 0}, particles,
                 {{"pressure", &pressure}});
  MPI_Barrier(MPI_COMM_WORLD);
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  EXPECT_EQ(names, (std::set<std::string>{"checkpoint_000000015.h5", "checkpoint_000000020.h5",
                                          "checkpoint_000000900.h5", "checkpoint_latest"}));
  std::ifstream latest(fs::path(dir) / "checkpoint_latest");
  std::string name;
  std::getline(latest, name);
  EXPECT_EQ(name, "checkpoint_000000020.h5");
  EXPECT_EQ(find_checkpoint(MPI_COMM_WORLD, dir, "latest"),
            (fs::path(dir) / "checkpoint_000000020.h5").string());
}

TEST(CheckpointFile, ErrorsNameTheFileOnEveryRank) {
  const std::string dir = fresh_directory("errors");
  const std::string missing = (fs::path(dir) / "checkpoint_000000001.h5").string();
  try {
    CheckpointReader reader(MPI_COMM_WORLD, missing);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  try {
    find_checkpoint(MPI_COMM_WORLD, dir, "latest");
    ADD_FAILURE() << "no error without checkpoint_latest";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint_latest"), std::string::npos) << e.what();
  }
  // A truncated file, as a write killed before its rename would leave under a .tmp name.
  const std::string truncated = (fs::path(dir) / "truncated.h5").string();
  if (world_rank() == 0) std::ofstream(truncated) << "\x89HDF\r\n\x1a\n";
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_THROW(CheckpointReader(MPI_COMM_WORLD, truncated), std::runtime_error);
}

// The per-rank table a restart reads rows through: rows in rank order, no gap, no overlap,
// adding up to particle_count (a damaged table was read through before it was checked).
TEST(CheckpointRankTable, AcceptsRowsInRankOrderAndNamesWhatIsWrong) {
  EXPECT_EQ(rank_table_problem({{3, 0, 5}, {0, 3, 3}}, 8), "");
  EXPECT_EQ(rank_table_problem({{}, {}}, 0), "");
  const std::pair<RankTable, const char*> damaged[] = {
      {{{3, 6}, {0, 3}}, "rank 1 holds 6 particles, but only 5"},  // more than particle_count
      {{{3, -1}, {0, 3}}, "rank 1 holds -1 particles"},            // negative
      {{{3, 4}, {0, 4}}, "rank 1's particles start at row 4, expected 3"},  // a gap
      {{{3, 5}, {0, 2}}, "rank 1's particles start at row 2, expected 3"},  // an overlap
      {{{3, 4}, {0, 3}}, "the ranks hold 7 particles in all, expected particle_count = 8"},
      {{{3, 5}, {0}}, "differ in length"}};
  for (const auto& [table, words] : damaged) {
    const std::string problem = rank_table_problem(table, 8);
    EXPECT_NE(problem.find(words), std::string::npos) << problem;
  }
  EXPECT_NE(rank_table_problem({{0}, {0}}, -1).find("particle_count is -1"), std::string::npos);
}

// Runs `config` for kStepsBefore steps, checkpoints, runs kStepsAfter more, and expects the
// run restarted from the checkpoint to reach the same state bit for bit. Returns the
// restarted run for further checks.
std::unique_ptr<Simulation> expect_bitwise_continuation(const CaseConfig& config,
                                                        const std::string& dir) {
  Simulation original(config, MPI_COMM_WORLD);
  run_steps(original, kStepsBefore);
  CheckpointWriter writer(MPI_COMM_WORLD, dir, 1);
  const std::string path = write_checkpoint(writer, original, 0.004, 0);
  const BlockCuts cuts_then = original.topology().starts();  // load balancing may move them
  run_steps(original, kStepsAfter);

  CheckpointReader reader(MPI_COMM_WORLD, path);
  std::unique_ptr<Simulation> restarted = restore_simulation(config, reader, MPI_COMM_WORLD);
  EXPECT_EQ(restarted->topology().starts(), cuts_then);
  EXPECT_EQ(restarted->steps(), kStepsBefore);
  run_steps(*restarted, kStepsAfter);

  EXPECT_EQ(restarted->time(), original.time());
  EXPECT_EQ(restarted->steps(), original.steps());
  Particles& a = const_cast<Particles&>(original.particles());
  Particles& b = const_cast<Particles&>(restarted->particles());
  const Topology& topo = original.topology();
  EXPECT_EQ(global_sum(topo, int64_t(b.size())), global_sum(topo, int64_t(a.size())))
      << "particles over all ranks, restarted against uninterrupted";
  // Decided on all ranks together: a rank that returned alone would leave the others
  // waiting in the sums below.
  if (any_rank(topo, a.size() != b.size())) {
    ADD_FAILURE() << "a rank holds another number of particles after the restart";
    return restarted;
  }
  EXPECT_EQ(global_sum(topo, test::differing_attribute_values(a, b)), 0)
      << "particle attribute values that differ";
  const Box owned = topo.owned_cells(world_rank());
  for_each_index(owned, [&](int i, int j, int k) {
    ASSERT_EQ(original.grid().pressure(i, j, k), restarted->grid().pressure(i, j, k));
  });
  return restarted;
}

TEST(Restart, SameRankCountContinuesBitForBit) {
  std::unique_ptr<Simulation> restarted =
      expect_bitwise_continuation(small_dam_break(), fresh_directory("bitwise"));
  // The jet kept pouring after the restart.
  EXPECT_GT(global_sum(restarted->topology(), restarted->emitted_particles()), 0);
  // Without porous sand no water moves: the particles carry no water content, restarted or not.
  EXPECT_FALSE(restarted->particles().carries_water);
}

// Elastic-plastic sand keeps its stress on the particles: a restart carries it, so a
// slumping cut continues bit for bit, stress included.
TEST(Restart, ElasticPlasticSandContinuesBitForBit) {
  CaseConfig c = test::water_box_case({0.3, 0.04, 0.15}, 0.01, {0, 0, 0}, {0.1, 0.04, 0.12}, 1.0);
  MaterialSpec& sand = c.materials[0];
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.cohesion = 100;  // below the cut's critical 272 Pa: it slumps
  sand.rheology.kind = SandRheology::Kind::ElasticPlastic;
  std::unique_ptr<Simulation> restarted =
      expect_bitwise_continuation(c, fresh_directory("elastic_plastic"));
  const Particles& p = restarted->particles();
  double largest = 0;
  for (size_t n = 0; n < p.size(); ++n)
    largest = std::max(largest, double(std::abs(p.stress[2][n])));
  EXPECT_GT(global_max(restarted->topology(), largest), 10.0) << "the sand carries stress, Pa";
}

namespace {

// A block of the default model's sand (phi 30, rho 1600) in a 0.3 x 0.04 x 0.15 m slab at
// 1 cm cells, from the floor-side corner `lo` to `hi`, with `cohesion`.
CaseConfig default_model_sand_block(Vec3 lo, Vec3 hi, double cohesion) {
  CaseConfig c = test::water_box_case({0.3, 0.04, 0.15}, 0.01, lo, hi, 1.0);
  MaterialSpec& sand = c.materials[0];
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.friction_angle_deg = 30;
  sand.cohesion = cohesion;
  test::validated_model(sand);
  return c;
}

// The fastest velocity along x of the particles of `material` (any: -1), over all ranks.
double fastest_along_x(const Simulation& sim, int material = -1) {
  double fastest = 0;
  const Particles& p = sim.particles();
  for (size_t n = 0; n < p.size(); ++n)
    if (material < 0 || p.material[n] == material) fastest = std::max(fastest, double(p.vx[n]));
  return global_max(sim.topology(), fastest);
}

}  // namespace

// The default sand model (APIC's affine velocities on the particles, rigid cells moving with
// their cluster, Culmann's wedges with cohesion reading the particles' velocities on the
// grid): a cut with 0.8 times Rankine's critical cohesion fails, and a restart in the middle of
// the failure continues bit for bit, every particle attribute and the pressure.
TEST(Restart, DefaultSandModelContinuesBitForBit) {
  const double cohesion = 0.8 * 1600 * 9.81 * 0.12 / (4 * std::sqrt(3.0));  // 0.8 c_crit, 218 Pa
  const CaseConfig c = default_model_sand_block({0, 0, 0}, {0.1, 0.04, 0.12}, cohesion);
  std::unique_ptr<Simulation> restarted =
      expect_bitwise_continuation(c, fresh_directory("default_sand"));
  EXPECT_GT(fastest_along_x(*restarted), 0.01) << "the cut fails, m/s";
}

// The default sand model on another rank count: a cohesionless block of it slumps, written
// on all ranks after 45 steps (0.42 s, the runout slowing at 0.09 m/s) and continued on one
// (MPI_COMM_SELF, on every rank) for 15 steps, while the sand comes to rest. Every attribute
// the run carries is held to the rank-count bounds of compare_runs.hpp: positions to
// kRankCountToleranceCells, velocities to the same per 4 ms step, APIC's affine velocities to
// that per cell, water contents to kRankCountToleranceWater, materials exactly. The scene is
// chosen for not amplifying round-off: this continuation on one rank ended 4.9e-11 m (2
// ranks) and 4.6e-10 m (4 ranks) from the uninterrupted run, 2e4 times inside the bound. A
// failing cut does not keep so close: on 4 ranks the cut of the bitwise test above parts from
// one rank's by about 1e-7 m a step while its wedges fail (3.2e-6 m 15 steps after the same
// checkpoint, a third of the bound; 2.5 mm after 30 steps run from the start).
TEST(Restart, DefaultSandModelContinuesOnAnotherRankCount) {
  SKIP_IN_A_ONE_RANK_JOB();
  const CaseConfig config = default_model_sand_block({0, 0, 0}, {0.1, 0.04, 0.12}, 0);
  constexpr int kSlumpingSteps = 45;
  Simulation original(config, MPI_COMM_WORLD);
  run_steps(original, kSlumpingSteps);
  CheckpointWriter writer(MPI_COMM_WORLD, fresh_directory("default_sand_all_to_one"), 1);
  const std::string path = write_checkpoint(writer, original, 0.004, 0);
  const double speed_then = fastest_along_x(original);
  run_steps(original, kStepsAfter);

  CheckpointReader reader(MPI_COMM_SELF, path);
  std::unique_ptr<Simulation> alone = restore_simulation(config, reader, MPI_COMM_SELF);
  run_steps(*alone, kStepsAfter);
  EXPECT_GT(speed_then, 0.05) << "the sand still runs out at the checkpoint, m/s";
  expect_same_run_within_rank_count_bounds(original, *alone, config.cell_size);
}

// Two sand materials (src/sand/sand_strength.hpp): each cell's strength comes from its
// particles' materials, which the checkpoint carries, so a bank whose weak upper layer fails
// over a strong one continues bit for bit after a restart.
TEST(Restart, LayeredSandContinuesBitForBit) {
  // 50 Pa: below the 0.06 m upper layer's critical 109 Pa, it fails.
  CaseConfig c = default_model_sand_block({0, 0, 0.06}, {0.1, 0.04, 0.12}, 50);
  test::add_strong_layer_under(c, 0.06);
  std::unique_ptr<Simulation> restarted =
      expect_bitwise_continuation(c, fresh_directory("layered_sand"));
  EXPECT_GT(fastest_along_x(*restarted, 0), 0.01) << "the weak layer fails, m/s";
}

// Rigid-plastic sand keeps its stress on the particles and the walls' friction force on the
// grid, each the warm start of the next step's solve (src/sand/rigid_plastic_sand.hpp): a
// restart carries both, so a cohesive block sliding down a tilted floor continues bit for
// bit. Without the friction force the restarted solve starts cold and ends within its
// tolerance of the uninterrupted one, not on it.
TEST(Restart, RigidPlasticSandContinuesBitForBit) {
  // 30 degrees, above atan(0.5) = 26.6: the block slides.
  const CaseConfig c =
      test::rigid_plastic_block_on_tilted_floor({0.3, 0.04, 0.15}, {0.1, 0.04, 0.06}, 30);
  std::unique_ptr<Simulation> restarted =
      expect_bitwise_continuation(c, fresh_directory("rigid_plastic"));
  EXPECT_GT(fastest_along_x(*restarted), 0.01) << "the block slides, m/s";
}

// Another rank count changes summation orders and the solver's numbering, like running on
// another number of ranks from the start: the bound of that comparison
// (kRankCountToleranceCells) applies to positions, the same bound per 4 ms step (a
// typical step here) to velocities, and that per cell to affine velocities (APIC's velocity
// differences across a cell); water contents are held to kRankCountToleranceWater.
TEST(Restart, WrittenOnAllRanksContinuesOnOne) {
  SKIP_IN_A_ONE_RANK_JOB();
  const std::string dir = fresh_directory("all_to_one");
  const CaseConfig config = small_dam_break();
  Simulation original(config, MPI_COMM_WORLD);
  run_steps(original, kStepsBefore);
  CheckpointWriter writer(MPI_COMM_WORLD, dir, 1);
  const std::string path = write_checkpoint(writer, original, 0.004, 0);
  run_steps(original, kStepsAfter);

  CheckpointReader reader(MPI_COMM_SELF, path);
  std::unique_ptr<Simulation> alone = restore_simulation(config, reader, MPI_COMM_SELF);
  EXPECT_EQ(alone->particles().size(), size_t(reader.particle_count()));
  run_steps(*alone, kStepsAfter);
  expect_same_run_within_rank_count_bounds(original, *alone, config.cell_size);
}

TEST(Restart, WrittenOnOneRankContinuesOnAll) {
  SKIP_IN_A_ONE_RANK_JOB();
  const std::string dir = fresh_directory("one_to_all");
  const CaseConfig config = small_dam_break();
  // Every rank computes the one-rank run as its reference; rank 0 also checkpoints it.
  Simulation alone(config, MPI_COMM_SELF);
  run_steps(alone, kStepsBefore);
  std::string path;
  if (world_rank() == 0) {
    CheckpointWriter writer(MPI_COMM_SELF, dir, 1);
    path = write_checkpoint(writer, alone, 0.004, 0);
  }
  run_steps(alone, kStepsAfter);
  MPI_Barrier(MPI_COMM_WORLD);

  CheckpointReader reader(MPI_COMM_WORLD, (fs::path(dir) / "checkpoint_000000015.h5").string());
  EXPECT_EQ(reader.ranks(), 1);
  std::unique_ptr<Simulation> restarted = restore_simulation(config, reader, MPI_COMM_WORLD);
  EXPECT_EQ(global_sum(restarted->topology(), int64_t(restarted->particles().size())),
            reader.particle_count());
  run_steps(*restarted, kStepsAfter);
  expect_same_run_within_rank_count_bounds(*restarted, alone, config.cell_size);
}

TEST(Restart, RejectsParticlesOutsideTheirBlock) {
  if (world_size() == 1) GTEST_SKIP() << "one rank owns every cell";
  Simulation sim(small_dam_break(), MPI_COMM_WORLD);
  Particles particles = sim.particles();
  if (world_rank() == 0 && particles.size() > 0) {
    // Move one particle into the last rank's block.
    const Box theirs = sim.topology().owned_cells(world_size() - 1);
    particles.x[0] = (theirs.lo[0] + 0.5) * 0.02;
    particles.y[0] = (theirs.lo[1] + 0.5) * 0.02;
    particles.z[0] = (theirs.lo[2] + 0.5) * 0.02;
  }
  EXPECT_THROW(sim.restore(particles, 0.1, 1), std::runtime_error);
}
