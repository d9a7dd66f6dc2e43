// The force of the sand's stress on the MAC faces, -div(sigma) (stencil and its reasons in
// the .cpp): once (apply_stress_divergence), or for the friction substeps, which apply the
// same classification several times a step, with the faces sorted once (StressDivergence).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/sand_plasticity.hpp"

namespace dunesim {

// The cells of mud, wet sand above its ideal saturation, whose stress has a viscous part:
// grid.saturation's data (the grid's cell box) and S'. No saturation: no mud.
struct MudCells {
  const float* saturation = nullptr;
  double ideal_saturation = 1.0;
};
// The most a rigid cell beside a row of mud scales the row's stress by when it stands in.
constexpr double kMudStandInRatio = 2.0;

// u <- u - dt/rho div(sigma) on the owned faces between two non-solid cells of which at
// least one is `yielding`; rho is the face density of the projection. `stress` (compression
// positive) and `yielding` must cover the grid's cell box, halo-filled, and `yielding` be
// zero outside `yielding_box` (only the faces of its cells are visited). Where grid.rigid
// and grid.pressure cover the cell box (halo-filled), a rigid cell next to a yielding one
// carries the frictional stress of the interface instead of its own, and the faces of rigid
// cells next to yielding faces take the opposite of the flux those faces take across their
// shared edges, so the rigid fit gives a cluster the friction of the flow it touches (see
// the .cpp). Stencil in the .cpp. Ghost faces are left as they were.
void apply_stress_divergence(const Topology& topo, MacGrid& grid, const StressField& stress,
                             const Array3<uint8_t>& yielding, const Box& yielding_box, double dt);

// A yielding face with an edge on the sand's boundary or a rigid neighbour standing in (see
// the .cpp): what its update reads besides the stress, decided once for a step's substeps.
// Edge e is 2 (rank of b among the axes other than a) + (side < 0).
struct EdgedYieldingFace {
  Index3 face;
  int64_t velocity;         // the face's offset in its component's velocity array
  int64_t lower, lower_s;   // its lower cell's offset in the grid's cell arrays and the sand's
  double density;           // face_density
  uint8_t on_boundary = 0;  // bit e: edge e lies on the sand's boundary and carries no flux
  uint8_t stands_in = 0;    // bit 2 e (2 e + 1): the lower (upper) cell's neighbour stands in
  uint8_t mud = 0;          // bit 0 (1): the lower (upper) cell's stand-in is bounded as mud's
};

// The stress divergence of one classification of the sand's cells, for as many updates as a
// step's substeps need. It reads `stress` when applied, so the yielding cells' stress may
// change between updates; the grid's cell types and rigid flags and `yielding` must not
// (each face's kind is decided from them here). Arguments as apply_stress_divergence's;
// `mud` names the cells whose stress may be viscous, for which a rigid neighbour stands in
// with at most kMudStandInRatio times their stress (see the .cpp).
class StressDivergence {
 public:
  StressDivergence(const Topology& topo, const MacGrid& grid, const StressField& stress,
                   const Array3<uint8_t>& yielding, const Box& yielding_box,
                   const MudCells& mud = {});

  // The rigid faces' reaction gathered aside, one value per face that takes it (a few faces
  // where a flow meets its bed, not an array over the sand).
  struct RigidReaction {
    std::array<std::vector<double>, 3> of_face;  // in the order of rigid_faces_[a]
  };
  // Zero for every face that takes a reaction.
  RigidReaction no_rigid_reaction() const;
  // Adds `reaction` to the velocities of the faces that took it.
  void add_rigid_reaction(const RigidReaction& reaction, MacGrid& grid) const;

  // u <- u - dt/rho div(sigma) on the faces apply_stress_divergence updates; the rigid
  // faces' reaction goes to `rigid_reaction` when given.
  void apply(MacGrid& grid, double dt, RigidReaction* rigid_reaction = nullptr) const;

  // How far apply_below has come through the faces.
  struct Progress {
    std::array<std::array<size_t, 3>, 3> next{};
  };
  // apply() on the faces whose k index is below k_end that `progress` has not passed, so
  // that the update can follow another sweep up the grid layer by layer. The faces are
  // listed in for_each_index order (k outermost), so those below k_end come first. A face of
  // layer k reads the stress of cells in layers k - 1 to k + 1 and changes no other face.
  void apply_below(MacGrid& grid, double dt, RigidReaction* rigid_reaction, int k_end,
                   Progress& progress) const;

 private:
  // Consecutive faces along x from (i, j, k).
  struct FaceRow {
    int i, j, k, length;
  };
  // Appends `count` faces along x from `face` to the last row where they continue it, else
  // as a row of their own.
  static void add_to_rows(std::vector<FaceRow>& rows, const Index3& face, int count = 1);
  // The update of the plain yielding faces of `row`, all at once.
  void apply_plain_row(MacGrid& grid, int a, const FaceRow& row, double dt) const;

  const StressField& stress_;
  const Array3<uint8_t>& yielding_;
  MudCells mud_;
  // Per component, the faces of the sand's cells that take the divergence, by how they take
  // it (FaceKind in the .cpp): the plain yielding ones in rows along x (most of the faces,
  // updated a row at a time), the other yielding ones and the rigid ones beside them.
  std::array<std::vector<FaceRow>, 3> plain_rows_;
  std::array<std::vector<EdgedYieldingFace>, 3> edged_faces_;
  std::array<std::vector<Index3>, 3> rigid_faces_;
};

}  // namespace dunesim
