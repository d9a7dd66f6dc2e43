// A checkpoint's per-rank table (ranks/particle_count, ranks/particle_offset): how many
// particle rows each rank that wrote it held, and where its rows start. A restart on the same
// number of ranks reads each rank's rows through it, so it is checked before any array is
// sized from it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dunesim {

struct RankTable {
  std::vector<int64_t> counts;   // rows rank r held
  std::vector<int64_t> offsets;  // its first row
};

// "" when the table lays `particle_count` rows out in rank order, each rank's right after
// the one before, with no gap or overlap; otherwise what is wrong, in words.
std::string rank_table_problem(const RankTable& table, int64_t particle_count);

}  // namespace dunesim
