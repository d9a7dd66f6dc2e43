// Particles of one rank, stored as structure-of-arrays.
#pragma once
#include <cstdint>
#include <vector>

namespace dunesim {

struct Particles {
  std::vector<double> x, y, z;     // position, m
  std::vector<double> vx, vy, vz;  // velocity, m/s
  std::vector<int64_t> id;         // global id, unique across ranks and stable in time
  std::vector<uint8_t> material;   // index into the case's material list

  // Visits every per-particle array, so packing, sorting and I/O never miss one when an
  // attribute is added: add it here, and set it where particles are created
  // (add_source_particle in seeding.hpp).
  template <class F>
  void for_each_array(F&& f) {
    f(x); f(y); f(z); f(vx); f(vy); f(vz); f(id); f(material);
  }

  size_t size() const { return id.size(); }
  void resize(size_t n) {
    for_each_array([n](auto& v) { v.resize(n); });
  }
  void reserve(size_t n) {
    for_each_array([n](auto& v) { v.reserve(n); });
  }
  // Bytes that one particle takes in a packed message.
  size_t packed_bytes() {
    size_t bytes = 0;
    for_each_array([&](auto& v) { bytes += sizeof(v[0]); });
    return bytes;
  }
};

}  // namespace dunesim
