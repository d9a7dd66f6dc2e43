// A value on some of the walls' faces (the faces between a solid and a non-solid cell), kept
// as a list per axis: the walls touch a thin layer of a block, where an array over the
// sand's box would hold, and clear every step, all of its faces.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace dunesim {

class WallFaceValues {
 public:
  // Adds the a-face at `offset` (an offset into grid.vel[a]) with `value`. Each axis takes
  // its faces in increasing order, as find_solid_boundary_faces lists them.
  void add(int a, int64_t offset, float value) {
    if (!offsets_[a].empty() && offset <= offsets_[a].back())
      throw std::logic_error("WallFaceValues::add: faces out of order");
    offsets_[a].push_back(offset);
    values_[a].push_back(value);
  }
  // The value of the a-face at `offset`, or nullptr where that face was not added.
  const float* find(int a, int64_t offset) const {
    const std::vector<int64_t>& list = offsets_[a];
    const auto at = std::lower_bound(list.begin(), list.end(), offset);
    if (at == list.end() || *at != offset) return nullptr;
    return &values_[a][size_t(at - list.begin())];
  }
  float* find(int a, int64_t offset) {
    return const_cast<float*>(static_cast<const WallFaceValues&>(*this).find(a, offset));
  }
  // The value of the a-face at `offset`, 0 where that face was not added.
  float value_or_zero(int a, int64_t offset) const {
    const float* v = find(a, offset);
    return v ? *v : 0.0f;
  }
  void clear() { *this = WallFaceValues{}; }

 private:
  std::array<std::vector<int64_t>, 3> offsets_;
  std::array<std::vector<float>, 3> values_;
};

}  // namespace dunesim
