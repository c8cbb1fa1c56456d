#!/usr/bin/env python3
"""Checks the include graph of include/ufunc against docs/ARCHITECTURE.md:
- no cycles (no header includes, directly or not, a header that includes it);
- detail headers include only other detail headers and the vocabulary headers
  (types, no operations), never a public operation header;
- the vocabulary headers include no operation header (public or detail dispatch);
- the runtime seam: no CUDA runtime call (`cudaXxx(`) outside include/ufunc/detail/cuda/,
  except the calls of error.hpp's checking macros (RUNTIME_CALL_EXCEPTIONS, by name and count);
- kernel files (detail/cuda/kernels/) launch nothing (no `<<<`: their launchers live in
  the dispatch layer) and include only other kernel files and the headers that
  describe operands (never a dispatch header of detail/cuda/);
- the sharded wing (sharded/) is included by sharded.hpp alone (it runs the public
  operations per shard, so it sits above them);
- the build's backend is tested (`#if ... UFUNC_BACKEND_CUDA`) only where BACKEND_GUARDS
  allows, at most that many times: config.hpp turns it into types and the
  UFUNC_CUDA_BACKEND include, the CUDA backend's own headers guard themselves, and
  error.hpp and stream.hpp define what exists in CUDA builds only.
Prints the violations and exits 1 if there are any."""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "ufunc")
# Public headers that define types a call passes around, not operations.
VOCABULARY = {"config.hpp", "error.hpp", "shape.hpp", "stream.hpp", "axis.hpp", "vec.hpp", "ops.hpp", "out.hpp", "expression.hpp",
              "launch_config.hpp", "linalg_variants.hpp", "array_view.hpp", "array.hpp", "pinned_array.hpp",
              "sharded_array.hpp", "communicator.hpp", "file_communicator.hpp"}
# Detail headers the vocabulary headers may use (memory management, argument traits,
# the runtime seam: each backend's runtime<Target>, which stream.hpp includes).
VOCABULARY_DETAIL = {"detail/memory.hpp", "detail/arg_traits.hpp", "detail/element.hpp", "detail/expr_tree.hpp",
                     "detail/expression.hpp", "detail/shard_streams.hpp", "detail/view_errors.hpp",
                     "detail/sharded.hpp", "detail/file_transport.hpp", "detail/comm_transport.hpp", "detail/out_args.hpp", "detail/op_traits.hpp", "detail/host/runtime.hpp", "detail/cuda/runtime.hpp", "detail/trace.hpp"}
# (also a backend header named through config.hpp's UFUNC_CUDA_BACKEND("cuda/x.hpp"))
INCLUDE = re.compile(r'^\s*#\s*include\s+(?:UFUNC_CUDA_BACKEND\(\s*)?"([^"]+)"', re.M)
# A CUDA runtime call: the CUDA backend's folder makes them; everything else goes
# through runtime<Target> (detail/cuda/runtime.hpp, detail/host/runtime.hpp).
RUNTIME_CALL = re.compile(r"\bcuda[A-Z][A-Za-z]*\(")
RUNTIME_FOLDER = "detail/cuda/"
KERNELS_FOLDER = "detail/cuda/kernels/"
# What kernels may use from detail/cuda/: the widened-sum types (device code) and
# the launch utilities' pure helpers (alignment tests).
KERNEL_DETAIL = {"detail/cuda/wide_sum.hpp", "detail/cuda/launch.hpp"}
# The one exception: error.hpp's checking macros (throw_cuda_error names the error;
# UFUNC_CUDA_CHECK and check_launch clear it; check_launch waits under
# UFUNC_DEBUG_SYNC). Exactly these calls, at most this many times each.
RUNTIME_CALL_EXCEPTIONS = {
    "error.hpp": {"cudaGetErrorName": 1, "cudaGetErrorString": 1, "cudaGetLastError": 2, "cudaStreamSynchronize": 1},
}

# Where `#if ... UFUNC_BACKEND_CUDA` may appear, and how often.
BACKEND_GUARDS = {"config.hpp": 2, "error.hpp": 1, "stream.hpp": 1, "detail/cuda/runtime.hpp": 1,
                  "detail/cuda/launch.hpp": 1, "detail/cuda/nccl.hpp": 1}
BACKEND_GUARD = re.compile(r"^\s*#\s*(?:if|elif|ifdef|ifndef)\b.*\bUFUNC_BACKEND_CUDA\b", re.M)


# At most this many lines of `namespace ...detail { ... }` in one public header,
# and in all of them together.
PUBLIC_DETAIL_PER_HEADER = 70
PUBLIC_DETAIL_TOTAL = 299
DETAIL_OPEN = re.compile(r"^namespace (?:ufunc::)?(?:\w+::)?detail \{")
DETAIL_CLOSE = re.compile(r"^\}  // namespace (?:ufunc::)?(?:\w+::)?detail\b")


def public_detail_lines(path):
    n, inside = 0, False
    for line in open(path):
        if not inside and DETAIL_OPEN.match(line):
            inside = True
        if inside:
            n += 1
            if DETAIL_CLOSE.match(line):
                inside = False
    return n


def headers():
    for d, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith((".hpp", ".cuh")):
                yield os.path.relpath(os.path.join(d, f), ROOT).replace(os.sep, "/")


def includes(h):
    text = open(os.path.join(ROOT, h)).read()
    base = os.path.dirname(h)
    for inc in INCLUDE.findall(text):
        yield os.path.normpath(os.path.join(base, inc)).replace(os.sep, "/")


def main():
    graph = {h: set(includes(h)) for h in headers()}
    bad = []
    for h, incs in graph.items():
        for i in incs:
            if i not in graph:
                bad.append(f"{h}: includes {i}, which does not exist")
    # Cycles: a depth-first search over the graph.
    state, stack = {}, []

    def visit(h):
        state[h] = 1
        stack.append(h)
        for i in sorted(graph.get(h, ())):
            if state.get(i) == 1:
                bad.append("cycle: " + " -> ".join(stack[stack.index(i):] + [i]))
            elif i in graph and i not in state:
                visit(i)
        stack.pop()
        state[h] = 2

    for h in sorted(graph):
        if h not in state:
            visit(h)
    for h, incs in graph.items():
        for i in incs:
            public_op = not i.startswith("detail/") and i not in VOCABULARY
            if h.startswith("detail/") and public_op:
                bad.append(f"{h}: a detail header includes the public operation header {i}")
            if h in VOCABULARY and (public_op or (i.startswith("detail/") and i not in VOCABULARY_DETAIL)):
                bad.append(f"{h}: a vocabulary header includes {i}")
    for h in sorted(graph):
        if h.startswith(RUNTIME_FOLDER):
            continue
        calls = collections.Counter(m[:-1] for m in RUNTIME_CALL.findall(open(os.path.join(ROOT, h)).read()))
        allowed = RUNTIME_CALL_EXCEPTIONS.get(h, {})
        for call, n in sorted(calls.items()):
            if n > allowed.get(call, 0):
                bad.append(f"{h}: calls {call} ({n}x) outside {RUNTIME_FOLDER}; use runtime<Target> "
                           "(detail/cuda/runtime.hpp, detail/host/runtime.hpp)")
    for h in sorted(graph):
        if not h.startswith(KERNELS_FOLDER):
            continue
        if "<<<" in open(os.path.join(ROOT, h)).read():
            bad.append(f"{h}: a kernel file launches a kernel (<<<); launchers belong in the dispatch layer")
        for i in sorted(graph[h]):
            if i.startswith(RUNTIME_FOLDER) and not i.startswith(KERNELS_FOLDER) and i not in KERNEL_DETAIL:
                bad.append(f"{h}: a kernel file includes the dispatch header {i}")
    for h, incs in graph.items():
        for i in incs:
            if i.startswith("sharded/") and h != "sharded.hpp" and not h.startswith("sharded/"):
                bad.append(f"{h}: includes the sharded wing's {i} (only sharded.hpp does)")
    for h in sorted(graph):
        n = len(BACKEND_GUARD.findall(open(os.path.join(ROOT, h)).read()))
        if n > BACKEND_GUARDS.get(h, 0):
            bad.append(f"{h}: tests UFUNC_BACKEND_CUDA {n}x (allowed {BACKEND_GUARDS.get(h, 0)}); dispatch on the "
                       "target (target_traits, runtime<Target>, pipeline<Target>, collectives<Target>) or include "
                       "the backend through UFUNC_CUDA_BACKEND (config.hpp)")
    # The public folder's own `namespace ...detail` blocks: a public header keeps
    # the pieces of its own types (traits, small checks); protocols, transports
    # and engines live in detail/ (issue 38's target for the whole folder: < 300).
    total = 0
    for h in sorted(graph):
        if "/" in h:
            continue
        n = public_detail_lines(os.path.join(ROOT, h))
        total += n
        if n > PUBLIC_DETAIL_PER_HEADER:
            bad.append(f"{h}: {n} lines of namespace detail (at most {PUBLIC_DETAIL_PER_HEADER} in a public "
                       "header); move them into a header of detail/")
    if total > PUBLIC_DETAIL_TOTAL:
        bad.append(f"the public headers hold {total} lines of namespace detail (at most {PUBLIC_DETAIL_TOTAL})")
    for b in bad:
        print(b)
    print(f"check_layers: {len(graph)} headers, {len(bad)} violations ({total} lines of namespace detail in the "
          "public headers)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
