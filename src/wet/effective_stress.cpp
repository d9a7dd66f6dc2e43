#include "src/wet/effective_stress.hpp"

#include <algorithm>
#include <stdexcept>

namespace dunesim {

EffectivePressureWindow::EffectivePressureWindow(MacGrid& grid, double water_weight)
    : grid_(grid) {
  // Both cover the block's cells with its ghosts (MacGrid::allocate_pore_head), so a cell
  // has the same offset in each.
  if (!(grid.pore_head.box() == grid.pressure.box()))
    throw std::logic_error("EffectivePressureWindow: pore_head and pressure differ in layout");
  const double* head = grid.pore_head.data();
  double* pressure = grid.pressure.data();
  for (size_t n = 0; n < grid.pore_head.size(); ++n) {
    if (!(head[n] > 0)) continue;
    changed_.push_back(int64_t(n));
    flow_pressure_.push_back(pressure[n]);
    pressure[n] = std::max(pressure[n] - water_weight * head[n], 0.0);
  }
}

EffectivePressureWindow::~EffectivePressureWindow() {
  for (size_t n = 0; n < changed_.size(); ++n)
    grid_.pressure.data()[changed_[n]] = flow_pressure_[n];
}

}  // namespace dunesim
