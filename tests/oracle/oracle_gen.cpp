// ufunc_oracle_gen: writes random cases of one category, run through the public
// API, for tests/oracle/check.py to recompute with NumPy.
//   ufunc_oracle_gen --category C --seed S --cases N [--first I] --out PREFIX
// Case i draws from its own generator seeded by (seed, category, i), so
// `--first i --cases 1` reruns exactly one case (the checker prints that line).
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>

#include "oracle.hpp"

namespace oracle {
void category_binary(rng_t&, writer&, record&);
void category_reduce(rng_t&, writer&, record&);
void category_methods(rng_t&, writer&, record&);
void category_matmul(rng_t&, writer&, record&);
void category_transpose(rng_t&, writer&, record&);
void category_sliced(rng_t&, writer&, record&);
void category_sliced_extreme(rng_t&, writer&, record&);
void category_lazy(rng_t&, writer&, record&);
void category_pairwise(rng_t&, writer&, record&);
void category_sharded(rng_t&, writer&, record&);
void category_gufunc(rng_t&, writer&, record&);
void category_primitives(rng_t&, writer&, record&);
void category_sort(rng_t&, writer&, record&);
void category_complex(rng_t&, writer&, record&);
}  // namespace oracle

int main(int argc, char** argv) {
  using namespace oracle;
  const std::map<std::string, category_fn> cats = {
      {"binary", category_binary},     {"reduce", category_reduce},
      {"methods", category_methods},   {"matmul", category_matmul},
      {"transpose", category_transpose}, {"sliced", category_sliced},
      {"sliced_extreme", category_sliced_extreme}, {"lazy", category_lazy},
      {"pairwise", category_pairwise}, {"sharded", category_sharded},
      {"gufunc", category_gufunc},     {"primitives", category_primitives},
      {"sort", category_sort},         {"complex", category_complex}};
  std::string cat, out;
  unsigned long long seed = 1;
  long long cases = 100, first = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--category") cat = v;
    else if (k == "--seed") seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--cases") cases = std::atoll(v.c_str());
    else if (k == "--first") first = std::atoll(v.c_str());
    else if (k == "--out") out = v;
    else { std::cerr << "ufunc_oracle_gen: unknown option " << k << "\n"; return 2; }
  }
  if (cat == "list") {
    for (const auto& c : cats) std::cout << c.first << "\n";
    return 0;
  }
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::cerr << "ufunc_oracle_gen: CUDA backend but no CUDA device visible: skipped\n";
    return 77;
  }
  const auto it = cats.find(cat);
  if (it == cats.end() || out.empty()) {
    std::cerr << "usage: ufunc_oracle_gen --category {binary|reduce|methods|matmul|transpose|sliced|sliced_extreme|lazy|pairwise|sharded|gufunc|primitives|sort|complex|list}"
                 " --seed S --cases N [--first I] --out PREFIX\n";
    return 2;
  }
  writer w(out);
  std::uint32_t cat_hash = 2166136261u;  // FNV-1a: the same cases in every build
  for (char c : cat) cat_hash = (cat_hash ^ static_cast<unsigned char>(c)) * 16777619u;
  for (long long i = first; i < first + cases; ++i) {
    std::seed_seq sq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                     static_cast<std::uint32_t>(cat_hash), static_cast<std::uint32_t>(i),
                     static_cast<std::uint32_t>(static_cast<unsigned long long>(i) >> 32)};
    rng_t g(sq);
    record rec;
    rec.add("cat", jstr(cat));
    rec.add("seed", std::to_string(seed));
    rec.add("index", std::to_string(i));
    try {
      it->second(g, w, rec);
    } catch (const std::exception& e) {  // the generator's own setup failed: not a case
      std::cerr << "ufunc_oracle_gen: case " << cat << " seed " << seed << " index " << i << ": " << e.what() << "\n";
      return 1;
    }
    w.line("{" + rec.fields + "}");
  }
  return 0;
}
