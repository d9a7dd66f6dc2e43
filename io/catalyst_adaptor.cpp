#include "io/catalyst_adaptor.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "io/rank_agreement.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

// Where the module is: next to the running executable (a copied or installed build), else
// where this build put it.
fs::path catalyst_module_path() {
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path beside = executable.parent_path() / kCatalystModuleFile;
    if (fs::exists(beside, error)) return beside;
  }
  return fs::path(DUNESIM_CATALYST_MODULE_DIR) / kCatalystModuleFile;
}

// Loads the module and finds its entry point, or throws naming the file and the loader's
// reason. RTLD_GLOBAL: the Python extension modules that the pipeline scripts import take
// the interpreter's symbols from the global scope, not from a library they link.
MakeCatalystPipelines load_catalyst_module() {
  const fs::path path = catalyst_module_path();
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (module == nullptr)
    throw std::runtime_error("catalyst: cannot load " + path.string() + ": " + dlerror());
  void* entry = dlsym(module, kMakeCatalystPipelines);
  if (entry == nullptr)
    throw std::runtime_error("catalyst: " + path.string() + " has no " + kMakeCatalystPipelines +
                             ": " + dlerror());
  return reinterpret_cast<MakeCatalystPipelines>(entry);
}

}  // namespace

CatalystAdaptor::CatalystAdaptor(const CatalystSetup& setup) {
  MakeCatalystPipelines make = nullptr;
  agree_across_ranks(setup.comm, [&] { make = load_catalyst_module(); });
  pipelines_.reset(make(setup));  // collective, throws on every rank alike
}

CatalystAdaptor::~CatalystAdaptor() = default;

void CatalystAdaptor::coprocess(
    const Particles& particles, const GridFieldView& cell_field,
    const std::function<std::vector<GridFieldView>()>& material_fractions, double time,
    int64_t step) {
  pipelines_->coprocess(particles, cell_field, material_fractions, time, step);
}

}  // namespace dunesim
