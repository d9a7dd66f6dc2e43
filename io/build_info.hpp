// What build of dunesim wrote a file: recorded in every frame's and checkpoint's /run group.
#pragma once

namespace dunesim {

// CMake's project version, e.g. "0.1.0".
const char* dunesim_version();
// `git describe --always --dirty` of the source tree at build time, "unknown" when it was
// not built from a git checkout.
const char* source_revision();

}  // namespace dunesim
