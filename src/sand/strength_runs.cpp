#include "src/sand/strength_runs.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace dunesim {

void extend_runs(std::vector<ColumnRun>& runs, uint64_t column, int end,
                 const StrengthRun& cell) {
  if (!runs.empty() && runs.back().column == column && runs.back().run.same_strength(cell)) {
    runs.back().run.end = end;
    return;
  }
  StrengthRun run = cell;
  run.end = end;
  runs.push_back({column, run});
}

ColumnStrengths::ColumnStrengths(size_t columns, int k0, int nk, std::vector<ColumnRun> pieces) {
  // Each column's pieces in place (counted, then set down in their order), then each column's
  // sorted up the column where its pieces came from several ranks, and its runs merged.
  first_.assign(columns + 1, 0);
  for (const ColumnRun& piece : pieces) {
    if (piece.column >= columns)
      throw std::logic_error("ColumnStrengths: a piece lies beyond the columns");
    ++first_[piece.column + 1];
  }
  for (size_t column = 0; column < columns; ++column) first_[column + 1] += first_[column];
  runs_.resize(pieces.size());
  std::vector<size_t> next(first_.begin(), first_.end() - 1);
  for (const ColumnRun& piece : pieces) runs_[next[piece.column]++] = piece.run;
  pieces = {};
  size_t kept = 0;
  for (size_t column = 0; column < columns; ++column) {
    const auto begin = runs_.begin() + std::ptrdiff_t(first_[column]);
    const auto end = runs_.begin() + std::ptrdiff_t(first_[column + 1]);
    std::sort(begin, end,
              [](const StrengthRun& a, const StrengthRun& b) { return a.end < b.end; });
    first_[column] = kept;
    for (auto run = begin; run != end; ++run) {
      if (kept > first_[column] && runs_[kept - 1].same_strength(*run))
        runs_[kept - 1].end = run->end;
      else
        runs_[kept++] = *run;
    }
    if (nk > 0 && (kept == first_[column] || runs_[kept - 1].end != k0 + nk))
      throw std::logic_error("ColumnStrengths: the pieces do not cover column " +
                             std::to_string(column) + "'s layers");
  }
  first_[columns] = kept;
  runs_.resize(kept);
  runs_.shrink_to_fit();
  index_cells(columns, k0, nk);
}

void ColumnStrengths::index_cells(size_t columns, int k0, int nk) {
  k0_ = k0;
  nk_ = size_t(nk);
  if (nk_ > std::numeric_limits<uint16_t>::max())
    throw std::length_error("ColumnStrengths: a column of more layers than two bytes count");
  run_of_cell_.resize(columns * nk_);
  for (size_t column = 0; column < columns; ++column) {
    uint16_t run = 0;
    for (size_t k = 0; k < nk_; ++k) {
      while (runs_[first_[column] + run].end <= k0 + int(k)) ++run;
      run_of_cell_[column * nk_ + k] = run;
    }
  }
}

bool ColumnStrengths::operator==(const ColumnStrengths& other) const {
  auto same_run = [](const StrengthRun& a, const StrengthRun& b) {
    return a.end == b.end && same_bits(a.cohesion, b.cohesion) &&
           same_bits(a.tan_phi, b.tan_phi) && a.sand == b.sand;
  };
  return k0_ == other.k0_ && nk_ == other.nk_ && first_ == other.first_ &&
         std::equal(runs_.begin(), runs_.end(), other.runs_.begin(), other.runs_.end(), same_run);
}

float ColumnStrengths::weakest_tan_phi() const {
  float weakest = std::numeric_limits<float>::infinity();
  for (const StrengthRun& run : runs_) weakest = std::min(weakest, run.tan_phi);
  return weakest;
}

}  // namespace dunesim
