#!/bin/bash
# compiler launcher: nvcc's --time per source into $OUT/tu/<file>.time.csv
src=""; prev=""
for a in "$@"; do [ "$prev" = "-c" ] && src="$a"; prev="$a"; done
mkdir -p $OUT/tu
exec "$@" --time $OUT/tu/$(basename "$src").time.csv
