#!/bin/sh
# Regenerate expected.txt from cases.txt with the reference tessellator. MESA: a Mesa source
# tree (its src/gallium/auxiliary/tessellator/tessellator.{cpp,hpp} are compiled here).
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=${MESA:?set MESA to a Mesa source tree}/src/gallium/auxiliary/tessellator
tmp=$(mktemp -d)
mkdir -p "$tmp/util" && : > "$tmp/util/macros.h"
cp "$src/tessellator.cpp" "$src/tessellator.hpp" "$tmp/"
g++ -O1 -I"$tmp" -o "$tmp/tessref" "$here/reference.cpp" "$tmp/tessellator.cpp"
"$tmp/tessref" < "$here/cases.txt" > "$here/expected.txt"
rm -rf "$tmp"
