//===- Scratch.h - Per-thread reusable scratch memory -----------*- C++ -*-===//
//
// Kernels that widen 16-bit operands, lay out im2col rows or stage a GEMM
// result need large temporary buffers on every call. Fresh allocations of
// that size come from mmap (or a trimmed heap) and each first touch of a
// page is a fault: in the f16 CNN step the faults and the zero fill of
// std::vector cost more than the convolutions' arithmetic. Scratch keeps
// the blocks of finished ops per thread and hands them to the next op.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_SCRATCH_H
#define AMPRT_CPU_SCRATCH_H

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace amprt::cpu {

/// A block of at least `bytes` bytes (64-byte aligned) from this thread's
/// cache, or a new one; `capacity` receives its real size.
void *takeScratch(size_t bytes, size_t *capacity);
/// Returns a block to this thread's cache, which frees the least recently
/// returned blocks beyond its bounds.
void giveScratch(void *block, size_t capacity);

/// `n` uninitialised elements of a trivial type T: callers write every
/// element before they read it (or ask for zeroed()).
template <typename T> class Scratch {
  static_assert(std::is_trivially_copyable_v<T>, "scratch holds plain data");

public:
  Scratch() = default;
  explicit Scratch(int64_t n) { allocate(n); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  Scratch(Scratch &&other) noexcept { swap(other); }
  Scratch &operator=(Scratch &&other) noexcept {
    swap(other);
    return *this;
  }
  ~Scratch() { release(); }

  void allocate(int64_t n) {
    release();
    count = n;
    if (n > 0)
      ptr = static_cast<T *>(takeScratch(size_t(n) * sizeof(T), &capacity));
  }
  /// allocate(n) with every element zero.
  static Scratch zeroed(int64_t n) {
    Scratch s(n);
    for (int64_t i = 0; i < n; ++i)
      s.ptr[i] = T();
    return s;
  }

  T *data() const { return ptr; }
  int64_t size() const { return count; }
  T &operator[](int64_t i) const { return ptr[i]; }
  T *begin() const { return ptr; }
  T *end() const { return ptr + count; }

private:
  void release() {
    if (ptr)
      giveScratch(ptr, capacity);
    ptr = nullptr;
    count = 0;
    capacity = 0;
  }
  void swap(Scratch &other) {
    std::swap(ptr, other.ptr);
    std::swap(count, other.count);
    std::swap(capacity, other.capacity);
  }

  T *ptr = nullptr;
  int64_t count = 0;
  size_t capacity = 0;
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_SCRATCH_H
