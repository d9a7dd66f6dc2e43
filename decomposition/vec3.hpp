// A point or a vector in space (m, m/s, ...): x, y, z.
#pragma once
#include <array>

namespace dunesim {

using Vec3 = std::array<double, 3>;

}  // namespace dunesim
