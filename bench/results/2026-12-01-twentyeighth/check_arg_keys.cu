// Review of session 28 (host, this VM): argmin/argmax's packed keys now come from
// sort_bits.hpp's order bits. Checks that the new arg_key orders every value of every
// packed type as the old one did (identical keys for the 32-bit types, over all 2^32
// patterns; the same order for the narrower ones, exhaustively) and that arg_key_value
// inverts it (NaN back as NaN, -0 as +0). Dropping the NaN test from arg_key fails it.
#include <ufunc/ufunc.hpp>
#include <ufunc/detail/cuda/kernels/reduce_arg_dense.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
using namespace ufunc::detail;
template <bool Max, class T>
unsigned old_key(T v) {
  unsigned k;
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) k = static_cast<unsigned>(static_cast<int>(v)) ^ 0x80000000u;
    else k = static_cast<unsigned>(v);
  } else {
    const float f = static_cast<float>(v);
    if (f != f) return 0xFFFFFFFFu;
    float g = f == 0.0f ? 0.0f : f;
    unsigned u; std::memcpy(&u, &g, 4);
    k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  return Max ? k : ~k;
}
template <class T> bool same_canon(T a, T b) {  // a == canonical(b): NaN both, zeros +0
  if (is_nan(b)) return is_nan(a);
  T c = b;
  if constexpr (element_traits<T>::is_floating) if (static_cast<float>(b) == 0.0f) c = T(0.0f);
  return std::memcmp(&a, &c, sizeof(T)) == 0;
}
template <class T, bool Max> long long check_small(const char* name) {
  using U = sort_uint_t<T>;
  const unsigned long long N = 1ull << (8 * sizeof(T));
  std::vector<std::pair<unsigned, unsigned>> kk;  // (old, new)
  long long bad = 0;
  for (unsigned long long i = 0; i < N; ++i) {
    U b = static_cast<U>(i); T v; std::memcpy(&v, &b, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) if (i > 1) continue;
    const unsigned kn = arg_key<Max>(v);
    kk.push_back({old_key<Max>(v), kn});
    if (!same_canon(arg_key_value<Max, T>(kn), v)) ++bad;
  }
  std::sort(kk.begin(), kk.end());
  for (std::size_t i = 1; i < kk.size(); ++i) {
    const bool eq_old = kk[i].first == kk[i - 1].first, eq_new = kk[i].second == kk[i - 1].second;
    if (eq_old != eq_new || (!eq_old && !(kk[i - 1].second < kk[i].second))) ++bad;
  }
  std::printf("%-8s %s: %zu values, %lld bad\n", name, Max ? "max" : "min", kk.size(), bad);
  return bad;
}
template <class T, bool Max> long long check_32(const char* name) {
  long long bad = 0;
  for (unsigned long long i = 0; i < (1ull << 32); ++i) {
    unsigned b = static_cast<unsigned>(i); T v; std::memcpy(&v, &b, 4);
    const unsigned kn = arg_key<Max>(v);
    if (kn != old_key<Max>(v)) ++bad;
    if (!same_canon(arg_key_value<Max, T>(kn), v)) ++bad;
  }
  std::printf("%-8s %s: 2^32 values, %lld bad (keys identical to the old ones)\n", name, Max ? "max" : "min", bad);
  return bad;
}
int main() {
  long long bad = 0;
  bad += check_small<__half, true>("half") + check_small<__half, false>("half");
  bad += check_small<__nv_bfloat16, true>("bf16") + check_small<__nv_bfloat16, false>("bf16");
  bad += check_small<std::int16_t, true>("int16") + check_small<std::int16_t, false>("int16");
  bad += check_small<std::uint16_t, true>("uint16") + check_small<std::uint16_t, false>("uint16");
  bad += check_small<std::int8_t, true>("int8") + check_small<std::int8_t, false>("int8");
  bad += check_small<std::uint8_t, true>("uint8") + check_small<std::uint8_t, false>("uint8");
  bad += check_small<bool, true>("bool") + check_small<bool, false>("bool");
  bad += check_32<float, true>("float") + check_32<float, false>("float");
  bad += check_32<std::int32_t, true>("int32") + check_32<std::int32_t, false>("int32");
  bad += check_32<std::uint32_t, true>("uint32") + check_32<std::uint32_t, false>("uint32");
  std::printf("%s\n", bad ? "FAILED" : "all equivalent");
  return bad != 0;
}
