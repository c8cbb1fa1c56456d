// Scratch memory for the host engines: through the library's allocator, so
// that running out of memory is ufunc::out_of_memory and the tests' allocation
// limit sees it.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

#include "../memory.hpp"

namespace ufunc::detail::host {

/// n default-constructed T in host memory from the library's allocator (so that
/// out-of-memory is ufunc::out_of_memory and the test allocation limit sees it),
/// destroyed and freed on scope exit.
template <class T>
class host_temp {
 public:
  explicit host_temp(index_t n)
      : p_(static_cast<T*>(memory<target::host>::allocate(static_cast<std::size_t>(n) * sizeof(T)))), n_(n) {
    std::uninitialized_default_construct_n(p_, static_cast<std::size_t>(n_));
  }
  ~host_temp() {
    std::destroy_n(p_, static_cast<std::size_t>(n_));
    memory<target::host>::deallocate(p_);
  }
  host_temp(const host_temp&) = delete;
  host_temp& operator=(const host_temp&) = delete;
  T& operator[](index_t i) const { return p_[i]; }

 private:
  T* p_;
  index_t n_;
};

}  // namespace ufunc::detail::host
