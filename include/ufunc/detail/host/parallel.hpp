// The one place the host backend runs work on several threads: body(i) for i in
// [0, n), on a pool of worker threads and the calling thread together.
//
// Why not `omp parallel for`: a parallel region ends at a barrier that waits for
// every member of the team, so on a busy machine (CI runners, developer
// machines with builds beside) one member the OS has not scheduled yet costs
// the caller a whole time slice: 8 ms for a 2^16-element sum that a serial
// loop does in 46 us (issue 37). Here the caller never waits for a thread to
// arrive, only for items that a running thread has claimed: items are claimed
// one at a time from a shared counter (item 0 by the caller, before the workers
// are woken), so a worker that wakes late finds nothing left and a caller alone
// runs every item itself, as a serial loop would. Results do not depend on which
// thread runs an item (callers write per-item results and combine them in item
// order), so they stay independent of the thread count and of the timing.
//
// The thread count is OpenMP's: omp_get_max_threads() of the calling thread
// (OMP_NUM_THREADS, omp_set_num_threads). One call at a time uses the pool; a
// call that finds it busy (another thread's call, or a call made from inside an
// item, nested) runs its items on its own thread, in order, instead of waiting.
//
// A thread that claimed an item and was then descheduled still stalls the call
// until the OS runs it again (no scheduler can take an item back from a thread
// mid-way: the item's writes and the caller's temporaries are shared). So a
// call takes no more workers than there are cores that other processes are not
// running on (machine_load: the kernel's count of runnable threads, as libgomp's
// OMP_DYNAMIC uses the load average): beside two busy processes on two cores a
// call runs on its caller alone, as a serial loop would, instead of losing a
// time slice whenever a worker is preempted. OMP_DYNAMIC=false turns that off
// (every call takes its OMP_NUM_THREADS threads, as OpenMP's rule says).
//
// Exceptions thrown by a body (a user function, a UFUNC_DEBUG bounds error) are
// caught; the one from the lowest item is rethrown on the caller's thread.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#if defined(__linux__)
#  include <fcntl.h>
#  include <unistd.h>
#endif

#include "../../config.hpp"

namespace ufunc::detail::host {

/// One parallel_n call's shared state. Workers hold it by shared_ptr, so a late
/// worker may still look at it after the call returned; the body itself is only
/// reached through a claimed item (< n), and the caller returns only once every
/// claimed item is done.
struct pool_job {
  index_t n = 0;
  int team = 1;  // threads that may take items: the caller (slot 0) and workers 1..team-1
  void (*run)(const void* body, index_t i, int slot) = nullptr;
  const void* body = nullptr;
  std::atomic<index_t> next{1};  // item 0 is the caller's
  std::atomic<index_t> done{0};  // items finished (run or skipped)
  std::atomic<index_t> failed{0};  // lowest item that threw so far (n: none)
  std::exception_ptr error;
  std::mutex error_mutex;

  /// Runs item i on this thread (slot), or skips it when a lower item threw.
  void item(index_t i, int slot) {
    if (i < failed.load(std::memory_order_relaxed)) {
      try {
        run(body, i, slot);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (i < failed.load(std::memory_order_relaxed)) {
          error = std::current_exception();
          failed.store(i, std::memory_order_relaxed);
        }
      }
    }
    done.fetch_add(1, std::memory_order_acq_rel);
  }
  /// Claims and runs items until none is left; returns how many it ran.
  index_t drain(int slot) {
    index_t ran = 0;
    for (index_t i = next.fetch_add(1, std::memory_order_relaxed); i < n; i = next.fetch_add(1, std::memory_order_relaxed))
      item(i, slot), ++ran;
    return ran;
  }
};

/// True on a thread while it runs an item (a call made there is nested: serial).
inline bool& in_pool_item() {
  static thread_local bool inside = false;
  return inside;
}

/// What one kind of call (one body type: one operation at one element type)
/// remembers of its workers coming too late to take an item (thread_pool::
/// note_late). Kept per kind: another operation's items cost other times (a
/// float sum's items of 2^16 elements take about 15 us on one core, a
/// gaussian_pdf's of 2^14 about 90 us), so one kind's lateness says nothing of
/// another's.
struct late_note {
  std::atomic<std::chrono::steady_clock::rep> until{0};  // calls of up to `items`
  std::atomic<index_t> items{0};                          //   items serial until then
};
template <class Body>
late_note& late_note_of() {
  static late_note note;
  return note;
}

/// How many more threads than a call's own the machine runs now (Linux: the
/// runnable count of /proc/loadavg, which includes the reading thread; read at
/// most every 2 ms, so a call costs a clock read). 0 where unknown.
class machine_load {
 public:
  /// Threads a call of `team` may use when `own` of this process's threads
  /// (the caller and awake workers) are runnable: at most the cores the other
  /// runnable threads leave, at least 1; `team` when nothing else runs or
  /// OMP_DYNAMIC is false.
  static int cap(int team, int own) {
    if (team <= 1 || !adaptive()) return team;
    const int r = runnable();  // refreshes procs_ too
    const int procs = procs_.load(std::memory_order_relaxed);
    return team_for(team, procs, others_on(r - own, procs, online()));
  }
  /// The runnable count covers every CPU of the machine; a process bound to
  /// `procs` of its `online` CPUs (a container's cpuset) meets its share.
  static int others_on(int others, int procs, int online) {
    if (others <= 0 || online <= procs) return others;
    return static_cast<int>((static_cast<long long>(others) * procs + online / 2) / online);
  }
  /// The rule alone: others (runnable threads not of this process) leave
  /// procs - others cores.
  static int team_for(int team, int procs, int others) {
    if (others <= 0) return team;
    return std::max(1, std::min(team, procs - others));
  }
  /// The runnable field of a /proc/loadavg line ("0.50 0.40 0.30 3/512 1234"): 3; -1 if malformed.
  static int parse_runnable(const char* line) {
    const char* p = line;
    for (int field = 0; field < 3; ++field) {  // skip the three averages
      while (*p == ' ') ++p;
      while (*p && *p != ' ') ++p;
    }
    while (*p == ' ') ++p;
    if (*p < '0' || *p > '9') return -1;
    int r = 0;
    for (; *p >= '0' && *p <= '9'; ++p) r = r * 10 + (*p - '0');
    return *p == '/' ? r : -1;
  }

 private:
  static bool adaptive() {
    static const bool on = [] {
      const char* e = std::getenv("OMP_DYNAMIC");
      return !(e && (!std::strcmp(e, "false") || !std::strcmp(e, "FALSE") || !std::strcmp(e, "0")));
    }();
    return on;
  }
  static int runnable() {
    static std::atomic<std::chrono::steady_clock::rep> read_at{0};
    static std::atomic<int> value{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::milliseconds(2)).count();
    auto last = read_at.load(std::memory_order_relaxed);
    if (now - last < period || !read_at.compare_exchange_strong(last, now, std::memory_order_relaxed))
      return value.load(std::memory_order_relaxed);
    procs_.store(omp_get_num_procs(), std::memory_order_relaxed);  // a system call (0.8 us): with the file
    value.store(read_runnable(), std::memory_order_relaxed);
    return value.load(std::memory_order_relaxed);
  }
  static inline std::atomic<int> procs_{omp_get_num_procs()};  // as of the last reading
  static int online() {
#if defined(__linux__)
    static const int n = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    return n;
#else
    return 0;
#endif
  }
  static int read_runnable() {
#if defined(__linux__)
    static const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char line[128];
    const ssize_t got = ::pread(fd, line, sizeof(line) - 1, 0);
    if (got <= 0) return 0;
    line[got] = 0;
    return std::max(0, parse_runnable(line));
#else
    return 0;
#endif
  }
};

class thread_pool {
 public:
  /// The process's pool (never destroyed: a call from a static destructor, or
  /// after exit() began, still finds it; its threads sleep until the process ends).
  static thread_pool& get() {
    static thread_pool* const p = new thread_pool;
    return *p;
  }

  /// Runs job's items with up to job.team threads; false when the pool is busy
  /// (nothing ran: the caller runs them itself).
  bool run(const std::shared_ptr<pool_job>& job, late_note& late) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    const int had = started_;
    grow(job->team - 1);
    // Workers this call started: they come a thread start late (hundreds of
    // us on a virtual machine), which says nothing of the next calls.
    const bool fresh = started_ > had;
    // The caller and the workers not asleep are this process's runnable threads.
    const int own = 1 + started_ - sleepers_.load(std::memory_order_relaxed);
    const int helpers = std::min(machine_load::cap(job->team, own) - 1, started_);
    job->team = helpers + 1;
    const auto t_start = std::chrono::steady_clock::now();
    bool woke = false;  // a worker was asleep: it comes a wake-up's latency late
    if (helpers > 0) {
      {
        const std::lock_guard<std::mutex> lock(job_mutex_);
        job_ = job;
      }
      generation_.fetch_add(1, std::memory_order_seq_cst);
      woke = sleepers_.load(std::memory_order_seq_cst) > 0;
      if (woke) {
        { const std::lock_guard<std::mutex> lock(sleep_mutex_); }
        wake_.notify_all();
      }
    }
    bool& inside = in_pool_item();
    inside = true;
    job->item(0, 0);
    const index_t mine = 1 + job->drain(0);
    inside = false;
    // Every item is claimed; wait for the ones other threads are running.
    if (job->done.load(std::memory_order_acquire) < job->n) {
      const auto t1 = std::chrono::steady_clock::now();
      for (int spin = 0; job->done.load(std::memory_order_acquire) < job->n; ++spin)
        if (spin > 64) std::this_thread::yield();
      const auto t2 = std::chrono::steady_clock::now();
      const loss l = lost_time(t_start, t1, t2, mine, job->n);
      note_wait(l == loss::stall, t2);
      // A small loss (the others ran their few items slower than the caller
      // would have) says this kind of call is too small for the pool now: its
      // calls back off alone (note_late), not every call of the process.
      if (l == loss::small && !fresh) note_late(job->n, t2, late);
    } else {
      note_wait(false, t_start);
      // Workers that had to be woken are late by the wake-up alone (tens of us
      // on a virtual machine) and spin after it, ready for the next call: only
      // spinning workers that still came too late say the cores are taken.
      // (Otherwise a serial back-off lets them fall asleep, the next parallel
      // call finds them asleep and late again, and the calls stay serial.)
      if (helpers > 0 && mine == job->n && !woke && !fresh) note_late(job->n, t_start, late);
    }
    if (helpers > 0) {
      const std::lock_guard<std::mutex> lock(job_mutex_);
      job_.reset();
    }
    return true;
  }

  /// Whether a call of n items of the kind `late` runs serially now (see
  /// note_wait and note_late).
  bool backing_off(index_t n, const late_note& late) const {
    const auto until = serial_until_.load(std::memory_order_relaxed);
    const auto late_until = late.until.load(std::memory_order_relaxed);
    if (until == 0 && late_until == 0) return false;
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    return now < until || (now < late_until && n <= late.items.load(std::memory_order_relaxed));
  }

  /// After a call of n items of the kind `late` whose workers came too late to
  /// take any (the caller ran them all), calls of that kind of up to 2n items
  /// run serially for 50 ms: waking workers cost such a call time and gained
  /// nothing (on a machine whose cores are taken, or whose virtual cores share
  /// fewer physical ones, a woken worker spinning for work slowed the caller: a
  /// 2^17 float sum took 62 us against 37 alone). Larger calls still wake them.
  static void note_late(index_t n, std::chrono::steady_clock::time_point now, late_note& late) {
    const auto nowc = now.time_since_epoch().count();
    const index_t items = 2 * n;
    if (nowc >= late.until.load(std::memory_order_relaxed) || items > late.items.load(std::memory_order_relaxed))
      late.items.store(items, std::memory_order_relaxed);
    late.until.store((now + std::chrono::milliseconds(50)).time_since_epoch().count(), std::memory_order_relaxed);
  }

 private:
  thread_pool() = default;

  /// Whether a parallel call lost time against its caller running every item
  /// alone, judged by the caller's own items (mine of n, run from t_start to
  /// t1; the wait for the others' ended at t2): a thread holding an item was
  /// descheduled (a wait much longer than the caller's items took), or the call
  /// took longer than the caller alone would have (the other threads ran slower
  /// than it: cores shared with other processes, or a virtual machine's cores
  /// time-sliced on fewer physical ones, where two threads run at one core's
  /// speed). Workers that came late and found nothing left cost nothing and do
  /// not count. A stall is a wait or a loss past 200 us (a thread descheduled,
  /// cores shared): every call backs off (note_wait). A smaller loss is `small`:
  /// only calls of its kind back off (note_late). 2-core VM, idle, 20 calls in a
  /// row of a 2^16-float pdf with std::exp (about 1 ms serial): when any loss
  /// made every call serial, each ran at 0.98-1.0 ms; now 0.52-0.93.
  enum class loss { none, small, stall };
  static loss lost_time(std::chrono::steady_clock::time_point t_start, std::chrono::steady_clock::time_point t1,
                        std::chrono::steady_clock::time_point t2, index_t mine, index_t n) {
    using dur = std::chrono::steady_clock::duration;
    const dur per_item = (t1 - t_start) / mine;
    const dur wait = t2 - t1;
    const dur big = std::chrono::microseconds(200);
    if (wait > std::max<dur>(big, 4 * per_item)) return loss::stall;
    const dur alone = per_item * n;  // the caller's estimate of a serial run
    if (t2 - t_start <= alone + alone / 8 + std::chrono::microseconds(10)) return loss::none;
    return t2 - t_start - alone > big ? loss::stall : loss::small;
  }

  /// After a call that lost time (lost_time: a stall), the next calls run
  /// serially (on their caller alone) for a back-off period: 50 ms, doubled by
  /// each stall in a row up to 1 s, back to 50 ms after a call without one.
  /// On a busy machine the calls then cost what a serial loop costs, plus one
  /// stall per period; on an idle one stalls do not happen. (Under busy_.)
  void note_wait(bool stalled, std::chrono::steady_clock::time_point now) {
    if (!stalled) {
      backoff_ms_ = 50;
      return;
    }
    const auto until = now + std::chrono::milliseconds(backoff_ms_);
    serial_until_.store(until.time_since_epoch().count(), std::memory_order_relaxed);
    backoff_ms_ = std::min(2 * backoff_ms_, 1000);
  }

  /// Starts workers up to `want` (under busy_). If the system refuses a thread,
  /// the pool keeps the ones it has.
  void grow(int want) {
    // A new worker starts from the generation before the call that starts it
    // (grow runs before run() posts its job): it then takes that call's items.
    // Reading the generation in the new thread instead made it skip the call
    // that started it (its first items all went to the caller, the call looked
    // like one whose workers came late, and its kind ran serially for 50 ms:
    // bench_host's 2^16 std::exp pdf, every timed call).
    const std::uint64_t before = generation_.load(std::memory_order_acquire);
    while (started_ < want) {
      try {
        std::thread([this, slot = started_ + 1, before] { work(slot, before); }).detach();
      } catch (...) {
        return;
      }
      ++started_;
    }
  }

  void work(int slot, std::uint64_t seen) {
    for (;;) {
      // A short spin for back-to-back calls, then sleep until the next call.
      for (int spin = 0; spin < 4096 && generation_.load(std::memory_order_acquire) == seen; ++spin) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_seq_cst) != seen; });
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      }
      seen = generation_.load(std::memory_order_acquire);
      std::shared_ptr<pool_job> job;
      {
        const std::lock_guard<std::mutex> lock(job_mutex_);
        job = job_;
      }
      if (!job || slot >= job->team) continue;
      bool& inside = in_pool_item();
      inside = true;
      job->drain(slot);
      inside = false;
    }
  }

  std::mutex busy_;                 // held by the call using the pool
  int backoff_ms_ = 50;             // the next back-off period (under busy_)
  std::atomic<std::chrono::steady_clock::rep> serial_until_{0};  // calls serial until then
  int started_ = 0;                 // detached workers started (slots 1..started_; under busy_)
  std::mutex job_mutex_;
  std::shared_ptr<pool_job> job_;   // the current call's job (under job_mutex_)
  std::atomic<std::uint64_t> generation_{0};  // bumped per call that wakes workers
  std::atomic<int> sleepers_{0};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
};

/// Threads a call made now may use: omp_get_max_threads() of this thread, or 1
/// inside an item (nested calls run serially).
inline int parallel_slots() { return in_pool_item() ? 1 : std::max(1, omp_get_max_threads()); }

/// Calls body(i, slot) for every i in [0, n): slot, in [0, parallel_slots()),
/// identifies the thread running item i (0: the caller), so per-thread scratch
/// can be allocated before the loop, on the calling thread (where running out of
/// memory throws before any item has run). Items are claimed in increasing
/// order; the caller runs item 0. If bodies throw, the exception of the lowest
/// throwing i is rethrown here, whatever the thread count or timing: what a
/// serial loop would throw when each body works through its item in order.
/// Items below it all run; items above it that have not started are skipped.
/// At most `max_threads` threads when positive, and at most n.
template <class Body>
void parallel_n_slots(index_t n, const Body& body, int max_threads = 0) {
  if (n <= 0) return;
  int team = parallel_slots();
  if (max_threads > 0 && max_threads < team) team = max_threads;
  if (n < team) team = static_cast<int>(n);
  late_note& late = late_note_of<Body>();
  if (team > 1 && !thread_pool::get().backing_off(n, late)) {
    auto job = std::make_shared<pool_job>();
    job->n = n;
    job->team = team;
    job->failed.store(n, std::memory_order_relaxed);
    job->body = &body;
    job->run = [](const void* b, index_t i, int slot) { (*static_cast<const Body*>(b))(i, slot); };
    if (thread_pool::get().run(job, late)) {
      // The caller takes the exception out of the job: a worker may drop the
      // job's last reference later, and the exception must not be freed there
      // while the caller's handler reads it (its count lives in libsupc++, whose
      // atomics a race detector does not see).
      std::exception_ptr error;
      {
        const std::lock_guard<std::mutex> lock(job->error_mutex);
        error.swap(job->error);
      }
      if (error) std::rethrow_exception(error);
      return;
    }
  }
  // One thread: the items in order on this one (a serial loop; an exception
  // stops it where a loop would stop).
  for (index_t i = 0; i < n; ++i) body(i, 0);
}

/// parallel_n_slots without the slot: body(i) for every i in [0, n).
template <class Body>
void parallel_n(index_t n, const Body& body, int max_threads = 0) {
  parallel_n_slots(n, [&body](index_t i, int) { body(i); }, max_threads);
}

}  // namespace ufunc::detail::host
