// The force of the sand's stress on the MAC faces, -div(sigma) (stencil and its reasons in
// the .cpp). The one-shot apply_stress_divergence is declared in sand_plasticity.hpp; the
// friction substeps apply the same field several times a step, so the faces are sorted once.
#pragma once
#include <array>
#include <cstdint>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"
#include "src/mac_grid.hpp"
#include "src/sand_plasticity.hpp"

namespace dunesim {

// The stress divergence of one classification of the sand's cells, for as many updates as a
// step's substeps need. It reads `stress` when applied, so the yielding cells' stress may
// change between updates; the grid's cell types, rigid flags, pressure and density and
// `yielding` must not (they are read once, here). Arguments as apply_stress_divergence's.
class StressDivergence {
 public:
  StressDivergence(const Topology& topo, const MacGrid& grid, const StressField& stress,
                   const Array3<uint8_t>& yielding, const Box& yielding_box);

  // u <- u - dt/rho div(sigma) on the faces apply_stress_divergence updates; the rigid
  // faces' reaction goes to `rigid_reaction` when given.
  void apply(MacGrid& grid, double dt,
             std::array<Array3<double>, 3>* rigid_reaction = nullptr) const;

 private:
  const StressField& stress_;
  const Array3<uint8_t>& yielding_;
  // Per face of the sand's cells, how it takes the divergence (FaceKind in the .cpp).
  std::array<Array3<uint8_t>, 3> face_kind_;
};

}  // namespace dunesim
