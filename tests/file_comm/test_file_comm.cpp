// The file rendezvous (ufunc/file_communicator.hpp, issue 40): a communicator
// without MPI. ctest runs this program with --ranks=N (N = 1, 2, 3). Each doctest
// case below starts N copies of the program (fork + exec: the rank, the world
// size and a fresh directory in UFUNC_RANK, UFUNC_WORLD_SIZE and UFUNC_RENDEZVOUS,
// or in a launcher's variables), each running one scenario (UFUNC_TEST_SCENARIO),
// and checks their exit codes and what they leave in the directory. A rank checks
// its results against data it regenerates for every rank from a seed, exits 1 on
// a failed check, 2 on an unexpected exception. No MPI: built in every build (a
// CUDA unit in CUDA builds, where a rank with a GPU runs GPU shards too).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <ufunc/file_communicator.hpp>
#include <ufunc/ufunc.hpp>

#include "../rank_cases.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

// A named namespace: nvcc's extended lambdas (UFUNC_HD) may not sit in a
// function of internal linkage.
namespace file_comm_test {

namespace fs = std::filesystem;
using host = ufunc::target::host;
using ufunc::index_t;

// ---------------------------------------------------------------- a rank's side

using rank_cases::check;
int& failures = rank_cases::failures;
int& my_rank = rank_cases::rank;
std::string env_or(const char* name, const std::string& otherwise = "") {
  const char* v = std::getenv(name);
  return v ? v : otherwise;
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Runs f; true when it threw E, whose message lands in *msg.
template <class E, class F>
bool throws(F&& f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const E& e) {
    if (msg) *msg = e.what();
    return true;
  }
  return false;
}

/// Rank q's bytes for collective j (n of them): every rank can make every rank's.
std::vector<unsigned char> bytes_of(unsigned j, int q, std::size_t n) {
  std::seed_seq seq{j, static_cast<unsigned>(q), static_cast<unsigned>(n), 2026u};
  std::mt19937 g(seq);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(g());
  return v;
}
bool same(const unsigned char* a, const std::vector<unsigned char>& b) {
  return b.empty() || std::memcmp(a, b.data(), b.size()) == 0;
}

/// The collective files (c<k>.<r>) in the session directory of `comm`.
int collective_files(const ufunc::communicator& comm) {
  const auto* t = dynamic_cast<const ufunc::detail::file_transport*>(comm.transport());
  if (!t) return -1;
  int n = 0;
  for (const auto& e : fs::directory_iterator(t->session())) {
    const std::string name = e.path().filename().string();
    n += name.size() > 1 && name[0] == 'c' && name.find(".tmp") == std::string::npos;
  }
  return n;
}

/// The size of rank r's file of its latest collective (c<k>.<r>, the highest k;
/// -1 if none), asked by rank r itself: that file is still there when the
/// collective returns (each rank deletes its file of k once k + 1 is complete).
long long last_file_size(const ufunc::communicator& comm, int r) {
  const auto* t = dynamic_cast<const ufunc::detail::file_transport*>(comm.transport());
  if (!t) return -1;
  long long best_k = -1, size = -1;
  const std::string tail = "." + std::to_string(r);
  for (const auto& e : fs::directory_iterator(t->session())) {
    const std::string name = e.path().filename().string();
    if (name.size() < 2 || name[0] != 'c' || name.size() <= tail.size() ||
        name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string k = name.substr(1, name.size() - 1 - tail.size());
    if (k.empty() || k.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::stoll(k) > best_k) {
      best_k = std::stoll(k);
      std::error_code ec;
      size = static_cast<long long>(fs::file_size(e.path(), ec));
      if (ec) size = -1;
    }
  }
  return size;
}

void scenario_collectives() {
  const auto comm = ufunc::communicator_from_env();
  const int P = comm.size(), me = comm.rank();
  check(me == std::stoi(env_or("UFUNC_RANK")) && P == std::stoi(env_or("UFUNC_WORLD_SIZE")), "rank and size");
  check(comm.spans_processes(), "spans processes");
  check(comm.local_rank() == me, "local rank from the host names (one host): " + std::to_string(comm.local_rank()));
  const auto small = comm.allgather(me * 10 + 1);
  bool ok = static_cast<int>(small.size()) == P;
  for (int q = 0; ok && q < P; ++q) ok = small[static_cast<std::size_t>(q)] == q * 10 + 1;
  check(ok, "allgather<int>");

  unsigned j = 0;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(4099), std::size_t(1) << 20}) {
    const std::string at = " (" + std::to_string(n) + " bytes, " + std::to_string(P) + " ranks)";
    ++j;
    const auto mine = bytes_of(j, me, n);
    std::vector<unsigned char> all(n * static_cast<std::size_t>(P), 0xEE);
    comm.allgather_bytes(mine.data(), n, all.data());
    ok = true;
    for (int q = 0; q < P; ++q) ok = ok && same(all.data() + static_cast<std::size_t>(q) * n, bytes_of(j, q, n));
    check(ok, "allgather" + at);
    for (int root = 0; root < P; ++root) {
      ++j;
      const auto g = bytes_of(j, me, n);
      std::vector<unsigned char> got(me == root ? n * static_cast<std::size_t>(P) : 4, 0xAB);
      comm.gather_bytes(g.data(), n, got.data(), root);
      ok = true;
      if (me == root)
        for (int q = 0; q < P; ++q) ok = ok && same(got.data() + static_cast<std::size_t>(q) * n, bytes_of(j, q, n));
      else
        ok = got == std::vector<unsigned char>(4, 0xAB);
      check(ok, "gather to root " + std::to_string(root) + at);
      ++j;
      std::vector<unsigned char> send;
      if (me == root)
        for (int q = 0; q < P; ++q) {
          const auto part = bytes_of(j, q, n);
          send.insert(send.end(), part.begin(), part.end());
        }
      std::vector<unsigned char> part(n, 0xCD);
      comm.scatter_bytes(me == root ? send.data() : nullptr, n, part.data(), root);
      check(part == bytes_of(j, me, n), "scatter from root " + std::to_string(root) + at);
      // A broadcast: the root's file holds its bytes once (not one copy a rank).
      ++j;
      auto b = me == root ? bytes_of(j, root, n) : std::vector<unsigned char>(n, 0x5A);
      comm.broadcast_bytes(b.data(), n, root);
      check(b == bytes_of(j, root, n), "broadcast from root " + std::to_string(root) + at);
      if (me == root)  // (its latest file: this rank has not begun the next collective)
        check(last_file_size(comm, root) == static_cast<long long>(n),
              "the broadcast's file of the root holds " + std::to_string(n) + " bytes" + at);
    }
  }
  // Each rank deletes its file of k - 1 once k is complete: after these dozens of
  // collectives at most three collectives' files are left.
  (void)comm.allgather(0);
  const int files = collective_files(comm);
  check(files >= 1 && files <= 3 * P, "files left in the session: " + std::to_string(files));

  // A second communicator over the same directory while the first lives (rank 0
  // is the same process: it keeps the first session), then after it is gone.
  {
    const auto two = ufunc::communicator_from_env();
    check(two != comm && two.rank() == me && two.size() == P, "a second communicator");
    for (int round = 0; round < 3; ++round) {
      const auto a = two.allgather(me + 100 * round);
      const auto b = comm.allgather(me + 1000 * round);
      ok = true;
      for (int q = 0; q < P; ++q)
        ok = ok && a[static_cast<std::size_t>(q)] == q + 100 * round && b[static_cast<std::size_t>(q)] == q + 1000 * round;
      check(ok, "two communicators over one directory, their collectives interleaved");
    }
  }
  const auto after = comm.allgather(me + 7);
  check(after.size() == static_cast<std::size_t>(P) && after.back() == P - 1 + 7, "the first after the second ended");

  // Host names decide the local rank: ranks alternate between two named hosts.
  {
    const ufunc::communicator named(std::make_shared<const ufunc::detail::file_transport>(
        env_or("UFUNC_RENDEZVOUS"), me, P, 60.0, -1, "node" + std::to_string(me % 2)));
    check(named.local_rank() == me / 2, "local rank among the ranks of host node" + std::to_string(me % 2) + ": " +
                                            std::to_string(named.local_rank()));
    const auto hosts = named.allgather(named.local_rank());
    ok = true;
    for (int q = 0; q < P; ++q) ok = ok && hosts[static_cast<std::size_t>(q)] == q / 2;
    check(ok, "every rank's local rank");
  }
}

// A rank of a job that is killed: its files stay where they are.
void scenario_killed() {
  const auto comm = ufunc::communicator_from_env();
  for (int i = 0; i < 3; ++i) (void)comm.allgather(comm.rank() + i);
  std::vector<unsigned char> big(1000, static_cast<unsigned char>(comm.rank()));
  std::vector<unsigned char> all(1000 * static_cast<std::size_t>(comm.size()));
  comm.allgather_bytes(big.data(), big.size(), all.data());
  std::fflush(nullptr);
  std::_Exit(0);  // no destructor, as after kill -9
}

// The last rank exits after the first collective; the others' next one fails
// within a 3 s timeout. The ranks meet first with the launcher's 60 s, so that a
// rank slow to start on a busy machine is no failure.
void scenario_early_exit() {
  const auto all_started = ufunc::communicator_from_env();
  (void)all_started.allgather(0);
  const int P = all_started.size(), me = all_started.rank();
  const auto comm = ufunc::file_communicator(env_or("UFUNC_RENDEZVOUS"), me, P, 3.0);
  (void)comm.allgather(me);
  if (me == P - 1) std::_Exit(0);
  std::string msg;
  const bool threw = throws<ufunc::communication_error>([&] { (void)comm.allgather(me); }, &msg);
  check(threw && has(msg, "collective 2") && has(msg, "timed out") && has(msg, "rank " + std::to_string(P - 1)) &&
            has(msg, env_or("UFUNC_RENDEZVOUS")),
        "a rank that exited: communication_error naming it: " + msg);
}

// Rank N - 1 is never started: every started rank's construction fails.
void scenario_missing_rank() {
  const int me = std::stoi(env_or("UFUNC_RANK")), P = std::stoi(env_or("UFUNC_WORLD_SIZE"));
  std::string msg;
  const bool threw = throws<ufunc::communication_error>([&] { (void)ufunc::communicator_from_env(); }, &msg);
  check(threw, "a rank never started: communication_error at the rendezvous");
  if (me == 0)  // (another rank slow to start would be named too)
    check(has(msg, "rendezvous") && (has(msg, "from rank " + std::to_string(P - 1) + " in") ||
                                     has(msg, ", " + std::to_string(P - 1) + " in")),
          "rank 0 names the missing rank: " + msg);
  else
    check(has(msg, "no session"), "rank " + std::to_string(me) + ": " + msg);
}

// The last rank aborts; the others stop at its marker (the timeout is 60 s: the
// launcher's watchdog ends them well before).
void scenario_abort() {
  const auto comm = ufunc::communicator_from_env();
  const int P = comm.size(), me = comm.rank();
  (void)comm.allgather(me);
  if (me == P - 1) comm.abort(3);
  std::string msg;
  const bool threw = throws<ufunc::communication_error>([&] { (void)comm.allgather(me); }, &msg);
  check(threw && has(msg, "rank " + std::to_string(P - 1) + " aborted (code 3)"), "the abort marker: " + msg);
}

// Ranks that disagree about a call's byte count.
void scenario_mismatch() {
  const auto comm = ufunc::communicator_from_env();
  const int P = comm.size(), me = comm.rank();
  std::string msg;
  std::vector<unsigned char> send(16, 1), recv(16 * static_cast<std::size_t>(P));
  bool threw = throws<ufunc::communication_error>(
      [&] { comm.allgather_bytes(send.data(), me == 0 ? 8 : 16, recv.data()); }, &msg);
  const std::string want = me == 0 ? "sent 16 bytes where rank 0 expects 8" : "rank 0 sent 8 bytes where rank " +
                                                                                   std::to_string(me) + " expects 16";
  check(threw && has(msg, want) && has(msg, "collective 1"), "allgather of 8 bytes on rank 0, 16 elsewhere: " + msg);
  // Gather to 0, the last rank sending 4 bytes: the root finds it.
  msg.clear();
  threw = throws<ufunc::communication_error>(
      [&] { comm.gather_bytes(send.data(), me == P - 1 ? 4 : 8, recv.data(), 0); }, &msg);
  if (me == 0)
    check(threw && has(msg, "rank " + std::to_string(P - 1) + " sent 4 bytes where rank 0 expects 8"), "gather: " + msg);
  // Scatter from 0 of 8 bytes per rank, 16 expected elsewhere: each receiver finds it.
  msg.clear();
  threw = throws<ufunc::communication_error>(
      [&] { comm.scatter_bytes(recv.data(), me == 0 ? 8 : 16, send.data(), 0); }, &msg);
  if (me != 0)
    check(threw && has(msg, "rank 0 sent " + std::to_string(8 * P) + " bytes"), "scatter: " + msg);
  // Broadcast from 0 of 8 bytes, 16 expected elsewhere: each receiver finds it.
  msg.clear();
  threw = throws<ufunc::communication_error>([&] { comm.broadcast_bytes(send.data(), me == 0 ? 8 : 16, 0); }, &msg);
  if (me != 0) check(threw && has(msg, "rank 0 sent 8 bytes where rank " + std::to_string(me) + " expects 16"), "broadcast: " + msg);
  // The ranks still count alike: the next call works everywhere.
  const auto all = comm.allgather(me * 3);
  bool ok = all.size() == static_cast<std::size_t>(P);
  for (int q = 0; ok && q < P; ++q) ok = all[static_cast<std::size_t>(q)] == 3 * q;
  check(ok, "an allgather after the disagreements");
}

// A launcher's variables (UFUNC_RANK unset): the rank and local rank the
// launcher set up (UFUNC_TEST_RANK, UFUNC_TEST_LOCAL) must be the ones taken.
void scenario_launcher() {
  const auto comm = ufunc::communicator_from_env();
  my_rank = comm.rank();
  const int P = std::stoi(env_or("UFUNC_TEST_SIZE"));
  check(comm.rank() == std::stoi(env_or("UFUNC_TEST_RANK")) && comm.size() == P,
        "rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) + " from " +
            env_or("UFUNC_TEST_FAMILY"));
  check(comm.local_rank() == std::stoi(env_or("UFUNC_TEST_LOCAL")),
        "local rank " + std::to_string(comm.local_rank()) + " from " + env_or("UFUNC_TEST_FAMILY"));
  const auto all = comm.allgather(comm.rank());
  bool ok = all.size() == static_cast<std::size_t>(P);
  for (int q = 0; ok && q < P; ++q) ok = all[static_cast<std::size_t>(q)] == q;
  check(ok, "allgather over the launcher's ranks");
}

// -------------------------------------------------- sharded arrays over the ranks

// The sharded calls tests/mpi runs over MPI (tests/rank_cases.hpp), here over the files.
template <class Tg>
void run_sharded(const ufunc::communicator& comm, const ufunc::device_set& d) {
  const int P = comm.size();
  for (index_t n : {index_t(0), index_t(1), index_t(2), index_t(P), index_t(7), index_t(1000), index_t(10007)})
    rank_cases::run_case<Tg>(d, n);
  rank_cases::broadcast_case<Tg>(d);
  if constexpr (std::is_same_v<Tg, host>) rank_cases::throwing_case(d);
  rank_cases::ring_case<Tg>(d);
}

void scenario_sharded() {
  const auto comm = ufunc::communicator_from_env();
  const ufunc::device_set d(comm, 0);
  check(d.spans_processes() && d.ranks() == comm.size() && d.rank() == comm.rank(), "device_set(comm)");
  run_sharded<host>(comm, d);
#if defined(UFUNC_BACKEND_CUDA)
  if (ufunc::device_available()) {  // GPU shards where the machine has one (local rank modulo the GPUs)
    const ufunc::device_set gpus(comm);
    cudaSetDevice(gpus[0]);
    run_sharded<ufunc::target::device>(comm, gpus);
#if defined(UFUNC_TESTING)
    // Every rank with a GPU of its own and NCCL: an axis-0 sum's partials meet in
    // one ncclAllReduce, its NCCL communicator's id sent through the files.
    const long before = ufunc::detail::testing::rank_allreduces();
    const auto ones = ufunc::full<float, ufunc::target::device>(ufunc::shape{1000, 2}, 1.f, gpus);
    const auto cols = ufunc::sum(ones, ufunc::axis(0)).to_host();
    check(cols.size() == 2 && cols[0] == 1000.f && cols[1] == 1000.f, "axis-0 sum of ones over the ranks' GPUs");
    const int P = comm.size();
    const bool nccl = ufunc::have_nccl && P > 1 && P <= static_cast<int>(ufunc::devices().size());
    check((ufunc::detail::testing::rank_allreduces() > before) == nccl,
          std::string("the NCCL all-reduce across ranks ") + (nccl ? "not used" : "used") + " with " +
              std::to_string(P) + " ranks on " + std::to_string(ufunc::devices().size()) + " GPUs");
#endif
  }
#endif
}

int child_main(const std::string& scenario) {
  my_rank = std::atoi(env_or("UFUNC_RANK", env_or("UFUNC_TEST_RANK", "-1")).c_str());
  if (const char* delay = std::getenv("UFUNC_TEST_DELAY"))  // rank 0 late: the others meet the old session first
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(delay)));
  const std::map<std::string, void (*)()> scenarios = {
      {"collectives", scenario_collectives}, {"killed", scenario_killed},   {"early_exit", scenario_early_exit},
      {"missing_rank", scenario_missing_rank}, {"abort", scenario_abort}, {"mismatch", scenario_mismatch},
      {"launcher", scenario_launcher},         {"sharded", scenario_sharded}};
  const auto it = scenarios.find(scenario);
  if (it == scenarios.end()) {
    std::fprintf(stderr, "test_file_comm: no scenario %s\n", scenario.c_str());
    return 2;
  }
  try {
    it->second();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s: unexpected exception: %s\n", my_rank, scenario.c_str(), e.what());
    return 2;
  }
  return failures ? 1 : 0;
}

// ------------------------------------------------------------- the launcher

int ranks_ = 1;  // --ranks=N

/// The variables a rank's environment takes from the launcher's test, never
/// from this process's (ctest may itself run under srun).
const char* const rank_variables[] = {"UFUNC_RANK", "UFUNC_WORLD_SIZE", "UFUNC_LOCAL_RANK", "UFUNC_RENDEZVOUS",
                                      "UFUNC_TIMEOUT", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
                                      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                                      "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"};

using vars = std::vector<std::pair<std::string, std::string>>;

/// A fresh directory under $TMPDIR (or /tmp), removed at the end of the case.
struct scratch {
  std::string path;
  scratch() {
    std::string t = (fs::path(env_or("TMPDIR", "/tmp")) / "ufunc-file-comm-XXXXXX").string();
    if (!::mkdtemp(&t[0])) throw std::runtime_error("mkdtemp failed");
    path = t;
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// Starts the ranks in `started` (default all of 0..n-1) of scenario `scenario`
/// over `dir`, each with UFUNC_RANK etc. plus extra(r) (a value "" unsets),
/// and returns their exit codes (128 + signal; -1: still running at the
/// watchdog's limit, then killed).
std::vector<int> launch(const std::string& scenario, int n, const std::string& dir,
                        const std::function<vars(int)>& extra = nullptr, std::vector<int> started = {},
                        double watchdog_s = 120) {
  if (started.empty())
    for (int r = 0; r < n; ++r) started.push_back(r);
  char self[4096] = {};
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  REQUIRE(len > 0);
  std::vector<pid_t> pids;
  for (int r : started) {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const char* v : rank_variables) env.erase(v);
    env["UFUNC_RANK"] = std::to_string(r);
    env["UFUNC_WORLD_SIZE"] = std::to_string(n);
    env["UFUNC_RENDEZVOUS"] = dir;
    env["UFUNC_TIMEOUT"] = "60";
    env["UFUNC_TEST_SCENARIO"] = scenario;
    if (extra)
      for (const auto& kv : extra(r)) {
        if (kv.second.empty())
          env.erase(kv.first);
        else
          env[kv.first] = kv.second;
      }
    std::vector<std::string> lines;
    for (const auto& kv : env) lines.push_back(kv.first + "=" + kv.second);
    std::vector<char*> envp;
    for (auto& l : lines) envp.push_back(&l[0]);
    envp.push_back(nullptr);
    char* argv[] = {self, nullptr};
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::execve(self, argv, envp.data());
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes(pids.size(), -1);
  std::vector<bool> done(pids.size(), false);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t left = pids.size();
  while (left > 0) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      int status = 0;
      if (done[i] || ::waitpid(pids[i], &status, WNOHANG) != pids[i]) continue;
      done[i] = true;
      --left;
      codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (left > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > watchdog_s) {
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (!done[i]) {
          ::kill(pids[i], SIGKILL);
          ::waitpid(pids[i], nullptr, 0);
          done[i] = true;
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return codes;
}

/// The session directories (ufunc-<32 hex digits>) and temporary files left in `dir`.
std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name != "ufunc-session") left.push_back(name);
  }
  return left;
}

std::string codes_str(const std::vector<int>& codes) {
  std::string s;
  for (int c : codes) s += (s.empty() ? "" : " ") + std::to_string(c);
  return s;
}

}  // namespace file_comm_test

using namespace file_comm_test;

TEST_CASE("file_communicator: allgather, gather and scatter byte for byte; a second job over the same directory") {
  scratch dir;
  for (int run = 0; run < 2; ++run) {
    // The second run with a launcher's variables too (another rank, an invalid
    // local rank): UFUNC_RANK and UFUNC_WORLD_SIZE win, the host names give the local rank.
    const auto codes = launch("collectives", ranks_, dir.path, [&](int r) {
      return run == 0 ? vars{}
                      : vars{{"SLURM_PROCID", std::to_string((r + 1) % ranks_)},
                             {"SLURM_NTASKS", std::to_string(ranks_)},
                             {"SLURM_LOCALID", "99"}};
    });
    INFO("run " << run << ", exit codes " << codes_str(codes));
    CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
    CHECK(leftovers(dir.path).empty());  // the last rank out removed the session
    CHECK(fs::exists(dir.path + "/ufunc-session"));
  }
}

TEST_CASE("file_communicator: sharded arrays over the ranks") {
  scratch dir;
  const auto codes = launch("sharded", ranks_, dir.path);
  INFO("exit codes " << codes_str(codes));
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
  CHECK(leftovers(dir.path).empty());
}

TEST_CASE("file_communicator: a killed job's files are neither read nor left") {
  scratch dir;
  auto codes = launch("killed", ranks_, dir.path);
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
  const auto litter = leftovers(dir.path);
  REQUIRE(litter.size() == 1);  // its session, with its `ready` and files
  // Rank 0 starts late: the others find the killed job's session first.
  codes = launch("collectives", ranks_, dir.path, [](int r) {
    return r == 0 ? vars{{"UFUNC_TEST_DELAY", "0.5"}} : vars{};
  });
  INFO("exit codes " << codes_str(codes));
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
  CHECK(leftovers(dir.path).empty());
}

TEST_CASE("file_communicator: a forged earlier session is not joined") {
  scratch dir;
  // A complete session of an earlier job: its `ready` lists every rank (with
  // other nonces), its first collective's files hold other bytes.
  const std::string id = "0123456789abcdef0123456789abcdef", s = dir.path + "/ufunc-" + id;
  fs::create_directory(s);
  std::ofstream(dir.path + "/ufunc-session") << "ufunc-session " << id << "\n";
  std::ofstream ready(s + "/ready");
  ready << "ufunc-session " << id << " " << ranks_ << "\n";
  for (int r = 0; r < ranks_; ++r) {
    ready << r << " " << std::string(32, static_cast<char>('a' + r)) << " " << ranks_ << " host\n";
    std::ofstream(s + "/c1." + std::to_string(r)) << "not this job's bytes";
    std::ofstream(s + "/join." + std::to_string(r)) << r << " " << std::string(32, 'f') << " " << ranks_ << " host\n";
  }
  ready.close();
  const auto codes = launch("collectives", ranks_, dir.path, [](int r) {
    return r == 0 ? vars{{"UFUNC_TEST_DELAY", "0.5"}} : vars{};
  });
  INFO("exit codes " << codes_str(codes));
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
  CHECK(leftovers(dir.path).empty());
}

TEST_CASE("file_communicator: a rank that exits makes the others fail within the timeout") {
  if (ranks_ < 2) return;
  scratch dir;
  const auto codes = launch("early_exit", ranks_, dir.path);
  INFO("exit codes " << codes_str(codes));
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
}

TEST_CASE("file_communicator: a rank that never starts fails the rendezvous") {
  if (ranks_ < 2) return;
  scratch dir;
  std::vector<int> started;
  for (int r = 0; r < ranks_ - 1; ++r) started.push_back(r);
  const auto codes =
      launch("missing_rank", ranks_, dir.path, [](int) { return vars{{"UFUNC_TIMEOUT", "2"}}; }, started);
  INFO("exit codes " << codes_str(codes));
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_ - 1), 0));
}

TEST_CASE("file_communicator: abort ends the rank, the others stop at its marker") {
  scratch dir;
  const auto codes = launch("abort", ranks_, dir.path, nullptr, {}, 40);
  INFO("exit codes " << codes_str(codes));
  std::vector<int> want(static_cast<std::size_t>(ranks_), 0);
  want.back() = 3;
  CHECK(codes == want);
  if (ranks_ > 1) CHECK(leftovers(dir.path).empty());  // the last rank out counts the aborted one as out
}

TEST_CASE("file_communicator: ranks that disagree about the byte count") {
  if (ranks_ < 2) return;
  scratch dir;
  const auto codes = launch("mismatch", ranks_, dir.path);
  INFO("exit codes " << codes_str(codes));
  CHECK(codes == std::vector<int>(static_cast<std::size_t>(ranks_), 0));
}

TEST_CASE("communicator_from_env: a launcher's variables when UFUNC_RANK is unset") {
  const int n = ranks_;
  // Each family with a decoy of a later family (a permutation of the ranks):
  // the earlier family must win. The local rank is the launcher's (here not the
  // host names' answer, which would be the rank).
  struct family {
    const char *name, *rank, *size, *local;
  };
  const family families[] = {{"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
                             {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
                             {"PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"}};
  for (std::size_t f = 0; f < 3; ++f) {
    scratch dir;
    const auto codes = launch("launcher", n, dir.path, [&](int r) {
      const auto& fam = families[f];
      vars v = {{"UFUNC_RANK", ""},
                {"UFUNC_WORLD_SIZE", ""},
                {fam.rank, std::to_string(r)},
                {fam.size, std::to_string(n)},
                {fam.local, std::to_string(n - 1 - r)},
                {"UFUNC_TEST_RANK", std::to_string(r)},
                {"UFUNC_TEST_SIZE", std::to_string(n)},
                {"UFUNC_TEST_LOCAL", std::to_string(n - 1 - r)},
                {"UFUNC_TEST_FAMILY", fam.name}};
      if (f < 2) {  // a later family's variables, naming other ranks
        v.push_back({families[f + 1].rank, std::to_string((r + 1) % n)});
        v.push_back({families[f + 1].size, std::to_string(n)});
      }
      return v;
    });
    INFO(families[f].name << ": exit codes " << codes_str(codes));
    CHECK(codes == std::vector<int>(static_cast<std::size_t>(n), 0));
  }
}

namespace file_comm_test {

/// Sets the rank variables for one check (unset the rest), restores them after.
struct env_scope {
  std::map<std::string, std::string> saved;
  explicit env_scope(const vars& set) {
    for (const char* v : rank_variables)
      if (const char* old = std::getenv(v)) saved[v] = old;
    for (const char* v : rank_variables) ::unsetenv(v);
    for (const auto& kv : set) ::setenv(kv.first.c_str(), kv.second.c_str(), 1);
  }
  ~env_scope() {
    for (const char* v : rank_variables) ::unsetenv(v);
    for (const auto& kv : saved) ::setenv(kv.first.c_str(), kv.second.c_str(), 1);
  }
};

/// communicator_from_env's value_error message under `set`, or "no error".
std::string env_error(const vars& set) {
  env_scope scope(set);
  try {
    (void)ufunc::communicator_from_env();
  } catch (const ufunc::value_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace file_comm_test

TEST_CASE("communicator_from_env: missing and bad variables are named") {
  // Nothing set: the directory and both rank variables, with the launchers' names.
  std::string m = env_error({});
  CHECK(has(m, "UFUNC_RENDEZVOUS"));
  CHECK(has(m, "UFUNC_RANK (or SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK)"));
  CHECK(has(m, "UFUNC_WORLD_SIZE (or SLURM_NTASKS"));
  m = env_error({{"UFUNC_RANK", "0"}, {"UFUNC_WORLD_SIZE", "1"}});
  CHECK((has(m, "not set: UFUNC_RENDEZVOUS") && !has(m, "UFUNC_RANK")));
  m = env_error({{"UFUNC_RENDEZVOUS", "/nonexistent"}, {"UFUNC_RANK", "0"}});
  CHECK((has(m, "not set: UFUNC_WORLD_SIZE") && !has(m, "RENDEZVOUS")));
  m = env_error({{"UFUNC_RENDEZVOUS", "/nonexistent"}, {"SLURM_PROCID", "1"}});
  CHECK((has(m, "not set: SLURM_NTASKS") && !has(m, "UFUNC_RANK")));
  // Bad values: the variable and its value.
  const vars base = {{"UFUNC_RENDEZVOUS", "/nonexistent"}, {"UFUNC_WORLD_SIZE", "4"}};
  auto with = [&](vars extra) {
    vars v = base;
    v.insert(v.end(), extra.begin(), extra.end());
    return env_error(v);
  };
  CHECK(has(with({{"UFUNC_RANK", "abc"}}), "UFUNC_RANK=\"abc\" is not an integer"));
  CHECK(has(with({{"UFUNC_RANK", "1x"}}), "UFUNC_RANK=\"1x\" is not an integer"));
  CHECK(has(with({{"UFUNC_RANK", ""}}), "UFUNC_RANK=\"\" is not an integer"));
  CHECK(has(with({{"UFUNC_RANK", "4"}}), "UFUNC_RANK=4 is not in [0, UFUNC_WORLD_SIZE=4)"));
  CHECK(has(with({{"UFUNC_RANK", "-1"}}), "UFUNC_RANK=-1 is not in [0, UFUNC_WORLD_SIZE=4)"));
  CHECK(has(with({{"UFUNC_RANK", "99999999999999999999999"}}), "UFUNC_RANK=\"99999999999999999999999\" is not an integer"));
  CHECK(has(with({{"UFUNC_RANK", "1"}, {"UFUNC_LOCAL_RANK", "-2"}}), "UFUNC_LOCAL_RANK=-2 is not in [0"));
  CHECK(has(with({{"UFUNC_RANK", "1"}, {"UFUNC_TIMEOUT", "soon"}}), "UFUNC_TIMEOUT=\"soon\" is not a positive number"));
  CHECK(has(with({{"UFUNC_RANK", "1"}, {"UFUNC_TIMEOUT", "0"}}), "UFUNC_TIMEOUT=\"0\""));
  CHECK(has(with({{"UFUNC_RANK", "1"}, {"UFUNC_TIMEOUT", "inf"}}), "UFUNC_TIMEOUT=\"inf\""));
  CHECK(has(env_error({{"UFUNC_RENDEZVOUS", "/x"}, {"UFUNC_RANK", "0"}, {"UFUNC_WORLD_SIZE", "0"}}),
            "UFUNC_WORLD_SIZE=0 is not a rank count"));
  CHECK(has(env_error({{"UFUNC_RENDEZVOUS", "/x"}, {"PMI_RANK", "2"}, {"PMI_SIZE", "2"}}),
            "PMI_RANK=2 is not in [0, PMI_SIZE=2)"));
  CHECK(has(env_error({{"UFUNC_RENDEZVOUS", "/x"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"},
                       {"SLURM_LOCALID", "z"}}),
            "SLURM_LOCALID=\"z\" is not an integer"));
}

TEST_CASE("file_communicator: one rank in this process; bad arguments") {
  scratch dir;
  const std::string sub = dir.path + "/made/by/rank0";  // created if missing
  {
    const auto c = ufunc::file_communicator(sub, 0, 1, 5);
    CHECK(c.spans_processes());
    CHECK((c.rank() == 0 && c.size() == 1 && c.local_rank() == 0));
    const auto v = c.allgather(42.5);
    CHECK(v == std::vector<double>{42.5});
    std::vector<unsigned char> in = bytes_of(1, 0, 1000), out(1000);
    c.scatter_bytes(in.data(), in.size(), out.data(), 0);
    CHECK(out == in);
    std::string msg;
    CHECK(throws<ufunc::value_error>([&] { c.gather_bytes(in.data(), 1, out.data(), 1); }, &msg));
    CHECK(has(msg, "root 1 of 1 ranks"));
  }
  CHECK(leftovers(sub).empty());
  std::string msg;
  CHECK(throws<ufunc::value_error>([&] { (void)ufunc::file_communicator(sub, 0, 0); }, &msg));
  CHECK(has(msg, "size 0"));
  CHECK(throws<ufunc::value_error>([&] { (void)ufunc::file_communicator(sub, 2, 2); }, &msg));
  CHECK(has(msg, "rank 2 is not in [0, 2)"));
  CHECK(throws<ufunc::value_error>([&] { (void)ufunc::file_communicator(sub, -1, 2); }));
  CHECK(throws<ufunc::value_error>([&] { (void)ufunc::file_communicator("", 0, 1); }));
  CHECK(throws<ufunc::value_error>([&] { (void)ufunc::file_communicator(sub, 0, 1, 0); }));
  CHECK(throws<ufunc::value_error>([&] { (void)ufunc::file_communicator(sub, 0, 1, std::nan("")); }));
  // A directory that cannot be made: communication_error, not a wait.
  CHECK(throws<ufunc::communication_error>([&] { (void)ufunc::file_communicator("/proc/ufunc-no", 0, 1, 5); }, &msg));
  CHECK(has(msg, "/proc/ufunc-no"));
}

int main(int argc, char** argv) {
  if (const char* scenario = std::getenv("UFUNC_TEST_SCENARIO")) return child_main(scenario);
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--ranks=", 8) == 0)
      ranks_ = std::atoi(argv[i] + 8);
    else
      args.push_back(argv[i]);
  }
  if (ranks_ < 1) {
    std::fprintf(stderr, "test_file_comm: --ranks=N with N >= 1\n");
    return 2;
  }
  doctest::Context ctx(static_cast<int>(args.size()), args.data());
  return ctx.run();
}
