// The file rendezvous behind ufunc::file_communicator (file_communicator.hpp):
// the session protocol, the transport whose collectives are files in a shared
// directory, and the environment reader of communicator_from_env. POSIX only.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../communicator.hpp"
#include "../error.hpp"

namespace ufunc {
namespace detail {

// The protocol, in the directory D that every rank is given:
//
// Session. A directory may be reused by later jobs, and a killed job leaves its
// files behind, so nothing a rank reads may come from an earlier job. Each
// communicator makes a session: rank 0 creates D/ufunc-<id> (128 random bits,
// mkdir: never an existing one) and names it in D/ufunc-session (written to a
// temporary name, then renamed over the old one: readers see a whole file). Every
// rank draws a random nonce; rank r > 0 reads D/ufunc-session, writes its record
// (rank, nonce, world size, host name) as join.<r> into the session it names and
// polls that session's `ready`. Rank 0 waits for every join.<r> in its fresh
// directory (only this job's ranks can know its name), then writes `ready` with
// every record. A rank accepts a session only when `ready` holds its own nonce at
// its rank: an earlier job's session (its file not yet replaced, its `ready`
// complete) lacks the new nonce, so the rank keeps reading D/ufunc-session until
// this job's rank 0 has replaced it. Before publishing, rank 0 removes the session
// that D/ufunc-session named (a killed job's leftovers) unless its own process
// still holds it. Jobs running at the same time need different directories
// (nothing tells their ranks apart).
//
// Collectives. Collective k (numbered alike on every rank: every rank makes the
// same calls in the same order) is one file per rank, c<k>.<r>, written to a
// temporary name and renamed. It holds the rank's data (all-gather; gather off
// the root; scatter on the root: every rank's part; broadcast on the root) or
// nothing (a marker). Every
// rank waits until all files of k exist, so finishing k proves that every rank
// has finished k - 1: the rank then deletes its own file of k - 1, and at most
// three collectives' files exist at once. The file sizes are checked against
// what this rank expects (the ranks disagree about the call otherwise). Waits
// poll with sleeps growing from 50 us to 10 ms, stop at an abort marker
// (abort.<r>) of a rank they wait for, and end after the timeout with
// communication_error: a rank that died makes the others fail, never hang.
//
// End. A rank's destructor writes bye.<r>; the rank that then finds every rank's
// bye (or abort marker) removes the session directory (no rank waits for
// another). D/ufunc-session is left: removing it could remove a newer job's.
namespace file_comm {

inline std::string os_error(const std::string& what, const std::string& path, int err) {
  return "ufunc::file_communicator: " + what + " " + path + ": " + std::strerror(err);
}

/// 0, or the errno of the failed write.
inline int write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, std::min<std::size_t>(n, std::size_t(1) << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

/// 0, or the errno of the failed read (EIO when the file ends early).
inline int pread_all(int fd, void* data, std::size_t n, std::uint64_t offset) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, std::min<std::size_t>(n, std::size_t(1) << 30), static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (r == 0) return EIO;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return 0;
}

/// Writes `path` atomically: a temporary name (`tag` keeps writers apart), then
/// rename, so a reader that finds the name finds every byte. 0 or an errno.
inline int publish(const std::string& path, const void* data, std::size_t n, const std::string& tag) {
  const std::string tmp = path + "." + tag + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  int err = write_all(fd, data, n);
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS reports write errors at close
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(tmp.c_str());
  return err;
}

/// The whole of a small file: 0, or an errno (ENOENT: not there, yet or any more).
inline int read_text(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat st;
  int err = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (err == 0) {
    out.assign(static_cast<std::size_t>(st.st_size), '\0');
    err = pread_all(fd, &out[0], out.size(), 0);
  }
  ::close(fd);
  return err;
}

/// 16 random bytes as 32 hex digits: the kernel's randomness, else random_device
/// mixed with the time and the process id.
inline std::string random_hex() {
  unsigned char b[16];
  bool ok = false;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    std::size_t got = 0;
    while (got < sizeof b) {
      const ssize_t r = ::read(fd, b + got, sizeof b - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    ok = got == sizeof b;
    ::close(fd);
  }
  if (!ok) {
    std::random_device rd;
    const auto t = static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    std::seed_seq seq{rd(), rd(), rd(), static_cast<unsigned>(t), static_cast<unsigned>(t >> 32),
                      static_cast<unsigned>(::getpid())};
    std::mt19937_64 g(seq);
    for (auto& c : b) c = static_cast<unsigned char>(g());
  }
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

inline bool is_id(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// The session id a D/ufunc-session file names, or "" when it names none.
inline std::string session_named(const std::string& text) {
  std::istringstream in(text);
  std::string word, id;
  in >> word >> id;
  return word == "ufunc-session" && is_id(id) ? id : std::string();
}

/// Removes a session directory and its files (best effort: a file another rank
/// adds meanwhile keeps it; the next rank 0 removes it).
inline void remove_session(const std::string& path) {
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(path.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
      ::closedir(d);
    } else {
      return;
    }
    for (const auto& n : names) ::unlink((path + "/" + n).c_str());
    if (::rmdir(path.c_str()) == 0 || errno != ENOTEMPTY) return;
  }
}

/// mkdir -p.
inline void make_dirs(const std::string& path) {
  for (std::size_t at = 1; at <= path.size(); ++at) {
    if (at < path.size() && path[at] != '/') continue;
    const std::string p = path.substr(0, at);
    if (::mkdir(p.c_str(), 0777) != 0 && errno != EEXIST) {
      const int e = errno;
      throw communication_error(os_error("cannot create the directory", p, e));
    }
  }
}

/// The sessions this process holds (any rank): a rank 0 never removes one of them,
/// so communicators of one job may share a directory while rank 0's process is
/// the same. Never destroyed: a communicator in a static object may end after
/// them.
inline std::mutex& live_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
inline std::multiset<std::string>& live_sessions() {
  static auto* s = new std::multiset<std::string>;
  return *s;
}

/// A rank's handshake record: one line of join.<r> and of `ready`.
struct record {
  int rank = -1;
  std::string nonce;
  int size = 0;
  std::string host;
  std::string line() const {
    return std::to_string(rank) + " " + nonce + " " + std::to_string(size) + " " + host + "\n";
  }
  static bool parse(const std::string& line, record& r) {
    std::istringstream in(line);
    return static_cast<bool>(in >> r.rank >> r.nonce >> r.size >> r.host) && is_id(r.nonce);
  }
};

inline std::string this_host() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace file_comm

/// The communicator's collectives as files in a shared directory (the protocol
/// above).
class file_transport final : public comm_transport {
 public:
  /// `local_rank` < 0: this rank's index among the ranks with its host name;
  /// `host` empty: gethostname (tests name hosts).
  file_transport(const std::string& directory, int rank, int size, double timeout_s, int local_rank = -1,
                 std::string host = {})
      : rank_(rank), size_(size), timeout_s_(timeout_s) {
    const std::string at = "ufunc::file_communicator: ";
    if (directory.empty()) throw value_error(at + "the directory is empty");
    if (size < 1) throw value_error(at + "size " + std::to_string(size) + ": a job has at least 1 rank");
    if (rank < 0 || rank >= size)
      throw value_error(at + "rank " + std::to_string(rank) + " is not in [0, " + std::to_string(size) + ")");
    if (!(timeout_s > 0) || !std::isfinite(timeout_s))
      throw value_error(at + "timeout " + std::to_string(timeout_s) + " s: a positive number of seconds");
    if (local_rank >= size)
      throw value_error(at + "local rank " + std::to_string(local_rank) + " is not in [0, " + std::to_string(size) + ")");
    dir_ = directory;
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    host_ = host.empty() ? file_comm::this_host() : std::move(host);
    for (char& c : host_)  // one word of a record line
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') c = '_';
    nonce_ = file_comm::random_hex();
    const std::vector<file_comm::record> all = rank_ == 0 ? start_session() : join_session();
    try {
      for (const auto& r : all)
        if (r.size != size_)
          throw value_error(at + "the ranks disagree on the world size: rank " + std::to_string(rank_) + " has " +
                            std::to_string(size_) + ", rank " + std::to_string(r.rank) + " has " +
                            std::to_string(r.size) + " (" + session_ + ")");
    } catch (...) {
      forget();
      throw;
    }
    local_ = 0;
    for (int q = 0; q < rank_; ++q) local_ += all[static_cast<std::size_t>(q)].host == host_;
    if (local_rank >= 0) local_ = local_rank;
  }
  /// Waits for nothing and throws nothing: the last rank out removes the session.
  ~file_transport() override {
    try {
      forget();
      if (file_comm::publish(file(0, "bye", rank_), nullptr, 0, nonce_) != 0) return;
      struct stat st;
      for (int q = 0; q < size_; ++q)  // a rank still in (an aborted one is out)
        if (::stat(file(0, "bye", q).c_str(), &st) != 0 && ::stat(file(0, "abort", q).c_str(), &st) != 0) return;
      file_comm::remove_session(session_);
    } catch (...) {  // (out of memory for a path: the next job's rank 0 removes the session)
    }
  }
  file_transport(const file_transport&) = delete;
  file_transport& operator=(const file_transport&) = delete;

  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  int local_rank() const noexcept override { return local_; }
  /// The session directory (tests look into it).
  const std::string& session() const noexcept { return session_; }

  void allgather(const void* send, std::size_t bytes, void* recv) const override {
    collective(kind::allgather, send, bytes, recv, 0);
  }
  void gather(const void* send, std::size_t bytes, void* recv, int root) const override {
    collective(kind::gather, send, bytes, recv, root);
  }
  void scatter(const void* send, std::size_t bytes, void* recv, int root) const override {
    collective(kind::scatter, send, bytes, recv, root);
  }
  /// The root's file holds its data once (the other ranks' are markers), and
  /// each other rank reads it: not the interface's default (a scatter of
  /// size() copies made on the root).
  void broadcast(void* data, std::size_t bytes, int root) const override {
    collective(kind::broadcast, data, bytes, data, root);
  }
  /// Leaves a marker the other ranks' waits stop at, then ends this process
  /// (each other rank throws communication_error at its next collective).
  void abort(int code) const noexcept override {
    try {
      const std::string text = std::to_string(code);
      (void)file_comm::publish(file(0, "abort", rank_), text.data(), text.size(), nonce_);
    } catch (...) {  // the others then fail at their timeout
    }
    std::_Exit(code);
  }

 private:
  enum class kind { allgather, gather, scatter, broadcast };
  static const char* name(kind k) {
    return k == kind::allgather ? "allgather" : k == kind::gather ? "gather" : k == kind::scatter ? "scatter" : "broadcast";
  }

  /// A file of the session: c<k>.<r> for a collective, <what>.<r> otherwise.
  std::string file(std::uint64_t k, const char* what, int r) const {
    return session_ + "/" + (k ? "c" + std::to_string(k) : std::string(what)) + "." + std::to_string(r);
  }
  void forget() const {
    std::lock_guard<std::mutex> lock(file_comm::live_mutex());
    auto& live = file_comm::live_sessions();
    const auto it = live.find(id_);
    if (it != live.end()) live.erase(it);
  }
  file_comm::record mine() const { return {rank_, nonce_, size_, host_}; }
  double elapsed(std::chrono::steady_clock::time_point t0) const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  static void nap(double& us) {
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(us)));
    us = std::min(us * 2, 10000.0);
  }
  std::string seconds() const {
    std::ostringstream s;
    s << timeout_s_ << " s";
    return s.str();
  }
  static std::string rank_list(const std::vector<int>& ranks) {
    std::string s = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
    if (ranks.size() > 16) s += " and " + std::to_string(ranks.size() - 16) + " more";
    return s;
  }

  /// Waits until path(q) exists for every rank q in [first, size_); returns their
  /// sizes. k > 0 (a collective): abort markers of the ranks waited for end it.
  template <class Path>
  std::vector<long long> await(std::uint64_t k, int first, Path&& path, const std::string& what,
                               const char* hint) const {
    std::vector<long long> sizes(static_cast<std::size_t>(size_), -1);
    const auto t0 = std::chrono::steady_clock::now();
    double us = 50;
    for (;;) {
      std::vector<int> missing;
      for (int q = first; q < size_; ++q) {
        auto& s = sizes[static_cast<std::size_t>(q)];
        if (s >= 0) continue;
        const std::string f = path(q);
        struct stat st;
        if (::stat(f.c_str(), &st) == 0) {
          s = static_cast<long long>(st.st_size);
        } else {
          const int e = errno;
          if (e != ENOENT) throw communication_error(file_comm::os_error("cannot look for", f, e));
          missing.push_back(q);
        }
      }
      if (missing.empty()) return sizes;
      if (k > 0)
        for (int q : missing) {
          std::string code;
          if (file_comm::read_text(file(0, "abort", q), code) == 0)
            throw communication_error("ufunc::file_communicator: rank " + std::to_string(q) + " aborted (code " +
                                      code + "); " + what + " cannot complete on rank " + std::to_string(rank_) +
                                      " (" + session_ + ")");
        }
      if (elapsed(t0) > timeout_s_)
        throw communication_error("ufunc::file_communicator: " + what + " timed out after " + seconds() +
                                  " on rank " + std::to_string(rank_) + ": nothing from " + rank_list(missing) +
                                  " in " + session_ + " (" + hint + ")");
      nap(us);
    }
  }

  /// Rank 0: a fresh session, every rank's record collected, `ready` written.
  std::vector<file_comm::record> start_session() {
    file_comm::make_dirs(dir_);
    {
      std::lock_guard<std::mutex> lock(file_comm::live_mutex());
      std::string text;
      if (file_comm::read_text(dir_ + "/ufunc-session", text) == 0) {  // an earlier job's, finished or killed
        const std::string old = file_comm::session_named(text);
        if (!old.empty() && !file_comm::live_sessions().count(old)) file_comm::remove_session(dir_ + "/ufunc-" + old);
      }
      id_ = file_comm::random_hex();
      session_ = dir_ + "/ufunc-" + id_;
      if (::mkdir(session_.c_str(), 0700) != 0) {
        const int e = errno;
        throw communication_error(file_comm::os_error("cannot create the session directory", session_, e));
      }
      text = "ufunc-session " + id_ + "\n";
      if (const int e = file_comm::publish(dir_ + "/ufunc-session", text.data(), text.size(), nonce_)) {
        file_comm::remove_session(session_);
        throw communication_error(file_comm::os_error("cannot write", dir_ + "/ufunc-session", e));
      }
      file_comm::live_sessions().insert(id_);
    }
    try {
      std::vector<file_comm::record> all(static_cast<std::size_t>(size_));
      all[0] = mine();
      const auto join = [&](int q) { return file(0, "join", q); };
      (void)await(0, 1, join, "the rendezvous of " + std::to_string(size_) + " ranks",
                  "is every rank started, with this directory and world size?");
      std::string ready = "ufunc-session " + id_ + " " + std::to_string(size_) + "\n" + all[0].line();
      for (int q = 1; q < size_; ++q) {
        std::string text;
        auto& r = all[static_cast<std::size_t>(q)];
        if (const int e = file_comm::read_text(join(q), text))
          throw communication_error(file_comm::os_error("cannot read", join(q), e));
        if (!file_comm::record::parse(text, r) || r.rank != q)
          throw communication_error("ufunc::file_communicator: " + join(q) + " is not a join record of rank " +
                                    std::to_string(q));
        ready += r.line();
      }
      if (const int e = file_comm::publish(session_ + "/ready", ready.data(), ready.size(), nonce_))
        throw communication_error(file_comm::os_error("cannot write", session_ + "/ready", e));
      return all;
    } catch (...) {
      forget();
      throw;
    }
  }

  /// Rank r > 0: joins the session D/ufunc-session names once that session's
  /// `ready` holds this rank's nonce (an earlier job's session never does).
  std::vector<file_comm::record> join_session() {
    const auto t0 = std::chrono::steady_clock::now();
    std::string joined;            // the session this rank's record was written into
    std::set<std::string> stale;   // sessions whose `ready` lacks this rank's nonce
    const std::string me = mine().line();
    double us = 50;
    for (;;) {
      std::string text;
      const int e = file_comm::read_text(dir_ + "/ufunc-session", text);
      if (e != 0 && e != ENOENT && e != ENOTDIR)
        throw communication_error(file_comm::os_error("cannot read", dir_ + "/ufunc-session", e));
      const std::string id = e == 0 ? file_comm::session_named(text) : std::string();
      if (!id.empty() && !stale.count(id)) {
        const std::string s = dir_ + "/ufunc-" + id;
        const std::string join = s + "/join." + std::to_string(rank_);
        if (joined != id) {
          const int w = file_comm::publish(join, me.data(), me.size(), nonce_);
          if (w == 0)
            joined = id;
          else if (w != ENOENT)  // ENOENT: that session was removed meanwhile
            throw communication_error(file_comm::os_error("cannot write", join, w));
        }
        std::string ready;
        if (joined == id && file_comm::read_text(s + "/ready", ready) == 0) {
          std::istringstream in(ready);
          std::string line;
          std::getline(in, line);
          std::vector<file_comm::record> all;
          file_comm::record r;
          while (std::getline(in, line) && file_comm::record::parse(line, r)) all.push_back(r);
          const bool ours = static_cast<int>(all.size()) > rank_ &&
                            all[static_cast<std::size_t>(rank_)].nonce == nonce_ &&
                            all[static_cast<std::size_t>(rank_)].rank == rank_;
          if (ours) {
            std::lock_guard<std::mutex> lock(file_comm::live_mutex());
            id_ = id;
            session_ = s;
            file_comm::live_sessions().insert(id_);
            if (static_cast<int>(all.size()) < size_) all.resize(static_cast<std::size_t>(size_), all[0]);
            return all;
          }
          stale.insert(id);
        }
      }
      if (elapsed(t0) > timeout_s_)
        throw communication_error("ufunc::file_communicator: rank " + std::to_string(rank_) + " of " +
                                  std::to_string(size_) + " found no session for it in " + dir_ + " within " +
                                  seconds() + " (rank 0 writes " + dir_ +
                                  "/ufunc-session: is it running, with this directory and world size, and is rank " +
                                  std::to_string(rank_) + " given to one process only?)");
      nap(us);
    }
  }

  void collective(kind kd, const void* send, std::size_t bytes, void* recv, int root) const {
    const std::string at = "ufunc::file_communicator: ";
    if (root < 0 || root >= size_)
      throw value_error(at + name(kd) + " to root " + std::to_string(root) + " of " + std::to_string(size_) + " ranks");
    if (kd == kind::scatter && bytes > SIZE_MAX / static_cast<std::size_t>(size_))
      throw value_error(at + "scatter of " + std::to_string(bytes) + " bytes per rank overflows");
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uint64_t k = ++count_;
    const std::string what = "collective " + std::to_string(k) + " (" + name(kd) +
                             (kd == kind::allgather ? std::string() : ", root " + std::to_string(root)) + ")";
    // This rank's file: its data, every rank's part (the scatter's root), or a marker.
    const auto expected = [&](int q) -> std::size_t {
      if (kd == kind::allgather || (kd == kind::gather && q != root) || (kd == kind::broadcast && q == root)) return bytes;
      return kd == kind::scatter && q == root ? bytes * static_cast<std::size_t>(size_) : 0;
    };
    if (const int e = file_comm::publish(file(k, "", rank_), send, expected(rank_), nonce_))
      throw communication_error(file_comm::os_error("cannot write", file(k, "", rank_), e) +
                                (e == ENOENT ? " (the session was removed: another job over this directory?)" : ""));
    const auto sizes = await(k, 0, [&](int q) { return file(k, "", q); }, what,
                             "a rank exited or died, or the ranks' calls differ");
    // Every rank has written its file of k, so it is done with k - 1: nobody
    // reads this rank's file of k - 1 any more.
    if (k > 1) ::unlink(file(k - 1, "", rank_).c_str());
    for (int q = 0; q < size_; ++q)
      if (static_cast<unsigned long long>(sizes[static_cast<std::size_t>(q)]) != expected(q))
        throw communication_error(at + what + ": rank " + std::to_string(q) + " sent " +
                                  std::to_string(sizes[static_cast<std::size_t>(q)]) + " bytes where rank " +
                                  std::to_string(rank_) + " expects " + std::to_string(expected(q)) +
                                  ": the ranks disagree about the call (its kind, byte count or root) (" + session_ + ")");
    if (bytes == 0) return;
    auto* in = static_cast<unsigned char*>(recv);
    const auto* out = static_cast<const unsigned char*>(send);
    const auto read = [&](int q, std::uint64_t offset, unsigned char* into) {
      const std::string f = file(k, "", q);
      const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        const int e = errno;
        throw communication_error(file_comm::os_error("cannot open", f, e));
      }
      const int e = file_comm::pread_all(fd, into, bytes, offset);
      ::close(fd);
      if (e) throw communication_error(file_comm::os_error("cannot read", f, e));
    };
    if (kd == kind::allgather || (kd == kind::gather && rank_ == root)) {
      for (int q = 0; q < size_; ++q) {
        unsigned char* into = in + static_cast<std::size_t>(q) * bytes;
        if (q == rank_)
          std::memmove(into, out, bytes);
        else
          read(q, 0, into);
      }
    } else if (kd == kind::scatter) {
      const std::size_t mine_at = static_cast<std::size_t>(rank_) * bytes;
      if (rank_ == root)
        std::memmove(in, out + mine_at, bytes);
      else
        read(root, mine_at, in);  // only this rank's part of the root's file
    } else if (kd == kind::broadcast && rank_ != root) {
      read(root, 0, in);
    }
  }

  std::string dir_, session_, id_, nonce_, host_;
  int rank_ = 0, size_ = 1, local_ = 0;
  double timeout_s_ = 300;
  mutable std::mutex mutex_;           // collectives come from one thread at a time; the counter is guarded anyway
  mutable std::uint64_t count_ = 0;    // the last collective's number (the handshake is 0)
};

}  // namespace detail

namespace detail {

/// The integer an environment variable holds, in [lo, hi]; value_error naming
/// the variable and its text otherwise.
inline long long env_integer(const char* name, const char* text, long long lo, long long hi, const std::string& range) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE)
    throw value_error(std::string("ufunc::communicator_from_env: ") + name + "=\"" + text + "\" is not an integer");
  if (v < lo || v > hi)
    throw value_error(std::string("ufunc::communicator_from_env: ") + name + "=" + text + " is not " + range);
  return v;
}

}  // namespace detail
}  // namespace ufunc
