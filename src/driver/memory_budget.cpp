#include "src/driver/memory_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "decomposition/node_memory.hpp"
#include "io/input_file.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/particles/pore_water.hpp"
#include "src/sand/sand_model.hpp"

namespace dunesim {

namespace {

size_t grid_bytes_per_cell(const CaseConfig& config) {
  size_t bytes = MacGrid::kBytesPerCell;
  if (config.pressure.free_surface == FreeSurface::GhostFluid)
    bytes += MacGrid::kSurfaceBytesPerCell;
  // The first sand material's model and pore water are every sand material's.
  for (const MaterialSpec& m : config.materials) {
    if (m.kind != MaterialKind::Sand) continue;
    // The sand window's arrays follow the sand, not the domain: a lower bound leaves them out.
    if (m.wet.holds_water()) bytes += MacGrid::kPoreWaterBytesPerCell;
    if (m.wet.holds_water() && m.wet.pore_flow == PoreFlow::Richards)
      bytes += MacGrid::kRichardsBytesPerCell;
    if (m.wet.holds_water() && m.wet.soaked_friction == SoakedFriction::EffectiveStress)
      bytes += MacGrid::kEffectiveStressBytesPerCell;
    if (has_several_porosities(config.materials))
      bytes += MacGrid::kSeveralPorositiesBytesPerCell;
    bytes += make_sand_model(m)->block_bytes_per_cell();
    break;
  }
  return bytes;
}

}  // namespace

void check_grid_fits_memory(const CaseConfig& config, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const double cells = double(config.cells[0]) * config.cells[1] * config.cells[2];
  const double grid_bytes = cells * double(grid_bytes_per_cell(config));
  const double available = double(memory_per_rank(comm));
  if (grid_bytes / ranks <= available) return;
  const double ranks_needed = std::ceil(grid_bytes / available);
  throw CaseError(
      config.file, "domain.cell_size",
      "gives " + std::to_string(config.cells[0]) + " x " + std::to_string(config.cells[1]) +
          " x " + std::to_string(config.cells[2]) + " cells, whose grid arrays alone (" +
          std::to_string(grid_bytes_per_cell(config)) + " bytes per cell) need " +
          format_bytes(uint64_t(grid_bytes / ranks)) + " per rank on " + std::to_string(ranks) +
          " rank(s), more than the " + format_bytes(uint64_t(available)) +
          " of memory each rank has on its node; use a larger cell_size or at least " +
          std::to_string(int64_t(ranks_needed)) + " ranks");
}

}  // namespace dunesim
