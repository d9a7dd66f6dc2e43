#include "src/wet/effective_stress.hpp"

#include <algorithm>

namespace dunesim {

EffectivePressureWindow::EffectivePressureWindow(MacGrid& grid, double water_weight)
    : grid_(grid) {
  const Array3<double>& head = grid.pore_head;
  for (size_t n = 0; n < head.size(); ++n) {
    const double h = head.data()[n];
    if (!(h > 0)) continue;
    const Index3 c = head.index_of(int64_t(n));
    if (!grid.pressure.box().contains(c[0], c[1], c[2])) continue;
    double& p = grid.pressure(c[0], c[1], c[2]);
    changed_.push_back(&p - grid.pressure.data());
    flow_pressure_.push_back(p);
    p = std::max(p - water_weight * h, 0.0);
  }
}

EffectivePressureWindow::~EffectivePressureWindow() {
  for (size_t n = 0; n < changed_.size(); ++n)
    grid_.pressure.data()[changed_[n]] = flow_pressure_[n];
}

}  // namespace dunesim
