// Results held back from a sharded call's `out` on host shards. Each shard's
// call is an ordinary call, which on its own keeps its `out` untouched when the
// function throws (vectorize.hpp); across shards that is not enough: shard 0's
// out would be written before shard 1 throws. So a sharded call on the host
// target sets a staging here for its shards' calls (sharded.hpp): a call whose
// function may throw then hands back the copy of its results into `out`
// instead of making it, and the sharded call makes every copy once all shards
// have succeeded. Host-only; thread-local, so concurrent calls do not mix.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace ufunc::detail {

/// The copies into `out` that the calls of a sharded call hand back, each
/// owning the temporaries holding its results (freed with it).
class staged_outputs {
 public:
  /// Keeps `copy` (a callable that copies its results into out and cannot throw).
  template <class Copy>
  void add(Copy copy) {
    copies_.push_back(std::make_unique<holder<Copy>>(std::move(copy)));
  }
  /// Makes every copy, in the order the calls ran, then frees the temporaries.
  void commit() {
    for (auto& c : copies_) c->run();
    copies_.clear();
  }

 private:
  struct base {
    virtual ~base() = default;
    virtual void run() = 0;
  };
  template <class Copy>
  struct holder final : base {
    Copy copy;
    explicit holder(Copy c) : copy(std::move(c)) {}
    void run() override { copy(); }
  };
  std::vector<std::unique_ptr<base>> copies_;
};

/// The calling thread's staging (null: a call writes its out itself).
inline staged_outputs*& staging_slot() noexcept {
  thread_local staged_outputs* current = nullptr;
  return current;
}

/// The staging set for the call now reaching its out (null when none), cleared
/// before the function runs, so that calls the function makes are not staged.
inline staged_outputs* take_staging() noexcept { return std::exchange(staging_slot(), nullptr); }

/// Stages the out copies of the calls made in its scope into `s` (null: none);
/// cleared on exit, also when a call threw before taking it.
class staging_scope {
 public:
  explicit staging_scope(staged_outputs* s) noexcept { staging_slot() = s; }
  ~staging_scope() { staging_slot() = nullptr; }
  staging_scope(const staging_scope&) = delete;
  staging_scope& operator=(const staging_scope&) = delete;
};

}  // namespace ufunc::detail
