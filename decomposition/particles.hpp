// Particles of one rank, stored as structure-of-arrays.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "decomposition/mapped_allocator.hpp"

namespace dunesim {

// One particle's affine velocity (Particles::affine), 1/s.
using AffineVelocity = std::array<float, 9>;

struct Particles {
  ParticleVector<double> x, y, z;  // position, m
  // Velocity, m/s, in single precision: its 7 digits are far finer than the PIC/FLIP
  // transfer's own error, and it is 12 of the 57 bytes a particle would take in double.
  // Positions stay double: they integrate small displacements over many steps.
  ParticleVector<float> vx, vy, vz;
  ParticleVector<int64_t> id;        // global id, unique across ranks and stable in time
  ParticleVector<uint8_t> material;  // index into the case's material list
  // Water carried, as a volume in units of the particle's volume (the cell volume / 8): for
  // a sand particle its pore water n S (the volumetric water content theta, 0 when dry), for
  // a water particle the share of it not yet absorbed (1 when whole). Summed over all
  // particles it is the case's water, which absorption and percolation move but conserve.
  // Double: that sum must hold to round-off over a whole run.
  // Only runs with porous sand carry it (carries_water): without pores no water moves, a
  // water particle holds 1 and a sand particle 0 all run long, and the 8 bytes a particle
  // are 4% of a dry dune's memory. water_of(n) reads it either way.
  ParticleVector<double> water_content;
  bool carries_water = true;
  // What a particle of each material holds when the array is not carried.
  std::vector<double> water_when_not_carried;
  // Sand's deviatoric stress (xx yy zz xy xz yz, Pa, compression positive) under the
  // elastic-plastic rheology, which builds it up over the steps. Only runs with that
  // rheology carry it (carries_stress): the 24 bytes a particle would be a tenth of a large
  // run's memory. Without it these arrays stay empty and nothing visits them.
  std::array<ParticleVector<float>, 6> stress;
  bool carries_stress = false;
  // The affine velocity of the APIC transfer (Jiang et al. 2015), 1/s: affine[n][3 a + d]
  // is d(v_a)/d(x_d) around particle n, so that P2G spreads v_a + c_a . (x_face - x_p)
  // instead of v_a alone. Only runs with a material whose transfer is APIC or RPIC carry it
  // (carries_affine); particles of the other materials keep it at zero. A particle's nine
  // lie together: P2G reads and G2P writes all nine at once, and as nine arrays G2P's
  // stores went to nine places at once per particle (a fifth of its time on the dune).
  ParticleVector<AffineVelocity> affine;
  bool carries_affine = false;

  // Visits every per-particle array, so packing, sorting and I/O never miss one when an
  // attribute is added: add it here, and set it where particles are created
  // (add_source_particle in seeding.hpp).
  template <class F>
  void for_each_array(F&& f) {
    f(x);
    f(y);
    f(z);
    f(vx);
    f(vy);
    f(vz);
    f(id);
    f(material);
    if (carries_water) f(water_content);
    if (carries_stress)
      for (ParticleVector<float>& component : stress) f(component);
    if (carries_affine) f(affine);
  }
  // The same, read-only; it visits the one list above.
  template <class F>
  void for_each_array(F&& f) const {
    const_cast<Particles*>(this)->for_each_array([&](const auto& v) { f(v); });
  }

  size_t size() const { return id.size(); }
  double water_of(size_t n) const {
    return carries_water ? water_content[n] : water_when_not_carried[material[n]];
  }
  // Fills `array` with a zero (a value-initialised element) per particle, or frees it.
  template <class T>
  void start_or_drop(ParticleVector<T>& array, bool carry) {
    if (carry)
      array.assign(size(), T{});
    else
      ParticleVector<T>().swap(array);
  }
  // Starts or stops carrying the stress arrays (zero for every particle when started).
  void carry_stress(bool carry) {
    carries_stress = carry;
    for (ParticleVector<float>& component : stress) start_or_drop(component, carry);
  }
  // Starts or stops carrying the affine velocity (zero for every particle when started).
  void carry_affine(bool carry) {
    carries_affine = carry;
    start_or_drop(affine, carry);
  }
  // Starts carrying the water content, each particle starting from its material's entry
  // of `by_material` (what it held while not carried), or stops, each material's particles
  // then holding its entry.
  void carry_water(bool carry, const std::vector<double>& by_material) {
    if (carry && !carries_water) {
      water_content.resize(size());
      for (size_t n = 0; n < size(); ++n) water_content[n] = by_material[material[n]];
    }
    if (!carry) ParticleVector<double>().swap(water_content);
    carries_water = carry;
    water_when_not_carried = by_material;
  }
  // Carries the same optional arrays as `other` (for a copy built by append_packed).
  void carry_like(const Particles& other) {
    carry_stress(other.carries_stress);
    carry_affine(other.carries_affine);
    carry_water(other.carries_water, other.water_when_not_carried);
  }
  double speed_squared(size_t n) const {
    const double u = vx[n], v = vy[n], w = vz[n];
    return u * u + v * v + w * w;
  }
  double speed(size_t n) const { return std::sqrt(speed_squared(n)); }
  // Growth past an array's capacity reserves an eighth more than asked: capacity that is
  // mapped but not written costs no memory (ParticleVector), and migration and emission
  // then seldom copy whole arrays, which would briefly hold two copies of one.
  void resize(size_t n) {
    for_each_array([n](auto& v) {
      if (n > v.capacity()) v.reserve(n + n / 8);
      v.resize(n);
    });
  }
  void reserve(size_t n) {
    for_each_array([n](auto& v) { v.reserve(n); });
  }
  // Removes the particles for which keep(n) is false, keeping the others in order.
  template <class Keep>
  void keep_only(Keep&& keep) {
    size_t kept = 0;
    for (size_t n = 0; n < size(); ++n) {
      if (!keep(n)) continue;
      if (kept != n) copy_particle(n, kept);  // nothing to move until the first gap
      ++kept;
    }
    if (kept != size()) resize(kept);
  }
  // Copies particle `from` over particle `to`, e.g. to close the gaps that leavers leave.
  void copy_particle(size_t from, size_t to) {
    for_each_array([&](auto& v) { v[to] = v[from]; });
  }

  // A particle in a message is its element of every array, in for_each_array's order, so
  // migration and redistribution carry an added attribute without further work. This is
  // the bytes one particle takes there.
  size_t packed_bytes() const {
    size_t bytes = 0;
    for_each_array([&](const auto& v) { bytes += sizeof(v[0]); });
    return bytes;
  }
  // Writes particle n to `out` (packed_bytes() bytes) and returns the byte after it.
  char* pack(size_t n, char* out) const {
    for_each_array([&](const auto& v) {
      std::memcpy(out, &v[n], sizeof(v[n]));
      out += sizeof(v[n]);
    });
    return out;
  }
  // Appends `count` particles that pack() wrote one after another from `in`.
  void append_packed(const char* in, size_t count) {
    const size_t first = size();
    resize(first + count);
    for (size_t n = first; n < first + count; ++n)
      for_each_array([&](auto& v) {
        std::memcpy(&v[n], in, sizeof(v[n]));
        in += sizeof(v[n]);
      });
  }
};

}  // namespace dunesim
