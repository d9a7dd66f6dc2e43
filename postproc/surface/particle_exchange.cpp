#include "postproc/surface/particle_exchange.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <climits>
#include <stdexcept>

#include "io/rank_agreement.hpp"

namespace dunesim {

namespace {

// The coordinates [lo, hi] along the layout's axis between which a rank needs particles.
struct Band {
  int rank;
  double lo, hi;
};

// The bands of the ranks that have a slab, in rank order: both their ends grow with the
// rank, so the bands that contain a point are consecutive.
std::vector<Band> particle_bands(const SlabLayout& layout, double reach) {
  std::vector<Band> bands;
  for (int r = 0; r < layout.ranks(); ++r) {
    if (!layout.has_slab(r)) continue;
    const auto [lo, hi] = layout.particle_band(r, reach);
    bands.push_back({r, lo, hi});
  }
  return bands;
}

// Calls send(rank) for every rank whose band contains coordinate `x`.
template <class Send>
void for_each_destination(const std::vector<Band>& bands, double x, Send&& send) {
  auto band = std::lower_bound(bands.begin(), bands.end(), x,
                               [](const Band& b, double value) { return b.hi < value; });
  for (; band != bands.end() && band->lo <= x; ++band) send(band->rank);
}

// Exclusive prefix sums, as MPI's int displacements; throws when they pass INT_MAX.
std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size());
  int64_t total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = int(total);
    total += counts[r];
    if (total > INT_MAX) throw std::runtime_error("too many particles for one MPI_Alltoallv");
  }
  return offsets;
}

// Doubles for each rank (`width` per particle: x, y, z and the value if any), packed rank
// after rank.
struct Outgoing {
  std::vector<int> counts, offsets;
  std::vector<double> values;
};

Outgoing pack(const SurfaceParticles& mine, const std::vector<Band>& bands, int axis, int ranks,
              int width) {
  Outgoing out;
  std::vector<int64_t> counts(size_t(ranks), 0);
  for (const Vec3& x : mine.position)
    for_each_destination(bands, x[axis], [&](int r) { counts[r] += width; });
  for (int64_t count : counts)
    if (count > INT_MAX) throw std::runtime_error("too many particles for one MPI_Alltoallv");
  out.counts.assign(counts.begin(), counts.end());
  out.offsets = displacements(out.counts);
  out.values.resize(size_t(out.offsets.back()) + size_t(out.counts.back()));
  std::vector<int> next = out.offsets;
  for (size_t p = 0; p < mine.position.size(); ++p) {
    const Vec3& x = mine.position[p];
    for_each_destination(bands, x[axis], [&](int r) {
      std::copy(x.begin(), x.end(), out.values.begin() + next[r]);
      if (width == 4) out.values[size_t(next[r]) + 3] = mine.value[p];
      next[r] += width;
    });
  }
  return out;
}

// The received rows of `width` doubles, sorted as rows (x, y, z, value).
SurfaceParticles sorted_particles(const std::vector<double>& received, int width) {
  const size_t n = received.size() / size_t(width);
  std::vector<std::array<double, 4>> rows(n, std::array<double, 4>{0, 0, 0, 0});
  for (size_t p = 0; p < n; ++p)
    std::copy_n(received.begin() + std::ptrdiff_t(p * size_t(width)), width, rows[p].begin());
  std::sort(rows.begin(), rows.end());
  SurfaceParticles particles;
  particles.has_values = width == 4;
  particles.position.resize(n);
  if (width == 4) particles.value.resize(n);
  for (size_t p = 0; p < n; ++p) {
    particles.position[p] = {rows[p][0], rows[p][1], rows[p][2]};
    if (width == 4) particles.value[p] = rows[p][3];
  }
  return particles;
}

}  // namespace

SurfaceParticles exchange_particles(MPI_Comm comm, const SurfaceParticles& mine,
                                    const SlabLayout& layout, double reach) {
  const int ranks = layout.ranks();
  const int width = mine.has_values ? 4 : 3;
  Outgoing out;
  agree_across_ranks(comm, [&] {
    out = pack(mine, particle_bands(layout, reach), layout.axis, ranks, width);
  });
  std::vector<int> counts(static_cast<size_t>(ranks)), offsets;
  MPI_Alltoall(out.counts.data(), 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::vector<double> received;
  agree_across_ranks(comm, [&] {
    offsets = displacements(counts);
    received.resize(size_t(offsets.back()) + size_t(counts.back()));
  });
  MPI_Alltoallv(out.values.data(), out.counts.data(), out.offsets.data(), MPI_DOUBLE,
                received.data(), counts.data(), offsets.data(), MPI_DOUBLE, comm);
  return sorted_particles(received, width);
}

}  // namespace dunesim
