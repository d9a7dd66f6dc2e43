// Where large allocations come from. SuperLU_DIST, which PETSc links, sets glibc's
// M_MMAP_MAX to 0 when it loads, so every allocation comes from the heap, and memory freed
// there stays resident. A large run's transients (PETSc's Krylov vectors, the sort's
// permutation, the sand stage's lists) then leave the heap fragmented: on the 1e8 dune the
// first run peaked 8 bytes a particle above a restart of the same state
// (docs/findings/memory.md).
#pragma once
#include <cstddef>

namespace dunesim {

// Allocations of this size or more are mapped and given back when freed. Large enough that
// a step's ordinary scratch stays in the heap: mapping every transient from 1 MiB made the
// 1e7 dune's step 10% slower (fresh pages are zeroed by the kernel at every step).
constexpr size_t kMappedAllocationBytes = size_t(32) << 20;

// Restores mapped allocations from kMappedAllocationBytes. Call after PETSc starts.
void map_large_allocations();

}  // namespace dunesim
