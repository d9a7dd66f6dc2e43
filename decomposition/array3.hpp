// A 3D array addressed by GLOBAL grid indices over a box (a rank's block plus ghosts).
#pragma once
#include <cassert>
#include <vector>

#include "decomposition/box.hpp"

namespace dunesim {

template <class T>
class Array3 {
 public:
  Array3() = default;
  Array3(const Box& box, Stagger stagger, T value = T{}) { reset(box, stagger, value); }

  void reset(const Box& box, Stagger stagger, T value = T{}) {
    box_ = box;
    stagger_ = stagger;
    nx_ = box.hi[0] - box.lo[0];
    nxy_ = int64_t(nx_) * (box.hi[1] - box.lo[1]);
    data_.assign(static_cast<size_t>(box.volume()), value);
  }

  const Box& box() const { return box_; }
  Stagger stagger() const { return stagger_; }

  int64_t offset(int i, int j, int k) const {
    assert(box_.contains(i, j, k));
    return (i - box_.lo[0]) + nx_ * int64_t(j - box_.lo[1]) + nxy_ * int64_t(k - box_.lo[2]);
  }
  T& operator()(int i, int j, int k) { return data_[offset(i, j, k)]; }
  const T& operator()(int i, int j, int k) const { return data_[offset(i, j, k)]; }

  // Strides in elements along each axis, for hot loops that walk neighbours.
  int64_t stride(int axis) const { return axis == 0 ? 1 : axis == 1 ? nx_ : nxy_; }

  void fill(T value) { std::fill(data_.begin(), data_.end(), value); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  size_t size() const { return data_.size(); }

 private:
  Box box_;
  Stagger stagger_ = Stagger::Cell;
  int nx_ = 0;
  int64_t nxy_ = 0;
  std::vector<T> data_;
};

}  // namespace dunesim
