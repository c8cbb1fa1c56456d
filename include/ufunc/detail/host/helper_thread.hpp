// One helper thread, started at first use and kept for the process, that runs a
// job beside its caller: the result std::vectors of a streamed call, built while
// its pipeline runs (vectorize.hpp, late_vectors). A thread that sleeps until a
// job arrives runs as soon as it is woken, even where OpenMP threads keep every
// core busy (they spin between regions); a thread started for each call waited
// for a core until its caller blocked (bench/NOTES.md, 2026-11-26).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace ufunc::detail::host {

class helper_thread {
 public:
  /// The process's helper. Never destroyed: its thread may outlive static
  /// destruction (it sleeps between jobs; the process's exit ends it).
  static helper_thread& get() {
    static helper_thread* const h = new helper_thread;
    return *h;
  }

  /// Hands `job` to the helper and returns true when it is idle; returns false,
  /// the job not taken, when it runs another job or no thread could be started.
  /// The job must not throw (a std::packaged_task carries its exception to its
  /// future). Thread-safe.
  bool try_post(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(m_);
    if (busy_) return false;
    if (!started_) {
      try {
        std::thread([this] { loop(); }).detach();
      } catch (const std::system_error&) {
        return false;
      }
      started_ = true;
    }
    job_ = std::move(job);
    busy_ = true;
    lock.unlock();
    cv_.notify_one();
    return true;
  }

  helper_thread(const helper_thread&) = delete;
  helper_thread& operator=(const helper_thread&) = delete;

 private:
  helper_thread() = default;
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [this] { return static_cast<bool>(job_); });
      std::function<void()> job = std::move(job_);
      job_ = nullptr;
      lock.unlock();
      job();
      job = nullptr;  // the job's state released before the helper counts as idle
      lock.lock();
      busy_ = false;
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool busy_ = false;
  bool started_ = false;
};

}  // namespace ufunc::detail::host
