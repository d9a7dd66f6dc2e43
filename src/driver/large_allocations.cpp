#include "src/driver/large_allocations.hpp"

#include <malloc.h>

namespace dunesim {

void map_large_allocations() {
  mallopt(M_MMAP_THRESHOLD, int(kMappedAllocationBytes));
  mallopt(M_MMAP_MAX, 1 << 16);  // glibc's default
}

}  // namespace dunesim
