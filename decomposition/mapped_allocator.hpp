// Allocators that map large arrays straight from the kernel (mmap), for two reasons:
//
// - Huge pages for the grid. Grid arrays are tens of MiB per rank, and P2G, G2P, advection
//   and the multigrid smoother reach across them in strides of a plane: with 4 KiB pages
//   most of those accesses miss the TLB. Debian's kernels give huge pages only to memory
//   that asks for them (transparent_hugepage = madvise), so grid arrays of at least 2 MiB
//   are aligned to 2 MiB and marked MADV_HUGEPAGE before anything touches them. Measured on
//   the 1M-particle dam break, 2 ranks: 3.5M particle-steps/s with 4 KiB pages, 4.6M with
//   huge pages. The mapping ends at the array's last 4 KiB page, so a partly used 2 MiB
//   region at the end stays in small pages.
// - Memory that goes back for the particles. Particle arrays change length every step
//   (migration, emission) and are read front to back, so they keep 4 KiB pages: a huge
//   page would round each array's touched end up by as much as 2 MiB. Mapping them
//   directly means a freed array returns to the kernel at once; from malloc's heap a freed
//   array of a few MiB stays resident, and the next step's arrays grow the heap past it.
//   Capacity that is mapped but not yet written costs no memory, so particle arrays can
//   keep room to grow (Particles::resize).
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace dunesim {

namespace mapped_memory {

constexpr size_t kHugePageBytes = size_t(2) << 20;
constexpr size_t kSmallPageBytes = 4096;

enum class Pages { kSmall, kHuge };

// Below these sizes an array comes from operator new: a mapping per small array would
// cost a system call and a kernel region each.
constexpr size_t threshold_bytes(Pages pages) {
  return pages == Pages::kHuge ? kHugePageBytes : 16 * kSmallPageBytes;
}

inline size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

inline void* allocate(size_t bytes, Pages pages) {
  if (bytes < threshold_bytes(pages)) return ::operator new(bytes);
  const size_t length = round_up(bytes, kSmallPageBytes);
  const size_t alignment = pages == Pages::kHuge ? kHugePageBytes : kSmallPageBytes;
  // Over-map by the alignment, then unmap the unaligned head and the tail beyond `length`.
  void* raw = mmap(nullptr, length + alignment, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = uintptr_t(raw);
  const uintptr_t aligned = round_up(start, alignment);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + length + alignment;
  if (end > aligned + length)
    munmap(reinterpret_cast<void*>(aligned + length), end - aligned - length);
  if (pages == Pages::kHuge)
    madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);  // a hint: ignore failure
  return reinterpret_cast<void*>(aligned);
}

inline void deallocate(void* p, size_t bytes, Pages pages) {
  if (bytes < threshold_bytes(pages)) {
    ::operator delete(p);
    return;
  }
  munmap(p, round_up(bytes, kSmallPageBytes));
}

}  // namespace mapped_memory

template <class T, mapped_memory::Pages kPages>
struct MappedAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = MappedAllocator<U, kPages>;
  };
  MappedAllocator() = default;
  template <class U>
  MappedAllocator(const MappedAllocator<U, kPages>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(mapped_memory::allocate(n * sizeof(T), kPages));
  }
  void deallocate(T* p, size_t n) { mapped_memory::deallocate(p, n * sizeof(T), kPages); }
  template <class U>
  bool operator==(const MappedAllocator<U, kPages>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const MappedAllocator<U, kPages>&) const {
    return false;
  }
};

// Grid arrays (Array3).
template <class T>
using HugePageVector = std::vector<T, MappedAllocator<T, mapped_memory::Pages::kHuge>>;
// Per-particle attributes.
template <class T>
using ParticleVector = std::vector<T, MappedAllocator<T, mapped_memory::Pages::kSmall>>;

}  // namespace dunesim
