#!/usr/bin/env python3
"""lavapipe's cost per sample for `quadstep bench sampler --peer FILE`.

For each lavapipe sampling scene of `benches/paired.py`'s SAMPLER table (512², one thread, with
16 samples per pixel and with none), runs lvp on both and writes the pair under the quadstep
case that samples the same way:

  {"bilinear_rgba8_2d_wide": {"with": LVP, "without": LVP, "samples": 4194304}, ...}

LVP is lvp's output line ({"iterations", "median_ms", "min_ms", "max_ms"}); quadstep reads
lavapipe's figure as (with.median_ms - without.median_ms) * 1e6 / samples ns per sample, the
in-shader cost of one sample (what `benches/lavapipe/measure.sh` prints).

Usage: benches/lavapipe/peer.py [--iterations N] OUT.json   (builds lvp into target/lvp)"""
import argparse, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from paired import ICD, LVP, LVP_SRC, ROOT, SAMPLER, SCENE_DIR, run  # noqa: E402


def lvp(scene, iterations):
    out = run([LVP, os.path.join(SCENE_DIR, scene), "--warmup", "2", "--iterations",
               str(iterations)], {"VK_ICD_FILENAMES": ICD, "LP_NUM_THREADS": "1"})
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("out")
    a = ap.parse_args()
    run(["cargo", "build", "--release", "--manifest-path", os.path.join(LVP_SRC, "Cargo.toml"),
         "--target-dir", os.path.join(ROOT, "target", "lvp")])
    peer = {}
    for scene, (case, _) in SAMPLER.items():
        peer[case] = {"with": lvp(f"{scene}.16.json", a.iterations),
                      "without": lvp(f"{scene}.0.json", a.iterations),
                      "samples": 16 * 512 * 512}
        w, wo = peer[case]["with"]["median_ms"], peer[case]["without"]["median_ms"]
        print(f"{case}: {(w - wo) * 1e6 / (16 * 512 * 512):.2f} ns/sample", file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump(peer, f, indent=1)


if __name__ == "__main__":
    main()
