#pragma once
// Counts every heap allocation of a test executable, for the "no allocation after warm-up" tests:
// the global operator new / delete are replaced by versions that count into g_allocations.
// Include from exactly ONE source file of a test executable (replacement functions cannot be
// inline, so the definitions below must appear once per program).
#include <atomic>
#include <cstdlib>
#include <new>

namespace kinema::test {
inline std::atomic<long> g_allocations{0};

inline void* countedAlloc(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
inline void* countedAlignedAlloc(std::size_t n, std::align_val_t a) {
  ++g_allocations;
  const auto align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
}  // namespace kinema::test

void* operator new(std::size_t n) { return kinema::test::countedAlloc(n); }
void* operator new[](std::size_t n) { return kinema::test::countedAlloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return kinema::test::countedAlignedAlloc(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return kinema::test::countedAlignedAlloc(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
