// The strengths of the columns' cells as Culmann's wedges read them, held as runs.
//
// Every rank holds every column's cells for the wedges' search (cohesive_wedges.hpp). Cell by
// cell that is two floats and a byte for each cell of the sand's layers on every rank: a
// cohesive scene of 1e7 cells would hold and reduce 80 MB a step on each. Down a column the
// strength changes only at a layer's boundary, at sand that shears (its cohesion broken) and
// at the sand's top, so the cells are sent as runs of one strength, bottom up: a few a column
// where a cell's own numbers would take hundreds. Wet sand, whose cohesion and friction follow
// its saturation, may take a run a cell. Each rank keeps the runs and, for the search's
// lookups, each cell's place among its column's runs in two bytes (instead of nine).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace dunesim {

// Whether two floats are the same to the bit (0 and -0 differ): what a search reads.
inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// Cells of one column, from the run below it (or the layers' first cell) up to `end`, that
// lend a wedge the same strength.
struct StrengthRun {
  int end = 0;         // the cell just above the run (k)
  float cohesion = 0;  // Pa; 0 where no sand or where it shears
  float tan_phi = 0;   // the dry sand's where no sand
  uint8_t sand = 0;    // 1 where the cells hold sand
  bool same_strength(const StrengthRun& other) const {
    return cohesion == other.cohesion && tan_phi == other.tan_phi && sand == other.sand;
  }
};

// A run of part of a column, as the ranks send their owned cells.
struct ColumnRun {
  uint64_t column = 0;
  StrengthRun run;
};

// Appends to `runs` a run of `column` ending at `end` with the strength of `cell`, merged into
// the last run if that is the same column's and of the same strength.
void extend_runs(std::vector<ColumnRun>& runs, uint64_t column, int end, const StrengthRun& cell);

// Every column's cells of the layers [k0, k0 + nk), as runs bottom up.
class ColumnStrengths {
 public:
  ColumnStrengths() = default;
  // From pieces of columns that together cover each of `columns` columns' layers once, in
  // any order (the ranks' owned parts); neighbouring runs of one strength merge. Throws
  // std::logic_error if some column's layers are not covered exactly.
  ColumnStrengths(size_t columns, int k0, int nk, std::vector<ColumnRun> pieces);

  // The run holding cell k (within the layers) of `column`.
  const StrengthRun* at(size_t column, int k) const {
    return runs_.data() + first_[column] + run_of_cell_[column * nk_ + size_t(k - k0_)];
  }
  // The same runs to the bit (the same strength in every cell).
  bool operator==(const ColumnStrengths& other) const;
  // Frees the cells' lookup index (two bytes a cell), keeping the runs: for strengths kept only
  // to be compared. at() must not be called after.
  void drop_lookup() { run_of_cell_ = {}; }
  // The least friction of any cell.
  float weakest_tan_phi() const;
  size_t run_count() const { return runs_.size(); }

 private:
  void index_cells(size_t columns, int k0, int nk);

  int k0_ = 0;
  size_t nk_ = 0;
  std::vector<StrengthRun> runs_;      // column after column, each bottom up
  std::vector<size_t> first_;          // per column, its first run; one more at the end
  std::vector<uint16_t> run_of_cell_;  // per cell, its run's place in its column's runs
};

}  // namespace dunesim
