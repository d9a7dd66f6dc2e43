#include "src/extrapolation.hpp"

namespace dunesim {

void mark_valid_faces(MacGrid& g) {
  const Array3<uint8_t>& type = g.cell_type;
  const Box& cells = type.box();
  for (int a = 0; a < 3; ++a) {
    Array3<uint8_t>& ok = g.valid[a];
    for_each_index(ok.box(), [&](int i, int j, int k) {
      Index3 lo = lower_cell(a, i, j, k);
      bool lo_fluid = cells.contains(lo[0], lo[1], lo[2]) && type(lo[0], lo[1], lo[2]) == kFluid;
      bool hi_fluid = cells.contains(i, j, k) && type(i, j, k) == kFluid;
      ok(i, j, k) = (lo_fluid || hi_fluid) ? 1 : 0;
    });
  }
}

void extrapolate_velocity(MacGrid& g, Halo& halo, int layers) {
  for (int layer = 0; layer < layers; ++layer) {
    for (int a = 0; a < 3; ++a) {
      Array3<double>& v = g.vel[a];
      Array3<uint8_t>& ok = g.valid[a];
      Box inner = v.box().grown(-1);  // entries with all six neighbours in the array
      const int64_t st[3] = {v.stride(0), v.stride(1), v.stride(2)};
      double* vd = v.data();
      uint8_t* okd = ok.data();
      // 2 marks "set in this layer": read as invalid until the layer ends, so the result
      // does not depend on the loop order.
      for_each_index(inner, [&](int i, int j, int k) {
        int64_t o = v.offset(i, j, k);
        if (okd[o]) return;
        double sum = 0;
        int count = 0;
        for (int d = 0; d < 3; ++d)
          for (int64_t off : {-st[d], st[d]})
            if (okd[o + off] == 1) { sum += vd[o + off]; ++count; }
        if (count) { vd[o] = sum / count; okd[o] = 2; }
      });
      for (size_t n = 0; n < ok.size(); ++n)
        if (okd[n] == 2) okd[n] = 1;
    }
    halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
    halo.fill<uint8_t>({&g.valid[0], &g.valid[1], &g.valid[2]});
  }
}

}  // namespace dunesim
