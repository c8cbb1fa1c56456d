#!/bin/bash
# compiler launcher: adds --time and --keep per source, then summarises the PTX's entries
src=""; prev=""
for a in "$@"; do [ "$prev" = "-c" ] && src="$a"; prev="$a"; done
name=$(basename "$src")
K=/tmp/keep/$name; mkdir -p $K $OUT/tu
"$@" --time $OUT/tu/$name.time.csv --keep --keep-dir $K
rc=$?
for p in $K/*.ptx; do
  [ -f "$p" ] || continue
  awk '/\.entry /{n=$3; s=NR} /^}/{if(n!=""){print NR-s, n; n=""}}' "$p" | sed 's/($//' > $OUT/tu/$name.entries
done
rm -rf $K
exit $rc
