// Every key a case file may hold, written once: its section, name, type, unit, default,
// range and what else is allowed, and for a material key the kinds and sand rheologies it
// applies to. The case reader takes from it each section's known keys (so an unknown key and
// its "did you mean" suggestion), each numeric key's range, and which material keys apply to
// sand and to which rheology; cases/README.md's key tables are printed from it
// (key_table_markdown), and a test fails when the two differ. The default values, some of
// which depend on other keys, are set where the reader reads each key (io/case_config.cpp);
// the Default column here describes them.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace dunesim {

// A number as a case error or a README table prints it.
std::string format_number(double value);

// An interval of allowed values (each element's, for arrays); the description reads like the
// README ("> 0", "in (0, 5]").
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_inclusive = true;
  bool hi_inclusive = true;

  bool contains(double v) const {
    return (lo_inclusive ? v >= lo : v > lo) && (hi_inclusive ? v <= hi : v < hi);
  }
  bool any() const { return std::isinf(lo) && std::isinf(hi); }
  std::string describe() const {
    if (std::isinf(hi)) return (lo_inclusive ? ">= " : "> ") + bound(lo);
    return std::string("in ") + (lo_inclusive ? "[" : "(") + bound(lo) + ", " + bound(hi) +
           (hi_inclusive ? "]" : ")");
  }
  // Whole-number bounds in full (an integer key's 2^40), others as format_number.
  static std::string bound(double v) {
    return v == std::floor(v) && std::abs(v) < 1e15 ? std::to_string(int64_t(v))
                                                    : format_number(v);
  }
};

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline const Range kPositive{0.0, kInf, false, true};
inline const Range kNonNegative{0.0, kInf, true, true};
inline const Range kUnitInterval{0.0, 1.0, true, true};
inline const Range kAnyValue{};

struct CaseKey {
  std::string_view section;  // "domain", "material", ...: a [[array]] by its name
  // One row may document several keys (a block's min and max); with `alias` the second
  // name is another spelling of the first (cohesion, c_dry).
  std::vector<std::string_view> names;
  bool alias = false;
  std::string_view type, unit, default_value;
  // A numeric key's range, which the reader checks and the README's "Allowed" column starts
  // with; `allowed` says the rest.
  Range range;
  std::string_view allowed;
  // Material keys: the kinds of material (empty: every kind) and the sand rheologies
  // (empty: every rheology) the key applies to, and why another rheology refuses it.
  std::vector<std::string_view> kinds, rheologies;
  std::string_view why_not_other_rheologies;
};

// The rows in the order cases/README.md lists them.
const std::vector<CaseKey>& case_schema();

// The range of numeric key `key` of `section` ([[collider]] shapes: as [[source]]'s).
// Throws std::logic_error for a key the schema does not list.
const Range& key_range(std::string_view section, std::string_view key);

// The keys of a section, every spelling.
std::vector<std::string_view> keys_of(std::string_view section);

// The keys of a material section that only the given kind of material takes.
std::vector<std::string_view> material_keys_of_kind(std::string_view kind);

// The section's table as cases/README.md shows it.
std::string key_table_markdown(std::string_view section);

}  // namespace dunesim
