#include "src/grid/extrapolation.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace dunesim {

namespace {

// States of a face during extrapolation.
constexpr uint8_t kUnknown = 0;  // no velocity yet
constexpr uint8_t kKnown = 1;    // has a velocity (from the fluid or an earlier layer)
constexpr uint8_t kQueued = 2;   // gets its velocity in the current layer: read as unknown

// found[n] = whether face n of the row starting at `row` (state entries, strides st) is
// unknown with a known face beside it; true if any is. One loop the compiler vectorises:
// most faces of a row are known, or far from the fluid.
bool unknown_beside_known(const uint8_t* row, const int64_t st[3], int length, uint8_t* found) {
  uint8_t any = 0;
  for (int n = 0; n < length; ++n) {
    const bool near_known = (row[n - st[0]] == kKnown) | (row[n + st[0]] == kKnown) |
                            (row[n - st[1]] == kKnown) | (row[n + st[1]] == kKnown) |
                            (row[n - st[2]] == kKnown) | (row[n + st[2]] == kKnown);
    found[n] = (row[n] == kUnknown) & near_known;
    any |= found[n];
  }
  return any != 0;
}

// One velocity component: `layers` layers of the band around the known faces. Faces on
// the edge of the local array are never written (they lack neighbours).
template <class MarkPlane>
void extrapolate_component(Array3<double>& v, Array3<uint8_t>& state, const Box& known,
                           int layers, MarkPlane&& mark_plane) {
  const Box& box = v.box();
  const Box inner = box.grown(-1);
  const int64_t st[3] = {v.stride(0), v.stride(1), v.stride(2)};
  const int nx = box.hi[0] - box.lo[0], ny = box.hi[1] - box.lo[1];
  double* vd = v.data();
  uint8_t* sd = state.data();
  auto in_inner = [&](int64_t o) {
    const int i = box.lo[0] + int(o % nx), j = box.lo[1] + int((o / nx) % ny),
              k = box.lo[2] + int(o / (int64_t(nx) * ny));
    return inner.contains(i, j, k);
  };

  // The first layer: the unknown faces next to known ones, found plane by plane along z as
  // soon as the planes beside it are marked (mark_plane), while they are in the cache.
  std::vector<int64_t> layer, next;
  const Box scanned = inner.intersect(known.grown(1));
  int marked_below = known.lo[2];  // the planes of `known` below this one are marked
  auto mark_below = [&](int k_end) {
    for (; marked_below < std::min(k_end, known.hi[2]); ++marked_below) mark_plane(marked_below);
  };
  // A row's tests first, then its few finds: queuing a face changes no other face's test.
  const int row_length = std::max(scanned.hi[0] - scanned.lo[0], 0);
  std::vector<uint8_t> found(size_t(row_length), 0);
  for (int k = scanned.lo[2]; k < scanned.hi[2]; ++k) {
    mark_below(k + 2);
    for (int j = scanned.lo[1]; j < scanned.hi[1]; ++j) {
      const int64_t first = v.offset(scanned.lo[0], j, k);
      if (!unknown_beside_known(sd + first, st, row_length, found.data())) continue;
      for (int n = 0; n < row_length; ++n)
        if (found[n]) {
          sd[first + n] = kQueued;
          layer.push_back(first + n);
        }
    }
  }
  mark_below(known.hi[2]);
  for (int l = 0; l < layers && !layer.empty(); ++l) {
    for (int64_t o : layer) {
      double sum = 0;
      int count = 0;
      for (int d = 0; d < 3; ++d)
        for (int64_t off : {-st[d], st[d]})
          if (sd[o + off] == kKnown) {
            sum += vd[o + off];
            ++count;
          }
      vd[o] = sum / count;  // count >= 1: a queued face touches a known one
    }
    for (int64_t o : layer) sd[o] = kKnown;
    if (l + 1 == layers) break;
    // The next layer can only be among the unknown neighbours of this one.
    next.clear();
    for (int64_t o : layer)
      for (int d = 0; d < 3; ++d)
        for (int64_t off : {-st[d], st[d]}) {
          const int64_t n = o + off;
          if (sd[n] == kUnknown && in_inner(n)) {
            sd[n] = kQueued;
            next.push_back(n);
          }
        }
    layer.swap(next);
  }
}

// Plane k of `faces` (the faces of the fluid's bounding box) marked: a face is known when
// it touches a fluid cell (fluid-solid faces included). A row along x at a time, from the
// cells' rows on either side; a row whose lower or upper cells leave the cell array (its
// edge) takes the checked form.
void mark_known_faces(const Array3<uint8_t>& type, int a, const Box& faces, int k,
                      Array3<uint8_t>& state) {
  const Box& cells = type.box();
  const int length = faces.hi[0] - faces.lo[0];
  for (int j = faces.lo[1]; j < faces.hi[1]; ++j) {
    const Index3 first_lo = lower_cell(a, faces.lo[0], j, k);
    const Index3 last{faces.hi[0] - 1, j, k};
    uint8_t* s = &state(faces.lo[0], j, k);
    if (cells.contains(first_lo[0], first_lo[1], first_lo[2]) &&
        cells.contains(last[0], last[1], last[2])) {
      const uint8_t* lo = &type(first_lo[0], first_lo[1], first_lo[2]);
      const uint8_t* hi = &type(faces.lo[0], j, k);
      for (int n = 0; n < length; ++n)
        s[n] = (lo[n] == kFluid || hi[n] == kFluid) ? kKnown : kUnknown;
      continue;
    }
    for (int n = 0; n < length; ++n) {
      const int i = faces.lo[0] + n;
      const Index3 lo = lower_cell(a, i, j, k);
      const bool lo_fluid =
          cells.contains(lo[0], lo[1], lo[2]) && type(lo[0], lo[1], lo[2]) == kFluid;
      const bool hi_fluid = cells.contains(i, j, k) && type(i, j, k) == kFluid;
      s[n] = (lo_fluid || hi_fluid) ? kKnown : kUnknown;
    }
  }
}

}  // namespace

void extrapolate_velocity(MacGrid& g, Halo& halo, int layers) {
  if (layers > halo.ghost_width())
    throw std::logic_error("extrapolate_velocity: more layers than ghost layers");
  // The face states are this stage's scratch, one component at a time: allocated here,
  // they are not resident while the pressure solve sets the run's peak memory.
  // Only the fluid's bounding box and a band of `layers` faces around it are visited: on a
  // rank whose block is mostly air, whole-array passes would cost more than the band.
  const Box fluid = bounding_box_where(g.cell_type, [](uint8_t type) { return type == kFluid; });
  Array3<uint8_t> state;
  for (int a = 0; a < 3; ++a) {
    const Box known = faces_of_cells(fluid, a).intersect(g.vel[a].box());
    if (known.empty()) continue;
    state.reset(g.vel[a].box(), face_stagger(a), kUnknown);
    extrapolate_component(g.vel[a], state, known, layers,
                          [&](int k) { mark_known_faces(g.cell_type, a, known, k, state); });
  }
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
}

}  // namespace dunesim
