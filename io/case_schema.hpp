// Every key a case file may hold, written once: its section, name, type, unit, default, what
// is allowed, and for a material key the kinds and sand rheologies it applies to. The case
// reader takes from it each section's known keys (so an unknown key and its "did you mean"
// suggestion), and which material keys apply to sand and to which rheology;
// cases/README.md's key tables are printed from it (key_table_markdown), and a test fails
// when the two differ. The ranges themselves are checked where each key is read
// (io/case_config.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dunesim {

struct CaseKey {
  std::string_view section;  // "domain", "material", ...: a [[array]] by its name
  // One row may document several keys (a block's min and max); with `alias` the second
  // name is another spelling of the first (cohesion, c_dry).
  std::vector<std::string_view> names;
  bool alias = false;
  std::string_view type, unit, default_value, allowed;
  // Material keys: the kinds of material (empty: every kind) and the sand rheologies
  // (empty: every rheology) the key applies to, and why another rheology refuses it.
  std::vector<std::string_view> kinds, rheologies;
  std::string_view why_not_other_rheologies;
};

// The rows in the order cases/README.md lists them.
const std::vector<CaseKey>& case_schema();

// The keys of a section, every spelling.
std::vector<std::string_view> keys_of(std::string_view section);

// The keys of a material section that only the given kind of material takes.
std::vector<std::string_view> material_keys_of_kind(std::string_view kind);

// The section's table as cases/README.md shows it.
std::string key_table_markdown(std::string_view section);

}  // namespace dunesim
