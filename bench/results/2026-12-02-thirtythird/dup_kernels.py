# Kernels compiled in more than one test unit: PTX lines of each .entry (up to the next
# entry, so device functions printed after a kernel count with it; cub::EmptyKernel
# dropped, it carries what follows it), per unit and shared between units.
#   usage: python3 dup_kernels.py a.ptx b.ptx ...   (nvcc -ptx of test units)
import itertools, re, sys
units = {}
for f in sys.argv[1:]:
    txt = open(f).read()
    ents = {m.group(1): m.start() for m in re.finditer(r'^\.(?:visible |weak )*\.entry (\S+)\(', txt, re.M)}
    pos = sorted(ents.values()) + [len(txt)]
    sz = {n: txt.count('\n', p, pos[pos.index(p) + 1]) for n, p in ents.items()}
    sz.pop('_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv', None)
    units[f.split('/')[-1].replace('.ptx', '')] = sz
for u, s in units.items():
    shared = sum(v for k, v in s.items() if any(k in o for n, o in units.items() if n != u))
    print(f"{u:20s} kernels {len(s):4d} lines {sum(s.values()):8d} also compiled in another unit: {shared / sum(s.values()):.0%}")
for a, b in itertools.combinations(units, 2):
    sh = sum(units[a][k] for k in units[a] if k in units[b])
    print(f"{a:20s} {b:20s} shared {sh:7d} ({sh / sum(units[a].values()):.0%} of the first, {sh / sum(units[b].values()):.0%} of the second)")
for n in range(3, len(units) + 1):
    for grp in [tuple(units)[:n]]:
        total = sum(sum(units[u].values()) for u in grp)
        union = {}
        for u in grp: union.update(units[u])
        print(f"one unit of {', '.join(grp)}: {sum(union.values())} lines against {total} ({sum(union.values()) / total:.2f})")
