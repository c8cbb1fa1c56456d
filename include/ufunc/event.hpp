// Events and timers: marks in a stream's work, for ordering streams and for
// timing device work by the device's own clock.
#pragma once

#include <chrono>
#include <string>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "error.hpp"
#include "stream.hpp"

namespace ufunc {

/// Options of an event (both targets take them).
enum class event_flags : unsigned {
  timing = 0,          ///< can be used with `elapsed_ms`
  disable_timing = 1,  ///< ordering only: cheaper to record and wait on (cudaEventDisableTiming)
};

/// An owned device event (a CUDA event) (RAII, move-only). `record(s)` enqueues it on stream `s`;
/// it completes when all work issued to `s` before it has finished.
/// `synchronize()` blocks the host until then, `ready()` asks without blocking,
/// `elapsed_ms(a, b)` gives the device time between two completed events, and
/// `stream_wait(s, e)` makes later work on `s` wait for it (ordering two streams
/// without blocking the host). An event may be recorded again; waits and times
/// refer to its latest recording. The template is a device target's event
/// (Target = target::cuda); the host target's is the specialisation below.
template <class Target>
class basic_event {
  static_assert(detail::target_traits<Target>::is_device, "ufunc::basic_event: not a device target");
  using rt = detail::runtime<Target>;
  using handle = decltype(rt::event_create(true));

 public:
  basic_event() : basic_event(event_flags::timing) {}
  explicit basic_event(event_flags f) : flags_(f) { e_ = rt::event_create(f != event_flags::disable_timing); }
  basic_event(const basic_event&) = delete;
  basic_event& operator=(const basic_event&) = delete;
  basic_event(basic_event&& o) noexcept
      : e_(std::exchange(o.e_, nullptr)), recorded_(std::exchange(o.recorded_, false)), flags_(o.flags_) {}
  basic_event& operator=(basic_event&& o) noexcept {
    if (this != &o) {
      destroy();
      e_ = std::exchange(o.e_, nullptr);
      recorded_ = std::exchange(o.recorded_, false);
      flags_ = o.flags_;
    }
    return *this;
  }
  ~basic_event() { destroy(); }

  void record(stream_ref s = {}) {
    check_valid("record");
    rt::event_record(e_, s.get());
    recorded_ = true;
  }
  void synchronize() const {
    check_valid("synchronize");
    rt::event_synchronize(e_);
  }
  /// True when the work before the latest `record` has finished (or it was never recorded).
  bool ready() const {
    check_valid("ready");
    return rt::event_ready(e_);
  }
  bool recorded() const noexcept { return recorded_; }
  event_flags get_flags() const noexcept { return flags_; }
  handle get() const noexcept { return e_; }

 private:
  void check_valid(const char* what) const {
    if (!e_) throw value_error(std::string("ufunc::event::") + what + ": the event was moved from");
  }
  void destroy() noexcept {
    rt::event_destroy(e_);
    e_ = nullptr;
  }

  handle e_ = nullptr;
  bool recorded_ = false;
  event_flags flags_ = event_flags::timing;
};

/// A host-backend event: records the host clock (std::chrono::steady_clock). Host
/// work is synchronous, so the time at `record` is the time the preceding work
/// finished. Same API as the device event.
template <>
class basic_event<target::host> {
 public:
  basic_event() = default;
  explicit basic_event(event_flags f) : flags_(f) {}

  /// Marks the point after all work issued so far (the stream is ignored).
  void record(stream_ref = {}) {
    t_ = std::chrono::steady_clock::now();
    recorded_ = true;
  }
  void synchronize() const noexcept {}
  bool ready() const noexcept { return true; }
  bool recorded() const noexcept { return recorded_; }
  event_flags get_flags() const noexcept { return flags_; }

  /// Used by elapsed_ms.
  std::chrono::steady_clock::time_point time_point() const noexcept { return t_; }

 private:
  std::chrono::steady_clock::time_point t_{};
  bool recorded_ = false;
  event_flags flags_ = event_flags::timing;
};


/// The event type of the build's device target (a CUDA event on the CUDA backend).
using event = basic_event<target::device>;
/// A host-clock event (for timing `target::host` work in any build).
using host_event = basic_event<target::host>;

/// Milliseconds between two recorded events (`stop` after `start` in device
/// time); waits for both to complete first. Throws `value_error` for an event that
/// was never recorded or has timing disabled. Device events have a resolution of
/// about half a microsecond.
template <class Target>
double elapsed_ms(const basic_event<Target>& start, const basic_event<Target>& stop) {
  const auto check = [](const basic_event<Target>& e, const char* which) {
    if (!e.recorded())
      throw value_error(std::string("ufunc::elapsed_ms: the ") + which + " event was never recorded");
    if (e.get_flags() == event_flags::disable_timing)
      throw value_error(std::string("ufunc::elapsed_ms: the ") + which +
                        " event was created with event_flags::disable_timing");
  };
  check(start, "start");
  check(stop, "stop");
  if constexpr (std::is_same_v<Target, target::host>) {
    return std::chrono::duration<double, std::milli>(stop.time_point() - start.time_point()).count();
  }
  else {
    start.synchronize();
    stop.synchronize();
    return detail::runtime<Target>::event_elapsed_ms(start.get(), stop.get());
  }
}

/// Makes all work issued to `s` after this call wait until `e` (its latest
/// recording) has completed, without blocking the host: the way to use on one
/// stream what another stream produced. A no-op on the host backend.
inline void stream_wait(stream_ref s, const event& e) { detail::runtime<target::device>::stream_wait(s.get(), e); }

/// Times work on a stream with a pair of events, so what is measured is the
/// device's execution, not the time the host took to enqueue it:
/// `timer t; t.start(s); ...launches on s...; t.stop(s); double ms = t.elapsed_ms();`
/// `elapsed_ms()` waits for the stop event. `start` again to reuse the timer.
/// `host_timer` (Target = target::host) measures with the host clock, for
/// `target::host` work; on the host backend `timer` is that one.
template <class Target>
class basic_timer {
 public:
  /// Records the start event on `s` (the stream whose work is timed).
  void start(stream_ref s = {}) {
    start_.record(s);
    running_ = true;
    stopped_ = false;
  }
  /// Records the stop event on `s`; throws `value_error` without a preceding start.
  void stop(stream_ref s = {}) {
    if (!running_) throw value_error("ufunc::timer::stop: the timer was not started");
    stop_.record(s);
    running_ = false;
    stopped_ = true;
  }
  /// Milliseconds from start to stop (waits for the stop event); throws
  /// `value_error` unless the timer was started and stopped.
  double elapsed_ms() const {
    if (!stopped_)
      throw value_error(running_ ? "ufunc::timer::elapsed_ms: the timer is still running (call stop first)"
                                 : "ufunc::timer::elapsed_ms: the timer was never started");
    return ufunc::elapsed_ms(start_, stop_);
  }

 private:
  basic_event<Target> start_, stop_;
  bool running_ = false, stopped_ = false;
};

/// Event-based timer for the build's device target.
using timer = basic_timer<target::device>;
/// Host-clock timer for `target::host` work in any build.
using host_timer = basic_timer<target::host>;

}  // namespace ufunc
