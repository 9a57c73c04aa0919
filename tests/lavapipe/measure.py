#!/usr/bin/env python3
"""Sensitivity of the reference images to a tiny coordinate move: re-renders the scenes that
take a `shift` push constant (vec2, in level-0 texels) with the coordinate moved by 1/256 and
1/512 texel along u and v, and prints how far the output moves from expected/<scene>.lvp.f32
(max |diff| over all channels, the 99.9th percentile, and the number of changed values).
Needs lavapipe. Usage: tests/lavapipe/measure.py [scene...]   (LVP=... overrides lvp)."""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LVP = os.environ.get("LVP", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../target/lvp/release/lvp"))
ENV = dict(os.environ)
ENV.setdefault("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
DEFAULT = ["trilinear", "addr_repeat", "addr_border_opaque_white", "dref_less_or_equal",
           "fmt_srgb", "fmt_r16f", "lod_min_max"]
SHIFTS = [(1 / 256, 0.0), (0.0, 1 / 256), (1 / 512, 0.0), (1 / 256, 1 / 256)]


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%df" % (len(b) // 4), b)


def render(scene_path, shift):
    with open(scene_path) as f:
        s = json.load(f)
    s["push_constants"] = list(shift)
    scenes_dir = os.path.dirname(scene_path)
    with tempfile.TemporaryDirectory() as tmp:
        # keep relative paths valid: write the variant next to the original scene
        fd, variant = tempfile.mkstemp(suffix=".json", dir=scenes_dir)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(s, f)
            out = os.path.join(tmp, "out.f32")
            subprocess.run([LVP, variant, "--out-raw", out], check=True, env=ENV,
                           stdout=subprocess.DEVNULL)
            return read(out)
        finally:
            os.remove(variant)


def main():
    names = sys.argv[1:] or DEFAULT
    print("| scene | shift (texels) | max abs diff | 99.9th pct | changed values |")
    print("| --- | --- | --- | --- | --- |")
    for n in names:
        ref = read(os.path.join(HERE, "expected", n + ".lvp.f32"))
        for sh in SHIFTS:
            got = render(os.path.join(HERE, "scenes", n + ".json"), sh)
            d = sorted(abs(a - b) for a, b in zip(ref, got))
            changed = sum(1 for x in d if x > 0)
            p999 = d[min(len(d) - 1, int(len(d) * 0.999))]
            print("| %s | (%s, %s) | %.3g | %.3g | %d / %d |" % (
                n, fmt(sh[0]), fmt(sh[1]), d[-1], p999, changed, len(d)))


def fmt(x):
    return "0" if x == 0 else "1/%d" % round(1 / x)


if __name__ == "__main__":
    main()
