#include "io/checkpoint_rank_table.hpp"

#include <fmt/format.h>

namespace dunesim {

std::string rank_table_problem(const RankTable& table, int64_t particle_count) {
  if (particle_count < 0) return fmt::format("particle_count is {}", particle_count);
  if (table.counts.size() != table.offsets.size())
    return "ranks/particle_count and ranks/particle_offset differ in length";
  int64_t next_row = 0;  // where rank r's rows must start
  for (size_t r = 0; r < table.counts.size(); ++r) {
    const int64_t count = table.counts[r], offset = table.offsets[r];
    if (count < 0 || count > particle_count - next_row)
      return fmt::format(
          "rank {} holds {} particles, but only {} of particle_count = {} are "
          "left after the ranks before it",
          r, count, particle_count - next_row, particle_count);
    if (offset != next_row)
      return fmt::format(
          "rank {}'s particles start at row {}, expected {} (where rank {}'s "
          "end)",
          r, offset, next_row, r == 0 ? 0 : r - 1);
    next_row += count;
  }
  if (next_row != particle_count)
    return fmt::format("the ranks hold {} particles in all, expected particle_count = {}",
                       next_row, particle_count);
  return "";
}

}  // namespace dunesim
