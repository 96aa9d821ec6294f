// SPDX-License-Identifier: GPL-3.0-or-later
// Counting heap allocations in a test program: interposes glibc's malloc with a wrapper that
// counts every call (Eigen and operator new end in malloc too). Include it in exactly ONE
// source file of a test executable (it defines malloc). Sanitizers that replace malloc
// themselves (ASan, TSan, MSan) must keep theirs: there HANDSIM_COUNT_MALLOC stays undefined
// and the tests skip.
#pragma once

#include <atomic>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HANDSIM_MALLOC_REPLACED_BY_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define HANDSIM_MALLOC_REPLACED_BY_SANITIZER 1
#endif
#endif
#if defined(__GLIBC__) && !defined(HANDSIM_MALLOC_REPLACED_BY_SANITIZER)
#define HANDSIM_COUNT_MALLOC 1
#endif

namespace handsim::test {
/// Calls of malloc since the program started (0 when they cannot be counted).
inline std::atomic<long> g_allocations{0};
}  // namespace handsim::test

#ifdef HANDSIM_COUNT_MALLOC
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) {
  ++handsim::test::g_allocations;
  return __libc_malloc(size);
}
#endif
