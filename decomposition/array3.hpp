// A 3D array addressed by GLOBAL grid indices over a box (a rank's block plus ghosts).
#pragma once
#include <algorithm>
#include <cassert>
#include <iterator>
#include <vector>

#include "decomposition/box.hpp"
#include "decomposition/mapped_allocator.hpp"

namespace dunesim {

template <class T>
class Array3 {
 public:
  Array3() = default;
  Array3(const Box& box, Stagger stagger, T value = T{}) { reset(box, stagger, value); }

  void reset(const Box& box, Stagger stagger, T value = T{}) {
    reset_within(box, Box::everywhere(), stagger, value);
  }

  // An array over the part of `block` (a rank's block plus ghosts) inside `window`, a box of
  // the global grid that every rank agrees on: data that lives only near some material (sand
  // in a large domain) then takes memory only there. The halo verbs accept such arrays,
  // since each rank can work out what its neighbours' arrays cover.
  void reset_within(const Box& block, const Box& window, Stagger stagger, T value = T{}) {
    box_ = overlap(block, window);
    window_ = window;
    stagger_ = stagger;
    nx_ = box_.hi[0] - box_.lo[0];
    nxy_ = int64_t(nx_) * (box_.hi[1] - box_.lo[1]);
    const size_t size = static_cast<size_t>(box_.volume());
    if (size != data_.size()) data_ = {};  // assign() would keep a larger allocation
    data_.assign(size, value);
  }

  const Box& box() const { return box_; }
  const Box& window() const { return window_; }
  Stagger stagger() const { return stagger_; }

  int64_t offset(int i, int j, int k) const {
    assert(box_.contains(i, j, k));
    return (i - box_.lo[0]) + nx_ * int64_t(j - box_.lo[1]) + nxy_ * int64_t(k - box_.lo[2]);
  }
  // The grid index of the entry at `offset` (the inverse of offset()).
  Index3 index_of(int64_t offset) const {
    return {box_.lo[0] + int(offset % nx_), box_.lo[1] + int((offset / nx_) % (nxy_ / nx_)),
            box_.lo[2] + int(offset / nxy_)};
  }
  T& operator()(int i, int j, int k) { return data_[offset(i, j, k)]; }
  const T& operator()(int i, int j, int k) const { return data_[offset(i, j, k)]; }

  // Strides in elements along each axis, for hot loops that walk neighbours.
  int64_t stride(int axis) const { return axis == 0 ? 1 : axis == 1 ? nx_ : nxy_; }

  void fill(T value) { std::fill(data_.begin(), data_.end(), value); }
  // Fills the entries of `region` that lie in the array's box.
  void fill(const Box& region, T value) {
    const Box b = region.intersect(box_);
    if (b.empty()) return;
    for (int k = b.lo[2]; k < b.hi[2]; ++k)
      for (int j = b.lo[1]; j < b.hi[1]; ++j) {
        T* row = &(*this)(b.lo[0], j, k);
        std::fill(row, row + (b.hi[0] - b.lo[0]), value);
      }
  }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  size_t size() const { return data_.size(); }

 private:
  Box box_;
  Box window_ = Box::everywhere();
  Stagger stagger_ = Stagger::Cell;
  int nx_ = 0;
  int64_t nxy_ = 0;
  HugePageVector<T> data_;
};

// Bounding box of the entries for which is_marked(entry) holds (empty if there are none).
// Masks that mark a small part of a block use it to keep their loops inside that part.
template <class T, class Predicate>
Box bounding_box_where(const Array3<T>& array, Predicate&& is_marked) {
  const Box& b = array.box();
  if (b.empty()) return Box{};
  Box found{b.hi, b.lo};
  const int nx = b.hi[0] - b.lo[0];
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j) {
      const T* row = &array(b.lo[0], j, k);
      const T* first = std::find_if(row, row + nx, is_marked);
      if (first == row + nx) continue;
      const T* last = std::find_if(std::make_reverse_iterator(row + nx),
                                   std::make_reverse_iterator(first), is_marked)
                          .base();
      found.lo = {std::min(found.lo[0], b.lo[0] + int(first - row)), std::min(found.lo[1], j),
                  std::min(found.lo[2], k)};
      found.hi = {std::max(found.hi[0], b.lo[0] + int(last - row)), std::max(found.hi[1], j + 1),
                  std::max(found.hi[2], k + 1)};
    }
  return found.empty() ? Box{} : found;
}

template <class T>
Box nonzero_bounding_box(const Array3<T>& array) {
  return bounding_box_where(array, [](const T& entry) { return entry != T{}; });
}

}  // namespace dunesim
