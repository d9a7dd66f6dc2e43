// A mesh's distance grid as the case reader builds it on several ranks, each running a share
// of the exact queries and gathering the others' (samples_split_over), is the grid one
// process builds alone, value for value: every rank must seed and push out particles alike.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "io/case_config.hpp"
#include "io/triangle_mesh.hpp"

namespace dunesim {
namespace {

TEST(MeshSampling, RanksSharingTheQueriesBuildTheGridOneProcessBuilds) {
  const std::string bunny_file = std::string(DUNESIM_CASES_DIR) + "/meshes/bunny.obj";
  if (!std::filesystem::exists(bunny_file))
    GTEST_SKIP() << bunny_file << " is missing; cases/meshes/fetch_bunny.sh makes it";
  const CaseConfig config = load_case(DUNESIM_CASES_DIR "/sand_bunny.toml", MPI_COMM_WORLD);
  ASSERT_EQ(config.sources.size(), 1u);
  const MeshShape& shared = *config.sources[0].shape.mesh;
  TriangleMesh bunny = read_obj(bunny_file);
  bunny.transform(0.6, {0.3, 0.27, 0.1});  // as the case places it
  const MeshShape alone(bunny, shared.spacing());
  ASSERT_EQ(alone.node_counts(), shared.node_counts());

  // Points off the nodes, 0.37 spacings apart, over the grid and a margin around it.
  const auto [lo, hi] = bunny.bounds();
  const double step = 0.37 * shared.spacing();
  int differing = 0, inside = 0, points = 0;
  for (double z = lo[2] - 0.05; z < hi[2] + 0.05; z += step)
    for (double y = lo[1] - 0.05; y < hi[1] + 0.05; y += 3 * step)
      for (double x = lo[0] - 0.05; x < hi[0] + 0.05; x += 3 * step, ++points) {
        const double a = alone.signed_distance({x, y, z}), s = shared.signed_distance({x, y, z});
        if (std::memcmp(&a, &s, sizeof a) != 0) ++differing;
        if (s < 0.0) ++inside;
      }
  EXPECT_EQ(differing, 0) << "of " << points << " points";
  EXPECT_GT(inside, points / 20);  // the lattice does cross the bunny
}

}  // namespace
}  // namespace dunesim
