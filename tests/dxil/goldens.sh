#!/bin/sh
# Writes tests/dxil/golden/*.ll: llvm-dis-14's text of the bitcode of each container listed in
# tests/dxil/golden/SAMPLE (the DXIL part's payload, 24 bytes into the part). Run once from
# the repository root when the sample changes: sh tests/dxil/goldens.sh [CORPUS_DIR]
set -eu
corpus=${1:-../shared/dxil/vkd3d-proton}
out=tests/dxil/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$out/SAMPLE" | while read -r rel; do
    [ -n "$rel" ] || continue
    python3 - "$corpus/$rel" "$tmp/x.bc" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
for i in range(struct.unpack_from('<I', d, 28)[0]):
    off = struct.unpack_from('<I', d, 32 + 4 * i)[0]
    if d[off:off + 4] == b'DXIL':
        p = off + 8
        start = p + 8 + struct.unpack_from('<I', d, p + 16)[0]
        open(sys.argv[2], 'wb').write(d[start:start + struct.unpack_from('<I', d, p + 20)[0]])
PY
    name=$(echo "$rel" | sed 's|/|__|g; s|\.dxil$|.ll|')
    llvm-dis-14 "$tmp/x.bc" -o - | sed '1,2d' > "$out/$name"
done
