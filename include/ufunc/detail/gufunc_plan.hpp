// The host-only half of generalized ufuncs (gufunc.hpp): NumPy's signature
// "(m,n),(n)->(m)" parsed, and a call's plan: the core dimensions bound from
// the operands' trailing dims and checked against each other, the loop shape
// (the leading dims, broadcast), and per operand its strides along the loop and
// its core block's extents and strides. Testable without nvcc.
#pragma once

#include <array>
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../shape.hpp"
#include "layout.hpp"

namespace ufunc::detail {

/// A parsed signature: per operand its core dimensions, each a name or a fixed
/// size (NumPy's "(3)").
struct gufunc_signature {
  struct dim {
    std::string name;  ///< empty for a fixed size
    index_t size = -1;
  };
  std::vector<std::vector<dim>> ins, outs;
  std::string text;  ///< as given, for messages
};

/// The most core dimensions of one operand.
inline constexpr int gufunc_max_core = 4;

inline gufunc_signature parse_gufunc_signature(const std::string& text) {
  gufunc_signature sig;
  sig.text = text;
  std::size_t i = 0;
  auto fail = [&](const std::string& what) {
    throw value_error("ufunc::gufunc: signature \"" + text + "\": " + what + " at position " + std::to_string(i));
  };
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto operands = [&](std::vector<std::vector<gufunc_signature::dim>>& list) {
    for (;;) {
      skip();
      if (i >= text.size() || text[i] != '(') fail("expected '('");
      ++i;
      std::vector<gufunc_signature::dim> dims;
      skip();
      if (i < text.size() && text[i] == ')') {
        ++i;
      } else {
        for (;;) {
          skip();
          const std::size_t b = i;
          while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
          if (b == i) fail(i < text.size() && (text[i] == '?' || text[i] == '|')
                               ? "NumPy's flexible ('?') and broadcastable ('|1') dimensions are not supported"
                               : "expected a dimension name or size");
          const std::string tok = text.substr(b, i - b);
          gufunc_signature::dim d;
          if (std::isdigit(static_cast<unsigned char>(tok[0]))) {
            for (char c : tok)
              if (!std::isdigit(static_cast<unsigned char>(c))) fail("a dimension name starts with a letter");
            d.size = static_cast<index_t>(std::stoll(tok));
          } else {
            d.name = tok;
          }
          dims.push_back(d);
          skip();
          if (i < text.size() && text[i] == ',') {
            ++i;
            continue;
          }
          if (i < text.size() && text[i] == ')') {
            ++i;
            break;
          }
          fail("expected ',' or ')'");
        }
      }
      if (static_cast<int>(dims.size()) > gufunc_max_core)
        fail("an operand has more than " + std::to_string(gufunc_max_core) + " core dimensions");
      list.push_back(std::move(dims));
      skip();
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      return;
    }
  };
  operands(sig.ins);
  skip();
  if (text.compare(i, 2, "->") != 0) fail("expected '->'");
  i += 2;
  operands(sig.outs);
  skip();
  if (i != text.size()) fail("unexpected text");
  return sig;
}

/// One operand of a call as its kernel walks it: strides along the loop dims
/// (0 where it broadcasts) and its core block.
struct gufunc_operand {
  std::array<index_t, max_rank> loop_strides{};
  int core_rank = 0;
  std::array<index_t, gufunc_max_core> core_dims{}, core_strides{};
};

struct gufunc_plan {
  shape loop;                              ///< the broadcast loop shape
  std::vector<shape> out_shapes;           ///< loop + each output's core dims
  std::vector<gufunc_operand> ops;         ///< inputs, then outputs
  std::map<std::string, index_t> sizes;    ///< the bound core dimensions
};

inline std::string gufunc_core_str(const std::vector<gufunc_signature::dim>& dims) {
  std::string s = "(";
  for (std::size_t k = 0; k < dims.size(); ++k)
    s += (k ? "," : "") + (dims[k].name.empty() ? std::to_string(dims[k].size) : dims[k].name);
  return s + ")";
}

/// The plan of a call with inputs `ins` and, when `outs` is not empty, outputs
/// `outs` (out=). Throws shape_error naming the signature, the dimension's
/// symbol and both extents, or the shapes that do not broadcast.
inline gufunc_plan plan_gufunc(const gufunc_signature& sig, const std::vector<operand_layout>& ins,
                               const std::vector<operand_layout>& outs, const char* name) {
  const std::string who = std::string(name) + " " + sig.text;
  if (ins.size() != sig.ins.size())
    throw value_error(who + ": " + std::to_string(ins.size()) + " inputs given, the signature has " +
                      std::to_string(sig.ins.size()));
  if (!outs.empty() && outs.size() != sig.outs.size())
    throw value_error(who + ": " + std::to_string(outs.size()) + " outputs given, the signature has " +
                      std::to_string(sig.outs.size()));
  gufunc_plan p;
  std::map<std::string, std::string> where;  // the operand that bound each name, for messages
  auto bind = [&](const std::vector<gufunc_signature::dim>& core, const operand_layout& l, const std::string& what) {
    const int c = static_cast<int>(core.size()), nd = l.shp.size();
    if (nd < c)
      throw shape_error(who + ": " + what + " of shape " + l.shp.str() + " has fewer dimensions than its core " +
                        gufunc_core_str(core));
    for (int k = 0; k < c; ++k) {
      const index_t e = l.shp[nd - c + k];
      const auto& d = core[static_cast<std::size_t>(k)];
      const std::string here = what + " (shape " + l.shp.str() + ")";
      if (d.name.empty()) {
        if (e != d.size)
          throw shape_error(who + ": core dimension " + std::to_string(k) + " of " + here + " is " + std::to_string(e) +
                            ", the signature fixes it at " + std::to_string(d.size));
      } else {
        auto it = p.sizes.find(d.name);
        if (it == p.sizes.end()) {
          p.sizes[d.name] = e;
          where[d.name] = here;
        } else if (it->second != e) {
          throw shape_error(who + ": dimension " + d.name + " is " + std::to_string(it->second) + " in " +
                            where[d.name] + " but " + std::to_string(e) + " in " + here);
        }
      }
    }
  };
  std::vector<shape> loops;
  for (std::size_t k = 0; k < ins.size(); ++k) {
    bind(sig.ins[k], ins[k], "input " + std::to_string(k));
    const int c = static_cast<int>(sig.ins[k].size());
    loops.push_back(shape(ins[k].shp.begin(), ins[k].shp.begin() + (ins[k].shp.size() - c)));
  }
  p.loop = broadcast_shapes(loops, (who + " (loop dimensions)").c_str());
  for (std::size_t j = 0; j < outs.size(); ++j) bind(sig.outs[j], outs[j], "output " + std::to_string(j));
  for (std::size_t j = 0; j < sig.outs.size(); ++j) {
    std::vector<index_t> dims(p.loop.begin(), p.loop.end());
    for (const auto& d : sig.outs[j]) {
      if (d.name.empty()) {
        dims.push_back(d.size);
        continue;
      }
      const auto it = p.sizes.find(d.name);
      if (it == p.sizes.end())
        throw shape_error(who + ": dimension " + d.name + " of output " + std::to_string(j) +
                          " is set by no input; give the output (ufunc::out)");
      dims.push_back(it->second);
    }
    if (static_cast<int>(dims.size()) > max_rank)
      throw shape_error(who + ": output " + std::to_string(j) + " would have " + std::to_string(dims.size()) +
                        " dimensions (at most " + std::to_string(max_rank) + ")");
    p.out_shapes.push_back(shape(dims));
    if (!outs.empty() && outs[j].shp != p.out_shapes.back())
      throw shape_error(who + ": output " + std::to_string(j) + " has shape " + outs[j].shp.str() + ", the call's is " +
                        p.out_shapes.back().str());
  }
  const int R = p.loop.size();
  auto operand = [&](const operand_layout& l, int c) {
    gufunc_operand o;
    const int nd = l.shp.size(), lr = nd - c;
    for (int d = 0; d < R; ++d) {  // loop dim d of the call is the operand's dim d - (R - lr)
      const int od = d - (R - lr);
      o.loop_strides[static_cast<std::size_t>(d)] =
          od >= 0 && l.shp[od] != 1 ? l.strides[static_cast<std::size_t>(od)] : 0;
    }
    o.core_rank = c;
    for (int k = 0; k < c; ++k) {
      o.core_dims[static_cast<std::size_t>(k)] = l.shp[lr + k];
      o.core_strides[static_cast<std::size_t>(k)] = l.strides[static_cast<std::size_t>(lr + k)];
    }
    return o;
  };
  for (std::size_t k = 0; k < ins.size(); ++k) p.ops.push_back(operand(ins[k], static_cast<int>(sig.ins[k].size())));
  for (std::size_t j = 0; j < sig.outs.size(); ++j) {
    const operand_layout l = outs.empty() ? contiguous_layout(nullptr, 1, p.out_shapes[j]) : outs[j];
    p.ops.push_back(operand(l, static_cast<int>(sig.outs[j].size())));
  }
  return p;
}

/// An input whose core blocks a GPU block of loop elements stages through
/// shared memory before calling f (cuda/gufunc.hpp): one thread a loop element
/// reading its own block straight from memory leaves the warp's loads
/// uncoalesced (a dot over rows of 64 floats read at 0.23 of a copy's rate).
struct gufunc_stage {
  bool on = false;
  index_t count = 0;        ///< elements of one core block
  index_t pad = 0;          ///< elements from one staged block to the next
  std::size_t offset = 0;   ///< bytes into the block's shared memory
  bool vec16 = false;       ///< copied in 16-byte loads
  bool async = false;       ///< copied with cp.async where the device has it (sm_80 on)
  bool async16 = false;     ///< async in 16-byte copies (vec16 too); pad as below
};

/// Which inputs to stage, for blocks of `block` loop elements within `budget`
/// bytes of shared memory (set in `*bytes`); a core block copied without
/// 16-byte loads has at least `min_bytes`. `size[k]`: input k's element size
/// (0: never staged); `addr[k]`: its first core block's address. Staged: inputs
/// whose core is dense row-major, of 2 or more elements, and whose loop
/// elements' blocks follow each other (element e's block at e * count, so a
/// block of loop elements reads one contiguous range), in operand order while
/// they fit. Padding: a block's stride in 4-byte words (in elements for wider
/// types) is odd, so threads reading one core position hit distinct banks.
/// Copied with cp.async (no registers between): blocks of at least `async_min`
/// bytes of 4-, 8- or 16-byte elements at addresses aligned to their size. Such
/// blocks fill the shared memory, which then caps the resident threads, and the
/// register copy kept too few bytes in flight (a dot over rows of 64 floats:
/// 0.74 of a copy's rate, cp.async 0.79-0.81); smaller blocks copy faster by
/// 16-byte loads (rows of 16 floats: 0.95 against 0.78). Where 16-byte loads
/// can copy them too (vec16), cp.async copies 16 bytes at a time (async16), a
/// quarter of the instructions of 4-byte copies: the stride must then be a
/// multiple of 16 bytes, and 4 mod 8 words keeps threads reading one core
/// position to 4 a bank (H200, the dot over rows of 64 floats: 0.79 -> 0.84-0.85
/// of a copy's rate; an unpadded stride, 32 a bank, 0.23 in a probe; bench/NOTES.md,
/// session 28).
inline std::vector<gufunc_stage> plan_gufunc_staging(const gufunc_plan& p, const std::vector<std::size_t>& size,
                                                     const std::vector<std::uintptr_t>& addr, index_t block,
                                                     std::size_t budget, std::size_t* bytes, std::size_t min_bytes = 128,
                                                     std::size_t async_min = 256) {
  std::vector<gufunc_stage> st(size.size());
  std::size_t used = 0;
  const int R = p.loop.size();
  for (std::size_t k = 0; k < size.size(); ++k) {
    const gufunc_operand& o = p.ops[k];
    const std::size_t sz = size[k];
    if (sz == 0) continue;
    index_t c = 1;
    bool dense = true;
    for (int d = o.core_rank - 1; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      dense = dense && (o.core_dims[du] == 1 || o.core_strides[du] == c);
      c *= o.core_dims[du];
    }
    index_t run = c;  // the loop dims' row-major strides, in elements
    for (int d = R - 1; d >= 0 && dense; --d) {
      dense = p.loop[d] == 1 || o.loop_strides[static_cast<std::size_t>(d)] == run;
      run *= p.loop[d];
    }
    if (!dense || c < 2 || static_cast<std::size_t>(c) > budget) continue;
    const bool vec16 = 16 % sz == 0 && (static_cast<std::size_t>(c) * sz) % 16 == 0 && addr[k] % 16 == 0;
    // Blocks copied element by element only from min_bytes up: a 3x3 solve
    // read its 36-byte blocks in place at 0.76 of a copy's rate, staged at
    // 0.36 (the copy's divisions and 4-byte loads cost more than L1 saves).
    if (!vec16 && static_cast<std::size_t>(c) * sz < min_bytes) continue;
    const bool async = (sz == 4 || sz == 8 || sz == 16) && static_cast<std::size_t>(c) * sz >= async_min && addr[k] % sz == 0;
    const bool async16 = async && vec16;
    const std::size_t unit = std::max<std::size_t>(4, sz);
    index_t pad = c;
    if (async16)
      while ((static_cast<std::size_t>(pad) * sz) % 16 != 0 || (static_cast<std::size_t>(pad) * sz / 4) % 8 != 4) ++pad;
    else
      while ((static_cast<std::size_t>(pad) * sz) % unit != 0 || ((static_cast<std::size_t>(pad) * sz / unit) % 2) == 0) ++pad;
    const std::size_t need = (static_cast<std::size_t>(pad) * sz * static_cast<std::size_t>(block) + 15) / 16 * 16;
    if (used + need > budget) continue;
    st[k].on = true;
    st[k].count = c;
    st[k].pad = pad;
    st[k].offset = used;
    st[k].vec16 = vec16;
    st[k].async = async;
    st[k].async16 = async16;
    used += need;
  }
  *bytes = used;
  return st;
}

}  // namespace ufunc::detail
