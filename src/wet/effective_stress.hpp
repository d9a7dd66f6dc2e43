// Friction on the effective stress (Terzaghi): in soaked sand the pore water carries part of
// the load, and the grains' friction acts on the rest, p' = p - u. The flow's pressure p of a
// sand cell is the mixture's (grains and pore water); u = rho_w g max(h, 0) comes from the
// pressure head h of Richards' last solve (grid.pore_head), so it holds below a water table
// and under a pond, and rises where water seeps upward. Suction (h < 0) is left to the wet
// cohesion (wet_sand.hpp). Where u reaches p the sand has no friction (p' = 0: liquefied).
//
// With soaked_friction = "effective_stress" the sand stages read p' in place of p: the yield
// test, the frictional stress, the walls' and the rigid clusters' friction. The window
// below swaps it in and puts the flow's pressure back afterwards, to the last bit, so the
// second projection, the next step's warm start and checkpoints see the flow's pressure.
#pragma once
#include <cstdint>
#include <vector>

#include "src/grid/mac_grid.hpp"

namespace dunesim {

class EffectivePressureWindow {
 public:
  // Replaces grid.pressure by max(p - u, 0) in every cell (ghosts included) whose head is
  // positive; water_weight is rho_w |g|, Pa per metre of head.
  EffectivePressureWindow(MacGrid& grid, double water_weight);
  ~EffectivePressureWindow();
  EffectivePressureWindow(const EffectivePressureWindow&) = delete;
  EffectivePressureWindow& operator=(const EffectivePressureWindow&) = delete;

 private:
  MacGrid& grid_;
  std::vector<int64_t> changed_;       // offsets into grid.pressure
  std::vector<double> flow_pressure_;  // their pressure before the swap
};

}  // namespace dunesim
